// Package plugintest is the conformance kit for Kineto dynamic plugins (kineto_plugin.h, kineto
// PR #1148's C ABI): a dry run of a plugin library as a host drives it, in named checks. A
// plugin author runs it from `go test` (Run), a program calls Check, and `orprof conformance
// --plugin LIB.so` runs each check in a child process of its own, so a plugin that crashes
// fails that check only.
//
// The checks: the library loads and registers profilers that pass the host's validation
// (load); each profiler's query gives a name of 1 to 31 characters and known activity types
// (query); a session is made for all, one and some of its types and for none or an empty set
// of them (no session then), and reports events of the enabled types only (activity-types);
// create assigns a handle (params->pProfilerHandle, by value) that start, stop, processEvents
// and destroy then get back, for two sessions at once (lifecycle); correlation ids are pushed
// and popped from many goroutines at once without a failure (correlation); and the trace it
// reports is sound: no problem the host's trace builder reports, events that end at or after
// their start and lie inside the session, flows paired, counter values numeric, "External id"
// links only to pushed ids, and trace.Check clean (trace).
package plugintest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/orprof/orprof/internal/verdict"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/trace"
)

// Status is the outcome of a check (internal/verdict's, which both conformance kits share).
type Status = verdict.Status

// The outcomes of a check.
const (
	Pass = verdict.Pass
	Fail = verdict.Fail
	Skip = verdict.Skip
)

// Result is one check's outcome; Reason says what broke, or why it was skipped, and is empty
// for Pass. Its String is "PASS name", "FAIL name: reason" or "SKIP name: reason" on one line
// (verdict.Fold), as `orprof conformance` prints it for either kit.
type Result = verdict.Result

// Case is one named check.
type Case struct {
	// Name is the check's name in result lines ("lifecycle").
	Name string
	// Doc says what it checks, in a line (orprof conformance --plugin -h lists them).
	Doc string
	// Rule is the contract the check enforces and where it comes from: kineto PR #1148's
	// plugin ABI (kineto_plugin.h states it), how its host drives a plugin, or a rule orprof
	// adds (orprof conformance --plugin -v prints it under each result).
	Rule string
	run  func(lib string) error
}

// errSkip marks a check that does not apply to the plugin.
type errSkip struct{ why string }

func (e errSkip) Error() string { return e.why }

// Cases lists the checks in the order they run.
func Cases() []Case {
	return []Case{
		{"load", "the library loads and registers at least one profiler, none refused",
			"KinetoPlugin_register returns 0 after calling registerProfiler once per profiler, and every interface it " +
				"hands over has an unpaddedStructSize at least the host's and the functions the host calls " +
				"(PR #1148: the host validates each struct by its size; a refused profiler is left out).", checkLoad},
		{"query", "each profiler's name has 1 to 31 characters and its activity types are known",
			"profilerQuery, called with no session handle, writes a name into the host's buffer (at most its max length, " +
				"NUL excluded) and the event types the profiler supports, each a type of the ABI's enum " +
				"(PR #1148's query params: in/out buffers the host sizes).", checkQuery},
		{"activity-types", "all, one and some of the types make a session reporting only them; none and empty make none",
			"The host creates a session only for the types the user enabled that the profiler supports, passed in " +
				"profilerCreate's enabled types; the profiler reports events of those types alone (Kineto: a child " +
				"profiler records the activities it is configured for, no session when none of its types is on).", checkTypes},
		{"lifecycle", "create assigns a handle; start, stop, processEvents and destroy succeed with it, two sessions at once",
			"profilerCreate assigns the session's handle to params->pProfilerHandle itself (by value; the host zero-fills " +
				"the params and reads the field back) and returns 0; every later call of that session gets that handle; " +
				"start, stop, processEvents and destroy return 0, and two sessions live side by side (PR #1148).", checkLifecycle},
		{"correlation", "push/pop of correlation ids from many goroutines at once, without a failure",
			"The push/pop correlation functions are optional; when present they run around every operator, from any " +
				"thread and concurrently, and return 0 (PR #1148 calls them on the operator's thread; orprof's goroutines " +
				"may pop on another OS thread than the push).", checkCorrelation},
		{"trace", "the events are sound: in the session, end ≥ start, flows paired, counters numeric, External id pushed, trace.Check clean",
			"processEvents reports through the trace builder synchronously: each event's struct at least the ABI's size, " +
				"UTC ns times inside the session with end ≥ start, flows in start/end pairs, metadata as JSON text with " +
				"counter values numbers, an \"External id\" only from an id pushed during the session, and a trace " +
				"orprof's checker finds sound (PR #1148's trace builder; orprof's checks).", checkTrace},
	}
}

