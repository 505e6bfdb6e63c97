package events_test

import (
	"fmt"

	"github.com/orprof/orprof/events"
)

// Build the tree of a few events and sum them by key, as key_averages() does.
func ExampleList_KeyAverages() {
	evs := []events.FunctionEvent{
		events.NewFunctionEvent(1, "step", 1, 0, 100),
		events.NewFunctionEvent(2, "aten::mm", 1, 10, 40),
		events.NewFunctionEvent(3, "aten::mm", 1, 50, 70),
	}
	l := events.NewList(evs, events.ListOptions{})
	for _, row := range l.KeyAverages(events.AverageOptions{}) {
		fmt.Printf("%s: %d calls, self %.0f us, total %.0f us\n", row.Key, row.Count, row.SelfCPUTimeTotal, row.CPUTimeTotal)
	}
	// Output:
	// step: 1 calls, self 50 us, total 100 us
	// aten::mm: 2 calls, self 50 us, total 50 us
}

// The same rows from events handed over one at a time and not kept, as `orprof table` reads a
// large trace: each event is set from a reusable FunctionEvent.
func ExampleAverager() {
	in := []events.FunctionEvent{
		events.NewFunctionEvent(1, "step", 1, 0, 100),
		events.NewFunctionEvent(2, "aten::mm", 1, 10, 40),
		events.NewFunctionEvent(3, "aten::mm", 1, 50, 70),
	}
	a, _ := events.NewAverager(len(in), events.AverageOptions{})
	var e events.FunctionEvent
	for i := range in {
		e = in[i] // a reader would fill e from its input here
		a.Set(i, &e)
	}
	a.AddKernel(1, 25) // a kernel linked to the first aten::mm once the whole trace is read
	for _, row := range a.Averages() {
		fmt.Printf("%s: %d calls, self %.0f us, device total %.0f us\n", row.Key, row.Count, row.SelfCPUTimeTotal, row.DeviceTimeTotal)
	}
	// Output:
	// step: 1 calls, self 50 us, device total 25 us
	// aten::mm: 2 calls, self 50 us, device total 25 us
}
