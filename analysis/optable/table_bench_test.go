package optable

import (
	"fmt"
	"testing"

	"github.com/orprof/orprof/events"
)

// syntheticEvents makes n events shaped like a training loop: steps containing layers
// containing ops, over 200 distinct op names, on 4 threads.
func syntheticEvents(n int) []events.FunctionEvent {
	evs := make([]events.FunctionEvent, 0, n)
	t := 0.0
	id := int64(0)
	for len(evs) < n {
		thread := int64(len(evs)/1000%4 + 1)
		stepStart := t
		stepIdx := len(evs)
		evs = append(evs, events.FunctionEvent{}) // placeholder for the step
		for l := 0; l < 20 && len(evs) < n; l++ {
			layerStart := t
			layerIdx := len(evs)
			evs = append(evs, events.FunctionEvent{})
			for o := 0; o < 8 && len(evs) < n; o++ {
				id++
				e := events.NewFunctionEvent(id, fmt.Sprintf("aten::op_%d", (l*8+o)%200), thread, t+0.5, t+3.5)
				e.InputShapes = "[[64, 64], [64, 64]]"
				if o%2 == 0 {
					e.Kernels = []events.Kernel{{Name: e.Name, DurationUs: 2}}
					e.IsLegacy = true
				}
				evs = append(evs, e)
				t += 4
			}
			id++
			evs[layerIdx] = events.NewFunctionEvent(id, fmt.Sprintf("layer_%d", l), thread, layerStart, t+0.25)
			t += 1
		}
		id++
		evs[stepIdx] = events.NewFunctionEvent(id, fmt.Sprintf("ProfilerStep#%d", id), thread, stepStart, t+0.25)
		t += 1
	}
	return evs
}

// BenchmarkKeyAveragesTable500k measures the figure: tree building, KeyAverages and
// the table over 500,000 events (PyTorch 1.13: 9.7 s for key_averages() alone).
func BenchmarkKeyAveragesTable500k(b *testing.B) {
	evs := syntheticEvents(500_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l := events.NewList(evs, events.ListOptions{UseDevice: "openreg"})
		rows := l.KeyAverages(events.AverageOptions{})
		if _, err := appendTable(nil, rows, TableOptions{SortBy: "self_cpu_time_total", UseDevice: "openreg"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKeyAverages500k is KeyAverages alone over a built list.
func BenchmarkKeyAverages500k(b *testing.B) {
	l := events.NewList(syntheticEvents(500_000), events.ListOptions{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = l.KeyAverages(events.AverageOptions{GroupByInputShape: true})
	}
}
