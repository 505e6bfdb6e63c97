package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/golden"
)

// TestGoldenTables: the table of fixed traces in every format, against golden files
// (go test -update rewrites them): a real ROCm Kineto trace with device columns and input
// shapes, and PyTorch 1.13's legacy MLP trace.
func TestGoldenTables(t *testing.T) {
	traces := []struct {
		name string
		path string
		args []string
	}{
		{"rocm", filepath.Join("..", "..", "testdata", "kineto", "rocm_mi250_train.json.gz"), []string{"--row-limit", "12", "--sort-by", "self_device_time_total"}},
		{"rocm_by_shape", filepath.Join("..", "..", "testdata", "kineto", "rocm_mi250_train.json.gz"), []string{"--row-limit", "8", "--group-by-input-shape"}},
		{"pytorch113_mlp", filepath.Join(pytorchData, "mlp", "trace.json"), []string{"--row-limit", "10", "--sort-by", "count"}},
	}
	exts := map[string]string{"text": "txt", "markdown": "md", "csv": "csv", "json": "json"}
	for _, tr := range traces {
		for _, format := range []string{"text", "markdown", "csv", "json"} {
			t.Run(tr.name+"/"+format, func(t *testing.T) {
				var out, errb bytes.Buffer
				args := append(append([]string{"table", "--format", format}, tr.args...), tr.path)
				require.Equal(t, 0, dispatch(args, nil, &out, &errb), errb.String())
				golden.Check(t, filepath.Join("testdata", "golden", "table_"+tr.name+"."+exts[format]), out.Bytes())
			})
		}
	}
}

// TestGoldenRunTrace: the trace of `orprof run` in a normalized form (times vary from run to
// run; what is in the trace does not): one line per distinct event shape — phase, category,
// name, process and thread rows, argument keys — with its count, plus the top-level keys and
// the orprof metadata. The workloads run one op at a time, so the shape is deterministic.
func TestGoldenRunTrace(t *testing.T) {
	kernels := "--activities=cpu_op,kernel,gpu_memcpy,gpu_memset,privateuse1_runtime"
	cases := []struct {
		name string
		args []string
	}{
		{"mlp_fallback", []string{"--workload", "mlp"}},
		{"mlp_kernels", []string{"--workload", "mlp", kernels}},
		{"mlp_cpu", []string{"--workload", "mlp", "--device", "cpu", "--record-shapes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "trace.json")
			var out, errb bytes.Buffer
			require.Equal(t, 0, dispatch(append([]string{"run", "--trace", trace}, c.args...), nil, &out, &errb), errb.String())
			data, err := os.ReadFile(trace)
			require.NoError(t, err)
			golden.Check(t, filepath.Join("testdata", "golden", "run_"+c.name+".trace.txt"), normalizeTrace(t, data))
		})
	}
}

// normalizeTrace reduces a Chrome trace to what does not depend on timing or the process id:
// the top-level keys and the orprof metadata; each distinct event (phase, category, name,
// process and thread rows) with its count where the count is fixed by the workload (host ops,
// device work and launches); where what is written depends on measured times (fallback device
// intervals of zero length are left out, their flows with them) only the phase, category and
// process; and per phase and category the union of argument keys (some are written only for a
// nonzero value).
func normalizeTrace(t *testing.T, data []byte) []byte {
	t.Helper()
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &doc))
	var events []struct {
		Ph   string          `json:"ph"`
		Cat  string          `json:"cat"`
		Name string          `json:"name"`
		Pid  json.RawMessage `json:"pid"`
		Tid  json.RawMessage `json:"tid"`
		Args map[string]any  `json:"args"`
	}
	require.NoError(t, json.Unmarshal(doc["traceEvents"], &events))
	hostPid := fmt.Sprint(os.Getpid())
	counted := map[string]bool{"cpu_op": true, "user_annotation": true, "kernel": true, "gpu_memcpy": true,
		"gpu_memset": true, "privateuse1_runtime": true}
	counts := map[string]int{}
	argKeys := map[string]map[string]bool{}
	for _, e := range events {
		pid := string(e.Pid)
		if pid == hostPid {
			pid = "HOST"
		}
		fixed := e.Ph == "X" && counted[e.Cat]
		line := fmt.Sprintf("ph=%s cat=%s name=%q pid=%s tid=%s", e.Ph, e.Cat, e.Name, pid, string(e.Tid))
		switch {
		case e.Ph == "M":
			if v, ok := e.Args["name"].(string); ok {
				line += " " + strings.ReplaceAll(v, hostPid, "HOST")
			}
		case !fixed:
			line = fmt.Sprintf("ph=%s cat=%s pid=%s", e.Ph, e.Cat, pid)
		}
		counts[line]++
		if !fixed {
			counts[line] = -1
		}
		pc := "ph=" + e.Ph + " cat=" + e.Cat
		if argKeys[pc] == nil {
			argKeys[pc] = map[string]bool{}
		}
		for k := range e.Args {
			argKeys[pc][k] = true
		}
	}
	var lines []string
	for l, n := range counts {
		c := "    -"
		if n >= 0 {
			c = fmt.Sprintf("%5d", n)
		}
		lines = append(lines, c+" "+l)
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][6:] < lines[j][6:] })
	var keys []string
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "keys: %s\n", strings.Join(keys, " "))
	fmt.Fprintf(&b, "orprof: %s\n", string(doc["orprof"]))
	var pcs []string
	for pc, ks := range argKeys {
		var names []string
		for k := range ks {
			names = append(names, k)
		}
		sort.Strings(names)
		pcs = append(pcs, fmt.Sprintf("args %s: %s", pc, strings.Join(names, ", ")))
	}
	sort.Strings(pcs)
	for _, l := range pcs {
		b.WriteString(l + "\n")
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return []byte(b.String())
}
