package timeline

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// bruteSweep is sweep by definition: every ns of every window, the mask of the items that
// cover it.
func bruteSweep(items []item, sets [][]span) [][]maskTimes {
	out := make([][]maskTimes, len(sets))
	for s, ws := range sets {
		out[s] = make([]maskTimes, len(ws))
		for k, w := range ws {
			for t := w.start; t < w.end; t++ {
				var m uint8
				for _, it := range items {
					if it.start <= t && t < it.end {
						m |= 1 << bitIndex(it.bit)
					}
				}
				if m != 0 {
					out[s][k][m]++
				}
			}
		}
	}
	return out
}

// sweep, sweepWide and the definition agree on random items: overlapping, nested, touching,
// empty and reversed intervals of every class, in any order, over several sets of windows.
func TestSweepAgreesWithTheDefinition(t *testing.T) {
	bits := []uint8{bitCompute, bitComm, bitMemory, bitOther}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 400 {
		n := r.IntN(40)
		items := make([]item, n)
		base := int64(r.IntN(1000)) - 500
		for i := range items {
			s := base + int64(r.IntN(200))
			items[i] = item{start: s, end: s + int64(r.IntN(60)) - 5, bit: bits[r.IntN(len(bits))]}
		}
		if trial%3 == 0 { // in time order, as a stream's events come
			for i := 1; i < len(items); i++ {
				if items[i].start < items[i-1].start {
					items[i].start, items[i].end = items[i-1].start+int64(r.IntN(5)), items[i-1].start+int64(r.IntN(50))
				}
			}
		}
		var sets [][]span
		for range 1 + r.IntN(3) {
			var ws []span
			at := base - 20
			for range r.IntN(5) {
				st := at + int64(r.IntN(60))
				en := st + int64(r.IntN(80))
				ws = append(ws, span{st, en})
				at = en
			}
			sets = append(sets, ws)
		}
		want := bruteSweep(items, sets)
		wideSets := make([][]maskTimes, len(sets))
		for i, ws := range sets {
			wideSets[i] = make([]maskTimes, len(ws))
		}
		require.Equal(t, want, sweep(items, sets...), "trial %d: sweep, items %v, windows %v", trial, items, sets)
		require.Equal(t, want, sweepWide(items, sets, wideSets), "trial %d: sweepWide", trial)
	}
}
