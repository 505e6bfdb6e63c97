// Package orprof is a profiler stub runtime modeled on PyTorch's legacy autograd profiler. A
// device backend implements the stubs (package stubs); a Session records operators and user
// ranges from many goroutines, times their device work through the backend, and returns an
// event list from which package report prints PyTorch's key_averages() table and package
// report/trace writes a Chrome/Perfetto trace.
//
//	sess, err := orprof.Start(orprof.Options{Device: "openreg"})
//	r := orprof.RecordFunction(ctx, "step")
//	... work ...
//	r.End()
//	res, err := sess.Stop()
package orprof

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/tsc"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/report"
	"github.com/orprof/orprof/report/trace"
	"github.com/orprof/orprof/stubs"
)

// Options configure a profiling session.
type Options struct {
	// Device is the backend whose device time is measured ("openreg"); empty profiles the CPU
	// only. The backend is looked up in the stubs registry.
	Device string
	// RecordShapes keeps the input shapes of ops (record_shapes).
	RecordShapes bool
	// ProfileMemory records allocations and frees (profile_memory).
	ProfileMemory bool
	// WithStack keeps the call stacks ops report (with_stack).
	WithStack bool
	// Activities selects the Kineto activities child profilers record; empty runs none.
	Activities kineto.ActivitySet
	// Config is the Kineto config handed to child profilers; nil is the default config.
	Config *kineto.Config
	// Profilers are child activity profilers for this session, in addition to the registered
	// ones (kineto.RegisteredProfilers).
	Profilers []kineto.ActivityProfiler
	// Clock times host events; nil is the system clock.
	Clock devices.Clock
}

// Session is a running profile. Only one session runs at a time in a process.
type Session struct {
	opts  Options
	clock devices.Clock
	dev   stubs.Stubs // nil for CPU-only
	// fallback is true when device time comes from stub events around every op (PyTorch's
	// KINETO_PRIVATEUSE1_FALLBACK) rather than from an activity profiler's kernels.
	fallback bool
	devName  string
	baseNs   int64 // the session's start: the zero of every relative time
	handles  atomic.Int64
	// fast is set when ranges are timed with the TSC: records hold raw ticks until Stop
	// converts them between anchor and a second anchor taken then.
	fast   bool
	anchor tsc.Anchor

	children []child
	corr     []kineto.ActivityProfilerSession

	refs []deviceRef

	mu    sync.Mutex
	bufs  []*threadBuf
	errs  []error
	nErrs int
	warn  []string
}

type child struct {
	name string
	sess kineto.ActivityProfilerSession
}

type deviceRef struct {
	device int
	event  stubs.Event
	cpuNs  int64
}

var active atomic.Pointer[Session]

// ErrAlreadyProfiling is returned by Start while another session runs.
var ErrAlreadyProfiling = errors.New("orprof: a profiling session is already running in this process")

// Start begins a session. It fails when another session is running, when the device has no
// enabled backend ("<device> used in profiler but not enabled."), or when the backend fails
// while the session records its reference events.
func Start(opts Options) (*Session, error) {
	s := &Session{opts: opts, clock: opts.Clock}
	if s.clock == nil {
		s.clock = devices.SystemClock{}
	}
	if opts.Device != "" {
		st := stubs.Lookup(opts.Device)
		if !st.Enabled() {
			if err := st.Synchronize(context.Background()); err != nil {
				return nil, err
			}
			return nil, &stubs.NotEnabledError{Device: opts.Device}
		}
		s.dev = st
		s.fallback = true
		s.devName = strings.ToLower(opts.Device)
	}
	if s.dev != nil && kernelPath(s.devName, opts.Activities) {
		// Like PyTorch's KINETO_PRIVATEUSE1 state: the backend's activity profiler records the
		// device work, so no fallback events are recorded around each op.
		s.fallback = false
	}
	if !active.CompareAndSwap(nil, s) {
		return nil, ErrAlreadyProfiling
	}
	if opts.Clock == nil && s.dev == nil && tsc.Available() {
		// CPU-only: ranges read the CPU's time-stamp counter (a third of the cost of the vDSO
		// clock); Stop converts ticks to ns between this anchor and one taken then. With a
		// device, host times stay on the system clock the backend also stamps its work with,
		// so launches nest exactly inside the ops that made them.
		s.fast = true
		s.anchor = tsc.NewAnchor(s.clock.Now)
		s.baseNs = s.anchor.Ns
	} else {
		s.baseNs = s.clock.Now()
	}
	if s.fallback {
		// A reference event per device places device work on the host timeline in the trace.
		err := s.dev.OnEachDevice(context.Background(), func(ctx context.Context, d int) error {
			ref, err := s.calibrate(ctx)
			if err != nil {
				return err
			}
			ref.device = d
			s.refs = append(s.refs, ref)
			return nil
		})
		if err != nil {
			active.Store(nil)
			s.releaseRefs()
			return nil, stubs.Wrap(s.devName, "onEachDevice", err)
		}
	}
	s.startChildren()
	return s, nil
}

