package timeline

import (
	"cmp"
	"slices"

	"github.com/orprof/orprof/internal/collective"
)

// CollectiveStat are the figures of one call in one process group over every rank: how often
// it ran, how much it moved, at what bandwidth, and how its ranks' time split between waiting
// for the last rank to arrive and transferring (package doc, Collectives).
type CollectiveStat struct {
	// Op is the call ("allreduce", …; "send/recv" for a group's point-to-point calls; the
	// kernel's name when the trace does not name the call) and Kind what it does
	// (collective.KindOf; "p2p"); Group its process group ("": none named).
	Op    string `json:"op"`
	Kind  string `json:"kind"`
	Group string `json:"group,omitempty"`
	// GroupSize is the group's size as the trace says it, else the most ranks seen in one
	// instance (0: unknown); it sets the bus bandwidth's factor.
	GroupSize int64 `json:"group_size"`
	// Ranks counts the ranks with a kernel of it; Calls the kernels on every rank; Instances
	// the instances matched across ranks; DurationNs the kernels' summed durations.
	Ranks      int   `json:"ranks"`
	Calls      int   `json:"calls"`
	Instances  int   `json:"instances"`
	DurationNs int64 `json:"duration_ns"`
	// SizedCalls counts the kernels whose size the trace says; Bytes sums their sizes,
	// BytesPerCall is Bytes / SizedCalls, MinBytes and MaxBytes the extremes (all 0 when
	// none is sized).
	SizedCalls   int   `json:"sized_calls"`
	Bytes        int64 `json:"bytes"`
	BytesPerCall int64 `json:"bytes_per_call"`
	MinBytes     int64 `json:"min_bytes"`
	MaxBytes     int64 `json:"max_bytes"`
	// WaitNs sums, over the matched kernels, the time from each rank's arrival to the last
	// rank's arrival; TransferNs the time from the last arrival to each kernel's end.
	WaitNs     int64 `json:"wait_ns"`
	TransferNs int64 `json:"transfer_ns"`
	// AlgBW is the algorithm bandwidth in GB/s (1e9 bytes a second): the sized bytes over their
	// transfer time (BWFrom "transfer", matched kernels), else over their kernels' durations
	// (BWFrom "kernel": one rank, or none matched; waiting included). BusBW is AlgBW times
	// collective.BusFactor (HasBusBW false for calls without one). 0 and "" without sizes.
	AlgBW    float64 `json:"algbw_gb_s"`
	BusBW    float64 `json:"busbw_gb_s"`
	HasBusBW bool    `json:"has_busbw"`
	BWFrom   string  `json:"bw_from,omitempty"`
	// LastRank arrived last most often (the lowest such rank on a tie; −1: never a spread),
	// LastRankTimes how often.
	LastRank      int64 `json:"last_rank"`
	LastRankTimes int   `json:"last_rank_times"`
}

// MaxByCollective is how many rows Stragglers.ByCollective keeps.
const MaxByCollective = 100

type collKey struct{ op, group string }

// collAcc adds up CollectiveStats while the stragglers are matched.
type collAcc struct {
	idx   map[collKey]int
	stats []CollectiveStat
	// bwBytes and bwNs: the sized matched kernels' bytes and transfer time.
	bwBytes, bwNs []int64
	// kNs: the sized kernels' durations.
	kNs  []int64
	last []map[int64]int
	st   *Stragglers
}

// opP2P is the row of a group's sends and recvs together: an instance is a send and its recv.
const opP2P = "send/recv"

func keyOfColl(c *Collective) collKey {
	op := c.Op
	switch {
	case c.P2P != "":
		op = opP2P
	case op == "":
		op = c.Name
	}
	return collKey{op, c.Group}
}

