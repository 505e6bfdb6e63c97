package timeline

import (
	"encoding/json"

	"github.com/orprof/orprof/trace"
)

// rankNumbers are the ranks of rs as internal/ranknum's rule reads them.
func rankNumbers(rs []RankInfo) []trace.Rank {
	out := make([]trace.Rank, len(rs))
	for i, r := range rs {
		out[i] = r.Rank
	}
	return out
}

// rankJSON is a RankInfo's JSON.
type rankJSON struct {
	Rank         int64  `json:"rank"`
	HasRank      bool   `json:"has_rank"`
	Trace        string `json:"trace"`
	Device       string `json:"device"`
	DeviceEvents int    `json:"device_events"`
	Work         int    `json:"work_events"`
	Unlaunched   int    `json:"unlaunched_events"`
}

// MarshalJSON writes r as rankJSON.
func (r RankInfo) MarshalJSON() ([]byte, error) {
	return json.Marshal(rankJSON{r.Number, r.Named, r.Trace, r.Device, r.DeviceEvents, r.Work, r.Unlaunched})
}

// UnmarshalJSON reads rankJSON.
func (r *RankInfo) UnmarshalJSON(data []byte) error {
	var j rankJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*r = RankInfo{Rank: trace.Rank{Number: j.Rank, Named: j.HasRank, Trace: j.Trace}, Device: j.Device,
		DeviceEvents: j.DeviceEvents, Work: j.Work, Unlaunched: j.Unlaunched}
	return nil
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
		set(&s.Ranks[i].Number)
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
		seen[r.Number]++
		if seen[r.Number] == 2 {
			dup = append(dup, r.Number)
		}
	}
	return dup
}
