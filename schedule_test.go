package orprof

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// actions renders the first n actions of s, one letter a step: N(one), W(armup), R(ecord),
// S(ave: RECORD_AND_SAVE).
func actions(s Schedule, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte("NWRS"[s.Action(i)])
	}
	return b.String()
}

func TestScheduleActions(t *testing.T) {
	for _, tc := range []struct {
		s    Schedule
		want string
	}{
		{Schedule{Wait: 1, Warmup: 1, Active: 2, Repeat: 2}, "NWRSNWRSNNNN"},
		{Schedule{Wait: 1, Warmup: 1, Active: 2, Repeat: 2, SkipFirst: 3}, "NNNNWRSNWRSNNN"},
		{Schedule{Wait: 0, Warmup: 0, Active: 1}, "SSSSS"},
		{Schedule{Wait: 0, Warmup: 0, Active: 3, Repeat: 1}, "RRSNNN"},
		{Schedule{Wait: 2, Warmup: 0, Active: 1, Repeat: 0}, "NNSNNSNNS"},
		{Schedule{Wait: 0, Warmup: 2, Active: 1, Repeat: 3}, "WWSWWSWWSNN"},
		{Schedule{Wait: 5, Active: 1, Repeat: 1, SkipFirst: 1}, "NNNNNNSNN"},
		{Schedule{Active: 0}, "NNN"}, // refused by Check: never records
	} {
		t.Run(tc.s.String(), func(t *testing.T) {
			assert.Equal(t, tc.want, actions(tc.s, len(tc.want)))
		})
	}
	assert.Equal(t, ActionNone, Schedule{Active: 1}.Action(-1))
}

// TestScheduleFormula checks Action against torch.profiler's definition written out literally
// (float division for the repeat test) over many schedules and steps.
func TestScheduleFormula(t *testing.T) {
	torch := func(wait, warmup, active, repeat, skip, step int) ProfilerAction {
		if step < skip {
			return ActionNone
		}
		step -= skip
		n := wait + warmup + active
		if repeat > 0 && float64(step)/float64(n) >= float64(repeat) {
			return ActionNone
		}
		m := step % n
		if m < wait {
			return ActionNone
		} else if m < wait+warmup {
			return ActionWarmup
		} else if m < n-1 {
			return ActionRecord
		}
		return ActionRecordAndSave
	}
	for wait := 0; wait < 4; wait++ {
		for warmup := 0; warmup < 4; warmup++ {
			for active := 1; active < 4; active++ {
				for repeat := 0; repeat < 3; repeat++ {
					for skip := 0; skip < 3; skip++ {
						s := Schedule{wait, warmup, active, repeat, skip}
						for step := 0; step < 40; step++ {
							if got, want := s.Action(step), torch(wait, warmup, active, repeat, skip, step); got != want {
								t.Fatalf("%v step %d: %v, torch %v", s, step, got, want)
							}
						}
					}
				}
			}
		}
	}
}

func TestParseSchedule(t *testing.T) {
	s, err := ParseSchedule("wait=1, warmup=1,active=2,repeat=2")
	require.NoError(t, err)
	assert.Equal(t, Schedule{Wait: 1, Warmup: 1, Active: 2, Repeat: 2}, s)
	assert.Equal(t, 10, Schedule{Wait: 1, Warmup: 1, Active: 2, Repeat: 2, SkipFirst: 2}.Steps())
	assert.Equal(t, 0, Schedule{Active: 2}.Steps())
	s, err = ParseSchedule(s.String())
	require.NoError(t, err)
	assert.Equal(t, Schedule{Wait: 1, Warmup: 1, Active: 2, Repeat: 2}, s)

	for _, tc := range []struct{ in, msg string }{
		{"", "empty"},
		{"active=2,wait", `"wait": want key=value`},
		{"active=2,cycles=3", `unknown key "cycles"`},
		{"active=2,active=3", "active given twice"},
		{"active=x", `active="x": not a count`},
		{"active=99999999999", "not a count"},
		{"wait=1", "active is missing"},
		{"active=0", "active=0: must be ≥ 1"},
		{"active=1,wait=-1", "wait=-1: must be ≥ 0"},
		{"active=1,skip_first=" + strings.Repeat("9", 300), "…"},
	} {
		_, err := ParseSchedule(tc.in)
		if assert.Error(t, err, tc.in) {
			assert.Contains(t, err.Error(), tc.msg)
			assert.Less(t, len(err.Error()), 200)
		}
	}
}

func FuzzParseSchedule(f *testing.F) {
	f.Add("wait=1,warmup=1,active=2,repeat=2,skip_first=0")
	f.Add("active=1")
	f.Add("active=,=")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSchedule(in)
		if err != nil {
			return
		}
		if s.Check() != nil {
			t.Fatalf("%q parsed to a schedule Check refuses: %v", in, s)
		}
		back, err := ParseSchedule(s.String())
		if err != nil || back != s {
			t.Fatalf("%q: round trip %v -> %v, %v", in, s, back, err)
		}
	})
}