// calibrate records the reference event of ctx's device. The event completes when the stream
// reaches it, some time after the host clock was read; recording it on an idle device and
// synchronizing brackets that moment. Of five tries it keeps the tightest bracket and dates
// the event at the bracket's end, so device intervals are never placed before the work that
// caused them (at worst they show up to the bracket's width late).
func (s *Session) calibrate(ctx context.Context) (deviceRef, error) {
	var best deviceRef
	bestWidth := int64(-1)
	for i := 0; i < 5; i++ {
		rec, err := s.dev.Record(ctx, stubs.WantDevice|stubs.WantEvent|stubs.WantCPUTime)
		if err != nil {
			s.release(best.event)
			return deviceRef{}, err
		}
		if err := s.dev.Synchronize(ctx); err != nil {
			s.release(rec.Event)
			s.release(best.event)
			return deviceRef{}, err
		}
		after, err := s.dev.Record(ctx, stubs.WantCPUTime)
		if err != nil {
			s.release(rec.Event)
			s.release(best.event)
			return deviceRef{}, err
		}
		if w := after.CPUNs - rec.CPUNs; bestWidth < 0 || w < bestWidth {
			s.release(best.event)
			bestWidth = w
			best = deviceRef{event: rec.Event, cpuNs: after.CPUNs}
		} else {
			s.release(rec.Event)
		}
	}
	return best, nil
}

func (s *Session) startChildren() {
	if s.opts.Activities.Empty() {
		return
	}
	cfg := s.opts.Config
	if cfg == nil {
		cfg = kineto.NewConfig()
	}
	profs := append([]kineto.ActivityProfiler(nil), kineto.RegisteredProfilers()...)
	if p := kineto.DeviceProfiler(s.devName); p != nil && s.devName != "" {
		profs = append(profs, p)
	}
	profs = append(profs, s.opts.Profilers...)
	for _, p := range profs {
		cs, err := p.Configure(s.opts.Activities, cfg)
		if err != nil {
			s.warn = append(s.warn, fmt.Sprintf("profiler %s: configure: %v", p.Name(), err))
			continue
		}
		if cs == nil {
			continue
		}
		if err := cs.Start(); err != nil {
			s.warn = append(s.warn, fmt.Sprintf("profiler %s: start: %v", p.Name(), err))
			continue
		}
		s.children = append(s.children, child{name: p.Name(), sess: cs})
		s.corr = append(s.corr, cs)
	}
}

func (s *Session) addBuf(b *threadBuf) {
	s.mu.Lock()
	s.bufs = append(s.bufs, b)
	s.mu.Unlock()
}

// fail keeps a backend failure; the first ten messages are kept, the rest counted.
func (s *Session) fail(hook string, err error) {
	s.mu.Lock()
	s.nErrs++
	if len(s.errs) < 10 {
		s.errs = append(s.errs, stubs.Wrap(s.devName, hook, err))
	}
	s.mu.Unlock()
}

func (s *Session) release(e stubs.Event) {
	if r, ok := s.dev.(stubs.EventReleaser); ok && e != nil {
		r.ReleaseEvent(e)
	}
}

func (s *Session) releaseRefs() {
	for _, r := range s.refs {
		s.release(r.event)
	}
	s.refs = nil
}

