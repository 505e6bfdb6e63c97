package ranknum

import (
	"errors"
	"fmt"
	"maps"
	"testing"
)

// Rank is a test's rank (the program's is trace.Rank, which this package does not import).
type Rank struct {
	Number int64
	Named  bool
}

func (r Rank) RankNumber() (int64, bool) { return r.Number, r.Named }

func TestMap(t *testing.T) {
	free := func(n int64) Rank { return Rank{Number: n} }
	named := func(n int64) Rank { return Rank{Number: n, Named: true} }
	for _, c := range []struct {
		name  string
		rs    []Rank
		first int
		want  map[int64]int64
		clash bool
	}{
		{"first summary: nothing moves", []Rank{free(0), free(1)}, 0, nil, false},
		{"second summary of two rank-less", []Rank{free(0), free(1)}, 2, map[int64]int64{0: 2, 1: 3}, false},
		{"chained numbers are one map, not one after another", []Rank{free(0), free(1), free(2)}, 1, map[int64]int64{0: 1, 1: 2, 2: 3}, false},
		{"a named rank keeps its number", []Rank{named(7), free(1)}, 4, map[int64]int64{1: 5}, false},
		{"a named rank that is already the new number", []Rank{free(0), named(2)}, 2, map[int64]int64{0: 2}, false},
		{"a named rank and a rank-less one share a number the merge keeps", []Rank{free(0), named(0)}, 0, nil, false},
		{"a named rank and a rank-less one share a number the merge parts", []Rank{free(0), named(0)}, 3, nil, true},
		{"named first, shared number parted", []Rank{named(1), free(1)}, 2, nil, true},
		{"two rank-less ranks of one number (no writer makes it)", []Rank{free(5), free(5)}, 0, nil, true},
		{"one rank, renumbered", []Rank{free(0)}, 9, map[int64]int64{0: 9}, false},
		{"one named rank", []Rank{named(3)}, 9, nil, false},
		{"no ranks", nil, 4, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Map(c.rs, c.first)
			var cl *Clash
			if c.clash != errors.As(err, &cl) {
				t.Fatalf("error %v, want a clash: %v", err, c.clash)
			}
			if !maps.Equal(m, c.want) || (c.want == nil) != (m == nil) {
				t.Errorf("map %v, want %v", m, c.want)
			}
		})
	}
}

func ExampleMap() {
	// ab.json holds two rank-less traces (ranks 0 and 1) and comes after two other ranks.
	m, _ := Map([]Rank{{Number: 0}, {Number: 1}}, 2)
	fmt.Println(m[0], m[1])
	// Output: 2 3
}
