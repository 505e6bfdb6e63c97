package optable

import (
	"bytes"
	"errors"
	"io"

	"github.com/orprof/orprof/analysis"
	"github.com/orprof/orprof/trace"
)

// Analysis is the op table as the report summary composes it (member "table", always
// present): made by the table's read (events.Averager), merged as `orprof merge` merges.
// Its ranks are the report summary's.
var Analysis = &analysis.Kind{
	Name: "table",
	Key:  "self_cpu_time_total",
	Ranks: func(s analysis.Summary) ([]trace.Rank, bool) {
		return s.(*Summary).rankIDs(), true
	},
	Merge: func(parts []analysis.Part) (analysis.Summary, error) {
		sums := make([]*Summary, len(parts))
		for i, p := range parts {
			sums[i] = p.Summary.(*Summary)
		}
		t, err := MergeSummaries(sums...)
		var me *MergeError
		if errors.As(err, &me) {
			return nil, errors.New(me.Named(func(i int) string { return parts[i].Name }))
		}
		if err != nil {
			return nil, err
		}
		return t, nil
	},
	Write: func(w io.Writer, s analysis.Summary) error {
		return WriteSummaryJSON(w, s.(*Summary), TableOptions{RowLimit: RowLimitAll})
	},
	Read: func(data []byte, member string) (analysis.Summary, error) {
		s, err := ReadSummary(bytes.NewReader(data), member)
		if err != nil {
			return nil, err
		}
		return s, nil
	},
}

// Analysis names the summary's kind: "table".
func (*Summary) Analysis() string { return "table" }

// rankIDs are its ranks' identities.
func (s *Summary) rankIDs() []trace.Rank {
	rs := make([]trace.Rank, len(s.Ranks))
	for i, r := range s.Ranks {
		rs[i] = r.Rank
	}
	return rs
}
