package memcurve

import (
	"io"

	"github.com/orprof/orprof/analysis"
)

// Analysis is the memory curves as the report summary composes them (member "memory"): a
// merge keeps each rank's devices, named after the rank the table's merge gives it.
var Analysis = &analysis.Kind{
	Name:   "memory",
	Key:    "start_ns",
	New:    func() analysis.Analysis { return NewCollector() },
	ByRank: true,
	Merge: func(parts []analysis.Part) (analysis.Summary, error) {
		ranks := make([]int64, len(parts))
		sums := make([]*Summary, len(parts))
		for i, p := range parts {
			ranks[i] = p.First
			if p.Summary != nil {
				sums[i] = p.Summary.(*Summary)
				sums[i].Renumber(p.Nums)
			}
		}
		if m := Merge(ranks, sums); m != nil {
			return m, nil
		}
		return nil, nil
	},
	Write: func(w io.Writer, s analysis.Summary) error { return analysis.MarshalTo(w, s) },
	Read:  analysis.ReadStrict[Summary],
}

// Analysis names the summary's kind: "memory".
func (*Summary) Analysis() string { return "memory" }

// Result is Summary as analysis.Analysis has it.
func (c *Collector) Result() (analysis.Summary, error) {
	if c.done == nil {
		return nil, nil
	}
	return c.done, nil
}
