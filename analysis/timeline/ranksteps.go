package timeline

import (
	"cmp"
	"slices"
)

// StepRanks are the ranks ordered by their median step time, and the ranks whose median is
// an outlier among them: further than K times the median absolute deviation (MAD) from the
// median of the ranks' medians, and further than 5 % of it (so that ranks within a few ns of
// each other are never outliers when the MAD is 0). Outliers need at least three ranks.
type StepRanks struct {
	K        float64 `json:"k"`
	MedianNs int64   `json:"median_ns"`
	MADNs    int64   `json:"mad_ns"`
	// Ranks are every rank with a step, the fastest median first (ties: the lower rank).
	Ranks []RankStepTime `json:"ranks"`
	// Outliers are the outlier ranks, the furthest from the median first.
	Outliers []RankStepTime `json:"outliers"`
}

// RankStepTime is a rank's median step time over its steps.
type RankStepTime struct {
	Rank     int64 `json:"rank"`
	Steps    int   `json:"steps"`
	MedianNs int64 `json:"median_ns"`
}

// StepOutlierK is StepRanks' K.
const StepOutlierK = 3

// stepRanks derives StepRanks from the ranks' steps (nil when no rank has a step).
func stepRanks(steps []RankSteps) *StepRanks {
	var rs []RankStepTime
	var d []int64
	for _, r := range steps {
		if len(r.Steps) == 0 {
			continue
		}
		d = d[:0]
		for _, st := range r.Steps {
			d = append(d, st.EndNs-st.StartNs)
		}
		rs = append(rs, RankStepTime{Rank: r.Rank, Steps: len(r.Steps), MedianNs: median(d)})
	}
	if len(rs) == 0 {
		return nil
	}
	slices.SortFunc(rs, func(a, b RankStepTime) int {
		return cmp.Or(cmp.Compare(a.MedianNs, b.MedianNs), cmp.Compare(a.Rank, b.Rank))
	})
	out := &StepRanks{K: StepOutlierK, Ranks: rs, Outliers: []RankStepTime{}}
	meds := make([]int64, len(rs))
	for i, r := range rs {
		meds[i] = r.MedianNs
	}
	out.MedianNs = median(meds)
	dev := make([]int64, len(rs))
	for i, m := range meds {
		dev[i] = absNs(m - out.MedianNs)
	}
	out.MADNs = median(dev)
	if len(rs) < 3 {
		return out
	}
	for _, r := range rs {
		x := absNs(r.MedianNs - out.MedianNs)
		if float64(x) > StepOutlierK*float64(out.MADNs) && float64(x) > 0.05*float64(out.MedianNs) {
			out.Outliers = append(out.Outliers, r)
		}
	}
	slices.SortStableFunc(out.Outliers, func(a, b RankStepTime) int {
		return cmp.Or(cmp.Compare(absNs(b.MedianNs-out.MedianNs), absNs(a.MedianNs-out.MedianNs)), cmp.Compare(a.Rank, b.Rank))
	})
	return out
}

// median is the median of d (the lower middle of an even count: a time that occurred); d is
// reordered.
func median(d []int64) int64 {
	slices.Sort(d)
	return d[(len(d)-1)/2]
}

func absNs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
