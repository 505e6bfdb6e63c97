package main

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// graphTrace is a CUDA-graph replay with PyTorch's annotations inlined
// (trace/tracefile/testdata/cudagraph/README.md).
const graphTrace = "../../trace/tracefile/testdata/cudagraph/annotated.json"

// TestGraphScopeRows: the scopes a graph's annotations name are rows of `orprof table` and
// `orprof kernels --by-op` (linear_fwd, which no op of the trace has, created; attention
// joined with the eager op of that name), the unannotated replayed kernel stays with the
// replaying op (decode), and no replayed device time is left out.
func TestGraphScopeRows(t *testing.T) {
	out, _ := run(t, "table", "--format", "csv", graphTrace)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	rows := map[string][2]string{} // key → count, self device time total (µs)
	for _, r := range recs[1:] {
		rows[r[0]] = [2]string{r[1], r[5]}
	}
	assert.Equal(t, [2]string{"2", "30"}, rows["linear_fwd"])
	assert.Equal(t, [2]string{"3", "76"}, rows["attention"])
	assert.Equal(t, [2]string{"2", "14"}, rows["decode"])

	out, errs := run(t, "kernels", "--by-op", "--format", "csv", graphTrace)
	assert.NotContains(t, errs, "reached no operator")
	recs, err = csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	// Operator rows, then their kernels with the operator cell empty.
	byOp := map[string][]string{}
	op := ""
	for _, r := range recs[1:] {
		if r[0] != "" {
			op = r[0]
			continue
		}
		byOp[op] = append(byOp[op], r[1])
	}
	assert.ElementsMatch(t, []string{"gemv_kernel", "bias_add_kernel"}, byOp["linear_fwd"])
	assert.ElementsMatch(t, []string{"flash_fwd_kernel", "flash_decode_kernel", "Memcpy DtoD (Device -> Device)"}, byOp["attention"])
	assert.Equal(t, []string{"sampling_kernel"}, byOp["decode"])
}
