package flame

import (
	"io"

	"github.com/orprof/orprof/analysis"
)

// Analysis is the op tree as the report summary composes it (member "flame"): made by the
// table's read (Builder, from the Averager's walk of PyTorch's tree), summed path by path
// over the ranks.
var Analysis = &analysis.Kind{
	Name: "flame",
	Key:  "root",
	Merge: func(parts []analysis.Part) (analysis.Summary, error) {
		if !analysis.All(parts) {
			return nil, nil
		}
		trees := make([]*Tree, len(parts))
		for i, p := range parts {
			trees[i] = p.Summary.(*Tree)
		}
		return Merge(trees...), nil
	},
	Write: func(w io.Writer, s analysis.Summary) error { return analysis.MarshalTo(w, s) },
	Read:  analysis.ReadStrict[Tree],
}

// Analysis names the summary's kind: "flame".
func (*Tree) Analysis() string { return "flame" }
