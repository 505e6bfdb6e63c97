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