// stepMu guards step, the hook RunSteps installs.
var (
	stepMu sync.Mutex
	step   = func(string) {}
)

// at tells the step hook which plugin function the check is about to call.
func at(what string) {
	stepMu.Lock()
	f := step
	stepMu.Unlock()
	f(what)
}

// RunSteps is Run that first calls onStep with the name of each plugin function the check is
// about to call ("profilerCreate", "profilerStart", …), so that a process watching a check
// that crashes can say where. Checks run with RunSteps must not run concurrently.
func (c Case) RunSteps(lib string, onStep func(string)) Result {
	stepMu.Lock()
	step = onStep
	stepMu.Unlock()
	defer func() {
		stepMu.Lock()
		step = func(string) {}
		stepMu.Unlock()
	}()
	return c.Run(lib)
}

// Run runs the case on the library at lib in this process. A panic in the host is a failure;
// a crash in the plugin ends the process (orprof conformance --plugin isolates each check).
func (c Case) Run(lib string) (r Result) {
	r = Result{Name: c.Name, Status: Pass}
	defer func() {
		if p := recover(); p != nil {
			r.Status, r.Reason = Fail, fmt.Sprintf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	if err := c.run(lib); err != nil {
		var s errSkip
		if errors.As(err, &s) {
			r.Status, r.Reason = Skip, s.why
		} else {
			r.Status, r.Reason = Fail, err.Error()
		}
	}
	return r
}

// Check runs every case on the library at lib in this process, in order.
func Check(lib string) []Result {
	var out []Result
	for _, c := range Cases() {
		out = append(out, c.Run(lib))
	}
	return out
}

// Run runs every case as a subtest of t: a plugin author's `go test`.
func Run(t *testing.T, lib string) {
	t.Helper()
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			switch r := c.Run(lib); r.Status {
			case Fail:
				t.Fatal(r.Reason)
			case Skip:
				t.Skip(r.Reason)
			}
		})
	}
}

// load returns the library's profilers, or an error naming every refusal.
func load(lib string) ([]*kineto.Plugin, error) {
	at("KinetoPlugin_register and profilerQuery")
	ps, errs := kineto.LoadPluginFile(lib)
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return ps, errors.New(strings.Join(msgs, "; "))
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("%s registered no profiler", lib)
	}
	return ps, nil
}

func checkLoad(lib string) error {
	_, err := load(lib)
	return err
}

func checkQuery(lib string) error {
	ps, err := load(lib)
	if err != nil {
		return err
	}
	for _, p := range ps {
		switch n := len(p.Name()); {
		case n > 31:
			return fmt.Errorf("profiler #%d: name %q has %d characters (at most 31)", p.Index, p.Name(), n)
		case p.AvailableActivities().Empty():
			return fmt.Errorf("profiler %q: profilerQuery gave no supported activity type", p.Name())
		}
		if len(p.Warnings) > 0 {
			return fmt.Errorf("profiler %q: %s", p.Name(), strings.Join(p.Warnings, "; "))
		}
	}
	return nil
}

// session runs one whole session of p for want: configure, start, fn (may be nil) while it
// records, stop, process. It returns the trace, the device activities and the session's
// span [start, stop] (absolute ns) as the host recorded it.
type run struct {
	tr          *trace.Trace
	acts        []kineto.DeviceActivity
	spanStart   int64
	spanStop    int64
	processErr  error
	session     kineto.ActivityProfilerSession
	handleAfter uintptr
}

func session(p *kineto.Plugin, want kineto.ActivitySet, fn func(s kineto.ActivityProfilerSession)) (*run, error) {
	at("profilerCreate")
	s, err := p.Configure(want, kineto.NewConfig())
	if err != nil {
		return nil, fmt.Errorf("profiler %q: configure %s: %v", p.Name(), want, err)
	}
	if s == nil {
		return nil, fmt.Errorf("profiler %q: no session for %s, which it supports", p.Name(), want)
	}
	r := &run{session: s}
	r.handleAfter, _ = kineto.PluginHandle(s)
	at("profilerStart")
	if err := s.Start(); err != nil {
		return nil, fmt.Errorf("profiler %q: start: %v", p.Name(), err)
	}
	if fn != nil {
		at("profilerPushCorrelationId/profilerPopCorrelationId")
		fn(s)
	}
	at("profilerStop")
	if err := s.Stop(); err != nil {
		return nil, fmt.Errorf("profiler %q: stop: %v", p.Name(), err)
	}
	r.tr = &trace.Trace{}
	at("profilerProcessEvents and profilerDestroy")
	r.processErr = s.ProcessTrace(r.tr)
	if src, ok := s.(kineto.DeviceActivitySource); ok {
		r.acts = src.DeviceActivities()
	}
	for _, e := range r.tr.Events {
		if e.Ph == 'X' && e.PidStr == "Spans" {
			r.spanStart, r.spanStop = e.TsNs, e.TsNs+e.DurNs
		}
	}
	return r, nil
}

