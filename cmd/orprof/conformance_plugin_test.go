package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/kineto/plugintest"
)

// pluginFixture compiles kineto/testdata/src into dir/name with the given defines.
func pluginFixture(t *testing.T, dir, name, src string, defines ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: the plugin fixtures cannot be built")
	}
	out := filepath.Join(dir, name)
	args := []string{"-O2", "-std=c11", "-shared", "-fPIC", "-D_GNU_SOURCE", "-I", filepath.Join("..", "..", "kineto"),
		"-o", out, filepath.Join("..", "..", "kineto", "testdata", src)}
	for _, d := range defines {
		args = append(args, "-D"+d)
	}
	msg, err := exec.Command("gcc", args...).CombinedOutput()
	require.NoError(t, err, string(msg))
	return out
}

// TestConformancePlugin: `orprof conformance --plugin` passes the sample plugin, and fails a
// broken one with a line naming what broke, each check in a child process (a plugin that
// crashes fails its checks, the run goes on and ends with the count).
func TestConformancePlugin(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := conformance(t, "--plugin", pluginFixture(t, dir, "sample.so", "sample_plugin.c"))
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "PASS load\nPASS query\nPASS activity-types\nPASS lifecycle\nPASS correlation\nPASS trace\n6 passed, 0 failed\n", out)

	// -v prints each check's rule under its line, as it does for backends.
	code, out, errOut = conformance(t, "--plugin", filepath.Join(dir, "sample.so"), "-v")
	assert.Equal(t, 0, code, errOut)
	var want strings.Builder
	for _, c := range plugintest.Cases() {
		want.WriteString("PASS " + c.Name + "\n    " + c.Rule + "\n")
	}
	assert.Equal(t, want.String()+"6 passed, 0 failed\n", out)

	code, out, _ = conformance(t, "--plugin", pluginFixture(t, dir, "bad.so", "broken_plugin.c", "BAD_EVENTS"))
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "\nFAIL trace: profiler \"BrokenPlugin\": the host's trace builder: ")
	assert.Contains(t, out, "event #1 rejected: KinetoPlugin_ProfileEvent: unpaddedStructSize 24 < 48")
	assert.True(t, strings.HasSuffix(out, "4 passed, 1 failed, 1 skipped\n"), out)

	// A plugin built for the old, wrong reading of pProfilerHandle writes through NULL.
	code, out, _ = conformance(t, "--plugin", pluginFixture(t, dir, "old.so", "broken_plugin.c", "OLD_HANDLE"))
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL lifecycle: crashed: killed by signal SIGSEGV in the plugin during profilerCreate (assign the handle to params->pProfilerHandle")
	assert.True(t, strings.HasSuffix(out, "2 passed, 3 failed, 1 skipped\n"), out)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		assert.Regexp(t, `^(PASS|FAIL|SKIP) [a-z-]+(: .*)?$|^\d+ passed, \d+ failed`, l, "one line per check")
	}
}

// TestConformancePluginBadInput: bad flags, a missing file, a directory, a file the loader
// cannot open ("hello" in x.so: before, six identical FAIL lines and exit 1) and a library that
// is no Kineto plugin each get one line on stderr and exit 2, as --lib does for a library that
// cannot be loaded.
func TestConformancePluginBadInput(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "x.so")
	require.NoError(t, os.WriteFile(garbage, []byte("hello\n"), 0o644))
	noRegister := pluginFixture(t, dir, "noreg.so", "broken_plugin.c", "NO_REGISTER")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--plugin", filepath.Join(t.TempDir(), "none.so")}, "--plugin \"" + "/"},
		{[]string{"--plugin", t.TempDir()}, "not a regular file"},
		{[]string{"--plugin", "x.so", "--lib", "y.so"}, "give one of them; run 'orprof conformance -h'"},
		{[]string{"--plugin", "x.so", "--timeout", "0s"}, "--timeout 0s: must be positive"},
		{[]string{"--plugin", "x.so", "extra"}, "unexpected argument \"extra\""},
		{[]string{"--plugin"}, "--plugin needs a value"},
		{[]string{"--plugin", garbage}, "not a loadable library"},
		{[]string{"--plugin", noRegister}, "no KinetoPlugin_register symbol: not a Kineto plugin"},
	} {
		code, out, errOut := conformance(t, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, out)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
		assert.Contains(t, errOut, tc.want, "%v", tc.args)
	}
	code, out, _ := conformance(t, "--plugin", "x.so", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "usage: orprof conformance --plugin LIB.so")
	assert.Contains(t, out, "  lifecycle ")
}
