package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDiff: ops are matched by key, summed per side, sorted by the change of their self CPU
// plus self device time (largest regression first), and ops on one side only are marked.
func TestDiff(t *testing.T) {
	before := rankSummary(1, false, RankInfo{})
	after := rankSummary(2, true, RankInfo{})
	rows := Diff(before, after)
	type got struct {
		key      string
		only     string
		cpu, dev float64
	}
	var g []got
	for _, r := range rows {
		g = append(g, got{r.Key, r.Only, r.DeltaCPU(), r.DeltaDevice()})
	}
	assert.Equal(t, []got{
		{"step", "", 108 - 55, 0},    // self CPU 55 → 108 µs
		{"aten::mm", "", 30, 20},     // 30 → 60 µs CPU, 20 → 40 µs device: regression 50
		{"gemm", "", 0, 20},          // device 20 → 40 µs
		{"aten::relu", "", 15, 0},    // 15 → 30 µs
		{"aten::add", "after", 2, 0}, // new
	}, g)
	assert.Equal(t, DiffSide{Count: 1, SelfCPU: 30, SelfDevice: 20}, rows[1].Before)

	gone := Diff(after, before)
	require.Equal(t, "aten::add", gone[0].Key, "−2 µs is the smallest improvement")
	assert.Equal(t, "before", gone[0].Only, "an op that disappeared is marked")
	assert.Equal(t, "step", gone[len(gone)-1].Key, "the largest improvement sorts last")

	var buf bytes.Buffer
	tot := [2]Totals{before.Totals(), after.Totals()}
	require.NoError(t, WriteDiff(&buf, FormatText, rows, DiffOptions{Device: "cuda", Totals: &tot}))
	golden(t, "diff.txt", buf.Bytes())
	buf.Reset()
	require.NoError(t, WriteDiff(&buf, FormatMarkdown, rows, DiffOptions{Device: "cuda", RowLimit: 2, Totals: &tot}))
	golden(t, "diff.md", buf.Bytes())
	buf.Reset()
	require.NoError(t, WriteDiff(&buf, FormatCSV, rows, DiffOptions{}))
	golden(t, "diff.csv", buf.Bytes())
	buf.Reset()
	require.NoError(t, WriteDiff(&buf, FormatJSON, rows, DiffOptions{RowLimit: 3}))
	var doc struct {
		Rows        []DiffRow `json:"rows"`
		RowsLeftOut int       `json:"rows_left_out"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	assert.Equal(t, rows[:3], doc.Rows)
	assert.Equal(t, 2, doc.RowsLeftOut)
}
