package timeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/orprof/orprof/analysis"
	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace"
)

// Analysis is the device-timeline analyses as the report summary composes them (member
// "timeline"): merged once, all inputs together (MergeAll derives the cross-rank figures).
var Analysis = &analysis.Kind{
	Name: "timeline",
	Key:  "orprof_timeline",
	New: func() analysis.Analysis {
		c := NewConsumer(DefaultOptions(), nil)
		c.a.inRead = true // the table's read goes on beside its Finish, its records live
		return c
	},
	ByRank: true,
	Once:   true,
	Ranks: func(s analysis.Summary) ([]trace.Rank, bool) {
		return rankNumbers(s.(*Summary).Ranks), true
	},
	Merge: func(parts []analysis.Part) (analysis.Summary, error) {
		if !analysis.All(parts) {
			return nil, nil
		}
		tl, rest := parts[0].Summary.(*Summary), make([]*Summary, 0, len(parts)-1)
		for _, p := range parts[1:] {
			rest = append(rest, p.Summary.(*Summary))
		}
		if err := tl.MergeAll(rest...); err != nil {
			var me *MergeError
			if errors.As(err, &me) {
				return nil, fmt.Errorf("%s: timeline: %v", parts[me.Index+1].Name, me.Err)
			}
			return nil, fmt.Errorf("%s: timeline: %v", parts[1].Name, err)
		}
		return tl, nil
	},
	Write: func(w io.Writer, s analysis.Summary) error { return Write(w, text.JSON, s.(*Summary), Views) },
	Read: func(data []byte, member string) (analysis.Summary, error) {
		s, err := ReadSummary(bytes.NewReader(data))
		if err != nil {
			return nil, analysis.Clip(member, err)
		}
		return s, nil
	},
}

// Analysis names the summary's kind: "timeline".
func (*Summary) Analysis() string { return "timeline" }

// Result is Summary as analysis.Analysis has it.
func (c *Consumer) Result() (analysis.Summary, error) {
	s := c.Summary()
	if s == nil {
		return nil, nil
	}
	return s, nil
}
