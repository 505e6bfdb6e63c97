package openreg

import (
	"os"
	"sync"

	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/trace"
)

func init() {
	kineto.RegisterPrivateUse1Profiler(func() kineto.ActivityProfiler { return &ActivityProfiler{} })
}

// ActivityProfiler is OpenReg's Kineto activity profiler, registered as the PrivateUse1
// profiler: from the runtime's activity tracing it records every kernel, copy and set with its
// stream, start, end and the correlation id of the op that launched it, and the host side of
// each launch: the runtime call (privateuse1_runtime) and, inside it, the driver layer's
// hand-off to the stream's queue (privateuse1_driver). These are the five activities of
// PyTorch's OpenReg reference profiler. It profiles the default runtime (Default) at the time
// Configure is called.
type ActivityProfiler struct{}

var profilerActivities = kineto.NewActivitySet(kineto.ConcurrentKernel, kineto.GPUMemcpy, kineto.GPUMemset,
	kineto.PrivateUse1Runtime, kineto.PrivateUse1Driver)

// Name is "openreg".
func (*ActivityProfiler) Name() string { return "openreg" }

// AvailableActivities are kernel, gpu_memcpy, gpu_memset, privateuse1_runtime and
// privateuse1_driver.
func (*ActivityProfiler) AvailableActivities() kineto.ActivitySet { return profilerActivities }

// Configure returns a session recording the activities of want OpenReg supports, or nil when
// want names activities and none of them. An empty want returns a session recording all five,
// as PyTorch's OpenReg profiler returns a session from configure({}).
func (*ActivityProfiler) Configure(want kineto.ActivitySet, _ *kineto.Config) (kineto.ActivityProfilerSession, error) {
	acts := profilerActivities.Intersect(want)
	if want.Empty() {
		acts = profilerActivities
	}
	if acts.Empty() {
		return nil, nil
	}
	return &activitySession{rt: Default(), acts: acts}, nil
}

// activitySession is one profile of OpenReg's activity tracing.
type activitySession struct {
	rt   *Runtime
	acts kineto.ActivitySet

	order kineto.SessionOrder

	mu       sync.Mutex
	sub      *ActivitySubscription // set by Start
	work     []Activity
	launches []Activity
}

// Start subscribes to the runtime's activity tracing, so other consumers (the scope profiler's
// metric source, a program's own EnableActivityTracing) are not disturbed.
func (s *activitySession) Start() error {
	if err := s.order.Start(); err != nil {
		return err
	}
	sub := s.rt.Subscribe()
	s.mu.Lock()
	s.sub = sub
	s.mu.Unlock()
	return nil
}

// Records is how many activities (work and launches, of every kind) the session's
// subscription holds so far: a bounded capture's count (kineto.RecordCounter).
func (s *activitySession) Records() int {
	s.mu.Lock()
	sub := s.sub
	s.mu.Unlock()
	if sub == nil {
		return 0
	}
	return sub.Len()
}

var _ kineto.RecordCounter = (*activitySession)(nil)

// Stop waits for the device work already queued, then takes the records.
func (s *activitySession) Stop() error {
	if err := s.order.Stop(); err != nil {
		return err
	}
	err := s.rt.Synchronize()
	s.mu.Lock()
	sub := s.sub
	s.mu.Unlock()
	work, launches := sub.Close()
	s.mu.Lock()
	s.work, s.launches = work, launches
	s.mu.Unlock()
	return err
}

// OpenReg stamps each launch with orprof.CorrelationID of its context, so the push/pop
// notifications carry nothing it needs.
func (s *activitySession) PushCorrelationID(uint64) {}
func (s *activitySession) PopCorrelationID()        {}

// wanted reports whether the session records activities like a.
func (s *activitySession) wanted(a *Activity) bool { return s.acts.Has(a.Kind) }

// ProcessTrace adds the device rows, the work on them, the launches on the host threads and
// an ac2g flow from each launch to its work.
func (s *activitySession) ProcessTrace(t *trace.Trace) error {
	if err := s.order.Process(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pid := int64(os.Getpid())
	rows := kineto.NewDeviceRows(t, "OPENREG")
	// A flow joins a launch to its work: both ends are written only when both events are
	// (the work of a kind not asked for, a memset without gpu_memset, has no arrow).
	launched, written := map[int64]bool{}, map[int64]bool{}
	if s.acts.Has(kineto.PrivateUse1Runtime) {
		for i := range s.launches {
			if s.launches[i].Kind == ActivityRuntime {
				launched[s.launches[i].ID] = true
			}
		}
	}
	for i := range s.work {
		a := &s.work[i]
		if !s.wanted(a) {
			continue
		}
		rows.Add(a.Device, a.Stream)
		args := kineto.DeviceWorkArgs(a.Correlation, a.Device, a.Stream, a.ID)
		if a.Kind == ActivityKernel {
			args = append(args, trace.Int(trace.ArgFlops, a.Flops))
		} else {
			args = append(args, trace.Int(trace.ArgBytes, a.BytesWritten))
		}
		name := a.Name
		if name == "kernel" { // Kineto's rename, so the name cannot be taken for the category
			name = "Kernel"
		}
		t.Events = append(t.Events, trace.Event{Ph: 'X', Cat: a.Kind.String(), Name: name,
			Pid: int64(a.Device), Tid: a.Stream, TsNs: a.StartNs, DurNs: a.EndNs - a.StartNs, Args: args})
		if launched[a.ID] {
			written[a.ID] = true
			t.Events = append(t.Events, trace.Event{Ph: 'f', Cat: "ac2g", Name: "ac2g",
				Pid: int64(a.Device), Tid: a.Stream, TsNs: a.StartNs, ID: uint64(a.ID)})
		}
	}
	for i := range s.launches {
		a := &s.launches[i]
		if !s.wanted(a) {
			continue
		}
		args := []trace.Arg{}
		if a.Correlation > 0 {
			args = append(args, trace.Int(trace.ArgExternalID, a.Correlation))
		}
		args = append(args, trace.Int(trace.ArgCorrelation, a.ID))
		t.Events = append(t.Events,
			trace.Event{Ph: 'X', Cat: a.Kind.String(), Name: a.Name, Pid: pid, Tid: a.Thread,
				TsNs: a.StartNs, DurNs: a.EndNs - a.StartNs, Args: args})
		if a.Kind == ActivityRuntime && written[a.ID] {
			t.Events = append(t.Events,
				trace.Event{Ph: 's', Cat: "ac2g", Name: "ac2g", Pid: pid, Tid: a.Thread, TsNs: a.StartNs, ID: uint64(a.ID)})
		}
	}
	return nil
}

// DeviceActivities are the recorded work and launches, for the operator table; none before
// ProcessTrace.
func (s *activitySession) DeviceActivities() []kineto.DeviceActivity {
	if !s.order.Processed() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]kineto.DeviceActivity, 0, len(s.work)+len(s.launches))
	for _, list := range [][]Activity{s.work, s.launches} {
		for i := range list {
			a := &list[i]
			if !s.wanted(a) {
				continue
			}
			out = append(out, kineto.DeviceActivity{Type: a.Kind, Name: a.Name, Device: a.Device,
				Stream: a.Stream, StartNs: a.StartNs, EndNs: a.EndNs, Correlation: a.Correlation, Thread: a.Thread})
		}
	}
	return out
}
