package kineto_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/trace"
)

// Rows are added once each, and never over a row the trace had (another profiler's device 0,
// its stream 7); a process with a host pid does not count as a device.
func TestDeviceRows(t *testing.T) {
	tr := &trace.Trace{
		Processes: []trace.Process{{Pid: 0, Name: "other 0"}, {Pid: 1 << 20, Name: "host"}},
		Threads:   []trace.Thread{{Pid: 0, Tid: 7, Name: "theirs"}},
	}
	rows := kineto.NewDeviceRows(tr, "DEV")
	for _, a := range []struct {
		device int
		stream int64
	}{{0, 7}, {0, 8}, {1, 7}, {0, 8}, {1, 7}} {
		rows.Add(a.device, a.stream)
	}
	var procs, threads []string
	for _, p := range tr.Processes {
		procs = append(procs, fmt.Sprintf("%d %s %d", p.Pid, p.Name, p.SortIndex))
	}
	for _, th := range tr.Threads {
		threads = append(threads, fmt.Sprintf("%d/%d %q", th.Pid, th.Tid, th.Name))
	}
	assert.Equal(t, []string{"0 other 0 0", "1048576 host 0", "1 DEV 1 5000001"}, procs)
	assert.Equal(t, []string{`0/7 "theirs"`, `0/8 "stream 8 "`, `1/7 "stream 7 "`}, threads)
}

func TestDeviceWorkArgs(t *testing.T) {
	for _, c := range []struct {
		ext  int64
		want string
	}{{0, "device=2 stream=3 correlation=4"}, {9, "External id=9 device=2 stream=3 correlation=4"}} {
		var got string
		for i, a := range kineto.DeviceWorkArgs(c.ext, 2, 3, 4) {
			if i > 0 {
				got += " "
			}
			got += a.Key + "=" + a.JSON()
		}
		assert.Equal(t, c.want, got)
	}
}

// A backend's ProcessTrace gives each device and stream its activities run on a row.
func ExampleDeviceRows() {
	t := &trace.Trace{}
	rows := kineto.NewDeviceRows(t, "OPENREG")
	for _, stream := range []int64{1, 2, 1} {
		rows.Add(0, stream)
		t.Events = append(t.Events, trace.Event{Ph: 'X', Cat: "kernel", Name: "gemm", Pid: 0, Tid: stream,
			Args: kineto.DeviceWorkArgs(42, 0, stream, 1)})
	}
	fmt.Println(t.Processes[0].Name, len(t.Threads), "streams")
	// Output: OPENREG 0 2 streams
}
