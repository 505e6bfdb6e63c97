package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/stubs"
	"github.com/orprof/orprof/stubs/stubstest"
)

// loadEnv makes the test binary register the C backend at that path before dispatching, so
// children started for --device see it too.
const loadEnv = "ORPROF_TEST_LOAD"

// TestMain lets the test binary stand in for orprof: runConformance re-executes
// os.Executable() as `EXE conformance ...` for each check.
func TestMain(m *testing.M) {
	// Children are race-enabled test binaries; do not let each sleep 1 s at exit.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	stubs.Register("notenabled", stubs.Default("notenabled"))
	if p := os.Getenv(loadEnv); p != "" {
		if _, err := stubs.Load(p); err != nil {
			panic(err)
		}
	}
	if len(os.Args) > 1 && os.Args[1] == "conformance" {
		os.Exit(runConformance(os.Args[2:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	if fixturesDir != "" {
		os.RemoveAll(fixturesDir)
	}
	os.Exit(code)
}

var (
	fixturesOnce sync.Once
	fixtures     map[string]string
	fixturesErr  error
	fixturesDir  string
)

// fixture returns the library built from stubs/testdata/good.c with macro (or none for "good").
func fixture(t *testing.T, name string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	fixturesOnce.Do(func() {
		fixturesDir, fixturesErr = os.MkdirTemp("", "orprof-conformance")
		if fixturesErr != nil {
			return
		}
		fixtures = map[string]string{}
		for _, m := range []string{"good", "CRASH_ELAPSED_NULL", "HANG_SYNCHRONIZE", "NO_GETSTUBS", "SMALL_STRUCT", "ABI_VERSION=2", "BREAK_HOST_GAP"} {
			so := filepath.Join(fixturesDir, "lib"+strings.ToLower(strings.ReplaceAll(m, "=", ""))+".so")
			args := []string{"-shared", "-fPIC", "-O2", "-I../../stubs", "-o", so, "../../stubs/testdata/good.c", "-lpthread"}
			if m != "good" {
				args = append(args, "-D"+m)
			}
			if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
				fixturesErr = &exec.Error{Name: "gcc " + m + ": " + string(b), Err: err}
				return
			}
			fixtures[m] = so
		}
	})
	require.NoError(t, fixturesErr)
	return fixtures[name]
}

func conformance(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runConformance(args, &o, &e)
	return code, o.String(), e.String()
}

func lines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }

func allPass(except map[string]string) []string {
	var out []string
	for _, c := range stubstest.Cases() {
		if l, ok := except[c.Name]; ok {
			out = append(out, l)
		} else {
			out = append(out, "PASS "+c.Name)
		}
	}
	return out
}

func TestConformanceGoodLibrary(t *testing.T) {
	code, out, errOut := conformance(t, "--lib", fixture(t, "good"))
	assert.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut)
	assert.Equal(t, append(allPass(nil), "14 passed, 0 failed"), lines(out))
}

// A backend that crashes fails that check only; the run goes on and closes with the count.
func TestConformanceCrashIsolated(t *testing.T) {
	code, out, _ := conformance(t, "--lib", fixture(t, "CRASH_ELAPSED_NULL"))
	assert.Equal(t, 1, code)
	assert.Equal(t, append(allPass(map[string]string{"elapsed-null": "FAIL elapsed-null: killed by signal SIGSEGV"}),
		"13 passed, 1 failed"), lines(out))
}

func TestConformanceHangIsolated(t *testing.T) {
	code, out, _ := conformance(t, "--lib", fixture(t, "HANG_SYNCHRONIZE"), "--timeout", "3s")
	assert.Equal(t, 1, code)
	assert.Equal(t, append(allPass(map[string]string{"synchronize": "FAIL synchronize: timed out after 3s"}),
		"13 passed, 1 failed"), lines(out))
}

func TestConformanceFailedCheck(t *testing.T) {
	code, out, _ := conformance(t, "--lib", fixture(t, "BREAK_HOST_GAP"))
	assert.Equal(t, 1, code)
	l := lines(out)
	require.Len(t, l, 15)
	assert.Regexp(t, `^FAIL elapsed-host-gap: two records 20ms apart on an idle device measured .* µs`, l[6])
	assert.Equal(t, "13 passed, 1 failed", l[14])
}

func TestConformanceLoadFailures(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.so")
	cases := []struct {
		name, lib string
		want      []string
	}{
		{"missing file", missing, []string{missing, "no such file"}},
		{"no entry point", fixture(t, "NO_GETSTUBS"), []string{"libno_getstubs.so", "no ORProf_GetStubs symbol"}},
		{"struct too small", fixture(t, "SMALL_STRUCT"), []string{"libsmall_struct.so", "96 bytes", "at least 112"}},
		{"ABI mismatch", fixture(t, "ABI_VERSION=2"), []string{"libabi_version2.so", "ABI version 2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := conformance(t, "--lib", c.lib)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			require.Len(t, lines(errOut), 1, errOut)
			assert.True(t, strings.HasPrefix(errOut, "orprof conformance: "), errOut)
			for _, w := range c.want {
				assert.Contains(t, errOut, w)
			}
		})
	}
}

func TestConformanceUsage(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--lib", "a.so", "--device", "x"},
		{"--device", "nosuchdevice"},
		{"--lib", "a.so", "extra"},
		{"--bogus"},
		{"--device", "x", "--timeout", "0s"},
	} {
		code, out, errOut := conformance(t, args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, out)
		assert.Len(t, lines(errOut), 1, "%v: %s", args, errOut)
	}
	code, out, _ := conformance(t, "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "usage: orprof conformance")
}

func TestConformanceRegisteredDevice(t *testing.T) {
	code, out, _ := conformance(t, "--device", "notenabled")
	assert.Equal(t, 1, code)
	l := lines(out)
	require.Len(t, l, 15)
	assert.Equal(t, "FAIL enabled: Enabled() = false: the backend says it is not usable", l[0])
	assert.Equal(t, "0 passed, 14 failed", l[14])

	// A C backend registered with stubs.Load is found by its deviceName, here and in children.
	lib := fixture(t, "good")
	name, err := stubs.Load(lib)
	require.NoError(t, err)
	defer stubs.Unregister(name)
	t.Setenv(loadEnv, lib)
	code, out, errOut := conformance(t, "--device", name)
	assert.Equal(t, 0, code, errOut)
	l = lines(out)
	require.Len(t, l, 15)
	assert.Equal(t, "14 passed, 0 failed", l[14])
}
