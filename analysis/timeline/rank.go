package timeline

import "github.com/orprof/orprof/internal/ranknum"

// rankNumbers are the ranks of s as internal/ranknum's rule reads them.
func rankNumbers(rs []RankInfo) []ranknum.Rank {
	out := make([]ranknum.Rank, len(rs))
	for i, r := range rs {
		out[i] = ranknum.Rank{Number: r.Rank, Named: r.HasRank}
	}
	return out
}

// marks are the lengths of s's per-rank lists: where the entries of a summary appended to s
// start.
type marks [8]int

func (s *Summary) marks() marks {
	return marks{len(s.Ranks), len(s.Breakdown), len(s.Idle), len(s.Overlap), len(s.Launches), len(s.Queue),
		len(s.Steps), len(s.Stragglers.Collectives)}
}

// renumber gives the per-rank entries of s from marks from to marks to (every per-rank list:
// a summary's figures are keyed by rank number) the numbers nums maps theirs to. The
// cross-rank figures are derived afterwards (derive), from the numbers given.
func (s *Summary) renumber(nums map[int64]int64, from, to marks) {
	if len(nums) == 0 {
		return
	}
	set := func(r *int64) {
		if n, ok := nums[*r]; ok {
			*r = n
		}
	}
	for i := from[0]; i < to[0]; i++ {
		set(&s.Ranks[i].Rank)
	}
	for i := from[1]; i < to[1]; i++ {
		set(&s.Breakdown[i].Rank)
	}
	for i := from[2]; i < to[2]; i++ {
		set(&s.Idle[i].Rank)
	}
	for i := from[3]; i < to[3]; i++ {
		set(&s.Overlap[i].Rank)
	}
	for i := from[4]; i < to[4]; i++ {
		set(&s.Launches[i].Rank)
	}
	for i := from[5]; i < to[5]; i++ {
		set(&s.Queue[i].Rank)
	}
	for i := from[6]; i < to[6]; i++ {
		set(&s.Steps[i].Rank)
	}
	for i := from[7]; i < to[7]; i++ {
		set(&s.Stragglers.Collectives[i].Rank)
	}
}

// DuplicateRanks returns the rank numbers that more than one trace of s claims, in order: the
// same trace given twice, or traces of two jobs. Their collectives are matched as if they
// were different ranks.
func (s *Summary) DuplicateRanks() []int64 {
	seen := make(map[int64]int, len(s.Ranks))
	var dup []int64
	for _, r := range s.Ranks {
		seen[r.Rank]++
		if seen[r.Rank] == 2 {
			dup = append(dup, r.Rank)
		}
	}
	return dup
}
