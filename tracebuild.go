package orprof

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/trace"
)

// buildTrace writes the host ops, memory instants, markers and device rows into a trace.
func (rec *recording) buildTrace() *trace.Trace {
	pid := int64(os.Getpid())
	t := &trace.Trace{BaseTimeNs: rec.baseNs, StartNs: rec.baseNs, EndNs: rec.endNs}
	devMeta := "cpu"
	if rec.devName != "" {
		devMeta = rec.devName
	}
	devTime := trace.DeviceTimeKernels
	if rec.fallback {
		devTime = trace.DeviceTimeFallback
	}
	t.Metadata = append(t.Metadata, trace.Raw(trace.MetaOrprof, `{"`+trace.MetaDevice+`": `+string(trace.AppendString(nil, devMeta))+
		`, "`+trace.ArgDeviceTime+`": "`+devTime+`"}`))
	t.Processes = append(t.Processes, trace.Process{Pid: pid, Name: "orprof", Label: "CPU", SortIndex: pid})
	// Kineto's span of the host buffer: readers (ours, PyTorch's) take its start as the
	// profile's start, so times read back are the ones the session computed.
	ops := rec.ranges
	t.Events = append(t.Events,
		trace.Event{Ph: 'X', Cat: "Trace", Name: "PyTorch Profiler (0)", PidStr: "Spans", TidStr: "PyTorch Profiler",
			TsNs: rec.baseNs, DurNs: rec.endNs - rec.baseNs, Args: []trace.Arg{trace.Int(trace.ArgOpCount, int64(ops))}},
		trace.Event{Ph: 'i', Name: "Iteration Start: PyTorch Profiler", PidStr: "Traces", TidStr: "Trace PyTorch Profiler",
			TsNs: rec.baseNs, Scope: 'g'})
	threads := map[int64]bool{}
	for l, a := range rec.all() {
		rr := l.record(a)
		r := &rr
		threads[r.Thread] = true
		switch r.Kind {
		case events.MemoryRecord:
			t.Events = append(t.Events, trace.Event{Ph: 'i', Cat: "cpu_instant_event", Name: "[memory]",
				Pid: pid, Tid: r.Thread, TsNs: r.StartNs, Scope: 't', Args: []trace.Arg{
					trace.Int(trace.ArgMemDeviceType, int64(r.MemoryDevice.C10())),
					trace.Int(trace.ArgMemBytes, r.Bytes)}})
			continue
		case events.MarkRecord:
			t.Events = append(t.Events, trace.Event{Ph: 'i', Cat: "user_annotation", Name: r.Name,
				Pid: pid, Tid: r.Thread, TsNs: r.StartNs, Scope: 't'})
			continue
		}
		if events.FilterName(r.Name) {
			continue
		}
		cat := "cpu_op"
		if r.Scope == events.ScopeUserScope {
			cat = "user_annotation"
		}
		args := []trace.Arg{trace.Int(trace.ArgExternalID, r.Handle),
			trace.Int(trace.ArgRecordFunctionID, r.Handle)}
		if r.Shapes != nil {
			args = append(args, trace.Raw(trace.ArgInputDims, events.FormatShapes(r.Shapes)))
		}
		if r.SequenceNr >= 0 {
			args = append(args, trace.Int(trace.ArgFwdThreadID, r.FwdThread),
				trace.Int(trace.ArgSequenceNumber, r.SequenceNr))
		}
		if r.Scope != 0 {
			args = append(args, trace.Int(trace.ArgScope, int64(r.Scope)))
		}
		if r.IsAsync() {
			args = append(args, trace.Bool(trace.ArgAsync, true), trace.Int(trace.ArgEndThreadID, r.EndThread))
		}
		if len(r.Stack) > 0 {
			args = append(args, trace.Str(trace.ArgCallStack, strings.Join(r.Stack, ";")))
		}
		if us := int64(r.DeviceElapsedUs); us > 0 && !r.IsAsync() {
			args = append(args, trace.Int(trace.ArgDeviceTimeUs, us),
				trace.Int(trace.ArgOpDevice, int64(r.DeviceIndex)))
		}
		t.Events = append(t.Events, trace.Event{Ph: 'X', Cat: cat, Name: r.Name, Pid: pid, Tid: r.Thread,
			TsNs: r.StartNs, DurNs: r.EndNs - r.StartNs, Args: args})
	}
	tids := make([]int64, 0, len(threads))
	for id := range threads {
		tids = append(tids, id)
	}
	sort.Slice(tids, func(i, j int) bool { return tids[i] < tids[j] })
	for _, id := range tids {
		t.Threads = append(t.Threads, trace.Thread{Pid: pid, Tid: id, Name: fmt.Sprintf("thread %d (orprof)", id), SortIndex: id})
	}
	rec.deviceRows(t, pid)
	return t
}

