package events

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
)

// randomEvents makes n events shaped to find where an Averager and a List could differ: deep
// trees of few names (same-name only children, chains of them), partial overlaps, exact ties,
// several threads and node ids, async and device events, kernels, memory, legacy events, the
// two spellings of no input shapes, and an input order that is partly shuffled.
func randomEvents(rng *rand.Rand, n int) []FunctionEvent {
	names := []string{"a", "a", "b", "c", "ProfilerStep#1", "ProfilerStep#2"}
	shapes := []string{"", "None", "[]", "[[1, 2]]"}
	t := func(x int) float64 { return float64(x) / 1000 } // µs with three decimals, as traces have
	var evs []FunctionEvent
	var tree func(thread int64, node int, lo, hi, depth int)
	tree = func(thread int64, node int, lo, hi, depth int) {
		for lo < hi && len(evs) < n {
			start := lo + rng.IntN(max(1, (hi-lo)/4))
			end := start + 1 + rng.IntN(max(1, hi-start))
			if rng.IntN(20) == 0 {
				end += rng.IntN(50) // overlaps its parent's end
			}
			e := NewFunctionEvent(int64(len(evs)), names[rng.IntN(len(names))], thread, t(start), t(end))
			e.NodeID = node
			e.InputShapes = shapes[rng.IntN(len(shapes))]
			if rng.IntN(3) == 0 {
				e.OverloadName = "out"
			}
			e.IsLegacy = rng.IntN(8) == 0
			e.IsAsync = rng.IntN(30) == 0
			e.IsRemote = node >= 0
			e.Scope = []int{0, 0, 1, 7}[rng.IntN(4)]
			e.IsUserAnnotation = e.Scope == ScopeUserScope
			for range rng.IntN(3) {
				e.Kernels = append(e.Kernels, Kernel{Name: "k", DurationUs: t(rng.IntN(5000))})
			}
			if rng.IntN(4) == 0 {
				e.CPUMemoryUsage = int64(rng.IntN(2000) - 500)
				e.DeviceMemoryUsage = int64(rng.IntN(100))
			}
			if rng.IntN(6) == 0 {
				e.Flops = int64(rng.IntN(1000))
			}
			evs = append(evs, e)
			if rng.IntN(6) == 0 { // an exact twin: same times, same or other name
				twin := e
				twin.ID = int64(len(evs))
				if rng.IntN(2) == 0 {
					twin.Name = names[rng.IntN(len(names))]
				}
				evs = append(evs, twin)
			}
			if depth < 6 && end-start > 2 {
				tree(thread, node, start, end, depth+1)
			}
			lo = end
			if rng.IntN(5) == 0 {
				lo = end - (end-start)/2 // the next sibling starts before this one ends
			}
		}
	}
	for len(evs) < n {
		thread := int64(rng.IntN(3))
		node := -1
		if rng.IntN(5) == 0 {
			node = rng.IntN(2)
		}
		base := rng.IntN(100000)
		tree(thread, node, base, base+rng.IntN(100000), 0)
		if rng.IntN(4) == 0 {
			start := rng.IntN(200000)
			d := NewFunctionEvent(int64(len(evs)), "kernel", 7, t(start), t(start+rng.IntN(9000)))
			d.DeviceType = devices.CUDA
			d.IsAsync = rng.IntN(10) == 0
			evs = append(evs, d)
		}
	}
	// Mostly in order, as traces are, with some of it shuffled.
	switch rng.IntN(3) {
	case 0:
		SortEvents(evs)
	case 1:
		rng.Shuffle(len(evs), func(i, j int) { evs[i], evs[j] = evs[j], evs[i] })
	}
	return evs
}

// averagesOf runs an Averager over evs with parts parts, each setting every parts-th event.
func averagesOf(t *testing.T, evs []FunctionEvent, o AverageOptions, parts int) ([]Avg, bool) {
	a, ok := NewAverager(len(evs), o)
	require.True(t, ok)
	ps := make([]*AveragerPart, parts)
	for p := range ps {
		ps[p] = a.Part()
	}
	for i := range evs {
		ps[i%parts].Set(i, &evs[i])
	}
	return a.Averages(), a.HasMemory()
}

func TestAveragerMatchesList(t *testing.T) {
	opts := []AverageOptions{{}, {GroupByInputShape: true}, {GroupByOverloadName: true},
		{GroupByInputShape: true, GroupByOverloadName: true}}
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 9))
		evs := randomEvents(rng, 1+rng.IntN(400))
		for _, o := range opts {
			want := NewList(evs, ListOptions{}).KeyAverages(o)
			for _, parts := range []int{1, 3} {
				got, _ := averagesOf(t, evs, o, parts)
				if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
					require.Equal(t, want, got, "seed %d, options %+v, %d parts", seed, o, parts)
				}
			}
		}
	}
}

