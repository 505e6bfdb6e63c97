package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
		for _, m := range []string{"good", "CRASH_ELAPSED_NULL", "HANG_SYNCHRONIZE", "NO_GETSTUBS", "SMALL_STRUCT", "ABI_VERSION=2",
			"BREAK_HOST_GAP", "OPENREG_SEMANTICS", "BREAK_ELAPSED_SCALE", "GLOBAL_RANGES", "GLOBAL_DEVICE", "EVENT_POOL=4096",
			"THREAD_EVENTS"} {
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
	assert.Equal(t, append(allPass(nil), fmt.Sprintf("%d passed, 0 failed", len(stubstest.Cases()))), lines(out))
}

// -v prints under each check's line the rule it enforces.
func TestConformanceVerboseNoRace(t *testing.T) {
	skipConformanceUnderRace(t)
	code, out, errOut := conformance(t, "--lib", fixture(t, "good"), "-v")
	assert.Equal(t, 0, code, errOut)
	var want []string
	for _, c := range stubstest.Cases() {
		want = append(want, "PASS "+c.Name, "    "+c.Desc)
	}
	want = append(want, fmt.Sprintf("%d passed, 0 failed", len(stubstest.Cases())))
	assert.Equal(t, want, lines(out))
}

// PyTorch's own reference semantics pass, with the checks they give nothing to observe skipped
// by name; OpenReg (Go) passes the same way. The wall time of the whole run is logged.
func TestConformanceReferenceBackendsNoRace(t *testing.T) {
	skipConformanceUnderRace(t)
	n := len(stubstest.Cases())
	for _, c := range []struct {
		name  string
		args  []string
		skips map[string]string
	}{
		{"OpenReg semantics in C", []string{"--lib", fixture(t, "OPENREG_SEMANTICS")}, map[string]string{
			"ranges":                "SKIP ranges: " + noAnnotationTool,
			"ranges-per-thread":     "SKIP ranges-per-thread: " + noAnnotationTool,
			"elapsed-spans-work":    "SKIP elapsed-spans-work: no device-work hook (the C ABI's queueWork is NULL)",
			"synchronize-waits-all": "SKIP synchronize-waits-all: no device-work hook (the C ABI's queueWork is NULL)",
		}},
		{"openreg", []string{"--device", "openreg"}, map[string]string{
			"ranges":            "SKIP ranges: " + noAnnotationTool,
			"ranges-per-thread": "SKIP ranges-per-thread: " + noAnnotationTool,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			code, out, errOut := conformance(t, c.args...)
			t.Logf("%v: %v for %d checks, each in its own process", c.args, time.Since(start).Round(time.Millisecond), n)
			assert.Equal(t, 0, code, errOut)
			assert.Equal(t, append(allPass(c.skips), fmt.Sprintf("%d passed, 0 failed, %d skipped", n-len(c.skips), len(c.skips))),
				lines(out))
		})
	}
}

const noAnnotationTool = "no annotation tool: RangePop with nothing pushed succeeded, so push and pop are observable no-ops (as OpenReg's)"

// Each of the defects fails its one check and nothing else through the command too.
func TestConformanceDefectsNoRace(t *testing.T) {
	if conformanceRaceEnabled {
		t.Skip("verdicts only: run without -race (CI's NoRace step)")
	}
	n := len(stubstest.Cases())
	for _, c := range []struct{ macro, check, reason string }{
		{"BREAK_ELAPSED_SCALE", "elapsed-host-gap", "Elapsed of two records a host sleep apart"},
		{"GLOBAL_RANGES", "ranges-per-thread", "a RangePop on a second thread, which pushed nothing, succeeded"},
		{"GLOBAL_DEVICE", "device-per-thread", "a second thread's Record reported device 1 while this thread was inside OnEachDevice at device 1"},
		{"EVENT_POOL=4096", "events-outstanding", "event 4097 of 100000 outstanding: Record: testreg: record: event pool exhausted"},
		{"THREAD_EVENTS", "events-cross-threads", "Elapsed on a second thread of events recorded on a thread that has exited: testreg: elapsed: event recorded on another thread"},
	} {
		t.Run(c.macro, func(t *testing.T) {
			code, out, _ := conformance(t, "--lib", fixture(t, c.macro))
			assert.Equal(t, 1, code)
			l := lines(out)
			require.Len(t, l, n+1)
			for i, name := range stubstest.Names() {
				if name == c.check {
					assert.True(t, strings.HasPrefix(l[i], "FAIL "+c.check+": "+c.reason), l[i])
				} else {
					assert.Equal(t, "PASS "+name, l[i])
				}
			}
			assert.Equal(t, fmt.Sprintf("%d passed, 1 failed", n-1), l[n])
		})
	}
}

