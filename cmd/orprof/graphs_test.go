package main

import (
	"encoding/csv"
	"encoding/json"
	"strconv"
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

// TestPhaseViews: `orprof table --phase NAME` has the CPU and device time `orprof code --by
// phase` gives NAME's row, on the CUDA-graph fixture (prefill, decode) and on a CPU training
// trace (conv_train: its record_function phases); the rows of one phase are only its ops
// (no prefill op in decode's table).
func TestPhaseViews(t *testing.T) {
	for _, tr := range []string{graphTrace, "../../analysis/code/testdata/conv_train.json"} {
		out, _ := run(t, "code", "--by", "phase", "--format", "csv", tr)
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		require.NoError(t, err)
		require.Greater(t, len(recs), 1, tr)
		for _, r := range recs[1:] {
			if r[0] == "(no phase)" {
				continue
			}
			cpu := atoiT(t, r[2]) + atoiT(t, r[4])
			dev := atoiT(t, r[3]) + atoiT(t, r[5])
			doc, _ := run(t, "table", "--phase", r[0], "--format", "json", tr)
			var tab struct {
				CPU  float64 `json:"self_cpu_time_total"`
				Dev  float64 `json:"self_device_time_total"`
				Rows []struct {
					Key string `json:"key"`
				} `json:"rows"`
			}
			require.NoError(t, json.Unmarshal([]byte(doc), &tab))
			assert.InDelta(t, float64(cpu)/1000, tab.CPU, 1e-6, "%s phase %s: CPU", tr, r[0])
			assert.InDelta(t, float64(dev)/1000, tab.Dev, 1e-6, "%s phase %s: device", tr, r[0])
			if tr == graphTrace && r[0] == "decode" {
				for _, row := range tab.Rows {
					assert.NotEqual(t, "prefill", row.Key)
					assert.NotEqual(t, "flash_fwd_kernel", row.Key)
				}
			}
		}
	}
}

func atoiT(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return v
}
