package ranks

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/trace/tracefile"
)

var traces = []string{
	"../../testdata/kineto-extra/hta_sampled_rank0.json.gz",
	"../../testdata/kineto-extra/hta_cpu_rank0.json.gz",
	"../../testdata/kineto/rocm_mi250_train.json.gz",
	"../../testdata/kineto-extra/hta_no_rank.json.gz",
}

// TestLoadTracesOrder: the summary does not depend on how many traces are read at once (so
// not on the order the reads finish in), and equals the merge of each trace's summary.
func TestLoadTracesOrder(t *testing.T) {
	one, w1, err := LoadTraces(traces, ReadOptions{Workers: 1})
	require.NoError(t, err)
	many, w4, err := LoadTraces(traces, ReadOptions{Workers: 4})
	require.NoError(t, err)
	assert.Equal(t, one, many)
	assert.Equal(t, w1, w4, "warnings come in path order")
	assert.Empty(t, w1, "every kernel reaches its op by its launch")
	_, w1, err = LoadTraces(traces, ReadOptions{Workers: 1, Link: tracefile.LinkExternalID})
	require.NoError(t, err)
	require.Len(t, w1, 1)
	assert.Contains(t, w1[0], traces[0]+`: 607844.000 µs of 607844.000 µs of device time (100.0%, 1204 events) reached no operator`)
	var sums []*optable.Summary
	for i, p := range traces {
		s, _, err := Open(p, i, ReadOptions{})
		require.NoError(t, err)
		sums = append(sums, s)
	}
	merged, err := optable.MergeSummaries(sums...)
	require.NoError(t, err)
	assert.Equal(t, one, merged)
	require.Len(t, one.Ranks, 4)
	for i, r := range one.Ranks {
		assert.Equal(t, traces[i], r.Trace)
	}
	assert.Equal(t, []int64{0, 0, 2, 3}, []int64{one.Ranks[0].Number, one.Ranks[1].Number, one.Ranks[2].Number, one.Ranks[3].Number},
		"distributedInfo.rank where the trace has one, else the position")
	assert.Equal(t, []bool{true, true, false, false}, []bool{one.Ranks[0].Named, one.Ranks[1].Named, one.Ranks[2].Named, one.Ranks[3].Named})
	assert.Equal(t, []int64{0}, one.DuplicateRanks())
}

// TestLoadTracesError: the first failing trace in path order is reported, whatever the workers
// finish first.
func TestLoadTracesError(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"traceEvents": [`), 0o644))
	_, _, err := LoadTraces([]string{traces[0], bad, filepath.Join(dir, "missing.json")}, ReadOptions{Workers: 3})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.json")
}

// TestLoadSummaryOrTrace: Open tells a summary from a trace by its first key, plain or gzip.
func TestLoadSummaryOrTrace(t *testing.T) {
	fromTrace, _, err := Open(traces[2], 0, ReadOptions{Grouping: events.AverageOptions{GroupByInputShape: true}})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, optable.WriteSummaryJSON(&buf, fromTrace, optable.TableOptions{RowLimit: optable.RowLimitAll}))
	p := filepath.Join(t.TempDir(), "s.json")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	in, err := input.Open(p)
	require.NoError(t, err)
	assert.Equal(t, input.TableSummary, in.Kind)
	in, err = input.Open(traces[2])
	require.NoError(t, err)
	assert.Equal(t, input.Trace, in.Kind)
	fromSummary, _, err := Open(p, 0, ReadOptions{})
	require.NoError(t, err)
	assert.Equal(t, fromTrace, fromSummary)
	assert.True(t, fromSummary.GroupByInputShape)
}

// BenchmarkLoadTraces reads four real traces as four ranks, one at a time and all at once.
func BenchmarkLoadTraces(b *testing.B) {
	for _, w := range []int{1, 0} {
		name := "workers=1"
		if w == 0 {
			name = "workers=GOMAXPROCS"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := LoadTraces(traces, ReadOptions{Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestLinkWarningSums: when several traces have device time that reached no operator, one line
// sums them.
func TestLinkWarningSums(t *testing.T) {
	paths := []string{"../../testdata/kineto/cuda_alexnet.json.gz", "../../testdata/kineto-extra/hta_cpu_rank0.json.gz",
		"../../testdata/kineto/rocm_mi250_train.json.gz", "../../testdata/kineto-extra/hta_sampled_rank0.json.gz"}
	strict := ReadOptions{Link: tracefile.LinkExternalID}
	_, w, err := LoadTraces(paths, strict)
	require.NoError(t, err)
	assert.Equal(t, []string{`2 of 3 traces with device time: 675525.000 µs of 675674.042 µs of device time (100.0%, 1343 events) reached no operator: ` +
		`its "External id" equals the event's own "correlation", as some Kineto builds of 2022–2023 wrote it, so the file does not say which operator launched it`}, w)
	_, w2, err := Load(paths, strict)
	require.NoError(t, err)
	assert.Equal(t, w, w2)
	// With every rule, only the one alexnet memcpy whose launch lies in no op is left.
	_, w, err = LoadTraces(paths, ReadOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{`../../testdata/kineto/cuda_alexnet.json.gz: 10.000 µs of 67681.000 µs of device time (0.0%, 1 event) reached no operator: its runtime launch lies within no operator on its thread`}, w)
}

// BenchmarkTwoMTIATraces: what reading two 456k-event traces costs, beside what a two-rank
// table (LoadTraces), a merge (Load) and a diff (two Opens + optable.Diff) of the same two
// cost: the target is that they take about as long as the reads.
func BenchmarkTwoMTIATraces(b *testing.B) {
	mtia := "../../testdata/kineto/mtia_rank0.json.gz"
	two := []string{mtia, mtia}
	b.Run("read-both", func(b *testing.B) {
		for b.Loop() {
			for _, p := range two {
				if _, err := tracefile.Open(p, tracefile.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("table-two-ranks", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := LoadTraces(two, ReadOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("merge", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := Load(two, ReadOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("diff", func(b *testing.B) {
		for b.Loop() {
			x, _, err := Open(mtia, 0, ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			y, _, err := Open(mtia, 1, ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			optable.Diff(x, y)
		}
	})
}