// A backend that crashes fails that check only; the run goes on and closes with the count.
func TestConformanceCrashIsolatedNoRace(t *testing.T) {
	skipConformanceUnderRace(t)
	code, out, _ := conformance(t, "--lib", fixture(t, "CRASH_ELAPSED_NULL"))
	assert.Equal(t, 1, code)
	n := len(stubstest.Cases())
	assert.Equal(t, append(allPass(map[string]string{"elapsed-null": "FAIL elapsed-null: killed by signal SIGSEGV"}),
		fmt.Sprintf("%d passed, 1 failed", n-1)), lines(out))
}

// A backend whose synchronize never returns fails the checks that call it, each after --timeout.
// Without -race: under it, events-outstanding's 100,000 events alone take about 4 s, more than the
// short limit that keeps this test quick. The limit leaves the passing checks room on a machine
// shared with other work, where 2 s let events-outstanding or event-lifetime time out too.
func TestConformanceHangIsolatedNoRace(t *testing.T) {
	if conformanceRaceEnabled {
		t.Skip("a 6 s limit per check: run without -race (CI's NoRace step)")
	}
	code, out, _ := conformance(t, "--lib", fixture(t, "HANG_SYNCHRONIZE"), "--timeout", "6s")
	assert.Equal(t, 1, code)
	n := len(stubstest.Cases())
	assert.Equal(t, append(allPass(map[string]string{
		"synchronize":              "FAIL synchronize: timed out after 6s",
		"synchronize-keeps-device": "FAIL synchronize-keeps-device: timed out after 6s",
		"synchronize-waits-all":    "FAIL synchronize-waits-all: timed out after 6s",
	}), fmt.Sprintf("%d passed, 3 failed", n-3)), lines(out))
}

func TestConformanceFailedCheckNoRace(t *testing.T) {
	skipConformanceUnderRace(t)
	code, out, _ := conformance(t, "--lib", fixture(t, "BREAK_HOST_GAP"))
	assert.Equal(t, 1, code)
	l := lines(out)
	n := len(stubstest.Cases())
	require.Len(t, l, n+1)
	assert.Regexp(t, `^FAIL elapsed-host-gap: Elapsed of two records a host sleep apart on an idle stream vs their cpu_ns difference: .* µs vs .* µs.*\(Elapsed is in microseconds\)$`, l[6])
	assert.Regexp(t, `^FAIL elapsed-spans-work: Elapsed of events recorded around 30ms of queued work = .* µs`, l[n-4])
	assert.Equal(t, fmt.Sprintf("%d passed, 2 failed", n-2), l[n])
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

func TestConformanceRegisteredDeviceNoRace(t *testing.T) {
	skipConformanceUnderRace(t)
	code, out, _ := conformance(t, "--device", "notenabled")
	assert.Equal(t, 1, code)
	l := lines(out)
	n := len(stubstest.Cases())
	require.Len(t, l, n+1)
	assert.Equal(t, "FAIL enabled: Enabled() = false: the backend says it is not usable", l[0])
	for i, name := range stubstest.Names()[1:] {
		assert.Equal(t, "SKIP "+name+": not enabled: Enabled() is false, so the backend cannot be checked", l[i+1])
	}
	assert.Equal(t, fmt.Sprintf("0 passed, 1 failed, %d skipped", n-1), l[n])

	// A C backend registered with stubs.Load is found by its deviceName, here and in children.
	lib := fixture(t, "good")
	name, err := stubs.Load(lib)
	require.NoError(t, err)
	defer stubs.Unregister(name)
	t.Setenv(loadEnv, lib)
	code, out, errOut := conformance(t, "--device", name)
	assert.Equal(t, 0, code, errOut)
	l = lines(out)
	require.Len(t, l, n+1)
	assert.Equal(t, fmt.Sprintf("%d passed, 0 failed", n), l[n])
}

// skipConformanceUnderRace skips a test that runs the whole kit, a process per check, under
// -race: TestConformanceGoodLibrary runs it once there; the others check what the kit prints
// and how it isolates a check, which -race does not see, and run in CI's NoRace step.
func skipConformanceUnderRace(t *testing.T) {
	t.Helper()
	if conformanceRaceEnabled {
		t.Skip("the whole kit once more: run without -race (CI's NoRace step)")
	}
}
