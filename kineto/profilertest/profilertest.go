// Package profilertest is the conformance kit for Go activity profilers: what
// kineto.RegisterPrivateUse1Profiler and kineto.RegisterDeviceProfiler accept. A backend
// author calls Run from `go test`, or Check from a program; each check makes fresh sessions
// from Target.New.
//
// The checks: the profiler names itself and offers activities (describe); Configure with an
// empty set returns no session or one that runs (configure-empty, PyTorch's OpenReg profiler
// returns one); with a set disjoint from its activities it returns none (configure-disjoint);
// with each of its activities alone it returns a session whose trace events and device
// activities are of that activity only (configure-each); Start, Stop and ProcessTrace out of
// order or twice return an error and do nothing, never panic (order); correlation ids pushed
// and popped from many goroutines at once do no harm (correlation, run it under -race); and
// device activities are empty until ProcessTrace, then well formed (activities).
package profilertest

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/orprof/orprof/internal/verdict"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/trace"
)

// Target is the profiler under test.
type Target struct {
	// New makes the profiler (the factory given to the Register function).
	New func() kineto.ActivityProfiler
	// Work, when set, runs device work the profiler records; the checks call it while a
	// session records, with correlation ids pushed around it.
	Work func() error
}

// Result is one check's outcome; Reason says what broke.
type Result struct {
	Name   string
	Pass   bool
	Reason string
}

// String is "PASS name" or "FAIL name: reason", on one line (the reason folded as the
// conformance kits fold theirs: verdict.Fold).
func (r Result) String() string {
	if r.Pass {
		return "PASS " + r.Name
	}
	return "FAIL " + r.Name + ": " + verdict.Fold(r.Reason)
}

// Case is one named check.
type Case struct {
	Name string
	Doc  string
	run  func(Target) error
}

// Cases lists the checks in the order they run.
func Cases() []Case {
	return []Case{
		{"describe", "a name, and at least one activity", checkDescribe},
		{"configure-empty", "Configure({}) returns no session, or one that runs", checkEmpty},
		{"configure-disjoint", "Configure with none of its activities returns no session", checkDisjoint},
		{"configure-each", "Configure with each activity alone records that activity only", checkEach},
		{"order", "Start, Stop, ProcessTrace out of order or twice: an error, nothing done, no panic", checkOrder},
		{"correlation", "push/pop from many goroutines at once", checkCorrelation},
		{"activities", "device activities empty until ProcessTrace, then well formed", checkActivities},
	}
}

// Run runs the case on tg.
func (c Case) Run(tg Target) (r Result) {
	r = Result{Name: c.Name, Pass: true}
	defer func() {
		if p := recover(); p != nil {
			r.Pass, r.Reason = false, fmt.Sprintf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	if err := c.run(tg); err != nil {
		r.Pass, r.Reason = false, err.Error()
	}
	return r
}

// Check runs every case on tg, in order.
func Check(tg Target) []Result {
	var out []Result
	for _, c := range Cases() {
		out = append(out, c.Run(tg))
	}
	return out
}

// Run runs every case as a subtest of t.
func Run(t *testing.T, tg Target) {
	t.Helper()
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			if r := c.Run(tg); !r.Pass {
				t.Fatal(r.Reason)
			}
		})
	}
}

func checkDescribe(tg Target) error {
	p := tg.New()
	if p.Name() == "" {
		return errors.New("Name is empty")
	}
	if p.AvailableActivities().Empty() {
		return fmt.Errorf("%s: AvailableActivities is empty", p.Name())
	}
	return nil
}

// whole runs one session of s: Start, Work with ids pushed, Stop, ProcessTrace.
func whole(tg Target, s kineto.ActivityProfilerSession) (*trace.Trace, error) {
	if err := s.Start(); err != nil {
		return nil, fmt.Errorf("Start: %v", err)
	}
	s.PushCorrelationID(1)
	var werr error
	if tg.Work != nil {
		werr = tg.Work()
	}
	s.PopCorrelationID()
	if err := s.Stop(); err != nil {
		return nil, fmt.Errorf("Stop: %v", err)
	}
	if werr != nil {
		return nil, fmt.Errorf("Work: %v", werr)
	}
	tr := &trace.Trace{}
	if err := s.ProcessTrace(tr); err != nil {
		return tr, fmt.Errorf("ProcessTrace: %v", err)
	}
	return tr, nil
}

func checkEmpty(tg Target) error {
	p := tg.New()
	s, err := p.Configure(0, kineto.NewConfig())
	if err != nil {
		return fmt.Errorf("Configure({}): %v", err)
	}
	if s == nil {
		return nil
	}
	_, err = whole(tg, s)
	return err
}

// disjoint is every activity type that p's activities do not select, aliases included.
func disjoint(avail kineto.ActivitySet) kineto.ActivitySet {
	var d kineto.ActivitySet
	for t := range kineto.ActivityType(64) {
		if strings.HasPrefix(t.String(), "activity(") {
			continue
		}
		one := kineto.NewActivitySet(t)
		if one.Intersect(avail).Empty() && avail.Intersect(one).Empty() {
			d = d.Add(t)
		}
	}
	return d
}

func checkDisjoint(tg Target) error {
	p := tg.New()
	d := disjoint(p.AvailableActivities())
	if d.Empty() {
		return nil
	}
	s, err := p.Configure(d, kineto.NewConfig())
	if err != nil || s != nil {
		return fmt.Errorf("Configure(%s), none of its activities: want no session and no error, got %v, %v", d, s, err)
	}
	return nil
}