// pluginEvents are the events the plugin reported: not the host's span and iteration marks.
func pluginEvents(tr *trace.Trace) []*trace.Event {
	var out []*trace.Event
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.PidStr != "" || e.Ph == 's' || e.Ph == 'f' {
			continue
		}
		out = append(out, e)
	}
	return out
}

func checkTypes(lib string) error {
	ps, err := load(lib)
	if err != nil {
		return err
	}
	for _, p := range ps {
		avail := p.AvailableActivities()
		types := avail.Types()
		var disjoint kineto.ActivitySet
		for _, t := range allTypes() {
			if kineto.NewActivitySet(t).Intersect(avail).Empty() && avail.Intersect(kineto.NewActivitySet(t)).Empty() {
				disjoint = disjoint.Add(t)
			}
		}
		some := kineto.NewActivitySet(types[0])
		for _, t := range disjoint.Types() {
			some = some.Add(t)
			break
		}
		for _, tc := range []struct {
			name    string
			want    kineto.ActivitySet
			enabled kineto.ActivitySet // zero: no session expected
		}{
			{"all", avail, avail},
			{"one", kineto.NewActivitySet(types[0]), kineto.NewActivitySet(types[0])},
			{"some", some, kineto.NewActivitySet(types[0])},
			{"none", disjoint, 0},
			{"empty", 0, 0},
		} {
			if tc.enabled.Empty() {
				at("profilerCreate")
				s, err := p.Configure(tc.want, kineto.NewConfig())
				if err != nil || s != nil {
					return fmt.Errorf("profiler %q: %s (%s): want no session, got %v, %v", p.Name(), tc.name, tc.want, s, err)
				}
				continue
			}
			r, err := session(p, tc.want, nil)
			if err != nil {
				return fmt.Errorf("%s types: %w", tc.name, err)
			}
			for _, e := range pluginEvents(r.tr) {
				t, err := kineto.ParseActivityType(e.Cat)
				if err != nil || !tc.enabled.Has(t) {
					return fmt.Errorf("profiler %q: created for %s (%s types), reported %q of type %s", p.Name(), tc.enabled, tc.name, e.Name, e.Cat)
				}
			}
		}
	}
	return nil
}

// allTypes lists every activity type this build knows.
func allTypes() []kineto.ActivityType {
	var out []kineto.ActivityType
	for t := range kineto.ActivityType(64) {
		if !strings.HasPrefix(t.String(), "activity(") {
			out = append(out, t)
		}
	}
	return out
}

func checkLifecycle(lib string) error {
	ps, err := load(lib)
	if err != nil {
		return err
	}
	for _, p := range ps {
		// Two sessions at once, interleaved: each call must reach its own session (a plugin may
		// hand both the same handle, if it keeps one state for all).
		var ss []kineto.ActivityProfilerSession
		for range 2 {
			at("profilerCreate")
			s, err := p.Configure(p.AvailableActivities(), kineto.NewConfig())
			if err != nil || s == nil {
				return fmt.Errorf("profiler %q: profilerCreate: %v (session %v)", p.Name(), err, s)
			}
			h, _ := kineto.PluginHandle(s)
			if h == 0 {
				return fmt.Errorf("profiler %q: profilerCreate returned 0 but left params->pProfilerHandle NULL "+
					"(assign the session handle to the field itself; a host passes it to every later call)", p.Name())
			}
			ss = append(ss, s)
		}
		at("profilerStart")
		for i, s := range ss {
			if err := s.Start(); err != nil {
				return fmt.Errorf("profiler %q: session %d: profilerStart with the handle create assigned: %v", p.Name(), i+1, err)
			}
		}
		at("profilerStop")
		for i, s := range ss {
			if err := s.Stop(); err != nil {
				return fmt.Errorf("profiler %q: session %d: profilerStop: %v", p.Name(), i+1, err)
			}
		}
		at("profilerProcessEvents and profilerDestroy")
		for i, s := range ss {
			if err := s.ProcessTrace(&trace.Trace{}); err != nil && strings.Contains(err.Error(), "profilerProcessEvents returned") {
				return fmt.Errorf("profiler %q: session %d: %v", p.Name(), i+1, err)
			}
		}
	}
	return nil
}

