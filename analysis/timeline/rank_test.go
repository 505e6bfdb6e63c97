package timeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/orprof/orprof/internal/ranknum"
	"github.com/orprof/orprof/text"
)

// A merge numbers a rank whose trace names none by its position among all the ranks merged,
// in every per-rank figure, however the summaries were grouped: the summary of a group of
// traces merged behind other ranks is the summary of all the traces read at once. A trace's
// own rank keeps its number.
func TestMergeNumbersRanklessRanks(t *testing.T) {
	const (
		rocm = "rocm_mi250_train.json.gz"   // names no rank
		cuda = "cuda_ns_resolution.json.gz" // names rank 0
	)
	open := func(name string, pos int) *Summary {
		s, _, err := OpenTrace(filepath.Join("..", "..", "testdata", "kineto", name), DefaultOptions(), pos)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	write := func(s *Summary) string {
		var b bytes.Buffer
		if err := Write(&b, text.JSON, s, Views); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	// merge merges the traces of each group (read at their positions in the group, as
	// `orprof timeline --format json` of the group does), then the groups' summaries.
	merge := func(names []string, groups []int) *Summary {
		var sums []*Summary
		at := 0
		for _, n := range groups {
			g := open(names[at], 0)
			for k := 1; k < n; k++ {
				if err := g.Merge(open(names[at+k], k)); err != nil {
					t.Fatal(err)
				}
			}
			sums = append(sums, g)
			at += n
		}
		if err := sums[0].MergeAll(sums[1:]...); err != nil {
			t.Fatal(err)
		}
		return sums[0]
	}
	for _, c := range []struct {
		name   string
		traces []string
		groups []int
	}{
		{"one trace behind three", []string{rocm, rocm, rocm, rocm}, []int{3, 1}},
		{"two behind two", []string{rocm, rocm, rocm, rocm}, []int{2, 2}},
		{"one per trace", []string{rocm, rocm, rocm}, []int{1, 1, 1}},
		{"a named rank keeps its number", []string{rocm, cuda, rocm, rocm}, []int{1, 3}},
		{"a named rank among rank-less ones moved", []string{rocm, rocm, cuda, rocm, rocm}, []int{2, 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := merge(c.traces, []int{len(c.traces)})
			got := merge(c.traces, c.groups)
			if w, g := write(want), write(got); w != g {
				t.Errorf("merged in groups %v differs from read at once:\n%s", c.groups, diffLines(w, g))
			}
			for i, r := range got.Ranks {
				want := int64(i)
				if c.traces[i] == cuda {
					want = 0
				}
				if r.Number != want {
					t.Errorf("rank %d numbered %d", i, r.Number)
				}
			}
		})
	}
	// A summary in which a trace's own rank 0 and a rank-less trace at position 0 share the
	// number cannot be moved: its figures cannot be told apart. The merge says so, naming it,
	// and leaves s as it was.
	s, clash := open(rocm, 0), open(rocm, 0)
	if err := clash.Merge(open(cuda, 1)); err != nil || clash.Ranks[0].Number != clash.Ranks[1].Number {
		t.Fatalf("%v %+v", err, clash.Ranks)
	}
	before := write(s)
	var me *MergeError
	var cl *ranknum.Clash
	if err := s.MergeAll(open(rocm, 1), clash); !errors.As(err, &me) || me.Index != 1 || !errors.As(err, &cl) {
		t.Errorf("merge of a clashing summary: %v", err)
	}
	if write(s) != before {
		t.Error("a merge that failed changed its summary")
	}
}

// orprof timeline of timeline summaries of several ranks numbers their rank-less ranks as
// reading the traces at once does (Load).
func TestReadAllNumbersSummariesRanks(t *testing.T) {
	p := filepath.Join("..", "..", "testdata", "kineto", "rocm_mi250_train.json.gz")
	dir := t.TempDir()
	var sums []string
	for i, n := range []int{2, 1, 3} {
		paths := make([]string, n)
		for k := range paths {
			paths[k] = p
		}
		s, _, err := Load(paths, DefaultOptions(), ReadOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, string(rune('a'+i))+".json")
		var b bytes.Buffer
		if err := Write(&b, text.JSON, s, Views); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(f, b.Bytes(), 0o644)
		sums = append(sums, f)
	}
	all := []string{p, p, p, p, p, p}
	want, _, err := Load(all, DefaultOptions(), ReadOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Load(sums, DefaultOptions(), ReadOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var x, y bytes.Buffer
	Write(&x, text.JSON, want, Views)
	Write(&y, text.JSON, got, Views)
	if x.String() != y.String() {
		t.Errorf("the summaries of groups of traces merged differ from the traces read at once:\n%s", diffLines(x.String(), y.String()))
	}
}
