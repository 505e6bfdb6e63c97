package events

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
)

func TestKeyAveragesGrouping(t *testing.T) {
	mm1 := ev(1, "aten::mm", 1, 0, 10)
	mm1.InputShapes = "[[2, 3], [3, 4]]"
	mm1.Stack = []string{"a.py(1): f", "a.py(9): main"}
	mm2 := ev(2, "aten::mm", 1, 20, 24)
	mm2.InputShapes = "[[8, 8], [8, 8]]"
	mm2.Stack = []string{"a.py(2): g", "a.py(9): main"}
	mm3 := ev(3, "aten::mm", 1, 30, 36)
	mm3.InputShapes = "[[2, 3], [3, 4]]"
	mm3.Stack = []string{"a.py(1): f", "a.py(9): main"}
	legacy := ev(4, "aten::mm", 1, 40, 41)
	legacy.Kernels, legacy.IsLegacy = []Kernel{{Name: "aten::mm", DurationUs: 1}}, true
	step := ev(5, "ProfilerStep#3", 1, 50, 60)
	l := NewList([]FunctionEvent{mm1, mm2, mm3, legacy, step}, ListOptions{})

	keys := func(rows []Avg) (out []string) {
		for _, r := range rows {
			out = append(out, r.Key+"|"+r.InputShapes)
		}
		return out
	}
	rows := l.KeyAverages(AverageOptions{})
	assert.Equal(t, []string{"aten::mm|", "aten::mm|", "ProfilerStep*|"}, keys(rows), "is_legacy is part of the key")
	assert.EqualValues(t, 3, rows[0].Count)
	assert.Equal(t, 20.0, rows[0].CPUTimeTotal)
	assert.InDelta(t, 20.0/3, rows[0].CPUTime(), 1e-12)
	assert.True(t, rows[1].IsLegacy)

	rows = l.KeyAverages(AverageOptions{GroupByInputShape: true})
	assert.Equal(t, []string{"aten::mm|[[2, 3], [3, 4]]", "aten::mm|[[8, 8], [8, 8]]", "aten::mm|[]", "ProfilerStep*|[]"}, keys(rows))
	assert.EqualValues(t, 2, rows[0].Count)

	rows = l.KeyAverages(AverageOptions{GroupByStackN: 1})
	require.Len(t, rows, 4)
	assert.Equal(t, []string{"a.py(1): f"}, rows[0].Stack)
	assert.EqualValues(t, 2, rows[0].Count)
	assert.Equal(t, []string{"a.py(2): g"}, rows[1].Stack)
}

// TestKeyAveragesIsPure is PyTorch issue 43869: key_averages() changed the events it
// summarised. Here it is a pure function: twice gives the same rows, the list is unchanged.
func TestKeyAveragesIsPure(t *testing.T) {
	evs := []FunctionEvent{ev(1, "a", 1, 0, 10), ev(2, "b", 1, 1, 4), ev(3, "b", 1, 5, 6)}
	l := NewList(evs, ListOptions{})
	before := l.Events()
	first := l.KeyAverages(AverageOptions{GroupByInputShape: true})
	second := l.KeyAverages(AverageOptions{GroupByInputShape: true})
	assert.Equal(t, first, second)
	assert.Equal(t, before, l.Events())
	assert.Equal(t, 6.0, first[0].SelfCPUTimeTotal)
}

func TestTotalAverage(t *testing.T) {
	l := NewList([]FunctionEvent{ev(1, "a", 1, 0, 10), ev(2, "b", 1, 1, 4)}, ListOptions{})
	tot := TotalAverage(l.KeyAverages(AverageOptions{}))
	assert.Equal(t, "Total", tot.Key)
	assert.EqualValues(t, 2, tot.Count)
	assert.Equal(t, 10.0, tot.SelfCPUTimeTotal)
	assert.Equal(t, 13.0, tot.CPUTimeTotal)
}

func TestSortKeyAliases(t *testing.T) {
	a := Avg{SelfDeviceTimeTotal: 7, CPUTimeTotal: 3, Count: 2}
	for _, name := range []string{"self_device_time_total", "self_cuda_time_total", "self_privateuse1_time_total", "self_openreg_time_total"} {
		f, ok := SortKey(name, "openreg")
		require.True(t, ok, name)
		assert.Equal(t, 7.0, f(&a), name)
	}
	f, ok := SortKey("cpu_time", "")
	require.True(t, ok)
	assert.Equal(t, 1.5, f(&a))
	_, ok = SortKey("bogus", "")
	assert.False(t, ok)
}

// TestKeyAveragesPartsMatchSequential checks that grouping a large list in parallel parts gives
// exactly the sequential answer: same rows in the same order, every float sum bit for bit.
func TestKeyAveragesPartsMatchSequential(t *testing.T) {
	var evs []FunctionEvent
	ts := 0.0
	for i := range 200_000 {
		thread := int64(i%3 + 1)
		d := 1 + float64(i%7)*0.1 + float64(i%13)*1e-7
		e := ev(int64(i), "op_"+strconv.Itoa(i*7919%(50+i/4000)), thread, ts, ts+d)
		e.CPUMemoryUsage = int64(i % 5)
		e.InputShapes = []string{"", "[[1]]", "None"}[i%3]
		if i%4 == 0 {
			e.Kernels = []Kernel{{Name: e.Name, DurationUs: d / 3}}
		}
		evs = append(evs, e)
		ts += d / 2
	}
	l := NewList(evs, ListOptions{})
	for _, o := range []AverageOptions{{}, {GroupByInputShape: true}} {
		prev := runtime.GOMAXPROCS(1)
		want := l.KeyAverages(o)
		runtime.GOMAXPROCS(4)
		got := l.KeyAverages(o)
		runtime.GOMAXPROCS(prev)
		require.Equal(t, want, got)
		require.Greater(t, len(got), 50)
	}
}

// BenchmarkGroupRecent finds the rows of 1M events with 300 op names, as a trace's reader hands
// them over (each name one interned string, so the recent-row cache answers) beside the same
// names in strings of their own (every lookup hashes the name and probes the table).
func BenchmarkGroupRecent(b *testing.B) {
	names := make([]string, 300)
	for i := range names {
		names[i] = fmt.Sprintf("aten::some_operator_name_%d", i)
	}
	interned := make([]string, 1<<20)
	copied := make([]string, len(interned))
	for i := range interned {
		interned[i] = names[(i*7+i/13)%len(names)]
		copied[i] = strings.Clone(interned[i])
	}
	for _, c := range []struct {
		name string
		keys []string
	}{{"interned", interned}, {"copied", copied}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				g := newGrouper(AverageOptions{})
				for _, k := range c.keys {
					if g.find(k, -1, devices.CPU, false, false, "", "[]", nil) < 0 {
						g.add(Avg{Key: k, NodeID: -1})
					}
				}
			}
		})
	}
}