func checkCorrelation(lib string) error {
	ps, err := load(lib)
	if err != nil {
		return err
	}
	any := false
	for _, p := range ps {
		if !p.HasCorrelation() {
			continue
		}
		any = true
		r, err := session(p, p.AvailableActivities(), func(s kineto.ActivityProfilerSession) {
			var wg sync.WaitGroup
			for g := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 500 {
						s.PushCorrelationID(uint64(g*1000 + i + 1))
						if u, ok := s.(kineto.UserCorrelator); ok {
							u.PushUserCorrelationID(uint64(i + 1))
							u.PopUserCorrelationID()
						}
						s.PopCorrelationID()
					}
				}()
			}
			wg.Wait()
		})
		if err != nil {
			return err
		}
		if r.processErr != nil && strings.Contains(r.processErr.Error(), "correlation id push/pop failed") {
			return fmt.Errorf("profiler %q: %v", p.Name(), r.processErr)
		}
	}
	if !any {
		return errSkip{"no profiler takes correlation ids (the functions are optional)"}
	}
	return nil
}

func checkTrace(lib string) error {
	ps, err := load(lib)
	if err != nil {
		return err
	}
	for _, p := range ps {
		pushed := map[int64]bool{}
		r, err := session(p, p.AvailableActivities(), func(s kineto.ActivityProfilerSession) {
			for id := uint64(1001); id <= 1010; id++ {
				pushed[int64(id)] = true
				s.PushCorrelationID(id)
				s.PopCorrelationID()
			}
		})
		if err != nil {
			return err
		}
		name := p.Name()
		if r.processErr != nil {
			return fmt.Errorf("profiler %q: the host's trace builder: %v", name, r.processErr)
		}
		for _, e := range pluginEvents(r.tr) {
			if e.Ph != 'X' {
				continue
			}
			if e.TsNs < r.spanStart || e.TsNs+e.DurNs > r.spanStop {
				return fmt.Errorf("profiler %q: event %q (%s) [%d, %d] ns lies outside the session [%d, %d]",
					name, e.Name, e.Cat, e.TsNs, e.TsNs+e.DurNs, r.spanStart, r.spanStop)
			}
		}
		for _, a := range r.acts {
			if a.EndNs < a.StartNs {
				return fmt.Errorf("profiler %q: event %q (%s) ends %d ns before it starts", name, a.Name, a.Type, a.StartNs-a.EndNs)
			}
			if a.Correlation != 0 && !pushed[a.Correlation] {
				return fmt.Errorf("profiler %q: event %q (%s) has External id %d, which no push gave", name, a.Name, a.Type, a.Correlation)
			}
		}
		if err := checkFlowsAndCounters(r.tr); err != nil {
			return fmt.Errorf("profiler %q: %v", name, err)
		}
		var buf bytes.Buffer
		if err := trace.Write(&buf, r.tr); err != nil {
			return fmt.Errorf("profiler %q: writing its trace: %v", name, err)
		}
		if err := trace.Check(buf.Bytes()); err != nil {
			return fmt.Errorf("profiler %q: trace.Check: %v", name, err)
		}
	}
	return nil
}

// checkFlowsAndCounters: every flow start has one end of the same category and id, not before
// it, and every counter value is a number.
func checkFlowsAndCounters(tr *trace.Trace) error {
	type key struct {
		cat string
		id  uint64
	}
	starts, ends := map[key][]int64{}, map[key][]int64{}
	for i := range tr.Events {
		e := &tr.Events[i]
		switch e.Ph {
		case 's':
			starts[key{e.Cat, e.ID}] = append(starts[key{e.Cat, e.ID}], e.TsNs)
		case 'f':
			ends[key{e.Cat, e.ID}] = append(ends[key{e.Cat, e.ID}], e.TsNs)
		case 'C':
			for _, a := range e.Args {
				var f float64
				if json.Unmarshal([]byte(a.JSON()), &f) != nil {
					return fmt.Errorf("counter %q: series %q = %s is not a number", e.Name, a.Key, a.JSON())
				}
			}
		}
	}
	var keys []key
	for k := range starts {
		keys = append(keys, k)
	}
	for k := range ends {
		if _, ok := starts[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].id < keys[j].id })
	for _, k := range keys {
		s, f := starts[k], ends[k]
		if len(s) != 1 || len(f) != 1 {
			return fmt.Errorf("flow %s %d: %d starts and %d ends (want one of each)", k.cat, k.id, len(s), len(f))
		}
		if f[0] < s[0] {
			return fmt.Errorf("flow %s %d ends %d ns before it starts", k.cat, k.id, s[0]-f[0])
		}
	}
	return nil
}
