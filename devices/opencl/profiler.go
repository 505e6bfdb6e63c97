package opencl

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/trace"
)

func init() {
	kineto.RegisterDeviceProfiler("opencl", func() kineto.ActivityProfiler { return &ActivityProfiler{} })
}

// ActivityProfiler is OpenCL's Kineto activity profiler, registered for sessions on the
// "opencl" device: every kernel, copy and fill the op library enqueues while a session runs
// becomes a kernel / gpu_memcpy / gpu_memset activity timed by its own event
// (CL_PROFILING_COMMAND_START/END, mapped to the host clock), with the correlation id of the op
// that launched it, and its enqueue call a privateuse1_runtime activity on the launching
// thread, joined by an ac2g flow. It profiles Default().
type ActivityProfiler struct{}

var profilerActivities = kineto.NewActivitySet(kineto.ConcurrentKernel, kineto.GPUMemcpy, kineto.GPUMemset,
	kineto.PrivateUse1Runtime)

// Name is "opencl".
func (*ActivityProfiler) Name() string { return "opencl" }

// AvailableActivities are kernel, gpu_memcpy, gpu_memset and privateuse1_runtime (which the
// generic "runtime" also selects).
func (*ActivityProfiler) AvailableActivities() kineto.ActivitySet { return profilerActivities }

// Configure returns a session recording the activities of want OpenCL supports, or nil when
// want has none; it opens the default runtime.
func (*ActivityProfiler) Configure(want kineto.ActivitySet, _ *kineto.Config) (kineto.ActivityProfilerSession, error) {
	acts := profilerActivities.Intersect(want)
	if acts.Empty() {
		return nil, nil
	}
	rt, err := Default()
	if err != nil {
		return nil, err
	}
	return &activitySession{rt: rt, acts: acts}, nil
}

// calibrationSamples is how many marker round trips each clock sample is the best of, and
// calibrationPeriod how often a running session takes one per device, so that the fit sees
// the drift across the whole profile.
const (
	calibrationSamples = 10
	calibrationPeriod  = 250 * time.Millisecond
)

// activitySession is one profile of the runtime's launches.
type activitySession struct {
	rt    *Runtime
	acts  kineto.ActivitySet
	sub   *subscription
	order kineto.SessionOrder

	stop chan struct{}
	done chan struct{}

	mu       sync.Mutex
	samples  [][]ClockSample // per device
	sampErr  error
	work     []Activity
	launches []Activity
	cals     []Calibration // per device
	clamped  []int         // per device: work moved later to start after its launch
}

// Start takes a clock sample per device, starts collecting launches, and keeps sampling the
// clocks every calibrationPeriod until Stop.
func (s *activitySession) Start() error {
	if err := s.order.Start(); err != nil {
		return err
	}
	s.samples = make([][]ClockSample, s.rt.DeviceCount())
	if err := s.sample(); err != nil {
		return err
	}
	s.sub = s.rt.subscribe()
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(calibrationPeriod)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				if err := s.sample(); err != nil {
					s.mu.Lock()
					s.sampErr = err
					s.mu.Unlock()
					return
				}
			}
		}
	}()
	return nil
}

// sample adds one clock sample per device.
func (s *activitySession) sample() error {
	for d := range s.rt.DeviceCount() {
		cs, err := s.rt.SampleClock(d, calibrationSamples)
		if err != nil {
			return fmt.Errorf("device %d: clock sample: %w", d, err)
		}
		s.mu.Lock()
		s.samples[d] = append(s.samples[d], cs)
		s.mu.Unlock()
	}
	return nil
}

// Stop waits for the queued work, takes the events' timestamps, takes a last clock sample per
// device, fits each device's clock to the host's and places the work on the host clock.
func (s *activitySession) Stop() error {
	if err := s.order.Stop(); err != nil {
		return err
	}
	if s.stop == nil { // Start failed taking its first clock sample
		return errors.New("opencl: the session did not start")
	}
	close(s.stop)
	<-s.done
	serr := s.rt.Synchronize()
	work, launches, cerr := s.sub.close()
	err := s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	cals := make([]Calibration, len(s.samples))
	for d := range cals {
		cals[d] = FitClock(s.samples[d])
	}
	s.work, s.launches, s.cals = work, launches, cals
	s.clamped = placeWork(work, launches, cals)
	return errors.Join(serr, cerr, s.sampErr, err)
}

// placeWork maps every activity's device timestamps to the host clock with its device's
// calibration, then makes sure no work starts before the host call that enqueued it, nor
// before the previous work of its stream ended (in-order queues): such work is moved later,
// keeping its duration. It returns the number moved per device.
func placeWork(work, launches []Activity, cals []Calibration) []int {
	launchStart := make(map[int64]int64, len(launches))
	for _, l := range launches {
		launchStart[l.ID] = l.StartNs
	}
	clamped := make([]int, len(cals))
	sort.SliceStable(work, func(i, j int) bool { return work[i].ID < work[j].ID })
	prevEnd := map[[2]int64]int64{}
	for i := range work {
		a := &work[i]
		c := cals[a.Device]
		a.StartNs, a.EndNs = c.HostNs(a.DeviceStartNs), c.HostNs(a.DeviceEndNs)
		floor := max(launchStart[a.ID], prevEnd[[2]int64{int64(a.Device), a.Stream}])
		if a.StartNs < floor {
			a.EndNs += floor - a.StartNs
			a.StartNs = floor
			clamped[a.Device]++
		}
		prevEnd[[2]int64{int64(a.Device), a.Stream}] = a.EndNs
	}
	sort.SliceStable(work, func(i, j int) bool {
		if work[i].StartNs != work[j].StartNs {
			return work[i].StartNs < work[j].StartNs
		}
		return work[i].ID < work[j].ID
	})
	return clamped
}

