package timeline

import (
	"math"
)

// Hist counts durations in fixed logarithmic buckets: a positive d ns falls in bucket
// 1 + ⌊64·log2 d⌋ (each bucket 2^(1/64) wide: 1.09 %), 0 in bucket 0, a negative d in the
// mirror of |d|'s bucket. It is kept sparse, as (bucket, count) pairs in bucket order, which
// is value order; histograms merge by adding counts, so percentiles read from a merged one
// are those of reading every value at once.
type Hist [][2]int64

// HistBucketsPerOctave is how many buckets a Hist has per doubling of |d|.
const HistBucketsPerOctave = 64

// histBucket is the bucket of d ns.
func histBucket(d int64) int64 {
	switch {
	case d == 0:
		return 0
	case d > 0:
		return 1 + int64(math.Floor(HistBucketsPerOctave*math.Log2(float64(d))))
	}
	return -histBucket(-d) // -d > 0: d is never MinInt64 here (durations of real traces)
}

// histValue is the geometric middle of bucket b in ns: within 2^(1/128) (0.54 %) of every
// value in the bucket.
func histValue(b int64) float64 {
	switch {
	case b == 0:
		return 0
	case b > 0:
		return math.Exp2((float64(b-1) + 0.5) / HistBucketsPerOctave)
	}
	return -histValue(-b)
}

// histMax is the largest bucket a duration can fall in (1 + ⌊64·log2 (2⁶³ − 1)⌋).
const histMax = 1 + 63*HistBucketsPerOctave

// histBuilder collects a Hist: a count per bucket, −histMax … histMax, dense (no map on the
// path of every launch).
type histBuilder struct{ n []int64 }

func newHistBuilder() histBuilder { return histBuilder{n: make([]int64, 2*histMax+1)} }

func (h histBuilder) add(d int64) {
	if d == math.MinInt64 {
		d++ // no real trace; keeps |d| representable
	}
	b := min(max(histBucket(d), -histMax), histMax)
	h.n[b+histMax]++
}

func (h histBuilder) hist() Hist {
	var out Hist // nil when empty, as a summary read back has it
	for i, c := range h.n {
		if c != 0 {
			out = append(out, [2]int64{int64(i) - histMax, c})
		}
	}
	return out
}

// merge returns the sum of two histograms (neither changed).
func (h Hist) merge(o Hist) Hist {
	if len(h)+len(o) == 0 {
		return nil
	}
	out := make(Hist, 0, len(h)+len(o))
	i, j := 0, 0
	for i < len(h) || j < len(o) {
		switch {
		case j == len(o) || i < len(h) && h[i][0] < o[j][0]:
			out = append(out, h[i])
			i++
		case i == len(h) || o[j][0] < h[i][0]:
			out = append(out, o[j])
			j++
		default:
			out = append(out, [2]int64{h[i][0], h[i][1] + o[j][1]})
			i, j = i+1, j+1
		}
	}
	return out
}

// percentile is the pct-th percentile (nearest rank: the smallest value with at least pct % of
// the values at or below it) of the n values counted in h, read as its bucket's geometric
// middle and kept within [lo, hi] (the exact least and greatest value), rounded to the ns:
// within 0.54 % (and half a ns) of the exact percentile; exact when it is the least or the
// greatest value.
func (h Hist) percentile(pct, n, lo, hi int64) int64 {
	if n <= 0 {
		return 0
	}
	rank := (n*pct + 99) / 100
	switch {
	case rank >= n:
		return hi // the greatest value, known exactly
	case rank <= 1:
		return lo
	}
	var seen int64
	for _, bc := range h {
		seen += bc[1]
		if seen >= rank {
			v := math.Round(histValue(bc[0]))
			return int64(min(max(v, float64(lo)), float64(hi)))
		}
	}
	return hi
}