func checkEach(tg Target) error {
	p := tg.New()
	for _, t := range p.AvailableActivities().Types() {
		want := kineto.NewActivitySet(t)
		s, err := p.Configure(want, kineto.NewConfig())
		if err != nil || s == nil {
			return fmt.Errorf("Configure(%s): want a session, got %v, %v", t, s, err)
		}
		tr, err := whole(tg, s)
		if err != nil {
			return fmt.Errorf("%s: %v", t, err)
		}
		for _, e := range tr.Events {
			if e.Ph != 'X' || e.PidStr != "" {
				continue
			}
			et, err := kineto.ParseActivityType(e.Cat)
			if err != nil || !want.Has(et) {
				return fmt.Errorf("configured for %s, wrote %q of category %q", t, e.Name, e.Cat)
			}
		}
		if src, ok := s.(kineto.DeviceActivitySource); ok {
			for _, a := range src.DeviceActivities() {
				if !want.Has(a.Type) {
					return fmt.Errorf("configured for %s, recorded %q of type %s", t, a.Name, a.Type)
				}
			}
		}
	}
	return nil
}

func checkOrder(tg Target) error {
	p := tg.New()
	avail := p.AvailableActivities()
	fresh := func() (kineto.ActivityProfilerSession, error) {
		s, err := p.Configure(avail, kineto.NewConfig())
		if err != nil || s == nil {
			return nil, fmt.Errorf("Configure(%s): want a session, got %v, %v", avail, s, err)
		}
		return s, nil
	}
	type step struct {
		call string
		fn   func(s kineto.ActivityProfilerSession) error
	}
	start := step{"Start", func(s kineto.ActivityProfilerSession) error { return s.Start() }}
	stop := step{"Stop", func(s kineto.ActivityProfilerSession) error { return s.Stop() }}
	process := step{"ProcessTrace", func(s kineto.ActivityProfilerSession) error { return s.ProcessTrace(&trace.Trace{}) }}
	for _, tc := range []struct {
		name string
		ok   []step // run first, each must succeed
		bad  step   // must fail
	}{
		{"Stop before Start", nil, stop},
		{"ProcessTrace before Start", nil, process},
		{"Start twice", []step{start}, start},
		{"ProcessTrace before Stop", []step{start}, process},
		{"Stop twice", []step{start, stop}, stop},
		{"ProcessTrace twice", []step{start, stop, process}, process},
		{"Start after Stop", []step{start, stop}, start},
	} {
		s, err := fresh()
		if err != nil {
			return err
		}
		for _, st := range tc.ok {
			if err := st.fn(s); err != nil {
				return fmt.Errorf("%s: %s: %v", tc.name, st.call, err)
			}
		}
		if err := tc.bad.fn(s); err == nil {
			return fmt.Errorf("%s: %s returned no error", tc.name, tc.bad.call)
		}
		// Leave no session running.
		_ = s.Stop()
		_ = s.ProcessTrace(&trace.Trace{})
	}
	return nil
}

func checkCorrelation(tg Target) error {
	p := tg.New()
	s, err := p.Configure(p.AvailableActivities(), kineto.NewConfig())
	if err != nil || s == nil {
		return fmt.Errorf("Configure: want a session, got %v, %v", s, err)
	}
	if err := s.Start(); err != nil {
		return fmt.Errorf("Start: %v", err)
	}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				s.PushCorrelationID(uint64(g*10000 + i + 1))
				if u, ok := s.(kineto.UserCorrelator); ok {
					u.PushUserCorrelationID(uint64(i + 1))
					u.PopUserCorrelationID()
				}
				s.PopCorrelationID()
			}
		}()
	}
	wg.Wait()
	if err := s.Stop(); err != nil {
		return fmt.Errorf("Stop: %v", err)
	}
	if err := s.ProcessTrace(&trace.Trace{}); err != nil {
		return fmt.Errorf("ProcessTrace: %v", err)
	}
	return nil
}

func checkActivities(tg Target) error {
	p := tg.New()
	want := p.AvailableActivities()
	s, err := p.Configure(want, kineto.NewConfig())
	if err != nil || s == nil {
		return fmt.Errorf("Configure: want a session, got %v, %v", s, err)
	}
	src, ok := s.(kineto.DeviceActivitySource)
	if !ok {
		_, err := whole(tg, s)
		return err
	}
	if err := s.Start(); err != nil {
		return fmt.Errorf("Start: %v", err)
	}
	s.PushCorrelationID(1)
	if tg.Work != nil {
		if err := tg.Work(); err != nil {
			return fmt.Errorf("Work: %v", err)
		}
	}
	s.PopCorrelationID()
	if err := s.Stop(); err != nil {
		return fmt.Errorf("Stop: %v", err)
	}
	if acts := src.DeviceActivities(); len(acts) > 0 {
		return fmt.Errorf("DeviceActivities before ProcessTrace returned %d activities (they are valid only after it)", len(acts))
	}
	if err := s.ProcessTrace(&trace.Trace{}); err != nil {
		return fmt.Errorf("ProcessTrace: %v", err)
	}
	acts := src.DeviceActivities()
	if tg.Work != nil && len(acts) == 0 {
		return errors.New("Work ran device work, but DeviceActivities after ProcessTrace is empty")
	}
	for _, a := range acts {
		switch {
		case a.EndNs < a.StartNs:
			return fmt.Errorf("activity %q (%s) ends %d ns before it starts", a.Name, a.Type, a.StartNs-a.EndNs)
		case !want.Has(a.Type):
			return fmt.Errorf("activity %q has type %s, which the profiler does not offer", a.Name, a.Type)
		case a.Name == "":
			return fmt.Errorf("an activity of type %s has no name", a.Type)
		}
	}
	return nil
}
