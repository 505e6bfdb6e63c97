package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace"
)

// Summary is an analysis's result: one rank's, or several ranks' merged.
type Summary interface {
	// Analysis is the name of its Kind ("kernels").
	Analysis() string
}

// Analysis is a consumer that ends in a Summary (the package doc states the contract): a
// tracefile.Consumer with a Result. (This package does not import the reader, so that every
// analysis package can import it; a Kind's New is checked to make a Consumer by package
// analysistest and by the report, which feeds it.)
type Analysis interface {
	// Result is the summary made by Finish (nil: nothing to summarize) or the error that
	// stopped the analysis.
	Result() (Summary, error)
}

// Part is one input of a merge.
type Part struct {
	// Summary is the input's (nil: it has none).
	Summary Summary
	// Name names the input in errors, quoted.
	Name string
	// Ranks are the input's ranks as its table has them; At is where the first of them is
	// among all the ranks merged, First the number the merge gives it, and Nums the
	// renumbering of its ranks (internal/ranknum.Map; nil: none moves).
	Ranks []trace.Rank
	At    int
	First int64
	Nums  map[int64]int64
	// Clash is why its ranks cannot be renumbered (a *ranknum.Clash; Nums is then nil).
	Clash error
}

// Kind is one analysis as the report summary composes it: one registry entry.
type Kind struct {
	// Name is its member in a report summary ("kernels").
	Name string
	// Key is the first key of its JSON object, by which Identify tells the kinds apart.
	Key string
	// New makes a consumer for one read; nil for the kinds the table's read makes (the op
	// table and the op tree).
	New func() Analysis
	// ByRank says its figures are keyed by rank number: a merge whose ranks cannot be told
	// apart (ranknum.Clash) is refused when an input has it.
	ByRank bool
	// Once says its merge derives figures across every rank: a merge of many inputs hands it
	// them all at once, not one at a time.
	Once bool
	// Ranks are a summary's ranks in order, and whether it says which its traces named; nil
	// for a kind without ranks of its own.
	Ranks func(s Summary) (rs []trace.Rank, named bool)
	// Merge merges the parts in order into a new summary (the inputs may be taken over); nil
	// when the merge has none. Its errors name the part.
	Merge func(parts []Part) (Summary, error)
	// Write writes a summary's JSON (the document its command's --format json prints).
	Write func(w io.Writer, s Summary) error
	// Read reads Write's JSON; its errors start with member.
	Read func(data []byte, member string) (Summary, error)
}

// Registry is a list of Kinds: the members of a report summary, in order.
type Registry []*Kind

// Lookup returns the kind named name, or nil.
func (r Registry) Lookup(name string) *Kind {
	for _, k := range r {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// Identify returns the kind whose Key is data's first key, or nil.
func (r Registry) Identify(data []byte) *Kind {
	key := firstKey(data)
	for _, k := range r {
		if key != "" && k.Key == key {
			return k
		}
	}
	return nil
}

// Read reads data as a summary of the kind k, refusing a summary of another kind in r with
// one line saying what it is.
func (r Registry) Read(k *Kind, data []byte, member string) (Summary, error) {
	if other := r.Identify(data); other != nil && other != k {
		return nil, fmt.Errorf("%s: a %s summary (first key %q), not a %s summary", member, other.Name, other.Key, k.Name)
	}
	return k.Read(data, member)
}

// firstKey is the first key of the JSON object data starts, "" when it starts none.
func firstKey(data []byte) string {
	p := bytes.TrimLeft(data, " \t\r\n")
	if len(p) == 0 || p[0] != '{' {
		return ""
	}
	p = bytes.TrimLeft(p[1:], " \t\r\n")
	if len(p) == 0 || p[0] != '"' {
		return ""
	}
	end := bytes.IndexByte(p[1:], '"')
	if end < 0 {
		return ""
	}
	return string(p[1 : 1+end])
}

// Clip formats a reader's error as a report member's: the member, then the error's text
// cut to a line (internal/quote).
func Clip(member string, err error) error {
	return fmt.Errorf("%s: %s", member, quote.Clip(err.Error()))
}

// DecodeStrict decodes the JSON data into v, refusing a member v has no field for.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// checked is a summary type whose JSON is its struct's and that checks itself once read.
type checked[T any] interface {
	*T
	Summary
	Check() error
}

// ReadStrict is a Kind's Read for a summary whose JSON is its struct's (MarshalTo's): the
// document decoded strictly (DecodeStrict), then checked; an error names member.
func ReadStrict[T any, P checked[T]](data []byte, member string) (Summary, error) {
	p := P(new(T))
	if err := DecodeStrict(data, p); err != nil {
		return nil, Clip(member, err)
	}
	if err := p.Check(); err != nil {
		return nil, Clip(member, err)
	}
	return p, nil
}

// MarshalTo writes v as encoding/json marshals it (a Kind's Write for a summary whose JSON is
// its struct's).
func MarshalTo(w io.Writer, v any) error {
	enc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(enc)
	return err
}

// All reports whether every part has a summary: a view missing from an input is missing
// from the merge (the kinds whose Merge says so).
func All(parts []Part) bool {
	for _, p := range parts {
		if p.Summary == nil {
			return false
		}
	}
	return true
}