// The same-name collapse as NewList does it: chains of same-name only children collapse into
// the outermost, which takes the innermost's kernels and children; an event with two children
// takes none of them.
func TestAveragerCollapse(t *testing.T) {
	k := func(e FunctionEvent, us float64) FunctionEvent {
		e.Kernels = []Kernel{{Name: "k", DurationUs: us}}
		return e
	}
	cases := []struct {
		name string
		evs  []FunctionEvent
	}{
		{"chain of three", []FunctionEvent{k(ev(1, "a", 1, 0, 10), 1), k(ev(2, "a", 1, 1, 9), 2),
			k(ev(3, "a", 1, 2, 8), 4), ev(4, "b", 1, 3, 4)}},
		{"two children", []FunctionEvent{ev(1, "a", 1, 0, 10), ev(2, "a", 1, 1, 2), ev(3, "a", 1, 3, 4)}},
		{"other name between", []FunctionEvent{ev(1, "a", 1, 0, 10), ev(2, "b", 1, 1, 9), ev(3, "b", 1, 2, 8),
			ev(4, "a", 1, 3, 4)}},
		{"threads apart", []FunctionEvent{ev(1, "a", 1, 0, 10), ev(2, "a", 2, 1, 9)}},
		{"legacy parent", []FunctionEvent{func() FunctionEvent { e := k(ev(1, "a", 1, 0, 10), 5); e.IsLegacy = true; return e }(),
			k(ev(2, "a", 1, 1, 9), 3), k(ev(3, "c", 1, 2, 3), 1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := NewList(c.evs, ListOptions{}).KeyAverages(AverageOptions{})
			got, _ := averagesOf(t, c.evs, AverageOptions{}, 1)
			assert.Equal(t, want, got)
		})
	}
}

func TestAveragerEdges(t *testing.T) {
	t.Run("no events", func(t *testing.T) {
		a, ok := NewAverager(0, AverageOptions{})
		require.True(t, ok)
		assert.Empty(t, a.Averages())
	})
	t.Run("stack grouping is refused", func(t *testing.T) {
		_, ok := NewAverager(3, AverageOptions{GroupByStackN: 2})
		assert.False(t, ok)
	})
	t.Run("NaN times sort as NewList sorts them", func(t *testing.T) {
		evs := []FunctionEvent{ev(1, "a", 1, 5, 9), ev(2, "b", 1, math.NaN(), 4), ev(3, "c", 1, 1, 2), ev(4, "a", 1, 0, math.NaN())}
		want := NewList(evs, ListOptions{}).KeyAverages(AverageOptions{})
		got, _ := averagesOf(t, evs, AverageOptions{}, 2)
		assert.Equal(t, fmt.Sprintf("%+v", want), fmt.Sprintf("%+v", got))
	})
	t.Run("memory", func(t *testing.T) {
		e := ev(1, "a", 1, 0, 10)
		e.CPUMemoryUsage = 64
		got, mem := averagesOf(t, []FunctionEvent{e, ev(2, "b", 1, 1, 2)}, AverageOptions{}, 1)
		assert.True(t, mem)
		assert.Equal(t, int64(64), got[0].SelfCPUMemoryUsage)
		_, mem = averagesOf(t, []FunctionEvent{ev(2, "b", 1, 1, 2)}, AverageOptions{}, 1)
		assert.False(t, mem)
	})
	t.Run("kernels added later count after the event's own", func(t *testing.T) {
		e := ev(1, "a", 1, 0, 10)
		e.Kernels = []Kernel{{DurationUs: 0.1}}
		with := e
		with.Kernels = []Kernel{{DurationUs: 0.1}, {DurationUs: 0.2}, {DurationUs: 0.3}}
		want := NewList([]FunctionEvent{with}, ListOptions{}).KeyAverages(AverageOptions{})
		a, _ := NewAverager(1, AverageOptions{})
		a.Set(0, &e)
		a.AddKernel(0, 0.2)
		a.AddKernel(0, 0.3)
		assert.Equal(t, want, a.Averages())
	})
}

// BenchmarkAverager500k is BenchmarkTable500k's tree and averages (report) the Averager's way,
// side by side with NewList + KeyAverages over the same events.
func BenchmarkAverager500k(b *testing.B) {
	evs := randomEvents(rand.New(rand.NewPCG(1, 2)), 500_000)
	SortEvents(evs)
	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			NewList(evs, ListOptions{}).KeyAverages(AverageOptions{})
		}
	})
	b.Run("averager", func(b *testing.B) {
		for b.Loop() {
			a, _ := NewAverager(len(evs), AverageOptions{})
			for i := range evs {
				a.Set(i, &evs[i])
			}
			a.Averages()
		}
	})
}
