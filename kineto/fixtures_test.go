//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package kineto

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// The C fixtures of testdata/ are compiled by the tests with gcc into the test's temporary
// directory (never beside the .go files: a .c file there breaks cgo builds).

// brokenVariants are the ways testdata/broken_plugin.c is compiled: library name → define.
var brokenVariants = map[string]string{
	"register_fails.so":  "REGISTER_FAILS",
	"small_interface.so": "SMALL_INTERFACE",
	"no_start.so":        "NO_START",
	"create_fails.so":    "CREATE_FAILS",
	"bad_events.so":      "BAD_EVENTS",
	"no_register.so":     "NO_REGISTER",
}

func needGCC(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		tb.Skip("gcc not found: the C fixtures cannot be built")
	}
}

// compileC compiles testdata/src with gcc and the given extra flags into out.
func compileC(tb testing.TB, out, src string, flags ...string) {
	tb.Helper()
	args := append([]string{"-O2", "-Wall", "-Wextra", "-Werror", "-std=c11", "-I.", "-o", out,
		filepath.Join("testdata", src)}, flags...)
	cmd := exec.Command("gcc", args...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("gcc %v: %v\n%s", args, err, msg)
	}
}

// buildPlugin compiles testdata/src as a shared library at dir/name.
func buildPlugin(tb testing.TB, dir, name, src string, defines ...string) string {
	tb.Helper()
	out := filepath.Join(dir, name)
	flags := []string{"-shared", "-fPIC", "-D_GNU_SOURCE"}
	for _, d := range defines {
		flags = append(flags, "-D"+d)
	}
	compileC(tb, out, src, flags...)
	return out
}

func needGXX(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		tb.Skip("g++ not found: the C++ plugin fixture cannot be built")
	}
}

// buildCxxPlugin compiles testdata/src as C++ into a shared library at dir/name.
func buildCxxPlugin(tb testing.TB, dir, name, src string) string {
	tb.Helper()
	out := filepath.Join(dir, name)
	args := []string{"-O2", "-Wall", "-Wextra", "-Werror", "-std=c++17", "-I.", "-shared", "-fPIC", "-o", out,
		filepath.Join("testdata", src)}
	if msg, err := exec.Command("g++", args...).CombinedOutput(); err != nil {
		tb.Fatalf("g++ %v: %v\n%s", args, err, msg)
	}
	return out
}

// SamplePluginDir returns a fresh directory holding only sample.so.
func SamplePluginDir(tb testing.TB) string {
	tb.Helper()
	needGCC(tb)
	dir := tb.TempDir()
	buildPlugin(tb, dir, "sample.so", "sample_plugin.c")
	return dir
}

// mixedPluginDir returns a fresh directory with the sample plugin, every broken variant, a
// text file named garbage.so, and files the scan must skip: a .so in a subdirectory, a
// versioned libfoo.so.1 and a notes.txt.
func mixedPluginDir(tb testing.TB) string {
	tb.Helper()
	needGCC(tb)
	dir := tb.TempDir()
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	build := func(name, src string, defines ...string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			buildPlugin(tb, dir, name, src, defines...)
		}()
	}
	build("sample.so", "sample_plugin.c")
	for name, def := range brokenVariants {
		build(name, "broken_plugin.c", def)
	}
	wg.Wait()
	if tb.Failed() {
		tb.FailNow()
	}
	must := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "garbage.so"), []byte("this is not a shared library\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a plugin\n"), 0o644))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	lib, err := os.ReadFile(filepath.Join(dir, "sample.so"))
	must(err)
	must(os.WriteFile(filepath.Join(dir, "sub", "inner.so"), lib, 0o755))
	must(os.WriteFile(filepath.Join(dir, "libfoo.so.1"), lib, 0o755))
	return dir
}

// MixedPluginDir is mixedPluginDir for the external tests.
var MixedPluginDir = mixedPluginDir
