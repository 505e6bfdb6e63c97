// Package analysistest checks that a Kind's summaries keep the rules of package analysis, as
// testing/slogtest checks a slog.Handler: merges associative (the same JSON bytes however
// the merges are grouped), a JSON round trip, ranks renumbered by internal/ranknum's rule,
// foreign JSON refused with one line naming its kind, and a New that makes a
// tracefile.Consumer.
package analysistest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/orprof/orprof/analysis"
	"github.com/orprof/orprof/internal/ranknum"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// Input is one input of a merge: a summary and its ranks as its table numbers them.
type Input struct {
	Summary analysis.Summary
	Ranks   []trace.Rank
}

// Source makes the summary of input i (0 ≤ i < 3) read as the rank at position pos (a trace
// that names its rank keeps it). Each call makes a new summary.
type Source func(i, pos int) (Input, error)

// Run checks the kind k of reg on the inputs src makes, each check a subtest. foreign are
// JSON documents of other kinds, by kind name (a kind's own is skipped).
func Run(t *testing.T, reg analysis.Registry, k *analysis.Kind, src Source, foreign map[string][]byte) {
	t.Helper()
	get := func(t *testing.T, i, pos int) Input {
		t.Helper()
		in, err := src(i, pos)
		if err != nil {
			t.Fatalf("input %d at %d: %v", i, pos, err)
		}
		return in
	}
	t.Run("New", func(t *testing.T) {
		if k.New == nil {
			t.Skip("made by the table's read")
		}
		if _, ok := k.New().(tracefile.Consumer); !ok {
			t.Errorf("%s: New makes a %T, not a tracefile.Consumer", k.Name, k.New())
		}
	})
	t.Run("RoundTrip", func(t *testing.T) {
		for i := range 3 {
			in := get(t, i, i)
			if in.Summary == nil {
				continue
			}
			a := write(t, k, in.Summary)
			back, err := reg.Read(k, a, k.Name)
			if err != nil {
				t.Fatalf("input %d: reading back its JSON: %v", i, err)
			}
			if b := write(t, k, back); !bytes.Equal(a, b) {
				t.Errorf("input %d: written, read and written again differs:\n%s\n%s", i, a, b)
			}
		}
	})
	t.Run("Associative", func(t *testing.T) {
		in := func() []Input { return []Input{get(t, 0, 0), get(t, 1, 1), get(t, 2, 2)} }
		x := in()
		all := mustMerge(t, k, x[0], x[1], x[2])
		x = in()
		left := mustMerge(t, k, mustMerge(t, k, x[0], x[1]), x[2])
		x = in()
		right := mustMerge(t, k, x[0], mustMerge(t, k, x[1], x[2]))
		a, l, r := write(t, k, all.Summary), write(t, k, left.Summary), write(t, k, right.Summary)
		if !bytes.Equal(a, l) {
			t.Errorf("merge(a, b, c) and merge(merge(a, b), c) differ:\n%s\n%s", a, l)
		}
		if !bytes.Equal(a, r) {
			t.Errorf("merge(a, b, c) and merge(a, merge(b, c)) differ:\n%s\n%s", a, r)
		}
	})
	t.Run("OrderOfReads", func(t *testing.T) {
		var fwd, rev [3]Input
		for i := range 3 {
			fwd[i] = get(t, i, i)
		}
		for i := 2; i >= 0; i-- {
			rev[i] = get(t, i, i)
		}
		f, r := mustMerge(t, k, fwd[:]...), mustMerge(t, k, rev[:]...)
		if a, b := write(t, k, f.Summary), write(t, k, r.Summary); !bytes.Equal(a, b) {
			t.Errorf("the inputs made in reverse order merge to other bytes:\n%s\n%s", a, b)
		}
	})
	t.Run("Renumber", func(t *testing.T) {
		at0 := get(t, 1, 0)
		if len(at0.Ranks) == 0 || at0.Ranks[0].Named {
			t.Skip("input 1 names its rank")
		}
		a := mustMerge(t, k, get(t, 0, 0), at0)
		b := mustMerge(t, k, get(t, 0, 0), get(t, 1, 1))
		if x, y := write(t, k, a.Summary), write(t, k, b.Summary); !bytes.Equal(x, y) {
			t.Errorf("a rank-less summary made at position 0 and merged at 1 differs from one made at 1:\n%s\n%s", x, y)
		}
	})
	t.Run("Foreign", func(t *testing.T) {
		n := 0
		for name, data := range foreign {
			if name == k.Name {
				continue
			}
			n++
			_, err := reg.Read(k, data, k.Name)
			switch {
			case err == nil:
				t.Errorf("a %s summary read as a %s summary", name, k.Name)
			case strings.Contains(err.Error(), "\n"):
				t.Errorf("a %s summary: the error is not one line: %q", name, err)
			case !strings.Contains(err.Error(), name):
				t.Errorf("a %s summary: the error does not say what it is: %v", name, err)
			}
		}
		if n == 0 {
			t.Skip("no foreign summary given")
		}
	})
}

// Merge merges ins in order as the report summary merges its inputs: each input's ranks
// numbered by internal/ranknum's rule at its place.
func Merge(k *analysis.Kind, ins ...Input) (Input, error) {
	parts := make([]analysis.Part, len(ins))
	var ranks []trace.Rank
	for i, in := range ins {
		at := len(ranks)
		p := analysis.Part{Summary: in.Summary, Name: fmt.Sprintf("input %d", i+1), Ranks: in.Ranks, At: at, First: int64(at)}
		nums, err := ranknum.Map(in.Ranks, at)
		if err != nil {
			return Input{}, fmt.Errorf("%s: %v", p.Name, err)
		}
		p.Nums = nums
		for j, r := range in.Ranks {
			if r.Named {
				ranks = append(ranks, r)
			} else {
				ranks = append(ranks, trace.Rank{Number: int64(at + j), Trace: r.Trace})
			}
		}
		if len(in.Ranks) > 0 && in.Ranks[0].Named {
			p.First = in.Ranks[0].Number
		}
		parts[i] = p
	}
	s, err := k.Merge(parts)
	return Input{Summary: s, Ranks: ranks}, err
}

func mustMerge(t *testing.T, k *analysis.Kind, ins ...Input) Input {
	t.Helper()
	out, err := Merge(k, ins...)
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	return out
}

func write(t *testing.T, k *analysis.Kind, s analysis.Summary) []byte {
	t.Helper()
	var b bytes.Buffer
	if s == nil {
		return []byte("null") // (an input without the view: a merge keeps none, or the others')
	}
	if err := k.Write(&b, s); err != nil {
		t.Fatalf("write: %v", err)
	}
	return b.Bytes()
}
