package xpu

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/trace"
)

// ProfilerName is the scope profiler's name in session warnings.
const ProfilerName = "xpu_scope_profiler"

// ScopeProfiler is the scope profiler of one device, a kineto.ActivityProfiler: when a profile
// selects xpu_scope_profiler it collects the configured metrics from the device's registered
// MetricSource and, in ProcessTrace, writes one "metrics: <name>" slice and one counter pulse
// per scope. It keeps the scopes of the last profile it processed (LastScopes) for the metrics
// table. Safe for concurrent use.
type ScopeProfiler struct {
	device string

	mu   sync.Mutex
	last []Scope
}

// NewScopeProfiler returns the scope profiler of device ("openreg"), for orprof.Options.Profilers.
// The device's metric source is looked up when a profile is configured.
func NewScopeProfiler(device string) *ScopeProfiler { return &ScopeProfiler{device: device} }

var scopeActivities = kineto.NewActivitySet(kineto.XPUScopeProfiler)

// Name is "xpu_scope_profiler".
func (*ScopeProfiler) Name() string { return ProfilerName }

// AvailableActivities is {xpu_scope_profiler}.
func (*ScopeProfiler) AvailableActivities() kineto.ActivitySet { return scopeActivities }

// Configure returns nil, nil unless want selects xpu_scope_profiler. Otherwise it reads cfg
// (ParseConfig), makes the device's metric source and checks the metric names against it
// (Validate); any problem is an error of one line naming the key or the device. It forgets the
// scopes of the previous profile.
func (p *ScopeProfiler) Configure(want kineto.ActivitySet, cfg *kineto.Config) (kineto.ActivityProfilerSession, error) {
	if !want.Has(kineto.XPUScopeProfiler) {
		return nil, nil
	}
	p.mu.Lock()
	p.last = nil
	p.mu.Unlock()
	c, err := ParseConfig(cfg)
	if err != nil {
		return nil, err
	}
	if len(c.Metrics) == 0 {
		return nil, fmt.Errorf("xpu: %s: no metrics given, but the profile selects %s (list metric names, e.g. GpuTime, GpuCoreClocks)",
			KeyMetrics, kineto.XPUScopeProfiler)
	}
	src, err := sourceFor(p.device)
	if err != nil {
		return nil, err
	}
	avail := src.Metrics()
	if err := c.Validate(avail); err != nil {
		return nil, err
	}
	infos, idx := selectMetrics(c.Metrics, avail)
	return &session{p: p, cfg: c, src: src, infos: infos, idx: idx, kernelRows: want.Has(kineto.ConcurrentKernel)}, nil
}

// LastScopes returns the scopes of the last profile this profiler processed (all of them up
// to the cap, in trace order), nil before any. The slice is the caller's; the scopes' Metrics
// are shared and read-only.
func (p *ScopeProfiler) LastScopes() []Scope {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Scope(nil), p.last...)
}

// session is one profile of the scope profiler.
type session struct {
	p     *ScopeProfiler
	cfg   Config
	src   MetricSource
	infos []MetricInfo
	idx   []int
	// kernelRows is whether the profile also records kernels (activity "kernel"), so the
	// device rows hold the kernels the scopes measure.
	kernelRows bool

	mu      sync.Mutex
	kernels []KernelMetrics
	scopes  []Scope
	acts    []kineto.DeviceActivity
}

// Start starts the metric source.
func (s *session) Start() error { return s.src.Start() }

// Stop stops the source and keeps its kernels.
func (s *session) Stop() error {
	ks, err := s.src.Stop()
	sortKernels(ks)
	s.mu.Lock()
	s.kernels = ks
	s.mu.Unlock()
	return err
}

// The source observes kernels by itself; correlation ids come with each kernel.
func (*session) PushCorrelationID(uint64) {}
func (*session) PopCorrelationID()        {}

// ProcessTrace builds the scopes (per kernel, or per range from the host ops already in t),
// keeps the first MaxScopes, writes them into t and hands them to the profiler. Dropped scopes,
// and scopes measured while the profile does not record kernels, are reported by one error of
// one line, which the session treats as a warning.
func (s *session) ProcessTrace(t *trace.Trace) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var scopes []Scope
	if s.cfg.PerKernel {
		scopes = kernelScopes(s.kernels, s.infos, s.idx)
	} else {
		scopes = rangeScopes(t, s.kernels, s.infos, s.idx)
	}
	var warns []string
	if n := len(scopes); n > s.cfg.MaxScopes {
		what := "kernel"
		if !s.cfg.PerKernel {
			what = "range"
		}
		warns = append(warns, fmt.Sprintf("%d %s scopes exceed %s = %d; the first %d are kept, %d dropped",
			n, what, KeyMaxScopes, s.cfg.MaxScopes, s.cfg.MaxScopes, n-s.cfg.MaxScopes))
		scopes = scopes[:s.cfg.MaxScopes:s.cfg.MaxScopes]
	}
	if !s.kernelRows && len(scopes) > 0 {
		// Like Kineto's range profiler, which warns when CONCURRENT_KERNEL is off.
		warns = append(warns, fmt.Sprintf("ACTIVITY_TYPES has %s but not %s: the trace lacks the kernels the metrics slices measure, "+
			"and estimated device intervals may overlap them (add %[2]s)", kineto.XPUScopeProfiler, kineto.ConcurrentKernel))
	}
	n0 := len(t.Events)
	appendScopes(t, scopes, s.kernels, s.p.device, s.cfg.SingleCounter)
	s.acts = s.acts[:0]
	for i := n0; i < len(t.Events); i++ {
		if e := &t.Events[i]; e.Ph == 'X' {
			s.acts = append(s.acts, kineto.DeviceActivity{Type: kineto.ConcurrentKernel, Name: e.Name, Device: int(e.Pid),
				Stream: e.Tid, StartNs: e.TsNs, EndNs: e.TsNs + e.DurNs})
		}
	}
	s.scopes = scopes
	s.p.mu.Lock()
	s.p.last = scopes
	s.p.mu.Unlock()
	if len(warns) == 0 {
		return nil
	}
	return errors.New("xpu: " + strings.Join(warns, "; "))
}

// Scopes returns the scopes ProcessTrace wrote (nil before it ran).
func (s *session) Scopes() []Scope {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Scope(nil), s.scopes...)
}

// DeviceActivities are the "metrics: <name>" slices ProcessTrace wrote, as device activities
// linked to no op (Correlation 0): the operator table then has PyTorch's "metrics: …" rows,
// which its totals leave out (events.IsScopeMetrics), their time being their kernels'.
func (s *session) DeviceActivities() []kineto.DeviceActivity {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]kineto.DeviceActivity(nil), s.acts...)
}

var _ kineto.DeviceActivitySource = (*session)(nil)

// ScopeSource is implemented by the scope profiler's sessions: the scopes of that profile,
// available after ProcessTrace.
type ScopeSource interface {
	Scopes() []Scope
}

var _ ScopeSource = (*session)(nil)
