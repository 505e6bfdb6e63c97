package events

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func rng(handle int64, name string, startNs, endNs int64) Record {
	return Record{Kind: RangeRecord, Name: name, Handle: handle, Thread: 1, EndThread: 1,
		StartNs: startNs, EndNs: endNs, SequenceNr: -1, DeviceElapsedUs: -1}
}

func TestFromRecords(t *testing.T) {
	step := rng(1, "ProfilerStep#7", 1000, 9000)
	mm := rng(2, "aten::mm", 2000, 3000)
	mm.Shapes = [][]int64{{2, 3}, {3, 4}}
	mm.DeviceElapsedUs = 12.9 // truncated to 12
	tiny := rng(3, "aten::view", 3000, 3500)
	tiny.DeviceElapsedUs = 0.7 // < 1 µs: no device time, not legacy
	async := rng(4, "async", 4000, 8000)
	async.EndThread = 2
	async.DeviceElapsedUs = 50 // async events never get device time
	filtered := rng(5, "aten::is_leaf", 4100, 4200)
	evs := FromRecords([]Record{step, mm, tiny, async, filtered}, 1000)
	require.Len(t, evs, 4)
	byName := map[string]FunctionEvent{}
	for _, e := range evs {
		byName[e.Name] = e
	}
	s := byName["ProfilerStep*"]
	assert.Equal(t, "ProfilerStep#7", s.TraceName)
	assert.Equal(t, 0.0, s.StartUs)
	assert.Equal(t, 8.0, s.EndUs)
	m := byName["aten::mm"]
	assert.Equal(t, "[[2, 3], [3, 4]]", m.InputShapes)
	assert.True(t, m.IsLegacy)
	assert.Equal(t, []Kernel{{Name: "aten::mm", DurationUs: 12}}, m.Kernels)
	assert.False(t, byName["aten::view"].IsLegacy)
	assert.Empty(t, byName["aten::view"].Kernels)
	assert.True(t, byName["async"].IsAsync)
	assert.Empty(t, byName["async"].Kernels)
	assert.Equal(t, "[]", byName["async"].InputShapes)
}

// TestConsecutiveSameNameRangesAreKept is PyTorch issue 65140: the legacy parser dropped a
// push whose previous record had the same name, as a "duplicate". Both ranges are real.
func TestConsecutiveSameNameRangesAreKept(t *testing.T) {
	evs := FromRecords([]Record{rng(1, "step", 0, 1000), rng(2, "step", 1000, 2000)}, 0)
	require.Len(t, evs, 2)
	rows := NewList(evs, ListOptions{}).KeyAverages(AverageOptions{})
	require.Len(t, rows, 1)
	assert.EqualValues(t, 2, rows[0].Count)
}

// TestNanosecondNesting is PyTorch issue 101861: times truncated to µs made a child look as if
// it ended after its parent, giving negative self times. Sessions keep ns, so a child ending
// 200 ns before its parent, in the same µs, still nests.
func TestNanosecondNesting(t *testing.T) {
	evs := FromRecords([]Record{rng(1, "parent", 1000, 5900), rng(2, "child", 1500, 5700)}, 0)
	l := NewList(evs, ListOptions{})
	require.Equal(t, 0, l.Parent(1))
	for i := 0; i < l.Len(); i++ {
		assert.GreaterOrEqual(t, l.SelfCPUTimeTotal(i), 0.0)
	}
}

func TestFormatShapes(t *testing.T) {
	assert.Equal(t, "[]", FormatShapes(nil))
	assert.Equal(t, "[[], [1]]", FormatShapes([][]int64{{}, {1}}))
	assert.Equal(t, "[[64, 64], [64, 64]]", FormatShapes([][]int64{{64, 64}, {64, 64}}))
}

func TestSortEventsIsStable(t *testing.T) {
	evs := []FunctionEvent{ev(3, "c", 1, 5, 6), ev(1, "a", 1, 0, 10), ev(2, "b", 1, 0, 10), ev(4, "d", 1, 0, 20)}
	SortEvents(evs)
	var ids []int64
	for _, e := range evs {
		ids = append(ids, e.ID)
	}
	assert.Equal(t, []int64{4, 1, 2, 3}, ids)
}

// TestSortEventsParallel checks that the two-goroutine sort of a large list gives the order of
// a stable sort by (start, −end).
func TestSortEventsParallel(t *testing.T) {
	n := parallelSortMin*2 + 17
	evs := make([]FunctionEvent, n)
	seed := uint64(1)
	for i := range evs {
		seed = seed*6364136223846793005 + 1442695040888963407
		start := float64(seed>>54) / 4 // many equal starts and ends
		evs[i] = ev(int64(i), "e", 1, start, start+float64(seed>>60))
	}
	want := slices.Clone(evs)
	slices.SortStableFunc(want, func(a, b FunctionEvent) int {
		switch {
		case a.StartUs != b.StartUs:
			return cmp.Compare(a.StartUs, b.StartUs)
		default:
			return cmp.Compare(b.EndUs, a.EndUs)
		}
	})
	SortEvents(evs)
	for i := range evs {
		require.Equal(t, want[i].ID, evs[i].ID, "position %d", i)
	}
}

// BenchmarkSortEvents sorts 138k events that come in 1,024 ascending runs, the shape of the
// MTIA trace's events in file order; run it with -cpu 1,2 to compare the sequential sort with
// the two-goroutine one.
func BenchmarkSortEvents(b *testing.B) {
	const n, runs = 138 << 10, 1024
	src := make([]FunctionEvent, n)
	for i := range src {
		r, k := i%runs, i/runs
		start := float64(k*10 + r%7)
		src[i] = ev(int64(i), "e", int64(r), start, start+5)
	}
	evs := make([]FunctionEvent, n)
	for b.Loop() {
		copy(evs, src)
		SortEvents(evs)
	}
}

// TestSortKeysRuns compares sortKeys with a stable sort on inputs of every shape it treats
// differently: in order, reversed, random, in long ascending runs (merged) and in short ones
// (sorted from scratch), on one goroutine and on two.
func TestSortKeysRuns(t *testing.T) {
	type key struct{ v, i int32 }
	byKey := func(a, b key) int { return cmp.Or(cmp.Compare(a.v, b.v), cmp.Compare(a.i, b.i)) }
	seed := uint64(7)
	rnd := func() int32 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int32(seed >> 49)
	}
	shapes := map[string]func(i, n int) int32{
		"sorted":        func(i, n int) int32 { return int32(i) },
		"reversed":      func(i, n int) int32 { return int32(n - i) },
		"random":        func(i, n int) int32 { return rnd() },
		"runs of 500":   func(i, n int) int32 { return int32(i%500)*3 + rnd()%2 }, // with ties across runs
		"runs of 40":    func(i, n int) int32 { return int32(i % 40) },
		"runs of 7":     func(i, n int) int32 { return int32(i % 7) },
		"one run, tail": func(i, n int) int32 { return int32(i - boolInt(i > n-3)*n) },
	}
	for name, f := range shapes {
		for _, n := range []int{0, 1, 2, 33, 1000, parallelSortMin - 1, 2*parallelSortMin + 5} {
			keys := make([]key, n)
			for i := range keys {
				keys[i] = key{f(i, n), int32(i)}
			}
			want := slices.Clone(keys)
			slices.SortStableFunc(want, byKey)
			sortKeys(keys, byKey)
			require.Equal(t, want, keys, "%s, %d keys", name, n)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
