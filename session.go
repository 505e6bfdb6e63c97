// Package orprof is a profiler stub runtime modeled on PyTorch's legacy autograd profiler. A
// device backend implements the stubs (package stubs); a Session records operators and user
// ranges from many goroutines, times their device work through the backend, and returns an
// event list from which package report prints PyTorch's key_averages() table and package
// trace writes a Chrome/Perfetto trace.
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
	"strings"
	"sync"
	"sync/atomic"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/tsc"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/stubs"
	"github.com/orprof/orprof/trace"
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
	// want is what fallback records ask the backend for: an event, and on the system clock the
	// host time too, which then times the range, as PyTorch's legacy events take their CPU time
	// from the stubs' record (one clock read less on each side).
	want    stubs.Want
	baseNs  int64 // the session's start: the zero of every relative time
	handles atomic.Int64
	// fast is set when ranges are timed with the TSC: records hold raw ticks until Stop
	// converts them between anchor and a second anchor taken then.
	fast   bool
	anchor tsc.Anchor

	children []child
	corr     []kineto.ActivityProfilerSession

	refs []deviceRef

	// stopped is set by Stop before it walks the lanes; recorders check it after they publish.
	stopped atomic.Bool
	// windowEnd is set by a time-window capture (CaptureOptions.Duration) before it stops the
	// session: ranges open then (the step in progress) are left out as documented, counted in
	// Result.Unfinished without a warning.
	windowEnd bool

	mu    sync.Mutex
	lanes []*lane // in the order goroutines first recorded
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

var (
	active atomic.Pointer[Session]
	// lifecycle serializes Start and Stop, so a session is published only when it is built.
	lifecycle sync.Mutex
)

// ErrAlreadyProfiling is returned by Start while another session runs.
var ErrAlreadyProfiling = errors.New("orprof: a profiling session is already running in this process")

// Start begins a session. It fails when another session is running, when the device has no
// enabled backend ("<device> used in profiler but not enabled."), or when the backend fails
// while the session records its reference events. The session becomes visible to recording
// goroutines only once it is fully set up.
func Start(opts Options) (*Session, error) {
	lifecycle.Lock()
	defer lifecycle.Unlock()
	if active.Load() != nil {
		return nil, ErrAlreadyProfiling
	}
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
	if s.fallback {
		s.want = stubs.WantEvent
		if opts.Clock == nil {
			s.want |= stubs.WantCPUTime
		}
	}
	if opts.Clock == nil && s.dev == nil && tsc.Available() {
		// CPU-only: ranges read the CPU's time-stamp counter (a third of the cost of the vDSO
		// clock); Stop converts ticks to ns between this anchor and one taken then. With a
		// device, host times stay on the system clock the backend also stamps its work with,
		// so launches nest exactly inside the ops that made them.
		s.fast = true
		s.anchor = tsc.NewAnchor(s.clock.Now)
		s.baseNs = s.anchor.Ns
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
			s.releaseRefs()
			return nil, stubs.Wrap(s.devName, "onEachDevice", err)
		}
	}
	s.startChildren()
	if !s.fast {
		// The session starts when it can record, as Kineto's trace starts after its warmup:
		// after the reference events (five synchronizations per device) and the child
		// profilers' start (OpenCL's calibrates its clock), tens of ms on OpenCL that would
		// otherwise show as an empty stretch at the start of every trace.
		s.baseNs = s.clock.Now()
	}
	active.Store(s)
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
	// Device is the lower-case device name, "" for CPU-only.
	Device string
	// Unfinished counts ranges still open at Stop (or begun while it began); they are left
	// out, and a warning says how many.
	Unfinished int
	// Warnings are child-profiler problems that did not stop the profile.
	Warnings []string
	// Options are the options the session ran with.
	Options Options
	// DeviceActivities are the device activities child profilers recorded.
	DeviceActivities []kineto.DeviceActivity

	trace     *trace.Trace // built at Stop when child profilers add to it, else on first use
	traceOnce sync.Once
	rec       *recording // what the trace is built from; dropped once it is
}