// newCollAcc counts every kernel of st's ranks into its call's row.
func newCollAcc(st *Stragglers) *collAcc {
	a := &collAcc{idx: map[collKey]int{}, st: st}
	lastRank := []int{}
	for ri := range st.Collectives {
		for i := range st.Collectives[ri].Items {
			c := &st.Collectives[ri].Items[i]
			j := a.row(c)
			for len(lastRank) <= j {
				lastRank = append(lastRank, 0)
			}
			if lastRank[j] != ri+1 {
				lastRank[j] = ri + 1
				a.stats[j].Ranks++
			}
			cs := &a.stats[j]
			cs.Calls++
			cs.DurationNs += c.EndNs - c.StartNs
			cs.GroupSize = max(cs.GroupSize, c.GroupSize)
			if c.Bytes > 0 {
				if cs.SizedCalls == 0 || c.Bytes < cs.MinBytes {
					cs.MinBytes = c.Bytes
				}
				cs.MaxBytes = max(cs.MaxBytes, c.Bytes)
				cs.SizedCalls++
				cs.Bytes += c.Bytes
				a.kNs[j] += c.EndNs - c.StartNs
			}
		}
	}
	return a
}

// row is the index of c's row, made on first sight.
func (a *collAcc) row(c *Collective) int {
	k := keyOfColl(c)
	j, ok := a.idx[k]
	if !ok {
		j = len(a.stats)
		a.idx[k] = j
		kind := collective.KindOf(k.op).String()
		if k.op == opP2P {
			kind = "p2p"
		}
		a.stats = append(a.stats, CollectiveStat{Op: k.op, Group: k.group, Kind: kind, LastRank: -1})
		a.bwBytes, a.bwNs, a.kNs, a.last = append(a.bwBytes, 0), append(a.bwNs, 0), append(a.kNs, 0), append(a.last, nil)
	}
	return j
}

// instance adds one matched instance: its arrivals, the last of them, and how many ranks
// take part in it.
func (a *collAcc) instance(as []arrival, last arrival, takePart int) {
	j := a.row(last.item)
	cs := &a.stats[j]
	cs.Instances++
	cs.GroupSize = max(cs.GroupSize, int64(max(takePart, len(as))))
	spread := false
	for _, x := range as {
		c := x.item
		wait := min(last.start, c.EndNs) - c.StartNs
		xfer := max(c.EndNs-max(last.start, c.StartNs), 0)
		cs.WaitNs += wait
		cs.TransferNs += xfer
		if c.Bytes > 0 {
			a.bwBytes[j] += c.Bytes
			a.bwNs[j] += xfer
		}
		spread = spread || x.start < last.start
	}
	if spread {
		if a.last[j] == nil {
			a.last[j] = map[int64]int{}
		}
		a.last[j][a.st.Collectives[last.rank].Rank]++
	}
}

// finish works out the rows' bandwidths and last ranks and orders them, the most device
// time first; it returns at most MaxByCollective and how many it left out.
func (a *collAcc) finish() ([]CollectiveStat, int) {
	for j := range a.stats {
		cs := &a.stats[j]
		if cs.SizedCalls > 0 {
			cs.BytesPerCall = cs.Bytes / int64(cs.SizedCalls)
			bytes, ns, from := a.bwBytes[j], a.bwNs[j], "transfer"
			if ns <= 0 {
				// No matched sized kernel with transfer time: the kernels' own durations.
				bytes, ns, from = cs.Bytes, a.kNs[j], "kernel"
			}
			if ns > 0 {
				kind := collective.KindOf(cs.Op)
				if cs.Op == opP2P {
					kind = collective.Send // a send and its recv move the bytes once: factor 1
				}
				alg, bus, ok := collective.Bandwidth(bytes, ns, kind, cs.GroupSize)
				cs.AlgBW, cs.BusBW, cs.HasBusBW, cs.BWFrom = alg/1e9, bus/1e9, ok, from
			}
		}
		for r, n := range a.last[j] {
			if n > cs.LastRankTimes || n == cs.LastRankTimes && r < cs.LastRank {
				cs.LastRank, cs.LastRankTimes = r, n
			}
		}
	}
	out := a.stats
	slices.SortStableFunc(out, func(x, y CollectiveStat) int {
		return cmp.Or(cmp.Compare(y.DurationNs, x.DurationNs), cmp.Compare(x.Op, y.Op), cmp.Compare(x.Group, y.Group))
	})
	if out == nil {
		out = []CollectiveStat{}
	}
	if len(out) > MaxByCollective {
		return out[:MaxByCollective:MaxByCollective], len(out) - MaxByCollective
	}
	return out, 0
}
