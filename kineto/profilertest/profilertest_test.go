package profilertest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/kineto/profilertest"
	"github.com/orprof/orprof/trace"
)

// fake is a profiler of kernels and runtime calls with one fault at a time.
type fake struct {
	noOrder     bool // Start/Stop/ProcessTrace accept any order
	early       bool // DeviceActivities before ProcessTrace
	wrongType   bool // records a memcpy whatever it was configured for
	anySession  bool // a session even for a disjoint set
	emptyName   bool
	badInterval bool // an activity that ends before it starts
}

func (f *fake) Name() string {
	if f.emptyName {
		return ""
	}
	return "fake"
}

func (f *fake) AvailableActivities() kineto.ActivitySet {
	return kineto.NewActivitySet(kineto.ConcurrentKernel, kineto.PrivateUse1Runtime)
}

func (f *fake) Configure(want kineto.ActivitySet, _ *kineto.Config) (kineto.ActivityProfilerSession, error) {
	acts := f.AvailableActivities().Intersect(want)
	if acts.Empty() && !f.anySession {
		return nil, nil
	}
	return &fakeSession{f: f, acts: acts}, nil
}

type fakeSession struct {
	f     *fake
	acts  kineto.ActivitySet
	order kineto.SessionOrder
	done  bool
}

func (s *fakeSession) step(fn func() error) error {
	if s.f.noOrder {
		return nil
	}
	return fn()
}

func (s *fakeSession) Start() error             { return s.step(s.order.Start) }
func (s *fakeSession) Stop() error              { return s.step(s.order.Stop) }
func (s *fakeSession) PushCorrelationID(uint64) {}
func (s *fakeSession) PopCorrelationID()        {}

func (s *fakeSession) ProcessTrace(t *trace.Trace) error {
	if err := s.step(s.order.Process); err != nil {
		return err
	}
	s.done = true
	for _, a := range s.DeviceActivities() {
		t.Events = append(t.Events, trace.Event{Ph: 'X', Cat: a.Type.String(), Name: a.Name, TsNs: a.StartNs, DurNs: a.EndNs - a.StartNs})
	}
	return nil
}

func (s *fakeSession) DeviceActivities() []kineto.DeviceActivity {
	if !s.done && !s.f.early {
		return nil
	}
	var out []kineto.DeviceActivity
	for _, t := range s.acts.Types() {
		out = append(out, kineto.DeviceActivity{Type: t, Name: "k", StartNs: 10, EndNs: 20})
	}
	if s.f.wrongType {
		out = append(out, kineto.DeviceActivity{Type: kineto.GPUMemcpy, Name: "copy", StartNs: 10, EndNs: 20})
	}
	if s.f.badInterval && len(out) > 0 {
		out[0].EndNs = 5
	}
	return out
}

// TestKitPassesAndFails: a sound profiler passes every check; each fault fails the check that
// covers it, with a reason naming it.
func TestKitPassesAndFails(t *testing.T) {
	work := func() error { return nil }
	for _, r := range profilertest.Check(profilertest.Target{New: func() kineto.ActivityProfiler { return &fake{} }, Work: work}) {
		assert.Equal(t, "PASS "+r.Name, r.String())
	}
	for _, tc := range []struct {
		f      fake
		check  string
		reason string
	}{
		{fake{noOrder: true}, "order", "Stop before Start: Stop returned no error"},
		{fake{early: true}, "activities", "DeviceActivities before ProcessTrace returned 2 activities"},
		{fake{wrongType: true}, "configure-each", `configured for kernel, wrote "copy" of category "gpu_memcpy"`},
		{fake{anySession: true}, "configure-disjoint", "want no session and no error"},
		{fake{emptyName: true}, "describe", "Name is empty"},
		{fake{badInterval: true}, "activities", `activity "k" (kernel) ends 5 ns before it starts`},
	} {
		t.Run(tc.check, func(t *testing.T) {
			f := tc.f
			for _, r := range profilertest.Check(profilertest.Target{New: func() kineto.ActivityProfiler { return &f }, Work: work}) {
				if r.Name == tc.check {
					assert.False(t, r.Pass)
					assert.Contains(t, r.Reason, tc.reason)
				}
			}
		})
	}
}