// The runtime stamps each launch with orprof.CorrelationID of its context, so the push/pop
// notifications carry nothing it needs.
func (s *activitySession) PushCorrelationID(uint64) {}
func (s *activitySession) PopCorrelationID()        {}

// wanted reports whether the session records activities of kind k.
func (s *activitySession) wanted(k ActivityKind) bool { return s.acts.Has(k) }

// Calibrations are the per-device clock fits of the last Stop.
func (s *activitySession) Calibrations() []Calibration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Calibration(nil), s.cals...)
}

// ProcessTrace adds a row per device and stream, the work on them, the launches on the host
// threads, an ac2g flow from each launch to its work, the devices' properties and the clock
// calibration ("opencl_clock": the fit's reference points, offset, drift, residual, spread,
// median and widest sample, and how many activities were moved after their launch).
func (s *activitySession) ProcessTrace(t *trace.Trace) error {
	if err := s.order.Process(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pid := int64(os.Getpid())
	rows := kineto.NewDeviceRows(t, "OPENCL")
	// Launches are written whenever runtime activities are asked for, as Kineto writes runtime
	// activities whatever else is traced; a flow joins a launch to its work only when both
	// events are written (a fill without gpu_memset has no arrow).
	launched, written := s.launchIDs(), map[int64]bool{}
	for i := range s.work {
		a := &s.work[i]
		if !s.wanted(a.Kind) {
			continue
		}
		rows.Add(a.Device, a.Stream)
		args := kineto.DeviceWorkArgs(a.Correlation, a.Device, a.Stream, a.ID)
		if a.Kind != ActivityKernel {
			args = append(args, trace.Int(trace.ArgBytes, a.Bytes))
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
	if s.wanted(ActivityRuntime) {
		for i := range s.launches {
			a := &s.launches[i]
			args := []trace.Arg{}
			if a.Correlation > 0 {
				args = append(args, trace.Int(trace.ArgExternalID, a.Correlation))
			}
			args = append(args, trace.Int(trace.ArgCorrelation, a.ID))
			t.Events = append(t.Events,
				trace.Event{Ph: 'X', Cat: a.Kind.String(), Name: a.Name, Pid: pid, Tid: a.Thread,
					TsNs: a.StartNs, DurNs: a.EndNs - a.StartNs, Args: args})
			if written[a.ID] {
				t.Events = append(t.Events,
					trace.Event{Ph: 's', Cat: "ac2g", Name: "ac2g", Pid: pid, Tid: a.Thread, TsNs: a.StartNs, ID: uint64(a.ID)})
			}
		}
	}
	for _, d := range s.rt.Devices() {
		t.DeviceProperties = append(t.DeviceProperties, fmt.Sprintf(`{"id": %d, "name": %s, "platform": %s, "version": %s, "timerResolutionNs": %d}`,
			d.Index, strconv.Quote(d.Name), strconv.Quote(d.Platform.Name), strconv.Quote(d.Version), d.TimerResolutionNs))
	}
	clock := "["
	for d, c := range s.cals {
		if d > 0 {
			clock += ", "
		}
		clock += fmt.Sprintf(`{"device": %d, "device_ref_ns": %d, "host_ref_ns": %d, "offset_ns": %d, "drift_ppm": %.3f, "residual_us": %.3f, "spread_us": %.3f, "median_sample_width_us": %.3f, "widest_sample_us": %.3f, "samples": %d, "moved_after_launch": %d}`,
			d, c.DeviceRefNs, c.HostRefNs, c.HostRefNs-c.DeviceRefNs, c.DriftPPM(), float64(c.ResidualNs)/1000,
			float64(c.SpreadNs)/1000, float64(c.WidthNs)/1000, float64(c.WidestNs)/1000, c.Samples, s.clamped[d])
	}
	t.Metadata = append(t.Metadata, trace.Raw("opencl_clock", clock+"]"))
	return nil
}

// launchIDs are the ids of the launches the trace shows: all of them when runtime activities
// are wanted, else none. s.mu is held.
func (s *activitySession) launchIDs() map[int64]bool {
	out := map[int64]bool{}
	if s.wanted(ActivityRuntime) {
		for i := range s.launches {
			out[s.launches[i].ID] = true
		}
	}
	return out
}

// DeviceActivities are the recorded work and launches, for the operator table.
func (s *activitySession) DeviceActivities() []kineto.DeviceActivity {
	if !s.order.Processed() {
		return nil // valid only after ProcessTrace
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]kineto.DeviceActivity, 0, len(s.work)+len(s.launches))
	for i := range s.work {
		a := &s.work[i]
		if s.wanted(a.Kind) {
			out = append(out, kineto.DeviceActivity{Type: a.Kind, Name: a.Name, Device: a.Device,
				Stream: a.Stream, StartNs: a.StartNs, EndNs: a.EndNs, Correlation: a.Correlation, Thread: a.Thread})
		}
	}
	if s.wanted(ActivityRuntime) {
		for i := range s.launches {
			a := &s.launches[i]
			out = append(out, kineto.DeviceActivity{Type: a.Kind, Name: a.Name, Device: a.Device,
				Stream: a.Stream, StartNs: a.StartNs, EndNs: a.EndNs, Correlation: a.Correlation, Thread: a.Thread})
		}
	}
	return out
}
