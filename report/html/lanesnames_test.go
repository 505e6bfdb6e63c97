package html

import (
	"strings"
	"testing"

	"github.com/orprof/orprof/analysis/lanes"
)

// The Timeline's names over their budget are shortened to their share of it, and stay
// distinct; within it they are kept whole.
func TestLanesNamesBudget(t *testing.T) {
	long := func(i int) string {
		return strings.Repeat("k", 2048) + strings.Repeat("x", i%7) + string(rune('a'+i%26))
	}
	for _, tc := range []struct {
		names, budget int
		whole         bool
	}{
		{10, LanesNameBudget, true},
		{5000, LanesNameBudget, false},
		{5000, 1 << 30, true},
	} {
		var r lanes.Rank
		for i := range tc.names {
			r.Names = append(r.Names, long(i)+strings.Repeat("y", i))
		}
		s := &lanes.Summary{Ranks: []lanes.Rank{r}}
		got, elided := lanesNames(s, tc.budget)
		if tc.whole {
			if got != s || elided != 0 {
				t.Errorf("%d names within %d bytes: %d shortened", tc.names, tc.budget, elided)
			}
			continue
		}
		n, seen := 0, map[string]bool{}
		for _, name := range got.Ranks[0].Names {
			n += len(name)
			seen[name] = true
		}
		if n > tc.budget+64*tc.names/10 || elided != tc.names || len(seen) != tc.names {
			t.Errorf("%d names over %d bytes: %d bytes, %d shortened, %d distinct", tc.names, tc.budget, n, elided, len(seen))
		}
		if len(s.Ranks[0].Names[0]) < 2048 {
			t.Error("the summary's own names were changed")
		}
	}
}
