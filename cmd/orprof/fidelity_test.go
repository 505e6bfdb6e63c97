package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/golden"
)

// pytorchData is the PyTorch 1.13 ground truth: one folder per workload with the legacy trace
// PyTorch wrote, the tables it printed and its key_averages() rows.
var pytorchData = filepath.Join("..", "..", "testdata", "pytorch-1.13")

// tableSections splits tables.txt into its "## sort_by=S row_limit=N" sections.
func tableSections(t *testing.T, text string) (heads []string, bodies map[string]string) {
	bodies = map[string]string{}
	cur := ""
	for _, line := range strings.SplitAfter(text, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			cur = strings.TrimSpace(h)
			heads = append(heads, cur)
			continue
		}
		if cur != "" {
			bodies[cur] += line
		}
	}
	require.NotEmpty(t, heads, "tables.txt has no ## sections")
	return heads, bodies
}

func pytorchWorkloads(t *testing.T) []string {
	t.Helper()
	des, err := os.ReadDir(pytorchData)
	require.NoError(t, err, "the PyTorch ground truth is part of the repository")
	var out []string
	for _, d := range des {
		if d.IsDir() {
			out = append(out, d.Name())
		}
	}
	require.NotEmpty(t, out)
	return out
}

// TestFidelityPyTorch113Tables: every table PyTorch 1.13 printed is rebuilt from the trace it
// wrote by `orprof table` (the command's code, in process) and compared byte for byte.
func TestFidelityPyTorch113Tables(t *testing.T) {
	for _, w := range pytorchWorkloads(t) {
		dir := filepath.Join(pytorchData, w)
		trace := filepath.Join(dir, "trace.json")
		tables, err := os.ReadFile(filepath.Join(dir, "tables.txt"))
		require.NoError(t, err)
		heads, bodies := tableSections(t, string(tables))
		for _, head := range heads {
			t.Run(w+"/"+head, func(t *testing.T) {
				args := []string{"table"}
				for _, kv := range strings.Fields(head) {
					k, v, ok := strings.Cut(kv, "=")
					require.True(t, ok, "heading %q", head)
					switch k {
					case "sort_by":
						require.False(t, strings.HasSuffix(v, "memory_usage"), "legacy traces hold no memory: %q cannot be rebuilt", head)
						args = append(args, "--sort-by", v)
					case "row_limit":
						args = append(args, "--row-limit", v)
					default:
						t.Fatalf("heading %q: unknown option %s", head, k)
					}
				}
				var out, errb bytes.Buffer
				require.Equal(t, 0, dispatch(append(args, trace), nil, &out, &errb), errb.String())
				want := strings.TrimRight(bodies[head], "\n") + "\n"
				if d := golden.Diff(want, out.String()); d != "" {
					t.Errorf("orprof %s differs from PyTorch's table (- PyTorch, + orprof):\n%s", strings.Join(args, " "), d)
				}
			})
		}
	}
}

// TestFidelityPyTorch113KeyAverages: the rows of `orprof table --format json` (no sort: first
// occurrence order, as key_averages() returns them) equal PyTorch's key_averages(): keys,
// counts and CPU times.
func TestFidelityPyTorch113KeyAverages(t *testing.T) {
	type row struct {
		Key              string  `json:"key"`
		Count            int64   `json:"count"`
		SelfCPUTimeTotal float64 `json:"self_cpu_time_total"`
		CPUTimeTotal     float64 `json:"cpu_time_total"`
		CPUTime          float64 `json:"cpu_time"`
	}
	for _, w := range pytorchWorkloads(t) {
		t.Run(w, func(t *testing.T) {
			dir := filepath.Join(pytorchData, w)
			raw, err := os.ReadFile(filepath.Join(dir, "key_averages.json"))
			require.NoError(t, err)
			var want struct {
				SelfCPU float64 `json:"self_cpu_time_total"`
				Rows    []row   `json:"key_averages"`
			}
			require.NoError(t, json.Unmarshal(raw, &want))
			require.NotEmpty(t, want.Rows)

			var out, errb bytes.Buffer
			require.Equal(t, 0, dispatch([]string{"table", "--format", "json", "--row-limit", "-1", filepath.Join(dir, "trace.json")}, nil, &out, &errb), errb.String())
			var got struct {
				SelfCPU float64 `json:"self_cpu_time_total"`
				Rows    []row   `json:"rows"`
			}
			require.NoError(t, json.Unmarshal(out.Bytes(), &got))
			assert.Equal(t, want.SelfCPU, got.SelfCPU)
			require.Len(t, got.Rows, len(want.Rows))
			for i := range want.Rows {
				assert.Equal(t, want.Rows[i].Key, got.Rows[i].Key, "row %d", i)
				assert.Equal(t, want.Rows[i].Count, got.Rows[i].Count, "%s", want.Rows[i].Key)
				assert.Equal(t, want.Rows[i].SelfCPUTimeTotal, got.Rows[i].SelfCPUTimeTotal, "%s", want.Rows[i].Key)
				assert.Equal(t, want.Rows[i].CPUTimeTotal, got.Rows[i].CPUTimeTotal, "%s", want.Rows[i].Key)
				assert.InDelta(t, want.Rows[i].CPUTime, got.Rows[i].CPUTime, 1e-9, "%s", want.Rows[i].Key)
			}
		})
	}
}
