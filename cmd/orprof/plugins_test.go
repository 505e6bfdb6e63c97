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
func TestPluginsRefusals(t *testing.T) {
	dir := t.TempDir()
	gccPlugin(t, dir, "good.so", filepath.Join("..", "..", "kineto", "testdata", "sample_plugin.c"))
	gccPlugin(t, dir, "crash_ctor.so", filepath.Join("testdata", "crash_plugin.c"), "-DCRASH_CTOR")
	gccPlugin(t, dir, "crash_register.so", filepath.Join("testdata", "crash_plugin.c"))
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
		"garbage.so":        "refused: ",
		"good.so":           "(also named hard.so, link.so)",
	} {
		assert.Contains(t, byName[name], want, name)
	}
	assert.NotContains(t, byName, "hard.so", "a second name of a library is not listed again")
	assert.NotContains(t, byName, "link.so")
	assert.NotContains(t, out.String(), "goroutine", "no Go crash dump")
	assert.Len(t, lines, 7, "%s", out.String())
}
