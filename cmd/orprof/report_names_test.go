package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/namecap"
)

// TestReportLongNameOnce: a 5 MB operator name is in a report summary once (the table's row,
// exact), its other places (the op tree, the kernels' launching operator, the findings)
// carrying its capped form; a page, over its table budget, holds it shortened. It was
// embedded 5 times in the page (26.3 MB) and 4 in the report summary (21.0 MB) of a 5.2 MB
// trace.
func TestReportLongNameOnce(t *testing.T) {
	dir := t.TempDir()
	name := "aten::" + strings.Repeat("x", 5<<20)
	evs := []map[string]any{
		{"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
		{"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": 10, "dur": 50, "args": map[string]any{"External id": 5}},
		{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": map[string]any{"correlation": 7, "External id": 5}},
		{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 30, "dur": 20, "args": map[string]any{"correlation": 7, "External id": 5, "stream": 7, "device": 0}},
	}
	raw, err := json.Marshal(map[string]any{"schemaVersion": 1, "traceEvents": evs})
	require.NoError(t, err)
	tr := filepath.Join(dir, "long.json")
	require.NoError(t, os.WriteFile(tr, raw, 0o644))
	page, sum, page2 := filepath.Join(dir, "r.html"), filepath.Join(dir, "r.json"), filepath.Join(dir, "r2.html")
	run(t, "report", "-o", page, tr)
	run(t, "report", "--format", "json", "-o", sum, tr)
	run(t, "report", "-o", page2, sum, tr) // a summary merged with the trace: the capped names agree
	for _, f := range []string{page, sum, page2} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		n := strings.Count(string(b), strings.Repeat("x", 1<<20)) / 5
		if f == sum {
			assert.Equal(t, 1, n, "%s: the 5 MB name's copies (two ranks' rows merge into one)", filepath.Base(f))
			assert.Less(t, len(b), len(name)+len(name)/10, "%s: %d bytes", filepath.Base(f), len(b))
		} else {
			// A page keeps within its budget (html.TableBudget): the table's row has the
			// name shortened, saying how long it was.
			assert.Equal(t, 0, n, "%s: the 5 MB name's copies", filepath.Base(f))
			assert.Less(t, len(b), 1<<20, "%s: %d bytes", filepath.Base(f), len(b))
			assert.Contains(t, string(b), "[5242886 bytes #", "%s: the shortened name", filepath.Base(f))
		}
		assert.Contains(t, string(b), namecap.Cap(name)[namecap.Max-200:], "%s: the capped name", filepath.Base(f))
	}
}