// deviceRows draws every op's fallback device interval on its device's stream row, with a flow
// from the op. The intervals of one host thread nest on a stream (its events are enqueued in
// order); those of several host threads sharing a stream overlap without nesting, which viewers
// cannot draw on one row, so a shared stream gets a row per host thread ("stream 7 thread 3"),
// numbered after the device's stream ids.
func (rec *recording) deviceRows(t *trace.Trace, pid int64) {
	if len(rec.intervals) == 0 {
		return
	}
	type streamKey struct {
		device int
		stream int64
	}
	type rowKey struct {
		streamKey
		thread int64
	}
	hosts := map[streamKey][]int64{} // host threads per stream, in order of first interval
	seen := map[rowKey]bool{}
	maxStream := map[int]int64{}
	for _, iv := range rec.intervals {
		sk := streamKey{iv.device, iv.stream}
		if rk := (rowKey{sk, iv.l.id}); !seen[rk] {
			seen[rk] = true
			hosts[sk] = append(hosts[sk], iv.l.id)
		}
		if m, ok := maxStream[iv.device]; !ok || iv.stream > m {
			maxStream[iv.device] = iv.stream
		}
	}
	rows := map[rowKey]int64{}
	next := map[int]int64{}
	label := strings.ToUpper(rec.devName)
	seenDev := map[int]bool{}
	for _, iv := range rec.intervals {
		r := iv.l.record(iv.at)
		sk := streamKey{iv.device, iv.stream}
		rk := rowKey{sk, r.Thread}
		if !seenDev[iv.device] {
			seenDev[iv.device] = true
			t.Processes = append(t.Processes, trace.Process{Pid: int64(iv.device), Name: label + " " + strconv.Itoa(iv.device),
				Label: label + " " + strconv.Itoa(iv.device), SortIndex: int64(iv.device) + 5000000})
		}
		tid, ok := rows[rk]
		if !ok {
			tid = iv.stream
			name := "stream " + strconv.FormatInt(iv.stream, 10) + " "
			if len(hosts[sk]) > 1 {
				if _, ok := next[iv.device]; !ok {
					next[iv.device] = maxStream[iv.device] + 1
				}
				tid = next[iv.device]
				next[iv.device]++
				name = "stream " + strconv.FormatInt(iv.stream, 10) + " thread " + strconv.FormatInt(r.Thread, 10)
			}
			rows[rk] = tid
			t.Threads = append(t.Threads, trace.Thread{Pid: int64(iv.device), Tid: tid, Name: name, SortIndex: iv.stream})
		}
		id := uint64(r.Handle)
		// The start event is recorded just before the op's host start, so on an idle stream
		// the device interval can begin a little earlier; the flow ends inside the interval,
		// never before it starts.
		fts := max(iv.startNs, r.StartNs)
		fts = min(fts, iv.endNs)
		t.Events = append(t.Events,
			trace.Event{Ph: 'X', Cat: "gpu_user_annotation", Name: r.Name, Pid: int64(iv.device), Tid: tid,
				TsNs: iv.startNs, DurNs: iv.endNs - iv.startNs, Args: []trace.Arg{
					trace.Int(trace.ArgExternalID, r.Handle),
					trace.Int(trace.ArgDevice, int64(iv.device)),
					trace.Int(trace.ArgStream, iv.stream),
					trace.Str(trace.ArgDeviceTime, trace.DeviceTimeFallback)}},
			trace.Event{Ph: 's', Cat: "ac2g", Name: "ac2g", Pid: pid, Tid: r.Thread, TsNs: r.StartNs, ID: id},
			trace.Event{Ph: 'f', Cat: "ac2g", Name: "ac2g", Pid: int64(iv.device), Tid: tid, TsNs: fts, ID: id})
	}
}

