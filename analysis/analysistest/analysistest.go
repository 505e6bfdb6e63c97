// Package analysistest checks that a Kind's summaries keep the rules of package analysis, as
// testing/slogtest checks a slog.Handler: merges associative (the same JSON bytes however
// the merges are grouped), a JSON round trip, ranks renumbered by internal/ranknum's rule,
// foreign JSON refused with one line naming its kind, and a New that makes a
// tracefile.Consumer.
package analysistest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/orprof/orprof/analysis"
	"github.com/orprof/orprof/internal/ranknum"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// Input is one input of a merge: a summary (nil: the input has none) and its ranks as its
// table numbers them.
type Input struct {
	Summary analysis.Summary
	Ranks   []trace.Rank
}

// Source makes the summary of input i (0 ≤ i < 3) read as the rank at position pos (a trace
// that names its rank keeps it). Each call makes a new summary: a merge may take its inputs
// over.
type Source func(i, pos int) (Input, error)

// errSkip is a check's answer when the inputs cannot exercise it.
var errSkip = errors.New("skipped")

type check struct {
	name string
	run  func(c *checker) error
}

// checks are what Check checks, in order.
var checks = []check{
	{"New", (*checker).newConsumer},
	{"RoundTrip", (*checker).roundTrip},
	{"Associative", (*checker).associative},
	{"OrderOfReads", (*checker).orderOfReads},
	{"Renumber", (*checker).renumber},
	{"Foreign", (*checker).foreignRefused},
}

// Check checks the kind k of reg on the inputs src makes; foreign are JSON documents of
// other kinds, by kind name (k's own is skipped). It returns every failure, joined.
func Check(reg analysis.Registry, k *analysis.Kind, src Source, foreign map[string][]byte) error {
	c := &checker{reg, k, src, foreign}
	var errs []error
	for _, ch := range checks {
		if err := ch.run(c); err != nil && err != errSkip {
			errs = append(errs, fmt.Errorf("%s: %s: %w", k.Name, ch.name, err))
		}
	}
	return errors.Join(errs...)
}

// Run is Check with each check a subtest of t.
func Run(t *testing.T, reg analysis.Registry, k *analysis.Kind, src Source, foreign map[string][]byte) {
	t.Helper()
	c := &checker{reg, k, src, foreign}
	for _, ch := range checks {
		t.Run(ch.name, func(t *testing.T) {
			switch err := ch.run(c); err {
			case nil:
			case errSkip:
				t.Skip("the inputs cannot exercise it")
			default:
				t.Error(err)
			}
		})
	}
}

type checker struct {
	reg     analysis.Registry
	k       *analysis.Kind
	src     Source
	foreign map[string][]byte
}

func (c *checker) get(i, pos int) (Input, error) {
	in, err := c.src(i, pos)
	if err != nil {
		return Input{}, fmt.Errorf("input %d at %d: %v", i, pos, err)
	}
	return in, nil
}

// gets makes the inputs (i, pos) of pairs.
func (c *checker) gets(pairs ...[2]int) ([]Input, error) {
	out := make([]Input, len(pairs))
	for j, p := range pairs {
		in, err := c.get(p[0], p[1])
		if err != nil {
			return nil, err
		}
		out[j] = in
	}
	return out, nil
}

func (c *checker) newConsumer() error {
	if c.k.New == nil {
		return errSkip // made by the table's read
	}
	if a := c.k.New(); a == nil {
		return errors.New("New made nil")
	} else if _, ok := a.(tracefile.Consumer); !ok {
		return fmt.Errorf("New makes a %T, not a tracefile.Consumer", a)
	}
	return nil
}

func (c *checker) roundTrip() error {
	for i := range 3 {
		in, err := c.get(i, i)
		if err != nil {
			return err
		}
		if in.Summary == nil {
			continue
		}
		a, err := c.write(in.Summary)
		if err != nil {
			return err
		}
		back, err := c.reg.Read(c.k, a, c.k.Name)
		if err != nil {
			return fmt.Errorf("input %d: reading back its JSON: %v", i, err)
		}
		b, err := c.write(back)
		if err != nil {
			return err
		}
		if !bytes.Equal(a, b) {
			return fmt.Errorf("input %d: written, read and written again differs:\n%s\n%s", i, a, b)
		}
	}
	return nil
}

