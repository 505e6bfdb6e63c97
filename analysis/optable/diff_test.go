package optable

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/text"
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
	require.NoError(t, WriteDiff(&buf, text.Text, rows, DiffOptions{Device: "cuda", Totals: &tot}))
	golden(t, "diff.txt", buf.Bytes())
	buf.Reset()
	require.NoError(t, WriteDiff(&buf, text.Markdown, rows, DiffOptions{Device: "cuda", RowLimit: 2, Totals: &tot}))
	golden(t, "diff.md", buf.Bytes())
	buf.Reset()
	require.NoError(t, WriteDiff(&buf, text.CSV, rows, DiffOptions{}))
	golden(t, "diff.csv", buf.Bytes())
	buf.Reset()
	require.NoError(t, WriteDiff(&buf, text.JSON, rows, DiffOptions{RowLimit: 3}))
	var doc struct {
		Rows        []DiffRow `json:"rows"`
		RowsLeftOut int       `json:"rows_left_out"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	assert.Equal(t, rows[:3], doc.Rows)
	assert.Equal(t, 2, doc.RowsLeftOut)
}

// TestDiffAcrossDevices: each side's device columns carry its own device's name, the deltas
// and the total say "device"; the same device on both sides keeps one name.
func TestDiffAcrossDevices(t *testing.T) {
	before := rankSummary(1, false, RankInfo{})
	after := rankSummary(2, true, RankInfo{})
	rows := Diff(before, after)
	tot := [2]Totals{before.Totals(), after.Totals()}
	var buf bytes.Buffer
	require.NoError(t, WriteDiff(&buf, text.Text, rows, DiffOptions{Device: "cuda", AfterDevice: "openreg", Totals: &tot}))
	golden(t, "diff_devices.txt", buf.Bytes())
	s := buf.String()
	for _, want := range []string{"Self CUDA before", "Self OPENREG after", "Δ Self device", "Self device time total (CUDA -> OPENREG): "} {
		assert.Contains(t, s, want)
	}
	assert.NotContains(t, s, "Self CUDA after")
	buf.Reset()
	require.NoError(t, WriteDiff(&buf, text.Text, rows, DiffOptions{Device: "cuda", AfterDevice: "CUDA", Totals: &tot}))
	assert.Contains(t, buf.String(), "Self CUDA after")
	assert.Contains(t, buf.String(), "Self CUDA time total: ")
}

// TestCheckDiff: summaries grouped differently are refused, as MergeSummaries refuses them;
// summaries of two devices are not.
func TestCheckDiff(t *testing.T) {
	a := rankSummary(1, false, RankInfo{})
	b := rankSummary(2, true, RankInfo{})
	require.NoError(t, CheckDiff(a, b))
	b.GroupByInputShape = true
	err := CheckDiff(a, b)
	require.Error(t, err)
	assert.Equal(t, "summary 2 was grouped differently (group by input shape true, stack frames 0) from summary 1 (false, 0): make both with the same grouping flags", err.Error())
	_, merr := MergeSummaries(a, b)
	assert.Error(t, merr, "merge refuses the same pair")
	b.GroupByInputShape, b.GroupByStackN = false, 3
	assert.Error(t, CheckDiff(a, b))
	b.GroupByStackN, b.Device = 0, "openreg"
	a.Device = "cuda"
	assert.NoError(t, CheckDiff(a, b))
}

// TestDiffTextAligned: every header sits over its column (a device column was narrower than
// "Self OPENREG before"), and a total of 0 on both sides says "no change", not "(0.000us, )".
func TestDiffTextAligned(t *testing.T) {
	before := rankSummary(1, false, RankInfo{})
	after := rankSummary(2, true, RankInfo{})
	rows := Diff(before, after)
	zero := [2]Totals{{SelfCPU: 5, HasDevice: true}, {SelfCPU: 5, HasDevice: true}}
	var buf bytes.Buffer
	require.NoError(t, WriteDiff(&buf, text.Text, rows, DiffOptions{Device: "openreg", Totals: &zero}))
	lines := strings.Split(buf.String(), "\n")
	rule, head := lines[0], lines[1]
	// No header cell runs past the end of its column's rule of dashes (compared in runes:
	// headers hold "Δ").
	hr, rr := []rune(head), []rune(rule)
	for i := range rr {
		if rr[i] == '-' && (i+1 == len(rr) || rr[i+1] == ' ') && i+1 < len(hr) && hr[i+1] != ' ' {
			t.Errorf("a header runs past its column's rule at rune %d:\n%s\n%s", i, rule, head)
		}
	}
	assert.Contains(t, head, "Self OPENREG before")
	assert.Contains(t, buf.String(), "Self OPENREG time total: 0.000us -> 0.000us (no change)\n")
	assert.Contains(t, buf.String(), "Self CPU time total: 5.000us -> 5.000us (0.000us, 0.0%)\n")
	assert.NotContains(t, buf.String(), ", )")
}
