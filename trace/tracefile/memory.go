package tracefile

import "github.com/orprof/orprof/events"

// HasMemory reports whether any of evs carries memory figures: the trace recorded memory, as
// Averages.Memory says for the same events (the table's memory columns are printed then).
func HasMemory(evs []events.FunctionEvent) bool { return hasMemory(evs) }