func (c *checker) associative() error {
	three := [][2]int{{0, 0}, {1, 1}, {2, 2}}
	var out [3][]byte
	for g, group := range []func(x []Input) (Input, error){
		func(x []Input) (Input, error) { return Merge(c.k, x...) },
		func(x []Input) (Input, error) {
			ab, err := Merge(c.k, x[0], x[1])
			if err != nil {
				return Input{}, err
			}
			return Merge(c.k, ab, x[2])
		},
		func(x []Input) (Input, error) {
			bc, err := Merge(c.k, x[1], x[2])
			if err != nil {
				return Input{}, err
			}
			return Merge(c.k, x[0], bc)
		},
	} {
		x, err := c.gets(three...)
		if err != nil {
			return err
		}
		m, err := group(x)
		if err != nil {
			return fmt.Errorf("merge: %v", err)
		}
		if out[g], err = c.write(m.Summary); err != nil {
			return err
		}
	}
	if !bytes.Equal(out[0], out[1]) {
		return fmt.Errorf("merge(a, b, c) and merge(merge(a, b), c) differ:\n%s\n%s", out[0], out[1])
	}
	if !bytes.Equal(out[0], out[2]) {
		return fmt.Errorf("merge(a, b, c) and merge(a, merge(b, c)) differ:\n%s\n%s", out[0], out[2])
	}
	return nil
}

func (c *checker) orderOfReads() error {
	fwd, err := c.gets([2]int{0, 0}, [2]int{1, 1}, [2]int{2, 2})
	if err != nil {
		return err
	}
	rev, err := c.gets([2]int{2, 2}, [2]int{1, 1}, [2]int{0, 0})
	if err != nil {
		return err
	}
	rev[0], rev[2] = rev[2], rev[0]
	return c.sameMerge(fwd, rev, "the inputs made in reverse order merge to other bytes")
}

func (c *checker) renumber() error {
	at0, err := c.get(1, 0)
	if err != nil {
		return err
	}
	if len(at0.Ranks) == 0 || at0.Ranks[0].Named {
		return errSkip // input 1 names its rank
	}
	a, err := c.get(0, 0)
	if err != nil {
		return err
	}
	b, err := c.gets([2]int{0, 0}, [2]int{1, 1})
	if err != nil {
		return err
	}
	return c.sameMerge([]Input{a, at0}, b, "a rank-less summary made at position 0 and merged at 1 differs from one made at 1")
}

func (c *checker) sameMerge(x, y []Input, what string) error {
	mx, err := Merge(c.k, x...)
	if err != nil {
		return fmt.Errorf("merge: %v", err)
	}
	my, err := Merge(c.k, y...)
	if err != nil {
		return fmt.Errorf("merge: %v", err)
	}
	a, err := c.write(mx.Summary)
	if err != nil {
		return err
	}
	b, err := c.write(my.Summary)
	if err != nil {
		return err
	}
	if !bytes.Equal(a, b) {
		return fmt.Errorf("%s:\n%s\n%s", what, a, b)
	}
	return nil
}

func (c *checker) foreignRefused() error {
	n := 0
	for name, data := range c.foreign {
		if name == c.k.Name {
			continue
		}
		n++
		_, err := c.reg.Read(c.k, data, c.k.Name)
		switch {
		case err == nil:
			return fmt.Errorf("a %s summary read as a %s summary", name, c.k.Name)
		case strings.Contains(err.Error(), "\n"):
			return fmt.Errorf("a %s summary: the error is not one line: %q", name, err)
		case !strings.Contains(err.Error(), name):
			return fmt.Errorf("a %s summary: the error does not say what it is: %v", name, err)
		}
	}
	if n == 0 {
		return errSkip
	}
	return nil
}

// write is s's JSON; "null" for no summary (an input without the view).
func (c *checker) write(s analysis.Summary) ([]byte, error) {
	if s == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	if err := c.k.Write(&b, s); err != nil {
		return nil, fmt.Errorf("write: %v", err)
	}
	return b.Bytes(), nil
}

// Merge merges ins in order as the report summary merges its inputs: each input's ranks
// numbered by internal/ranknum's rule at its place. The result's Ranks are the merged ranks.
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
			if !r.Named {
				r.Number = int64(at + j)
			}
			ranks = append(ranks, r)
		}
		if len(in.Ranks) > 0 && in.Ranks[0].Named {
			p.First = in.Ranks[0].Number
		}
		parts[i] = p
	}
	s, err := k.Merge(parts)
	return Input{Summary: s, Ranks: ranks}, err
}
