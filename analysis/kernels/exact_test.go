package kernels

import (
	"bytes"
	"cmp"
	"github.com/orprof/orprof/trace"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace/tracefile"
)

// genRanks makes n ranks of random device events: a few kernel names and kinds, durations
// drawn by draw, on a few streams, launched by a few ops.
func genRanks(r *rand.Rand, n int, draw func(*rand.Rand) int64) [][]tracefile.Event {
	names := []string{"gemm", "Memcpy HtoD", "reduce", "nccl_allreduce", "elementwise"}
	ops := []string{"", "aten::mm", "aten::add", "aten::copy_"}
	out := make([][]tracefile.Event, n)
	for i := range out {
		m := 1 + r.IntN(200)
		var t int64 = r.Int64N(1 << 40)
		for range m {
			name := names[r.IntN(len(names))]
			kind := tracefile.KindKernel
			if strings.HasPrefix(name, "Memcpy") {
				kind = tracefile.KindMemcpy
			}
			d := draw(r)
			out[i] = append(out[i], tracefile.Event{Kind: kind, Name: name, StartNs: t, EndNs: t + d,
				Pid: int64(r.IntN(2)), Stream: int64(7 + r.IntN(3)), Op: ops[r.IntN(len(ops))]})
			t += int64(r.IntN(1000))
		}
	}
	return out
}

func collect(evs []tracefile.Event, rank int) *Summary {
	c := NewCollector()
	c.Begin(&tracefile.Info{Rank: trace.Rank{Number: int64(rank), Trace: "r"}, DeviceName: "cuda"})
	for i := range evs {
		c.Event(&evs[i])
	}
	c.Finish()
	s, err := c.Summary()
	if err != nil {
		panic(err)
	}
	return s
}

// canon is s's JSON with its kernels in name and kind order (the order of first occurrence
// is the only thing the order of the events changes).
func canon(t *testing.T, s *Summary) string {
	c := *s
	c.Kernels = slices.Clone(s.Kernels)
	slices.SortFunc(c.Kernels, func(a, b *Kernel) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Kind, b.Kind)) })
	return render(t, &c, text.JSON)
}

// mergeTree merges sums (in order) by a random binary tree, passing some of the partial
// results through their JSON.
func mergeTree(t *testing.T, r *rand.Rand, sums []*Summary) *Summary {
	var s *Summary
	if len(sums) == 1 {
		s = sums[0]
	} else {
		k := 1 + r.IntN(len(sums)-1)
		var err error
		s, err = Merge(mergeTree(t, r, sums[:k]), mergeTree(t, r, sums[k:]))
		require.NoError(t, err)
	}
	if r.IntN(3) == 0 {
		back, err := ReadSummary(strings.NewReader(render(t, s, text.JSON)), "tree.json")
		require.NoError(t, err)
		return back
	}
	return s
}

// TestExactStatisticsProperty: for random durations (small, heavy-tailed, from float µs with
// fractions of a ns, up to 2⁴⁸ ns), any order of a rank's events gives the same statistics,
// bit for bit; any grouping of the ranks' merges (some of them read back from JSON) gives
// the same bytes as merging them at once; and each kernel's mean is its exact mean rounded
// once, its deviation the exact one to within an ulp.
func TestExactStatisticsProperty(t *testing.T) {
	for _, c := range []struct {
		name string
		draw func(*rand.Rand) int64
	}{
		{"small", func(r *rand.Rand) int64 { return r.Int64N(10_000) }},
		{"heavy tail", func(r *rand.Rand) int64 { return int64(math.Exp(r.Float64() * 30)) }},
		// A legacy trace's float µs (e.g. 1.5005) on the reader's ns clock: round(µs × 1000).
		{"float µs", func(r *rand.Rand) int64 { return int64(math.Round(r.Float64() * 20 * 1000)) }},
		{"near equal", func(r *rand.Rand) int64 { return 7_405_100 + r.Int64N(3) }},
		{"huge", func(r *rand.Rand) int64 { return r.Int64N(1 << 48) }},
	} {
		for seed := range uint64(8) {
			t.Run(c.name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 26))
				ranks := genRanks(r, 1+r.IntN(6), c.draw)
				sums := make([]*Summary, len(ranks))
				for i, evs := range ranks {
					sums[i] = collect(evs, i)
					shuffled := slices.Clone(evs)
					r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
					require.Equal(t, canon(t, sums[i]), canon(t, collect(shuffled, i)), "rank %d, events shuffled", i)
				}
				flat, err := Merge(sums...)
				require.NoError(t, err)
				want := render(t, flat, text.JSON)
				for range 4 {
					assert.Equal(t, want, render(t, mergeTree(t, r, sums), text.JSON), "a merge tree")
				}
				durs := map[kernelKey][]int64{}
				for _, evs := range ranks {
					for _, e := range evs {
						k := kernelKey{e.Name, e.Kind}
						durs[k] = append(durs[k], e.EndNs-e.StartNs)
					}
				}
				for _, k := range flat.Kernels {
					mean, std := reference(durs[kernelKey{k.Name, k.Kind}])
					assert.Equal(t, mean, k.MeanUs(), "%s: the exact mean rounded once", k.Name)
					assert.InDelta(t, std, k.StdUs(), 2*ulp(std), "%s: the deviation", k.Name)
				}
			})
		}
	}
}

