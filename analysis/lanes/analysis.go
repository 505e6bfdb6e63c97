package lanes

import (
	"fmt"
	"io"
	"math/bits"
	"slices"

	"github.com/orprof/orprof/analysis"
	"github.com/orprof/orprof/internal/quote"
)

// Analysis is the lanes as the report summary composes them (member "lanes"): a merge keeps
// every rank's lanes, renumbered as the table's merge numbers them, under the shared budget.
var Analysis = &analysis.Kind{
	Name:   "lanes",
	Key:    "lanes_version",
	New:    func() analysis.Analysis { return &result{NewCollector()} },
	ByRank: true,
	Merge: func(parts []analysis.Part) (analysis.Summary, error) {
		sums := make([]*Summary, len(parts))
		nums := make([]map[int64]int64, len(parts))
		for i, p := range parts {
			if p.Summary != nil {
				sums[i] = p.Summary.(*Summary)
			}
			nums[i] = p.Nums
		}
		if m := Merge(sums, nums); m != nil {
			return m, nil
		}
		return nil, nil
	},
	Write: func(w io.Writer, s analysis.Summary) error {
		b, err := s.(*Summary).AppendJSON(nil)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	},
	Read: analysis.ReadStrict[Summary],
}

// result is a Collector as the report's read has it (analysis.Analysis).
type result struct{ *Collector }

func (r *result) Result() (analysis.Summary, error) {
	if r.done == nil {
		return nil, nil
	}
	return r.done, nil
}

func pow2(n int64) bool { return n == 0 || n > 0 && bits.OnesCount64(uint64(n)) == 1 }

// Check reports the first figure of s that no Collector could have made (a summary read back
// from a file): a version, category or cause list not this package's, a threshold or bin
// width not a power of two, columns of unequal lengths, an index out of range, counts that do
// not add up, events out of order or kept below their threshold.
func (s *Summary) Check() error {
	switch {
	case s.Version != Version:
		return fmt.Errorf("lanes_version %d: this orprof reads version %d", s.Version, Version)
	case !slices.Equal(s.Categories, Categories) || !slices.Equal(s.Causes, Causes):
		return fmt.Errorf("categories or causes not orprof's")
	case !pow2(s.DeviceMinNs) || !pow2(s.HostMinNs) || !pow2(s.GapMinNs):
		return fmt.Errorf("a threshold not 0 or a power of two ns")
	}
	events, kept, binned := 0, 0, 0
	for ri := range s.Ranks {
		r := &s.Ranks[ri]
		bad := func(li int, what string) error {
			return fmt.Errorf("rank %d lane %d: %s", r.Rank, li+1, quote.String(what))
		}
		if r.BinNs <= 0 || !pow2(r.BinNs) || r.BinPhaseNs < 0 || r.BinPhaseNs >= r.BinNs || r.SpanNs < 0 || r.OffsetNs != r.StartNs-s.OriginNs {
			return fmt.Errorf("rank %d: bad span, offset or bins", r.Rank)
		}
		if ri > 0 && r.Rank < s.Ranks[ri-1].Rank {
			return fmt.Errorf("rank %d: ranks out of order", r.Rank)
		}
		nthreads := 0
		for _, l := range r.Lanes {
			if l.Kind == "thread" {
				nthreads++
			}
		}
		for li, l := range r.Lanes {
			n := len(l.T)
			min := s.HostMinNs
			stream := l.Kind == "stream"
			if stream {
				min = s.DeviceMinNs
			}
			switch {
			case l.Kind != "thread" && l.Kind != "stream" || stream != (li >= nthreads):
				return bad(li, "kind "+l.Kind)
			case len(l.D) != n || len(l.N) != n || len(l.C) != n || len(l.R) != n:
				return bad(li, "columns of unequal lengths")
			case stream && (len(l.Op) != n || len(l.LL) != n || len(l.LT) != n) || !stream && len(l.Op)+len(l.LL)+len(l.LT) > 0:
				return bad(li, "launch columns of the wrong length")
			case len(l.BC) != len(l.BI) || len(l.BV) != len(l.BI) || len(l.GD) != len(l.GT) || len(l.GC) != len(l.GT):
				return bad(li, "bin or gap columns of unequal lengths")
			case l.Events != n+l.Binned || l.Binned < 0:
				return bad(li, "events are not the kept plus the binned")
			}
			var sum int64
			for i := range l.BI {
				if i > 0 && l.BI[i] <= l.BI[i-1] || l.BI[i] < 0 || l.BC[i] < 0 || l.BV[i] < 0 {
					return bad(li, "bins out of order or negative")
				}
				sum += l.BC[i]
			}
			if sum != int64(l.Binned) {
				return bad(li, "the bins do not count the binned events")
			}
			for i := range n {
				switch {
				case i > 0 && l.T[i] < 0 || l.D[i] < min:
					return bad(li, "an event out of order or below the threshold")
				case l.N[i] < 0 || int(l.N[i]) >= len(r.Names) || l.C[i] < 0 || int(l.C[i]) >= len(Categories):
					return bad(li, "a name or category out of range")
				case l.R[i] < 0 || int(l.R[i]) >= l.Rows:
					return bad(li, "a row out of range")
				case stream && (l.Op[i] < -1 || int(l.Op[i]) >= len(r.Names) || l.LL[i] < -1 || int(l.LL[i]) >= nthreads):
					return bad(li, "an operator or launch lane out of range")
				}
			}
			for i := range l.GT {
				if i > 0 && l.GT[i] < 0 || l.GD[i] < s.GapMinNs || l.GD[i] <= 0 || l.GC[i] < 0 || int(l.GC[i]) >= len(Causes) {
					return bad(li, "a gap out of order, below the threshold or of no cause")
				}
			}
			events, kept, binned = events+l.Events, kept+n, binned+l.Binned
		}
	}
	if events != s.Events || kept != s.Kept || binned != s.Binned {
		return fmt.Errorf("events %d, kept %d, binned %d: the lanes have %d, %d, %d", s.Events, s.Kept, s.Binned, events, kept, binned)
	}
	return nil
}
