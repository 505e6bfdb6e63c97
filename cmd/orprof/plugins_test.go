package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test binary stands in for orprof in the children orprof plugins starts to load each
// library (`EXE plugins --probe LIB`).
func init() {
	if os.Getenv(pluginProbeEnv) != "" && len(os.Args) > 1 && os.Args[1] == "plugins" {
		os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
}

// gccPlugin compiles a plugin library from src into dir/name with gcc.
func gccPlugin(t *testing.T, dir, name, src string, defs ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: the plugin fixtures are compiled C")
	}
	so := filepath.Join(dir, name)
	args := append([]string{"-O1", "-std=c11", "-shared", "-fPIC", "-D_GNU_SOURCE", "-I", filepath.Join("..", "..", "kineto"), "-o", so, src}, defs...)
	out, err := exec.Command("gcc", args...).CombinedOutput()
	require.NoError(t, err, string(out))
	return so
}

// TestPluginsRefusals: orprof plugins --dir loads each library in a child process: one that
// segfaults in its constructor or in KinetoPlugin_register is listed as refused with the
// signal (before, the Go crash dump of the whole command); a dangling symbolic link, a link
// loop and a directory named *.so are refused with the reason; a library under three names
// (itself, a hard link, a symbolic link) is listed once; the good library's line is as before.
// Each profiler is also driven through one session in the child (create, start, stop,
// processEvents): one that crashes there, fails there, or a library that ends the child
// without reporting back (exit(0) in its constructor) is refused with the reason.
func TestPluginsRefusals(t *testing.T) {
	dir := t.TempDir()
	gccPlugin(t, dir, "good.so", filepath.Join("..", "..", "kineto", "testdata", "sample_plugin.c"))
	gccPlugin(t, dir, "crash_ctor.so", filepath.Join("testdata", "crash_plugin.c"), "-DCRASH_CTOR")
	gccPlugin(t, dir, "crash_register.so", filepath.Join("testdata", "crash_plugin.c"))
	gccPlugin(t, dir, "exit_ctor.so", filepath.Join("testdata", "crash_plugin.c"), "-DEXIT_CTOR")
	broken := filepath.Join("..", "..", "kineto", "testdata", "broken_plugin.c")
	gccPlugin(t, dir, "old_handle.so", broken, "-DOLD_HANDLE")
	gccPlugin(t, dir, "create_fails.so", broken, "-DCREATE_FAILS")
	require.NoError(t, os.Link(filepath.Join(dir, "good.so"), filepath.Join(dir, "hard.so")))
	require.NoError(t, os.Symlink("good.so", filepath.Join(dir, "link.so")))
	require.NoError(t, os.Symlink("missing.so", filepath.Join(dir, "dangling.so")))
	require.NoError(t, os.Symlink("loop.so", filepath.Join(dir, "loop.so")))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "dir.so"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "garbage.so"), []byte("not a library"), 0o644))

	var out, errb bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"plugins", "--dir", dir}, nil, &out, &errb), errb.String())
	assert.Empty(t, errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	byName := map[string]string{}
	for _, l := range lines {
		path, rest, _ := strings.Cut(l, "\t")
		byName[filepath.Base(path)] += rest
	}
	for name, want := range map[string]string{
		"crash_ctor.so":     "refused: loading it crashed the process: signal SIGSEGV",
		"crash_register.so": "refused: loading it crashed the process: signal SIGSEGV",
		"dangling.so":       "refused: a dangling symbolic link: missing.so does not exist",
		"loop.so":           "refused: a symbolic link loop (loop.so)",
		"dir.so":            "refused: a directory, not a library",
		"garbage.so":        "refused: not a loadable library",
		"good.so":           "(also named hard.so, link.so)",
		// Loads and queries fine, then writes through NULL in profilerCreate: the probe
		// session finds it (before, listed as good, and orprof run died in cgo).
		"old_handle.so": "refused: a probe session crashed the process: signal SIGSEGV in profilerCreate (assign the handle",
		// Its constructor calls exit(0): the child never reports back (before, "good" with no line).
		"exit_ctor.so":    "refused: loading it ended the process (exit status 0) before it reported back",
		"create_fails.so": "BrokenPlugin\trefused: a probe session failed: profilerCreate returned -7",
	} {
		assert.Contains(t, byName[name], want, name)
	}
	assert.NotContains(t, byName, "hard.so", "a second name of a library is not listed again")
	assert.NotContains(t, byName, "link.so")
	assert.NotContains(t, out.String(), "goroutine", "no Go crash dump")
	assert.Len(t, lines, 10, "%s", out.String())
}

// TestPluginsDotDir: `orprof plugins --dir .`, `run --plugin-dir .` and
// KINETO_PLUGIN_LIB_DIR_PATH=. load the working directory's plugins (before, each joined path
// had no slash, so the loader searched the system's library path: "cannot open shared object
// file").
func TestPluginsDotDir(t *testing.T) {
	// run registers plugins for the life of the process: in a child process.
	if os.Getenv("ORPROF_TEST_PLUGIN_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPluginsDotDir$", "-test.v")
		cmd.Env = append(os.Environ(), "ORPROF_TEST_PLUGIN_CHILD=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		require.Contains(t, string(out), "--- PASS: TestPluginsDotDir")
		return
	}
	dir := t.TempDir()
	gccPlugin(t, dir, "sample.so", filepath.Join("..", "..", "kineto", "testdata", "sample_plugin.c"))
	t.Chdir(dir)
	for _, viaEnv := range []bool{false, true} {
		args := []string{"plugins", "--dir", "."}
		if viaEnv {
			t.Setenv("KINETO_PLUGIN_LIB_DIR_PATH", ".")
			args = args[:1]
		}
		var out, errb bytes.Buffer
		require.Equal(t, 0, dispatch(args, nil, &out, &errb), errb.String())
		assert.NotContains(t, out.String(), "refused", "%v", args)
		assert.Contains(t, out.String(), "SamplePlugin", "%v", args)
	}
	var out, errb bytes.Buffer
	code := dispatch([]string{"run", "--device", "cpu", "--plugin-dir", ".", "--trace", "", "--activities", "cpu_op,kernel"}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.NotContains(t, errb.String(), "cannot open shared object")
	assert.Contains(t, out.String(), "test_kernel", "the plugin's kernel is in the table")
}
