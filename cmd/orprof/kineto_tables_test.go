package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKinetoTraceTables: every real Kineto trace in the shared test data gives a table, with
// device columns where the trace has device work; the footers pin each table's totals.
func TestKinetoTraceTables(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "kineto")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("testdata missing: %v", err)
	}
	want := map[string]string{
		"cpu_only.json.gz":                  "Self CPU time total: 2.346s\n",
		"cuda_alexnet.json.gz":              "Self CPU time total: 43.425s\nSelf CUDA time total: 67.681ms\n",
		"cuda_cupti_range_profiler.json.gz": "Self CPU time total: 11.844s\nSelf CUDA time total: 9.350s\n",
		"cuda_ns_resolution.json.gz":        "Self CPU time total: 712.600ms\nSelf CUDA time total: 472.454ms\n",
		"cuda_train_step.json.gz":           "Self CPU time total: 639.138ms\nSelf CUDA time total: 501.567ms\n",
		"mtia_rank0.json.gz":                "Self CPU time total: 19.014s\nSelf MTIA time total: 7.735s\n",
		"rocm_mi250_train.json.gz":          "Self CPU time total: 16.858ms\nSelf CUDA time total: 149.042us\n",
	}
	for name, footer := range want {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			require.Equal(t, 0, dispatch([]string{"table", "--row-limit", "5", filepath.Join(dir, name)}, nil, &out, &errb), errb.String())
			assert.True(t, strings.HasSuffix(out.String(), footer), out.String())
			if strings.Contains(footer, "Self CUDA") || strings.Contains(footer, "Self MTIA") {
				assert.Contains(t, strings.SplitN(out.String(), "\n", 3)[1], " total", "device columns")
			}
		})
	}
}