// dropUnpairedFlows removes flow starts without an end and ends without a start (same category
// and id), which viewers draw as dangling arrows or reject. It returns how many it removed.
func dropUnpairedFlows(t *trace.Trace) int {
	type key struct {
		cat string
		id  uint64
	}
	var starts, ends map[key]int
	for i := range t.Events {
		e := &t.Events[i]
		switch e.Ph {
		case 's':
			if starts == nil {
				starts = map[key]int{}
			}
			starts[key{e.Cat, e.ID}]++
		case 'f':
			if ends == nil {
				ends = map[key]int{}
			}
			ends[key{e.Cat, e.ID}]++
		}
	}
	kept := t.Events[:0]
	dropped := 0
	for _, e := range t.Events {
		k := key{e.Cat, e.ID}
		if (e.Ph == 's' && ends[k] == 0) || (e.Ph == 'f' && starts[k] == 0) {
			dropped++
			continue
		}
		kept = append(kept, e)
	}
	t.Events = kept
	return dropped
}

// attachDeviceActivities adds child profilers' activities to the events the way
// torch.profiler's parser does: device work becomes a device event of its own (thread =
// stream) and a kernel of the non-async host op whose id is its correlation id; a runtime or
// driver call becomes a host event on that op's thread, so it nests under the op. evs is not
// modified.
func attachDeviceActivities(evs []events.FunctionEvent, acts []kineto.DeviceActivity, baseNs int64) []events.FunctionEvent {
	out := make([]events.FunctionEvent, len(evs), len(evs)+len(acts))
	copy(out, evs)
	byID := make(map[int64]int, len(out))
	for i := range out {
		if out[i].DeviceType == devices.CPU && !out[i].IsAsync {
			if _, dup := byID[out[i].ID]; !dup {
				byID[out[i].ID] = i
			}
		}
	}
	for _, a := range acts {
		op, linked := byID[a.Correlation]
		if a.Correlation == 0 {
			linked = false
		}
		if a.IsHost() {
			thread := a.Thread
			if linked {
				thread = out[op].Thread
			}
			fe := events.NewFunctionEvent(a.Correlation, a.Name, thread,
				float64(a.StartNs-baseNs)/1000.0, float64(a.EndNs-baseNs)/1000.0)
			fe.InputShapes = "[]"
			out = append(out, fe)
			continue
		}
		fe := events.NewFunctionEvent(a.Correlation, a.Name, a.Stream,
			float64(a.StartNs-baseNs)/1000.0, float64(a.EndNs-baseNs)/1000.0)
		fe.InputShapes = "[]"
		fe.DeviceType = devices.PrivateUse1
		fe.DeviceIndex = a.Device
		fe.IsUserAnnotation = a.Type == kineto.GPUUserAnnotation
		if linked && !fe.IsUserAnnotation {
			k := append([]events.Kernel(nil), out[op].Kernels...)
			out[op].Kernels = append(k, events.Kernel{Name: a.Name, Device: a.Device, DurationUs: fe.ElapsedUs()})
		}
		out = append(out, fe)
	}
	events.SortEvents(out)
	return out
}
