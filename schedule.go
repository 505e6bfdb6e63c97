package orprof

import (
	"fmt"
	"strconv"
	"strings"
)

// ProfilerAction is what a schedule asks of the profiler during one step, torch.profiler's
// ProfilerAction.
type ProfilerAction int

const (
	// ActionNone records nothing.
	ActionNone ProfilerAction = iota
	// ActionWarmup records and discards: the session runs, so its start-up costs are paid
	// before the steps that count, but what it records is thrown away.
	ActionWarmup
	// ActionRecord records the step into the current cycle.
	ActionRecord
	// ActionRecordAndSave records the last step of a cycle; when it ends, the cycle's result is
	// handed to OnTraceReady.
	ActionRecordAndSave
)

// String is the action's torch.profiler name (NONE, WARMUP, RECORD, RECORD_AND_SAVE).
func (a ProfilerAction) String() string {
	switch a {
	case ActionNone:
		return "NONE"
	case ActionWarmup:
		return "WARMUP"
	case ActionRecord:
		return "RECORD"
	case ActionRecordAndSave:
		return "RECORD_AND_SAVE"
	}
	return "ProfilerAction(" + strconv.Itoa(int(a)) + ")"
}

// recording reports whether steps with action a go into a cycle's result.
func (a ProfilerAction) recording() bool { return a == ActionRecord || a == ActionRecordAndSave }

// Schedule is torch.profiler.schedule(wait, warmup, active, repeat, skip_first): after the
// first SkipFirst steps, cycles of Wait idle steps, Warmup steps recorded and discarded, and
// Active recorded steps, the last of which ends the cycle; Repeat cycles, or cycles without end
// when Repeat is 0.
type Schedule struct {
	Wait, Warmup, Active, Repeat, SkipFirst int
}

// Check reports a schedule torch.profiler.schedule refuses: a negative count or no active
// step.
func (s Schedule) Check() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"wait", s.Wait}, {"warmup", s.Warmup}, {"repeat", s.Repeat}, {"skip_first", s.SkipFirst}} {
		if f.v < 0 {
			return fmt.Errorf("schedule: %s=%d: must be ≥ 0", f.name, f.v)
		}
	}
	if s.Active < 1 {
		return fmt.Errorf("schedule: active=%d: must be ≥ 1 (a cycle needs an active step)", s.Active)
	}
	return nil
}

// Action is the action for step (counted from 0), as torch.profiler's schedule function
// returns it. It is ActionNone for a negative step or a schedule that fails Check.
func (s Schedule) Action(step int) ProfilerAction {
	if step < 0 || s.Check() != nil || step < s.SkipFirst {
		return ActionNone
	}
	step -= s.SkipFirst
	n := s.Wait + s.Warmup + s.Active
	if s.Repeat > 0 && step/n >= s.Repeat {
		return ActionNone
	}
	switch m := step % n; {
	case m < s.Wait:
		return ActionNone
	case m < s.Wait+s.Warmup:
		return ActionWarmup
	case m < n-1:
		return ActionRecord
	default:
		return ActionRecordAndSave
	}
}

// Steps is the number of steps the schedule takes to finish every cycle (SkipFirst + Repeat
// whole cycles), or 0 when it repeats without end.
func (s Schedule) Steps() int {
	if s.Repeat == 0 {
		return 0
	}
	return s.SkipFirst + s.Repeat*(s.Wait+s.Warmup+s.Active)
}

// String renders the schedule in the form ParseSchedule reads.
func (s Schedule) String() string {
	return fmt.Sprintf("wait=%d,warmup=%d,active=%d,repeat=%d,skip_first=%d", s.Wait, s.Warmup, s.Active, s.Repeat, s.SkipFirst)
}

// ParseSchedule reads "wait=1,warmup=1,active=2,repeat=2,skip_first=0": comma-separated
// key=value pairs with torch.profiler.schedule's argument names, in any order, each at most
// once; missing keys are 0 except active, which is required. The result passes Check.
func ParseSchedule(text string) (Schedule, error) {
	var s Schedule
	seen := map[string]bool{}
	fields := map[string]*int{"wait": &s.Wait, "warmup": &s.Warmup, "active": &s.Active, "repeat": &s.Repeat, "skip_first": &s.SkipFirst}
	if strings.TrimSpace(text) == "" {
		return s, fmt.Errorf("schedule: empty (want e.g. wait=1,warmup=1,active=2,repeat=2)")
	}
	for _, part := range strings.Split(text, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok {
			return s, fmt.Errorf("schedule: %q: want key=value", quoteShort(part))
		}
		p, known := fields[k]
		if !known {
			return s, fmt.Errorf("schedule: unknown key %q (have wait, warmup, active, repeat, skip_first)", quoteShort(k))
		}
		if seen[k] {
			return s, fmt.Errorf("schedule: %s given twice", k)
		}
		seen[k] = true
		n, err := strconv.Atoi(v)
		if err != nil || n > 1<<30 {
			return s, fmt.Errorf("schedule: %s=%q: not a count", k, quoteShort(v))
		}
		*p = n
	}
	if !seen["active"] {
		return s, fmt.Errorf("schedule: active is missing (a cycle needs at least one active step)")
	}
	return s, s.Check()
}

// quoteShort cuts s to about 100 bytes for an error message.
func quoteShort(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}
