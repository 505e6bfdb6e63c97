package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/trace"
)

// TestRunTableRoundTrip: the table of a trace written by `orprof run` equals the table `orprof
// run` printed for that session, CPU and device columns alike, in the fallback and the kernel
// modes, with memory.
func TestRunTableRoundTrip(t *testing.T) {
	kernels := "--activities=cpu_op,user_annotation,kernel,gpu_memcpy,gpu_memset,privateuse1_runtime"
	cases := []struct {
		name string
		args []string
	}{
		{"mlp-fallback", []string{"--workload", "mlp"}},
		{"multistream-fallback", []string{"--workload", "multistream"}},
		{"mlp-kernels", []string{"--workload", "mlp", kernels}},
		{"multistream-kernels", []string{"--workload", "multistream", kernels}},
		{"cpu-only", []string{"--workload", "mlp", "--device", "cpu"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tracePath := filepath.Join(t.TempDir(), "trace.json.gz")
			var runOut, runErr bytes.Buffer
			args := append([]string{"run", "--trace", tracePath, "--row-limit", "-1", "--profile-memory", "--record-shapes"}, c.args...)
			require.Equal(t, 0, dispatch(args, nil, &runOut, &runErr), runErr.String())
			var tabOut, tabErr bytes.Buffer
			require.Equal(t, 0, dispatch([]string{"table", "--row-limit", "-1", tracePath}, nil, &tabOut, &tabErr), tabErr.String())
			require.Equal(t, runOut.String(), tabOut.String())
			if c.name != "cpu-only" {
				require.Contains(t, runOut.String(), "Self OPENREG time total")
			}
			data, err := os.ReadFile(strings.TrimSuffix(tracePath, ".gz"))
			if err == nil {
				require.NoError(t, trace.Check(data))
			}
		})
	}
}

// TestRunTraceChecks: the traces `orprof run` writes pass the trace checker.
func TestRunTraceChecks(t *testing.T) {
	for _, extra := range [][]string{nil, {"--activities", "cpu_op,kernel,gpu_memcpy,privateuse1_runtime"}} {
		tracePath := filepath.Join(t.TempDir(), "trace.json")
		var out, errb bytes.Buffer
		args := append([]string{"run", "--trace", tracePath, "--workload", "multistream"}, extra...)
		require.Equal(t, 0, dispatch(args, nil, &out, &errb), errb.String())
		data, err := os.ReadFile(tracePath)
		require.NoError(t, err)
		require.NoError(t, trace.Check(data))
	}
}
