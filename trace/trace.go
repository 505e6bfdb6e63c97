// Package trace is the model of a Chrome/Perfetto trace in Kineto's object form, with the keys
// of its event args, its writer (Write) and its checker (Check). Sessions and activity
// profilers fill a Trace; reading trace files back is package tracefile's job.
package trace

// Trace is a Chrome/Perfetto trace in Kineto's object form, as a model: the writer turns it into
// JSON, sessions and activity profilers fill it. Times are absolute nanoseconds since the Unix
// epoch; the writer makes them relative to BaseTimeNs.
type Trace struct {
	// BaseTimeNs is the zero of every ts (Kineto's baseTimeNanoseconds).
	BaseTimeNs int64
	// StartNs and EndNs bound the capture window; EndNs places "Record Window End".
	StartNs, EndNs int64
	// Metadata are extra top-level members, written in order.
	Metadata []Arg
	// DeviceProperties are raw JSON objects, one per device.
	DeviceProperties []string
	// DistributedInfo is raw JSON; empty writes {"rank": 0} so HTA accepts the file.
	DistributedInfo string
	Processes       []Process
	Threads         []Thread
	Events          []Event
	// TraceName is written last, as Kineto does.
	TraceName string
	// OmitSpans makes Write leave out the complete ("X") events with a string pid — Kineto's
	// span of the profile, "pid": "Spans" — which speedscope cannot read (it needs numeric
	// pids; Chrome and Perfetto read both).
	OmitSpans bool
}

// Process is a process row (a host process or a device): its name, label and sort order.
type Process struct {
	Pid       int64
	Name      string
	Label     string
	SortIndex int64
}

// Thread is a thread row (a host thread or a device stream).
type Thread struct {
	Pid, Tid  int64
	Name      string
	SortIndex int64
}

// Event is one trace event. Ph is 'X' (complete), 'i' (instant), 'C' (counter), 's'/'f'
// (flow start/end) or 'M' (metadata).
type Event struct {
	Ph       byte
	Cat      string
	Name     string
	Pid, Tid int64
	// PidStr and TidStr, when set, replace the numeric pid/tid (Kineto's "Spans" rows).
	PidStr, TidStr string
	TsNs, DurNs    int64
	Args           []Arg
	// ID is a flow's id.
	ID uint64
	// Scope is an instant event's scope: 'g', 'p' or 't'.
	Scope byte
}
