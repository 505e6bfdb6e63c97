package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/orprof/orprof/internal/golden"
)

// Every bundle written and parsed back is written to the same bytes, on traces of each kind
// (a GPU trace, one with memory records, orprof's fallback trace, a CPU-only one).
func TestWriteParse(t *testing.T) {
	for _, p := range []string{"../testdata/kineto/rocm_mi250_train.json.gz", "../trace/tracefile/testdata/reader/memory.json",
		"../trace/tracefile/testdata/reader/orprof_fallback.json", "../testdata/kineto/cpu_only.json.gz"} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, _, err := Open(p, 0, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var first bytes.Buffer
			if err := Write(&first, b); err != nil {
				t.Fatal(err)
			}
			back, err := Parse(bytes.NewReader(first.Bytes()), "b.json")
			if err != nil {
				t.Fatal(err)
			}
			var second bytes.Buffer
			if err := Write(&second, back); err != nil {
				t.Fatal(err)
			}
			if first.String() != second.String() {
				t.Errorf("written, parsed and written again: %d bytes, then %d", first.Len(), second.Len())
			}
		})
	}
}

// Merging a bundle with itself doubles the tree and the table, keeps both ranks' steps and
// curves; the inputs' views missing from one input are missing from the merge.
func TestMerge(t *testing.T) {
	read := func() *Bundle {
		b, _, err := Open("../trace/tracefile/testdata/reader/memory.json", 0, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	one := read()
	m, err := Merge(nil, read(), read())
	if err != nil {
		t.Fatal(err)
	}
	if m.Flame.Root.CPU != 2*one.Flame.Root.CPU || m.Flame.Nodes != one.Flame.Nodes {
		t.Errorf("tree: CPU %d of %d, %d nodes of %d", m.Flame.Root.CPU, one.Flame.Root.CPU, m.Flame.Nodes, one.Flame.Nodes)
	}
	if len(m.Table.Ranks) != 2 || len(m.Steps.Ranks) != 2 || len(m.Memory.Devices) != 2*len(one.Memory.Devices) ||
		m.Steps.Ranks[1].Number != 1 || m.Timeline.Ranks[1].Number != 1 {
		t.Errorf("ranks: table %d, steps %d, memory devices %d, timeline %+v", len(m.Table.Ranks), len(m.Steps.Ranks), len(m.Memory.Devices), m.Timeline.Ranks)
	}
	if !strings.HasPrefix(m.Memory.Devices[1].Name, "rank 0 · ") && !strings.HasPrefix(m.Memory.Devices[len(m.Memory.Devices)-1].Name, "rank 1 · ") {
		t.Errorf("memory devices %q", m.Memory.Devices[len(m.Memory.Devices)-1].Name)
	}
	tableOnly := &Bundle{Table: read().Table}
	m, err = Merge(nil, read(), tableOnly)
	if err != nil {
		t.Fatal(err)
	}
	if m.Flame != nil || m.Timeline != nil || m.Kernels != nil || m.Steps != nil || len(m.Table.Ranks) != 2 {
		t.Error("a view one input lacks is in the merge")
	}
}

// Merge numbers a rank whose trace names none by its position among all the ranks of its
// inputs, in every view, however the bundles were grouped: bundles of two traces merged give
// the bundle of the four merged at once, byte for byte (the memory curves named after the
// ranks 2 and 3 of the second pair, not 0 and 1 again), and that written and parsed back
// merges the same.
func TestMergeNumbersRanklessRanks(t *testing.T) {
	const memory = "../trace/tracefile/testdata/reader/memory.json" // memory curves, no rank named
	open := func(pos int) *Bundle {
		b, _, err := Open(memory, pos, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	write := func(b *Bundle) []byte {
		var buf bytes.Buffer
		if err := Write(&buf, b); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	merge := func(bs ...*Bundle) *Bundle {
		m, err := Merge(nil, bs...)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	reparse := func(b *Bundle) *Bundle {
		p, err := Parse(bytes.NewReader(write(b)), "b.json")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	want := write(merge(open(0), open(1), open(2), open(3)))
	for _, c := range []struct {
		name string
		got  func() *Bundle
	}{
		{"two and two", func() *Bundle { return merge(merge(open(0), open(1)), merge(open(0), open(1))) }},
		{"two and two, written and parsed back", func() *Bundle {
			return merge(reparse(merge(open(0), open(1))), reparse(merge(open(0), open(1))))
		}},
		{"one and three", func() *Bundle { return merge(open(0), merge(open(0), open(1), open(2))) }},
		{"one per trace, read alone", func() *Bundle { return merge(open(0), open(0), open(0), open(0)) }},
		{"nested", func() *Bundle { return merge(merge(merge(open(0), open(1)), open(0)), open(0)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.got()
			if w := write(got); !bytes.Equal(w, want) {
				t.Errorf("%d bytes, want %d", len(w), len(want))
			}
			last := got.Memory.Devices[len(got.Memory.Devices)-1].Name
			if got.Steps.Ranks[3].Number != 3 || got.Timeline.Ranks[3].Number != 3 || got.Kernels.Ranks[3].Number != 3 || !strings.HasPrefix(last, "rank 3 · ") {
				t.Errorf("the fourth rank: steps %d, timeline %d, kernels %d, memory %q", got.Steps.Ranks[3].Number, got.Timeline.Ranks[3].Number,
					got.Kernels.Ranks[3].Number, last)
			}
		})
	}
}

// FuzzParse: any input is a bundle or one error line naming the input, never a panic; a bundle
// parsed is written and parsed back to the same bundle, and merges with itself.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParse", "*"))
	if len(seeds) == 0 {
		f.Fatal("no seeds in testdata/fuzz/FuzzParse")
	}
	f.Add([]byte(`{"orprof_report": 1, "table": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse(bytes.NewReader(data), "f.json")
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "f.json: ") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: not one line naming the input", msg)
			}
			return
		}
		var w1 bytes.Buffer
		if err := Write(&w1, b); err != nil {
			t.Fatalf("a parsed bundle does not write: %v", err)
		}
		b2, err := Parse(bytes.NewReader(w1.Bytes()), "f.json")
		if err != nil {
			t.Fatalf("a written bundle does not parse: %v", err)
		}
		var w2 bytes.Buffer
		if err := Write(&w2, b2); err != nil || w1.String() != w2.String() {
			t.Fatalf("written twice: different bytes (%v)", err)
		}
		// It merges with itself behind its own ranks (renumbered), or says in one line why not.
		b3, _ := Parse(bytes.NewReader(w1.Bytes()), "f.json")
		if _, err := Merge([]string{"f.json", "g.json"}, b2, b3); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("merged with itself: %q", err)
		}
	})
}

// The fuzz seeds are real bundles of small traces, written under -update; otherwise each must
// be a fuzz corpus file (they need not be of the current summaries' formats: a seed is where
// the fuzzer starts).
func TestFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzParse")
	for _, p := range []string{"../trace/tracefile/testdata/reader/memory.json", "../trace/tracefile/testdata/reader/orprof_kernels.json"} {
		seed := filepath.Join(dir, strings.TrimSuffix(filepath.Base(p), ".json"))
		if !updateSeeds() {
			got, err := os.ReadFile(seed)
			if err != nil || !strings.HasPrefix(string(got), "go test fuzz v1\n[]byte(") {
				t.Errorf("%s: not a fuzz seed (%v; go test -update writes it)", seed, err)
			}
			continue
		}
		b, _, err := Open(p, 0, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, b); err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(dir, 0o755)
		os.WriteFile(seed, []byte("go test fuzz v1\n[]byte("+quoteGo(buf.String())+")\n"), 0o644)
	}
}

func quoteGo(s string) string { return strconv.Quote(s) }

func updateSeeds() bool { return golden.Update() }
