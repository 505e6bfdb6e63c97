package tbsteps

import (
	"io"

	"github.com/orprof/orprof/analysis"
	"github.com/orprof/orprof/trace"
)

// Analysis is the step breakdown as the report summary composes it (member "steps"): a
// merge keeps each rank's steps, renumbered as the table's ranks are.
var Analysis = &analysis.Kind{
	Name:   "steps",
	Key:    "categories",
	New:    func() analysis.Analysis { return NewCollector() },
	ByRank: true,
	Ranks: func(s analysis.Summary) ([]trace.Rank, bool) {
		st := s.(*Summary)
		rs := make([]trace.Rank, len(st.Ranks))
		for i, r := range st.Ranks {
			rs[i] = r.Rank
		}
		return rs, false
	},
	Merge: func(parts []analysis.Part) (analysis.Summary, error) {
		if !analysis.All(parts) {
			return nil, nil
		}
		st := &Summary{Categories: parts[0].Summary.(*Summary).Categories}
		for _, p := range parts {
			s := p.Summary.(*Summary)
			s.Renumber(p.Nums)
			st.Merge(s)
		}
		return st, nil
	},
	Write: func(w io.Writer, s analysis.Summary) error { return analysis.MarshalTo(w, s) },
	Read:  analysis.ReadStrict[Summary],
}

// Analysis names the summary's kind: "steps".
func (*Summary) Analysis() string { return "steps" }

// Renumber gives its ranks the numbers nums maps theirs to (internal/ranknum.Map).
func (s *Summary) Renumber(nums map[int64]int64) {
	for j, r := range s.Ranks {
		if to, ok := nums[r.Number]; ok {
			s.Ranks[j].Number = to
		}
	}
}

// Result is Summary as analysis.Analysis has it.
func (c *Collector) Result() (analysis.Summary, error) {
	if c.done == nil {
		return nil, nil
	}
	return c.done, nil
}
