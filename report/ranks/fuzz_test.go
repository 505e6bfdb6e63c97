package ranks

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/report"
	"github.com/orprof/orprof/report/tracefile"
)

// FuzzMergeTraces reads two arbitrary inputs as the traces of two ranks. It must never panic;
// when both read, the table of the merged summary must print the same bytes as the merge of the
// two summaries after a trip through their JSON form (what `orprof merge` does), in every
// format.
func FuzzMergeTraces(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "tracefile", "testdata", "reader", "*.json"))
	var seeds [][]byte
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			seeds = append(seeds, data)
		}
	}
	seeds = append(seeds, []byte(`{"distributedInfo": {"rank": 3}, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 2, "tid": 1, "pid": 1}]}`))
	for i := range seeds {
		f.Add(seeds[i], seeds[(i+1)%len(seeds)])
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var sums []*report.Summary
		for i, in := range [][]byte{a, b} {
			data, err := tracefile.Read(bytes.NewReader(in), "fuzz.json", tracefile.Options{})
			if err != nil {
				return
			}
			sums = append(sums, Summarize(data, "r", i, events.AverageOptions{}))
		}
		direct, err := report.MergeSummaries(sums...)
		if err != nil {
			require.ErrorContains(t, err, "is of device")
			return
		}
		var back []*report.Summary
		for _, s := range sums {
			var buf bytes.Buffer
			require.NoError(t, report.WriteSummaryJSON(&buf, s, report.TableOptions{RowLimit: report.RowLimitAll}))
			r, err := report.ReadSummary(&buf, "summary.json")
			require.NoError(t, err)
			back = append(back, r)
		}
		merged, err := report.MergeSummaries(back...)
		require.NoError(t, err)
		for _, f := range []report.Format{report.FormatText, report.FormatMarkdown, report.FormatCSV, report.FormatJSON} {
			var x, y bytes.Buffer
			_, err1 := report.WriteSummary(&x, f, direct, report.TableOptions{}, report.SummaryOutput{ByRank: true})
			_, err2 := report.WriteSummary(&y, f, merged, report.TableOptions{}, report.SummaryOutput{ByRank: true})
			require.NoError(t, err1)
			require.NoError(t, err2)
			require.Equal(t, x.String(), y.String(), f)
		}
	})
}