// kernelPath reports whether the device's registered activity profiler (the PrivateUse1
// profiler, or one registered with kineto.RegisterDeviceProfiler) records device work for these
// activities, so the session takes device time from its kernels.
func kernelPath(device string, acts kineto.ActivitySet) bool {
	if acts.Empty() {
		return false
	}
	var p kineto.ActivityProfiler
	if device == devices.PrivateUse1BackendName() {
		p = kineto.PrivateUse1Profiler()
	} else {
		p = kineto.DeviceProfiler(device)
	}
	if p == nil {
		return false
	}
	dev := kineto.NewActivitySet(kineto.ConcurrentKernel, kineto.GPUMemcpy, kineto.GPUMemset)
	return !p.AvailableActivities().Intersect(acts).Intersect(dev).Empty()
}

// now is the hot path's clock: raw TSC ticks when fast, else nanoseconds.
func (s *Session) now() int64 {
	if s.fast {
		return tsc.Read()
	}
	return s.clock.Now()
}

// Device is the device name of the session, "" for CPU-only.
func (s *Session) Device() string { return s.devName }

// Result is what a session recorded.
type Result struct {
	// Events is the list with its tree built.
	Events *events.List
	// Trace is the session's trace: host ops, device rows, child profilers' events.
	Trace *trace.Trace
	// Device is the lower-case device name, "" for CPU-only.
	Device string
	// Unfinished counts ranges still open at Stop; they are left out.
	Unfinished int
	// Warnings are child-profiler problems that did not stop the profile.
	Warnings []string
	// Options are the options the session ran with.
	Options Options
	// DeviceActivities are the device activities child profilers recorded.
	DeviceActivities []kineto.DeviceActivity
}

// KeyAverages is Events.KeyAverages.
func (r *Result) KeyAverages(o events.AverageOptions) []events.Avg { return r.Events.KeyAverages(o) }

// TableOptions returns table options matching how the session recorded (device, memory).
func (r *Result) TableOptions() report.TableOptions {
	return report.TableOptions{UseDevice: r.Device, ProfileMemory: r.Options.ProfileMemory}
}

