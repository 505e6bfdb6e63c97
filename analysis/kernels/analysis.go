package kernels

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/orprof/orprof/analysis"
	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace"
)

// Analysis is the kernel view as the report summary composes it (member "kernels").
var Analysis = &analysis.Kind{
	Name: "kernels",
	Key:  "orprof_kernels",
	New:  func() analysis.Analysis { return NewCollector() },
	Ranks: func(s analysis.Summary) ([]trace.Rank, bool) {
		k := s.(*Summary)
		rs := make([]trace.Rank, len(k.Ranks))
		for i, r := range k.Ranks {
			rs[i] = r.Rank
		}
		return rs, true
	},
	Merge: func(parts []analysis.Part) (analysis.Summary, error) {
		if !analysis.All(parts) {
			return nil, nil
		}
		ks := make([]*Summary, len(parts))
		for i, p := range parts {
			ks[i] = p.Summary.(*Summary)
		}
		k, err := Merge(ks...)
		var me *MergeError
		if errors.As(err, &me) {
			return nil, errors.New("kernels: " + me.Named(func(i int) string { return parts[i].Name }))
		}
		if err != nil {
			return nil, fmt.Errorf("kernels: %v", err)
		}
		return k, nil
	},
	Write: func(w io.Writer, s analysis.Summary) error {
		return Write(w, text.JSON, s.(*Summary), WriteOptions{})
	},
	Read: func(data []byte, member string) (analysis.Summary, error) {
		s, err := ReadSummary(bytes.NewReader(data), member)
		if err != nil {
			return nil, err
		}
		return s, nil
	},
}

// Analysis names the summary's kind: "kernels".
func (*Summary) Analysis() string { return "kernels" }

// Result is Summary as analysis.Analysis has it.
func (c *Collector) Result() (analysis.Summary, error) {
	s, err := c.Summary()
	if s == nil || err != nil {
		return nil, err
	}
	return s, nil
}
