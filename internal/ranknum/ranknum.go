// Package ranknum is the one rule that numbers the ranks of summaries merged: a rank whose
// trace names its own (distributedInfo.rank) keeps that number; a rank whose trace names none
// is numbered by its position among all the ranks of the inputs, in input order — the number
// the trace would get were it read with all the others (`orprof report A B C`: trace k is rank
// k). A summary of several ranks merged behind others moves its rank-less ranks along with it.
// The table's and the kernels' merges, whose only figures keyed by rank are their lists of
// ranks, number so inline; the timeline's merge and the report summaries' (report:
// steps, memory curves), whose figures are keyed by rank number, renumber them by Map.
package ranknum

import "fmt"

// Ranked is one rank of a summary (trace.Rank): its number, and whether its trace named it.
type Ranked interface {
	RankNumber() (number int64, named bool)
}

// Map is how the ranks rs of one summary are numbered when its first rank is at position first
// among all the ranks merged: for each number that changes, the number it becomes (nil when
// none changes). A summary's figures are keyed by rank number, so each number maps to one;
// when a trace's own rank and a rank-less trace's position share a number that the merge
// would part, the figures cannot be told apart: a *Clash.
func Map[R Ranked](rs []R, first int) (map[int64]int64, error) {
	var m map[int64]int64
	for i, r := range rs {
		n, named := r.RankNumber()
		if named {
			continue
		}
		to := int64(first + i)
		if to == n {
			continue
		}
		if m == nil {
			m = make(map[int64]int64)
		}
		if prev, ok := m[n]; ok && prev != to {
			return nil, &Clash{Rank: n, To: to, Other: prev}
		}
		m[n] = to
	}
	if m == nil {
		return nil, nil
	}
	for _, r := range rs {
		n, named := r.RankNumber()
		if to, ok := m[n]; ok && named {
			return nil, &Clash{Rank: n, To: to, Other: n}
		}
	}
	return m, nil
}

// Clash is Map's error: two ranks of a summary numbered Rank, which the merge would number To
// and Other.
type Clash struct {
	Rank, To, Other int64
}

func (c *Clash) Error() string {
	return fmt.Sprintf("rank %d is the number of two of its traces, which merged here are ranks %d and %d "+
		"(one rank-less, numbered by its position): their figures cannot be told apart; "+
		"give this summary first, or the summaries of its traces", c.Rank, min(c.To, c.Other), max(c.To, c.Other))
}
