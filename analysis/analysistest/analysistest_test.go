package analysistest

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/orprof/orprof/analysis"
	"github.com/orprof/orprof/trace"
)

// counter is a toy summary: a sum and the ranks it was summed over.
type counter struct {
	Total int64   `json:"counter"`
	Ranks []int64 `json:"ranks"`
}

func (*counter) Analysis() string { return "counter" }

// counterKind is a Kind of counters whose merge is merge; read refuses nothing when lax.
func counterKind(merge func(a, b int64) int64, renumber, lax bool) *analysis.Kind {
	return &analysis.Kind{
		Name: "counter",
		Key:  "counter",
		Merge: func(parts []analysis.Part) (analysis.Summary, error) {
			out := &counter{}
			for i, p := range parts {
				s := p.Summary.(*counter)
				if i == 0 {
					out.Total = s.Total
				} else {
					out.Total = merge(out.Total, s.Total)
				}
				for _, r := range s.Ranks {
					if to, ok := p.Nums[r]; ok && renumber {
						r = to
					}
					out.Ranks = append(out.Ranks, r)
				}
			}
			return out, nil
		},
		Write: func(w io.Writer, s analysis.Summary) error { return analysis.MarshalTo(w, s) },
		Read: func(data []byte, member string) (analysis.Summary, error) {
			var c counter
			if lax {
				json.Unmarshal(data, &c)
				return &c, nil
			}
			if err := analysis.DecodeStrict(data, &c); err != nil {
				return nil, analysis.Clip(member, err)
			}
			return &c, nil
		},
	}
}

func counters(i, pos int) (Input, error) {
	return Input{Summary: &counter{Total: int64(10 * (i + 1)), Ranks: []int64{int64(pos)}},
		Ranks: []trace.Rank{{Number: int64(pos)}}}, nil
}

// The kit passes a summary that keeps the rules and names the rule each broken one breaks.
func TestCheck(t *testing.T) {
	sum := func(a, b int64) int64 { return a + b }
	mean := func(a, b int64) int64 { return (a + b) / 2 }
	foreign := map[string][]byte{"stranger": []byte(`{"stranger": 1}`)}
	for _, c := range []struct {
		name string
		kind *analysis.Kind
		want []string // the checks that fail
	}{
		{"keeps the rules", counterKind(sum, true, false), nil},
		{"merge not associative", counterKind(mean, true, false), []string{"Associative"}},
		{"ranks not renumbered", counterKind(sum, false, false), []string{"Renumber"}},
		{"foreign JSON read", counterKind(sum, true, true), []string{"Foreign"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Check(analysis.Registry{c.kind}, c.kind, counters, foreign)
			if len(c.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no failure, want %v", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), "counter: "+w+": ") {
					t.Errorf("no %s failure in %v", w, err)
				}
			}
		})
	}
}
