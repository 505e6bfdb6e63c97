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
// device columns where the trace has device work; the footers pin each table's totals. Under
// -race it leaves out the three traces of 15 MB and more, which .ci/run's second step (without
// -race: the name says Kineto) reads with the others.
func TestKinetoTraceTables(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "kineto")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("testdata missing: %v", err)
	}
	want := map[string]string{
		"cpu_only.json.gz": "Self CPU time total: 2.346s\n",
		"cuda_alexnet.json.gz": "Self CPU time total: 43.425s\nSelf CUDA time total: 67.681ms\n" +
			"Device time linked to operators: 67.671ms of 67.681ms (99.99%): external-id 0.00%, launch 99.99%, order 0.00%, enclosing 0.00%, unlinked 10.000us (0.01%)\n",
		"cuda_cupti_range_profiler.json.gz": "Self CPU time total: 11.844s\nSelf CUDA time total: 9.350s\n" +
			"Device time linked to operators: 9.350s of 9.350s (100.00%): external-id 0.00%, launch 0.00%, order 100.00%, enclosing 0.00%, unlinked 0.000us (0.00%)\n",
		"cuda_ns_resolution.json.gz": "Self CPU time total: 712.600ms\nSelf CUDA time total: 472.454ms\n",
		"cuda_train_step.json.gz": "Self CPU time total: 639.138ms\nSelf CUDA time total: 501.567ms\n" +
			"Device time linked to operators: 501.567ms of 501.567ms (100.00%): external-id 0.00%, launch 100.00%, order 0.00%, enclosing 0.00%, unlinked 0.000us (0.00%)\n",
		"mtia_rank0.json.gz": "Self CPU time total: 19.014s\nSelf MTIA time total: 7.735s\n" +
			"Device time linked to operators: 7.734s of 7.735s (100.00%): external-id 0.00%, launch 94.50%, order 0.00%, enclosing 5.50%, unlinked 56.160us (0.00%)\n",
		"rocm_mi250_train.json.gz": "Self CPU time total: 16.858ms\nSelf CUDA time total: 149.042us\n",
	}
	for name, footer := range want {
		t.Run(name, func(t *testing.T) {
			if conformanceRaceEnabled && (name == "mtia_rank0.json.gz" || name == "cuda_train_step.json.gz" || name == "cuda_ns_resolution.json.gz") {
				t.Skip("a large trace under -race: read in the run without -race")
			}
			var out, errb bytes.Buffer
			require.Equal(t, 0, dispatch([]string{"table", "--row-limit", "5", filepath.Join(dir, name)}, nil, &out, &errb), errb.String())
			assert.True(t, strings.HasSuffix(out.String(), footer), out.String())
			if strings.Contains(footer, "Self CUDA") || strings.Contains(footer, "Self MTIA") {
				assert.Contains(t, strings.SplitN(out.String(), "\n", 3)[1], " total", "device columns")
			}
		})
	}
}