// Stop ends the session: it synchronizes the device, stops the child profilers, measures the
// device time of every op and builds the result. The returned error reports backend failures
// (their messages kept); the result is still usable when it is non-nil.
func (s *Session) Stop() (*Result, error) {
	if !active.CompareAndSwap(s, nil) {
		return nil, errors.New("orprof: Stop: the session is not running")
	}
	ctx := context.Background()
	if s.dev != nil {
		if err := s.dev.Synchronize(ctx); err != nil {
			s.fail("synchronize", err)
		}
	}
	endNs := s.clock.Now()
	conv := tsc.NewConverter(s.anchor, tsc.NewAnchor(s.clock.Now))
	for _, c := range s.children {
		if err := c.sess.Stop(); err != nil {
			s.warn = append(s.warn, fmt.Sprintf("profiler %s: stop: %v", c.name, err))
		}
	}
	recs, slots, unfinished := s.collect()
	if s.fast {
		for i := range recs {
			recs[i].StartNs = conv.Ns(recs[i].StartNs)
			recs[i].EndNs = conv.Ns(recs[i].EndNs)
		}
	}
	var intervals []deviceInterval
	if s.fallback {
		intervals = s.measure(recs, slots)
	}
	res := &Result{Device: s.devName, Unfinished: unfinished, Options: s.opts}

	trace := s.buildTrace(recs, intervals, endNs)
	for _, c := range s.children {
		if err := c.sess.ProcessTrace(trace); err != nil {
			s.warn = append(s.warn, fmt.Sprintf("profiler %s: process trace: %v", c.name, err))
		}
		if src, ok := c.sess.(kineto.DeviceActivitySource); ok {
			res.DeviceActivities = append(res.DeviceActivities, src.DeviceActivities()...)
		}
	}
	if n := dropUnpairedFlows(trace); n > 0 {
		s.warn = append(s.warn, fmt.Sprintf("dropped %d flow events without a partner (a child profiler wrote one end of a flow only)", n))
	}
	// Memory goes to every host event that contains it, the runtime calls of the child
	// profilers too (as a trace reader sees them), so it is attributed after they join.
	evs := events.FromRecords(recs, s.baseNs)
	if len(res.DeviceActivities) > 0 {
		evs = AttachDeviceActivities(evs, res.DeviceActivities, s.baseNs)
		if res.Device == "" {
			res.Device = devices.PrivateUse1BackendName()
		}
	}
	evs = events.AttachMemory(evs, recs, s.baseNs)
	res.Events = events.NewList(evs, events.ListOptions{UseDevice: res.Device, ProfileMemory: s.opts.ProfileMemory})
	res.Trace = trace
	res.Warnings = s.warn
	s.mu.Lock()
	var err error
	if s.nErrs > 0 {
		err = errors.Join(s.errs...)
		if s.nErrs > len(s.errs) {
			err = fmt.Errorf("%w (and %d more backend failures)", err, s.nErrs-len(s.errs))
		}
	}
	s.mu.Unlock()
	return res, err
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

// collect copies the finished records out of every thread buffer, in thread then record order.
func (s *Session) collect() ([]events.Record, []*slot, int) {
	s.mu.Lock()
	bufs := append([]*threadBuf(nil), s.bufs...)
	s.mu.Unlock()
	var recs []events.Record
	var slots []*slot
	unfinished := 0
	for _, b := range bufs {
		b.thread.mu.Lock()
		for i := 0; i < b.n; i++ {
			sl := &b.chunks[i/chunkSize][i%chunkSize]
			if !sl.ended {
				unfinished++
				sl.ended = true // a late End must not touch it
				if sl.devStart != nil {
					s.release(sl.devStart)
					sl.devStart = nil
				}
				continue
			}
			recs = append(recs, sl.rec)
			slots = append(slots, sl)
		}
		b.thread.mu.Unlock()
	}
	return recs, slots, unfinished
}

// deviceInterval is an op's device work placed on the host timeline.
type deviceInterval struct {
	rec            int
	device         int
	stream         int64
	startNs, endNs int64
}

// measure computes every op's device time (elapsed between its events) and, from the
// per-device reference events, where that time sits on the host timeline.
func (s *Session) measure(recs []events.Record, slots []*slot) []deviceInterval {
	refs := map[int]deviceRef{}
	for _, r := range s.refs {
		refs[r.device] = r
	}
	var out []deviceInterval
	for i, sl := range slots {
		if sl.devStart == nil || sl.devEnd == nil {
			s.release(sl.devStart)
			s.release(sl.devEnd)
			continue
		}
		us, err := s.dev.Elapsed(sl.devStart, sl.devEnd)
		if err != nil {
			s.fail("elapsed", err)
		} else if !recs[i].Async && !(recs[i].Thread != recs[i].EndThread) {
			recs[i].DeviceElapsedUs = us
			if ref, ok := refs[recs[i].DeviceIndex]; ok && int64(us) > 0 {
				if a, err := s.dev.Elapsed(ref.event, sl.devStart); err == nil {
					st := ref.cpuNs + int64(a*1000)
					out = append(out, deviceInterval{rec: i, device: recs[i].DeviceIndex, stream: sl.stream,
						startNs: st, endNs: st + int64(us*1000)})
				}
			}
		}
		s.release(sl.devStart)
		s.release(sl.devEnd)
		sl.devStart, sl.devEnd = nil, nil
	}
	s.releaseRefs()
	return out
}

// AttachDeviceActivities adds child profilers' activities to the events the way
// torch.profiler's parser does: device work becomes a device event of its own (thread =
// stream) and a kernel of the non-async host op whose id is its correlation id; a runtime or
// driver call becomes a host event on that op's thread, so it nests under the op. evs is not
// modified.
func AttachDeviceActivities(evs []events.FunctionEvent, acts []kineto.DeviceActivity, baseNs int64) []events.FunctionEvent {
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

// buildTrace writes the host ops, memory instants, markers and device rows into a trace.
func (s *Session) buildTrace(recs []events.Record, ivs []deviceInterval, endNs int64) *trace.Trace {
	pid := int64(os.Getpid())
	t := &trace.Trace{BaseTimeNs: s.baseNs, StartNs: s.baseNs, EndNs: endNs}
	devMeta := "cpu"
	if s.devName != "" {
		devMeta = s.devName
	}
	devTime := trace.DeviceTimeKernels
	if s.fallback {
		devTime = trace.DeviceTimeFallback
	}
	t.Metadata = append(t.Metadata, trace.Raw(trace.MetaOrprof, `{"`+trace.MetaDevice+`": `+string(trace.AppendString(nil, devMeta))+
		`, "`+trace.ArgDeviceTime+`": "`+devTime+`"}`))
	t.Processes = append(t.Processes, trace.Process{Pid: pid, Name: "orprof", Label: "CPU", SortIndex: pid})
	// Kineto's span of the host buffer: readers (ours, PyTorch's) take its start as the
	// profile's start, so times read back are the ones the session computed.
	ops := 0
	for i := range recs {
		if recs[i].Kind == events.RangeRecord {
			ops++
		}
	}
	t.Events = append(t.Events,
		trace.Event{Ph: 'X', Cat: "Trace", Name: "PyTorch Profiler (0)", PidStr: "Spans", TidStr: "PyTorch Profiler",
			TsNs: s.baseNs, DurNs: endNs - s.baseNs, Args: []trace.Arg{trace.Int(trace.ArgOpCount, int64(ops))}},
		trace.Event{Ph: 'i', Name: "Iteration Start: PyTorch Profiler", PidStr: "Traces", TidStr: "Trace PyTorch Profiler",
			TsNs: s.baseNs, Scope: 'g'})
	threads := map[int64]bool{}
	for i := range recs {
		r := &recs[i]
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
		if r.Async || r.Thread != r.EndThread {
			args = append(args, trace.Bool(trace.ArgAsync, true), trace.Int(trace.ArgEndThreadID, r.EndThread))
		}
		if len(r.Stack) > 0 {
			args = append(args, trace.Str(trace.ArgCallStack, strings.Join(r.Stack, ";")))
		}
		if us := int64(r.DeviceElapsedUs); us > 0 && !(r.Async || r.Thread != r.EndThread) {
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
	if len(ivs) > 0 {
		label := strings.ToUpper(s.devName)
		streams := map[[2]int64]bool{}
		seenDev := map[int]bool{}
		for _, iv := range ivs {
			r := &recs[iv.rec]
			if !seenDev[iv.device] {
				seenDev[iv.device] = true
				t.Processes = append(t.Processes, trace.Process{Pid: int64(iv.device), Name: label + " " + strconv.Itoa(iv.device),
					Label: label + " " + strconv.Itoa(iv.device), SortIndex: int64(iv.device) + 5000000})
			}
			if k := [2]int64{int64(iv.device), iv.stream}; !streams[k] {
				streams[k] = true
				t.Threads = append(t.Threads, trace.Thread{Pid: int64(iv.device), Tid: iv.stream,
					Name: "stream " + strconv.FormatInt(iv.stream, 10) + " ", SortIndex: iv.stream})
			}
			id := uint64(r.Handle)
			// The start event is recorded just before the op's host start, so on an idle stream
			// the device interval can begin a little earlier; the flow ends inside the interval,
			// never before it starts.
			fts := max(iv.startNs, r.StartNs)
			fts = min(fts, iv.endNs)
			t.Events = append(t.Events,
				trace.Event{Ph: 'X', Cat: "gpu_user_annotation", Name: r.Name, Pid: int64(iv.device), Tid: iv.stream,
					TsNs: iv.startNs, DurNs: iv.endNs - iv.startNs, Args: []trace.Arg{
						trace.Int(trace.ArgExternalID, r.Handle),
						trace.Int(trace.ArgDevice, int64(iv.device)),
						trace.Int(trace.ArgStream, iv.stream),
						trace.Str(trace.ArgDeviceTime, trace.DeviceTimeFallback)}},
				trace.Event{Ph: 's', Cat: "ac2g", Name: "ac2g", Pid: pid, Tid: r.Thread, TsNs: r.StartNs, ID: id},
				trace.Event{Ph: 'f', Cat: "ac2g", Name: "ac2g", Pid: int64(iv.device), Tid: iv.stream, TsNs: fts, ID: id})
		}
	}
	return t
}
