package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices/opencl"
	"github.com/orprof/orprof/trace"
)

func needOpenCL(t *testing.T) {
	t.Helper()
	if _, err := opencl.Default(); err != nil {
		var m *opencl.MissingError
		if errors.As(err, &m) {
			t.Skipf("OpenCL is not available: %v", err)
		}
		t.Fatal(err)
	}
}

// TestRunOpenCL: `orprof run --device opencl` in both device-time modes; `orprof table` of the
// trace prints the same table, and the trace passes the checker.
func TestRunOpenCL(t *testing.T) {
	needOpenCL(t)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"fallback", nil, "aten::addmm"},
		{"kernels", []string{"--activities", "cpu_op,kernel,gpu_memcpy,gpu_memset,privateuse1_runtime"}, "gemm_f32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tracePath := filepath.Join(t.TempDir(), "trace.json")
			var out, errb bytes.Buffer
			args := append([]string{"run", "--device", "opencl", "--trace", tracePath, "--row-limit", "-1", "--profile-memory", "--record-shapes"}, c.args...)
			require.Equal(t, 0, dispatch(args, nil, &out, &errb), errb.String())
			assert.Contains(t, out.String(), "Self OPENCL time total")
			assert.Contains(t, out.String(), c.want)
			var tab, tabErr bytes.Buffer
			require.Equal(t, 0, dispatch([]string{"table", "--row-limit", "-1", tracePath}, nil, &tab, &tabErr), tabErr.String())
			assert.Equal(t, out.String(), tab.String())
			data, err := os.ReadFile(tracePath)
			require.NoError(t, err)
			require.NoError(t, trace.Check(data))
		})
	}
	var out, errb bytes.Buffer
	assert.Equal(t, 2, dispatch([]string{"run", "--device", "opencl", "--workload", "multistream"}, nil, &out, &errb))
	assert.Contains(t, errb.String(), `unknown workload (have mlp)`)
}

const openclChildEnv = "ORPROF_TEST_OPENCL_MISSING"

// TestRunOpenCLMissing: without an OpenCL loader, run and conformance fail with one line that
// says what is missing and how to install it, exit 2. It runs in a child process, because the
// default runtime is opened once per process.
func TestRunOpenCLMissing(t *testing.T) {
	if os.Getenv(openclChildEnv) == "" {
		exe, err := os.Executable()
		require.NoError(t, err)
		cmd := exec.Command(exe, "-test.run=^TestRunOpenCLMissing$", "-test.count=1")
		cmd.Env = append(os.Environ(), openclChildEnv+"=1", opencl.LibraryEnv+"=/nonexistent/libOpenCL.so.1")
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		return
	}
	for _, args := range [][]string{
		{"run", "--device", "opencl", "--trace", ""},
		{"conformance", "--device", "opencl"},
	} {
		var out, errb bytes.Buffer
		var code int
		if args[0] == "conformance" {
			code = runConformance(args[1:], &out, &errb)
		} else {
			code = dispatch(args, nil, &out, &errb)
		}
		msg := strings.TrimSpace(errb.String())
		assert.Equal(t, 2, code, "%v: %s", args, msg)
		assert.NotContains(t, msg, "\n", "%v: one line", args)
		assert.Contains(t, msg, "/nonexistent/libOpenCL.so.1", "%v", args)
		assert.Contains(t, msg, "install pocl-opencl-icd ocl-icd-libopencl1", "%v", args)
		assert.Empty(t, out.String(), "%v", args)
	}
}

// TestRunOpenCLTraceStartsAtFirstOp: an OpenCL trace starts with its first op, in fallback mode
// and in kernel mode: the reference events, the activity profiler's clock calibration and the
// kernels' compilation (Workload.Prepare) come before the session's zero. Before, a viewer
// showed 27–53 ms of empty timeline at the start of every trace (72 % of a short run), with
// --activities cpu_op alone too.
func TestRunOpenCLTraceStartsAtFirstOp(t *testing.T) {
	needOpenCL(t)
	for _, acts := range []string{"cpu_op", "cpu_op,kernel,gpu_memcpy"} {
		t.Run(acts, func(t *testing.T) {
			tracePath := filepath.Join(t.TempDir(), "trace.json")
			var out, errb bytes.Buffer
			require.Equal(t, 0, dispatch([]string{"run", "--device", "opencl", "--activities", acts, "--trace", tracePath, "--row-limit", "0"}, nil, &out, &errb), errb.String())
			data, err := os.ReadFile(tracePath)
			require.NoError(t, err)
			var doc struct {
				TraceEvents []struct {
					Ph  string  `json:"ph"`
					Cat string  `json:"cat"`
					Ts  float64 `json:"ts"`
					Dur float64 `json:"dur"`
				} `json:"traceEvents"`
			}
			require.NoError(t, json.Unmarshal(data, &doc))
			start, first := -1.0, -1.0
			for _, e := range doc.TraceEvents {
				switch {
				case e.Ph == "X" && e.Cat == "Trace":
					start = e.Ts
				case e.Ph == "X" && (first < 0 || e.Ts < first):
					first = e.Ts
				}
			}
			require.GreaterOrEqual(t, start, 0.0, "the trace's span")
			require.GreaterOrEqual(t, first, 0.0)
			assert.Less(t, first-start, 2000.0, "the first event is %.0f µs after the trace's start", first-start)
		})
	}
}
