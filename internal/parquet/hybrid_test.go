package parquet

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// decodeHybrid reads n values of width bits from the RLE/bit-packed hybrid encoding in b, as
// the format defines it: the test's reference.
func decodeHybrid(t *testing.T, b []byte, n, width int) []uint32 {
	var out []uint32
	for len(out) < n {
		h, k := binary.Uvarint(b)
		require.Positive(t, k, "run header")
		b = b[k:]
		if h&1 == 0 {
			count := int(h >> 1)
			var v uint32
			for i := range (width + 7) / 8 {
				v |= uint32(b[i]) << (8 * i)
			}
			b = b[(width+7)/8:]
			for range count {
				out = append(out, v)
			}
			continue
		}
		groups := int(h >> 1)
		var acc uint64
		bits := 0
		for range groups * 8 {
			for bits < width {
				acc |= uint64(b[0]) << bits
				b = b[1:]
				bits += 8
			}
			out = append(out, uint32(acc&(1<<width-1)))
			acc >>= width
			bits -= width
		}
	}
	require.Empty(t, b, "bytes after the runs")
	return out[:n]
}

// TestHybrid: values with runs of every length, at every width, decode to themselves; a
// bit-packed run in the middle never holds padding.
func TestHybrid(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for width := 1; width <= 32; width++ {
		for trial := range 20 {
			var vals []uint32
			for len(vals) < 50+trial*40 {
				v := r.Uint32() & (1<<width - 1)
				for range 1 + r.IntN(20) {
					vals = append(vals, v)
				}
			}
			got := decodeHybrid(t, appendHybrid(nil, vals, width), len(vals), width)
			require.Equal(t, vals, got, "width %d trial %d", width, trial)
		}
	}
	// A run of 8 after 3 literals: the literal takes 5 of the run, the rest is a short run.
	vals := []uint8{1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	require.Equal(t, []uint32{1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1}, decodeHybrid(t, appendHybrid(nil, vals, 1), len(vals), 1))
}
