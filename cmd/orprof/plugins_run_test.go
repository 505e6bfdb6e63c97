package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/trace"
)

// TestRunWithPlugin: a Kineto plugin compiled from kineto/testdata shows up in `orprof run`'s
// trace — its events with names, categories, pid/tid, args, flows, counters, and its device and
// resource rows — and a broken library next to it is reported without breaking the profile.
func TestRunWithPlugin(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	// Loaded plugins stay registered for the life of the process: run in a child process so
	// the other tests' sessions do not see them.
	if os.Getenv("ORPROF_TEST_PLUGIN_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRunWithPlugin$", "-test.v")
		cmd.Env = append(os.Environ(), "ORPROF_TEST_PLUGIN_CHILD=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		require.Contains(t, string(out), "--- PASS: TestRunWithPlugin")
		return
	}
	dir := t.TempDir()
	src := filepath.Join("..", "..", "kineto", "testdata", "sample_plugin.c")
	out, err := exec.Command("gcc", "-O2", "-std=c11", "-shared", "-fPIC", "-D_GNU_SOURCE",
		"-I", filepath.Join("..", "..", "kineto"), "-o", filepath.Join(dir, "sample.so"), src).CombinedOutput()
	require.NoError(t, err, string(out))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "garbage.so"), []byte("not a library"), 0o644))

	tracePath := filepath.Join(t.TempDir(), "trace.json")
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"run", "--device", "cpu", "--plugin-dir", dir, "--trace", tracePath,
		"--activities", "cpu_op,user_annotation,cuda_runtime,cuda_driver,kernel,gpu_memcpy,gpu_pm_counter"}, nil, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stderr.String(), "garbage.so", "the refused library is reported")

	data, err := os.ReadFile(tracePath)
	require.NoError(t, err)
	require.NoError(t, trace.Check(data))
	var doc struct {
		TraceEvents []struct {
			Ph   string          `json:"ph"`
			Cat  string          `json:"cat"`
			Name string          `json:"name"`
			Pid  json.RawMessage `json:"pid"`
			Tid  json.RawMessage `json:"tid"`
			Args map[string]any  `json:"args"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	seen := map[string]bool{}
	for _, e := range doc.TraceEvents {
		switch {
		case e.Ph == "X" && e.Name == "test_kernel":
			seen["kernel"] = true
			assert.Equal(t, "kernel", e.Cat)
			assert.Equal(t, "7", string(e.Pid))
			assert.Equal(t, "1", string(e.Tid))
			assert.Equal(t, "compute", e.Args["kind"])
			assert.Equal(t, []any{1.0, 2.0, 3.0}, e.Args["grid"])
		case e.Ph == "X" && e.Name == "cudaLaunchKernel":
			seen["runtime"] = true
			assert.Equal(t, "cuda_runtime", e.Cat)
		case e.Ph == "X" && e.Name == "cudaMemcpyHtoD":
			seen["memcpy"] = true
		case e.Ph == "C" && e.Name == "gpu_pm":
			seen["counter"] = true
			assert.Contains(t, e.Args, "sm_active")
		case e.Ph == "s" || e.Ph == "f":
			if e.Cat == "ac2g" && string(e.Pid) == "7" {
				seen["flow"] = true
			}
		case e.Ph == "M" && e.Name == "process_name" && e.Args["name"] == "Sample GPU 7":
			seen["device row"] = true
		case e.Ph == "M" && e.Name == "thread_name" && e.Args["name"] == "runtime thread":
			seen["resource row"] = true
		}
	}
	for _, k := range []string{"kernel", "runtime", "memcpy", "counter", "flow", "device row", "resource row"} {
		assert.True(t, seen[k], k)
	}

	var list bytes.Buffer
	require.Equal(t, 2, dispatch([]string{"plugins", "--dir", filepath.Join(dir, "missing")}, nil, &list, &stderr))
	list.Reset()
	require.Equal(t, 0, dispatch([]string{"plugins", "--dir", dir}, nil, &list, &stderr), stderr.String())
	assert.Contains(t, list.String(), "sample.so")
	assert.Contains(t, list.String(), "garbage.so")
}

// TestRunSkipsCrashingPlugin: orprof run --plugin-dir (and $KINETO_PLUGIN_LIB_DIR_PATH) loads
// each plugin in a child process first, as orprof plugins does: a library that crashes while
// it registers is reported in one warning line naming it and is not loaded, and the run goes
// on with the good plugin (before, the crash took the run down with a Go crash dump). The
// probe also drives a session of each profiler, and a library that ends the child without
// reporting back is refused too.
func TestRunSkipsCrashingPlugin(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	// Plugins stay registered for the life of the process, and a crash in one would end it:
	// run in a child process.
	if os.Getenv("ORPROF_TEST_PLUGIN_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRunSkipsCrashingPlugin$", "-test.v")
		cmd.Env = append(os.Environ(), "ORPROF_TEST_PLUGIN_CHILD=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		require.Contains(t, string(out), "--- PASS: TestRunSkipsCrashingPlugin")
		return
	}
	dir := t.TempDir()
	gccPlugin(t, dir, "good.so", filepath.Join("..", "..", "kineto", "testdata", "sample_plugin.c"))
	gccPlugin(t, dir, "crash_register.so", filepath.Join("testdata", "crash_plugin.c"))
	gccPlugin(t, dir, "crash_ctor.so", filepath.Join("testdata", "crash_plugin.c"), "-DCRASH_CTOR")
	gccPlugin(t, dir, "exit_ctor.so", filepath.Join("testdata", "crash_plugin.c"), "-DEXIT_CTOR")
	gccPlugin(t, dir, "old_handle.so", filepath.Join("..", "..", "kineto", "testdata", "broken_plugin.c"), "-DOLD_HANDLE")
	for _, viaEnv := range []bool{false, true} {
		tracePath := filepath.Join(t.TempDir(), "trace.json")
		args := []string{"run", "--device", "cpu", "--trace", tracePath, "--row-limit", "-1", "--activities", "cpu_op,kernel"}
		if viaEnv {
			t.Setenv("KINETO_PLUGIN_LIB_DIR_PATH", dir)
		} else {
			args = append(args, "--plugin-dir", dir)
		}
		var stdout, stderr bytes.Buffer
		code := dispatch(args, nil, &stdout, &stderr)
		require.Equal(t, 0, code, stderr.String())
		for lib, want := range map[string]string{
			"crash_register.so": "loading it crashed the process: signal SIGSEGV; not loaded",
			"crash_ctor.so":     "loading it crashed the process: signal SIGSEGV; not loaded",
			// Before: the probe only loaded it, the run then died in profilerCreate.
			"old_handle.so": "a probe session crashed the process: signal SIGSEGV in profilerCreate",
			// Before: the run exited 0 with no table, no trace, no message.
			"exit_ctor.so": "loading it ended the process (exit status 0) before it reported back; not loaded",
		} {
			var lines []string
			for _, l := range strings.Split(stderr.String(), "\n") {
				if strings.Contains(l, lib) {
					lines = append(lines, l)
				}
			}
			require.Len(t, lines, 1, "one line names %s:\n%s", lib, stderr.String())
			assert.Contains(t, lines[0], want)
			assert.True(t, strings.HasPrefix(lines[0], "orprof: warning: "), lines[0])
		}
		assert.NotContains(t, stderr.String(), "goroutine", "no Go crash dump")
		assert.Contains(t, stdout.String(), "test_kernel", "the good plugin's kernel is in the table")
	}
}
