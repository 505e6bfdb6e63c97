package ranks

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace/tracefile"
)

// FuzzMergeTraces reads two arbitrary inputs as the traces of two ranks. It must never panic;
// when both read, the table of the merged summary must print the same bytes as the merge of the
// two summaries after a trip through their JSON form (what `orprof merge` does), in every
// format.
func FuzzMergeTraces(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "trace", "tracefile", "testdata", "reader", "*.json"))
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
		var sums []*optable.Summary
		for i, in := range [][]byte{a, b} {
			data, err := tracefile.Read(bytes.NewReader(in), "fuzz.json", tracefile.Options{})
			if err != nil {
				return
			}
			sums = append(sums, Summarize(data, "r", i, events.AverageOptions{}))
		}
		direct, err := optable.MergeSummaries(sums...)
		if err != nil {
			require.ErrorContains(t, err, "is of device")
			return
		}
		var back []*optable.Summary
		for _, s := range sums {
			var buf bytes.Buffer
			require.NoError(t, optable.WriteSummaryJSON(&buf, s, optable.TableOptions{RowLimit: optable.RowLimitAll}))
			r, err := optable.ReadSummary(&buf, "summary.json")
			require.NoError(t, err)
			back = append(back, r)
		}
		merged, err := optable.MergeSummaries(back...)
		require.NoError(t, err)
		for _, f := range []text.Format{text.Text, text.Markdown, text.CSV, text.JSON} {
			var x, y bytes.Buffer
			_, err1 := optable.WriteSummary(&x, f, direct, optable.TableOptions{}, optable.SummaryOutput{ByRank: true})
			_, err2 := optable.WriteSummary(&y, f, merged, optable.TableOptions{}, optable.SummaryOutput{ByRank: true})
			require.NoError(t, err1)
			require.NoError(t, err2)
			require.Equal(t, x.String(), y.String(), f)
		}
	})
}