// reference is the mean (exact, rounded once) and the sample deviation (at 256 bits) of ds
// in µs, from the durations themselves rather than from sums.
func reference(ds []int64) (mean, std float64) {
	var sum big.Int
	for _, d := range ds {
		sum.Add(&sum, big.NewInt(d))
	}
	n := int64(len(ds))
	mean, _ = new(big.Rat).SetFrac(&sum, big.NewInt(1000*n)).Float64()
	if n < 2 {
		return mean, 0
	}
	m := new(big.Rat).SetFrac(&sum, big.NewInt(n))
	var ss big.Rat
	for _, d := range ds {
		dev := new(big.Rat).Sub(new(big.Rat).SetInt64(d), m)
		ss.Add(&ss, dev.Mul(dev, dev))
	}
	ss.Quo(&ss, new(big.Rat).SetInt64((n-1)*1_000_000))
	f := new(big.Float).SetPrec(256).SetRat(&ss)
	std, _ = f.Sqrt(f).Float64()
	return mean, std
}

func ulp(x float64) float64 { return math.Nextafter(x, math.Inf(1)) - x }

// TestWelfordWasOrderDependent shows what the exact sums fix: a running (Welford) mean of the
// same durations in two orders ends in different bits, where MeanUs does not.
func TestWelfordWasOrderDependent(t *testing.T) {
	ds := []int64{7_405_101, 7_405_100, 7_405_099, 1, 7_405_101, 3_000_000_000}
	welford := func(ds []int64) float64 {
		var mean float64
		for i, d := range ds {
			mean += (float64(d)/1000 - mean) / float64(i+1)
		}
		return mean
	}
	rev := slices.Clone(ds)
	slices.Reverse(rev)
	require.NotEqual(t, welford(ds), welford(rev), "the running mean depends on the order")
	a, b := &Kernel{}, &Kernel{}
	for i := range ds {
		a.add(ds[i], Stream{}, "")
		b.add(rev[i], Stream{}, "")
	}
	assert.Equal(t, math.Float64bits(a.MeanUs()), math.Float64bits(b.MeanUs()))
	assert.Equal(t, math.Float64bits(a.StdUs()), math.Float64bits(b.StdUs()))
}

// TestDeviceTimeBounds: a read or a merge whose device time passes 2⁶³ ns is an error, not a
// wrapped sum; so is a duration past int64's range.
func TestDeviceTimeBounds(t *testing.T) {
	big := int64(math.MaxInt64 / 2)
	for _, c := range []struct {
		name string
		evs  []tracefile.Event
		want string
	}{
		{"sum", []tracefile.Event{{Kind: tracefile.KindKernel, Name: "k", EndNs: big}, {Kind: tracefile.KindKernel, Name: "k", EndNs: big},
			{Kind: tracefile.KindMemcpy, Name: "c", EndNs: 2}}, `kernel "c": the device time passes 2^63 ns`},
		{"one duration", []tracefile.Event{{Kind: tracefile.KindKernel, Name: "k", StartNs: -big - 10, EndNs: big}},
			`kernel "k": the device time passes 2^63 ns`},
	} {
		t.Run(c.name, func(t *testing.T) {
			col := NewCollector()
			col.Begin(&tracefile.Info{})
			for i := range c.evs {
				col.Event(&c.evs[i])
			}
			col.Finish()
			_, err := col.Summary()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	one := collect([]tracefile.Event{{Kind: tracefile.KindKernel, Name: "k", EndNs: big}, {Kind: tracefile.KindKernel, Name: "k", EndNs: big}}, 0)
	assert.Equal(t, "42535295865117307914475081855261474818", one.Kernels[0].sumSq.String(), "2·(2⁶²−1)², exact")
	_, err := Merge(one, one)
	assert.ErrorContains(t, err, "summary 2: the device time of the ranks passes 2^63 ns")
	var b bytes.Buffer
	require.NoError(t, Write(&b, text.JSON, one, WriteOptions{}))
	back, err := ReadSummary(&b, "one.json")
	require.NoError(t, err)
	assert.Equal(t, one.Kernels[0].sumSq, back.Kernels[0].sumSq)
}