// KeyAverages is Events.KeyAverages.
func (r *Result) KeyAverages(o events.AverageOptions) []events.Avg { return r.Events.KeyAverages(o) }

// Trace returns the session's trace: host ops, memory and markers, device rows, child
// profilers' events. It is built on the first call (a profile nobody writes out costs no
// trace) and the same trace is returned after; safe for concurrent use. Until the first call
// the result keeps the raw records it is built from (48 bytes per range).
func (r *Result) Trace() *trace.Trace {
	r.traceOnce.Do(func() {
		if r.trace == nil && r.rec != nil {
			r.trace = r.rec.buildTrace()
		}
		r.rec = nil
	})
	return r.trace
}

// Stop ends the session: it synchronizes the device, stops the child profilers, measures the
// device time of every op and builds the result. The returned error reports backend failures
// (their messages kept); the result is still usable when it is non-nil. Ranges being recorded
// while Stop runs are in the result when they were published before Stop walked their buffer,
// else in no session; ranges open at Stop are counted in Result.Unfinished.
func (s *Session) Stop() (*Result, error) {
	lifecycle.Lock()
	if active.Load() != s {
		lifecycle.Unlock()
		return nil, errors.New("orprof: Stop: the session is not running")
	}
	active.Store(nil)
	lifecycle.Unlock()
	ctx := context.Background()
	if s.dev != nil {
		if err := s.dev.Synchronize(ctx); err != nil {
			s.fail("synchronize", err)
		}
	}
	endNs := s.clock.Now()
	var conv *tsc.Converter
	if s.fast {
		c := tsc.NewConverter(s.anchor, tsc.NewAnchor(s.clock.Now))
		conv = &c
	}
	for _, c := range s.children {
		if err := c.sess.Stop(); err != nil {
			s.warn = append(s.warn, fmt.Sprintf("profiler %s: stop: %v", c.name, err))
		}
	}
	rec := s.collect(conv, endNs)
	if s.fallback {
		s.measure(rec)
	}
	rec.assignThreadIDs()
	res := &Result{Device: s.devName, Unfinished: rec.unfinished, Options: s.opts, rec: rec}
	switch {
	case rec.unfinished == 1 && !s.windowEnd:
		s.warn = append(s.warn, "1 range was still open at Stop and is left out")
	case rec.unfinished > 1 && !s.windowEnd:
		s.warn = append(s.warn, fmt.Sprintf("%d ranges were still open at Stop and are left out", rec.unfinished))
	}
	if len(s.children) > 0 {
		// Child profilers add their events to the trace and may take device activities from it.
		t := rec.buildTrace()
		for _, c := range s.children {
			if err := c.sess.ProcessTrace(t); err != nil {
				s.warn = append(s.warn, fmt.Sprintf("profiler %s: process trace: %v", c.name, err))
			}
			if src, ok := c.sess.(kineto.DeviceActivitySource); ok {
				res.DeviceActivities = append(res.DeviceActivities, src.DeviceActivities()...)
			}
		}
		if n := dropUnpairedFlows(t); n > 0 {
			s.warn = append(s.warn, fmt.Sprintf("dropped %d flow events without a partner (a child profiler wrote one end of a flow only)", n))
		}
		res.trace = t
		res.rec = nil
	}
	// Memory goes to every host event that contains it, the runtime calls of the child
	// profilers too (as a trace reader sees them), so it is attributed after they join.
	evs := rec.functionEvents(len(res.DeviceActivities))
	if len(res.DeviceActivities) > 0 {
		evs = attachDeviceActivities(evs, res.DeviceActivities, s.baseNs)
		if res.Device == "" {
			res.Device = devices.PrivateUse1BackendName()
		}
	}
	if mem := rec.memoryRecords(); len(mem) > 0 {
		evs = events.AttachMemory(evs, mem, s.baseNs)
	}
	res.Events = events.NewListOwned(evs, events.ListOptions{UseDevice: res.Device, ProfileMemory: s.opts.ProfileMemory})
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
