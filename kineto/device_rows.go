package kineto

import (
	"strconv"

	"github.com/orprof/orprof/trace"
)

// DeviceRows adds to a trace the process row of each device and the thread row of each
// stream that a backend's device activities run on: once each, and never over a row the
// trace already has (another profiler's). A backend's ProcessTrace makes one and calls Add
// for every activity it writes on a device.
type DeviceRows struct {
	t       *trace.Trace
	label   string
	devs    map[int]bool
	streams map[[2]int64]bool
}

// NewDeviceRows notes the device and stream rows t already has. label names the devices'
// process rows: "OPENREG" names device 0's "OPENREG 0".
func NewDeviceRows(t *trace.Trace, label string) *DeviceRows {
	r := &DeviceRows{t: t, label: label, devs: map[int]bool{}, streams: map[[2]int64]bool{}}
	for _, p := range t.Processes {
		if p.Pid >= 0 && p.Pid < 1<<16 {
			r.devs[int(p.Pid)] = true
		}
	}
	for _, th := range t.Threads {
		r.streams[[2]int64{th.Pid, th.Tid}] = true
	}
	return r
}

// Add gives device its process row (pid device, sorted after the host's) and stream its
// thread row ("stream N ") when the trace has none yet.
func (r *DeviceRows) Add(device int, stream int64) {
	if !r.devs[device] {
		r.devs[device] = true
		n := r.label + " " + strconv.Itoa(device)
		r.t.Processes = append(r.t.Processes, trace.Process{Pid: int64(device), Name: n, Label: n,
			SortIndex: int64(device) + 5000000})
	}
	if k := [2]int64{int64(device), stream}; !r.streams[k] {
		r.streams[k] = true
		r.t.Threads = append(r.t.Threads, trace.Thread{Pid: int64(device), Tid: stream,
			Name: "stream " + strconv.FormatInt(stream, 10) + " ", SortIndex: stream})
	}
}

// DeviceWorkArgs are the args of the trace event of a backend's device work: "External id"
// (the op that launched it, when one was open: externalID > 0), "device", "stream" and
// "correlation" (the launch's id, which the launch's event carries too), with room for one
// more (the work's flops or bytes).
func DeviceWorkArgs(externalID int64, device int, stream, correlation int64) []trace.Arg {
	args := make([]trace.Arg, 0, 5)
	if externalID > 0 {
		args = append(args, trace.Int(trace.ArgExternalID, externalID))
	}
	return append(args, trace.Int(trace.ArgDevice, int64(device)), trace.Int(trace.ArgStream, stream),
		trace.Int(trace.ArgCorrelation, correlation))
}
