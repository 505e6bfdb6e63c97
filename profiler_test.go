package orprof

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/errtext"
)

// stepNames returns the ProfilerStep#N names and the count of "work" ops of a result.
func stepNames(res *Result) (steps []string, work int) {
	for _, e := range res.Events.Events() {
		switch {
		case len(e.TraceName) > 13 && e.TraceName[:13] == "ProfilerStep#":
			steps = append(steps, e.TraceName)
		case e.TraceName == "work":
			work++
		}
	}
	sort.Slice(steps, func(i, j int) bool {
		return len(steps[i]) < len(steps[j]) || len(steps[i]) == len(steps[j]) && steps[i] < steps[j]
	})
	return steps, work
}

// runSchedule runs n steps, each with one "work" op, under s; it reports, per step, whether a
// session was recording, and the results handed to OnTraceReady.
func runSchedule(t *testing.T, s Schedule, n int, stopEarly bool) (active string, results []*Result) {
	t.Helper()
	p, err := NewProfiler(ProfilerOptions{Schedule: &s, OnTraceReady: func(r *Result) error {
		results = append(results, r)
		return nil
	}})
	require.NoError(t, err)
	ctx := WithThread(context.Background(), NewThread())
	require.NoError(t, p.Start(ctx))
	for i := 0; i < n; i++ {
		if Active() {
			active += "A"
		} else {
			active += "-"
		}
		Begin(ctx, Op{Name: "work"}).End()
		if i < n-1 || !stopEarly {
			require.NoError(t, p.Step(ctx))
		}
	}
	require.NoError(t, p.Stop())
	require.False(t, Active(), "Stop leaves no session running")
	return active, results
}

func TestProfilerSchedule(t *testing.T) {
	for _, tc := range []struct {
		name      string
		s         Schedule
		n         int
		stopEarly bool // Stop instead of the last Step
		active    string
		cycles    [][]string
	}{
		{"wait1 warmup1 active2 repeat2", Schedule{Wait: 1, Warmup: 1, Active: 2, Repeat: 2}, 10, false, "-AAA-AAA--",
			[][]string{{"ProfilerStep#2", "ProfilerStep#3"}, {"ProfilerStep#6", "ProfilerStep#7"}}},
		{"skip_first", Schedule{Wait: 0, Warmup: 1, Active: 1, Repeat: 1, SkipFirst: 2}, 6, false, "--AA--",
			[][]string{{"ProfilerStep#3"}}},
		{"active only, every step a cycle", Schedule{Active: 1, Repeat: 3}, 4, false, "AAA-",
			[][]string{{"ProfilerStep#0"}, {"ProfilerStep#1"}, {"ProfilerStep#2"}}},
		{"no warmup", Schedule{Wait: 1, Active: 2}, 6, false, "-AA-AA",
			[][]string{{"ProfilerStep#1", "ProfilerStep#2"}, {"ProfilerStep#4", "ProfilerStep#5"}}},
		{"stop mid-cycle hands the partial cycle over", Schedule{Warmup: 1, Active: 3}, 3, true, "AAA",
			[][]string{{"ProfilerStep#1", "ProfilerStep#2"}}},
		{"stop in warmup discards it", Schedule{Wait: 1, Warmup: 2, Active: 1}, 2, true, "-A", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			active, results := runSchedule(t, tc.s, tc.n, tc.stopEarly)
			assert.Equal(t, tc.active, active, "steps with a session running (warmup too)")
			require.Len(t, results, len(tc.cycles))
			for i, res := range results {
				steps, work := stepNames(res)
				assert.Equal(t, tc.cycles[i], steps, "cycle %d", i)
				assert.Equal(t, len(tc.cycles[i]), work, "cycle %d: one op per active step, none of warmup's", i)
				assert.Zero(t, res.Unfinished, "cycle %d", i)
			}
		})
	}
}

func TestProfilerErrors(t *testing.T) {
	_, err := NewProfiler(ProfilerOptions{Schedule: &Schedule{Active: 0}})
	assert.ErrorContains(t, err, "active=0")

	p, err := NewProfiler(ProfilerOptions{})
	require.NoError(t, err)
	ctx := context.Background()
	assert.ErrorContains(t, p.Step(ctx), "Start was not called")
	assert.ErrorContains(t, p.Stop(), "Start was not called")
	require.NoError(t, p.Start(ctx))
	assert.ErrorContains(t, p.Start(ctx), "already started")
	require.NoError(t, p.Stop())
	assert.ErrorIs(t, p.Step(ctx), ErrProfilerStopped)
	assert.ErrorIs(t, p.Stop(), ErrProfilerStopped)
	_, err = p.Capture(ctx, CaptureOptions{Steps: 1})
	assert.ErrorIs(t, err, ErrProfilerStopped)

	// A session started elsewhere: the schedule's cycle cannot start; Step says so and the
	// loop goes on.
	other, err := Start(Options{})
	require.NoError(t, err)
	p, _ = NewProfiler(ProfilerOptions{Schedule: &Schedule{Active: 1}})
	err = p.Start(ctx)
	assert.ErrorIs(t, err, ErrAlreadyProfiling)
	assert.Equal(t, "step 0: "+ErrAlreadyProfiling.Error(), err.Error())
	err = p.Step(ctx)
	assert.ErrorIs(t, err, ErrAlreadyProfiling)
	assert.Empty(t, errtext.Repeated(err.Error()), "a prefix repeated in %q", err)
	_, err = other.Stop()
	require.NoError(t, err)
	require.NoError(t, p.Step(ctx))
	assert.True(t, Active())
	require.NoError(t, p.Stop())

	// OnTraceReady's error comes back from the Step that ended the cycle.
	boom := errors.New("disk full")
	p, _ = NewProfiler(ProfilerOptions{Schedule: &Schedule{Active: 1}, OnTraceReady: func(*Result) error { return boom }})
	require.NoError(t, p.Start(ctx))
	err = p.Step(ctx)
	assert.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, "OnTraceReady: disk full")
	assert.ErrorIs(t, p.Stop(), boom)

	// Captures on a scheduled profiler are refused.
	p, _ = NewProfiler(ProfilerOptions{Schedule: &Schedule{Wait: 5, Active: 1}})
	require.NoError(t, p.Start(ctx))
	_, err = p.Capture(ctx, CaptureOptions{Steps: 1})
	assert.ErrorIs(t, err, ErrScheduled)
	require.NoError(t, p.Stop())
}

// stepLoop runs a profiler's loop on its own goroutine: one "work" op a step, a step every
// period, until stop is closed.
func stepLoop(t *testing.T, p *Profiler, period time.Duration) (stop func()) {
	t.Helper()
	ctx := WithThread(context.Background(), NewThread())
	require.NoError(t, p.Start(ctx))
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			Begin(ctx, Op{Name: "work"}).End()
			time.Sleep(period)
			if err := p.Step(ctx); err != nil {
				t.Errorf("Step: %v", err)
				return
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		require.NoError(t, p.Stop())
	}
}

func TestProfilerCapture(t *testing.T) {
	var ready []*Result
	var mu sync.Mutex
	p, err := NewProfiler(ProfilerOptions{OnTraceReady: func(r *Result) error {
		mu.Lock()
		ready = append(ready, r)
		mu.Unlock()
		return nil
	}})
	require.NoError(t, err)
	stop := stepLoop(t, p, time.Millisecond)
	defer stop()
	ctx := context.Background()

	for _, n := range []int{1, 3, 5} {
		res, err := p.Capture(ctx, CaptureOptions{Steps: n})
		require.NoError(t, err)
		steps, work := stepNames(res)
		require.Len(t, steps, n)
		assert.Equal(t, n, work)
		var first int
		_, err = fmt.Sscanf(steps[0], "ProfilerStep#%d", &first)
		require.NoError(t, err)
		for i := range steps {
			assert.Equal(t, StepName(first+i), steps[i], "consecutive steps")
		}
		assert.Zero(t, res.Unfinished)
	}

	// By time: whatever the loop did in 30 ms.
	res, err := p.Capture(ctx, CaptureOptions{Duration: 30 * time.Millisecond})
	require.NoError(t, err)
	_, work := stepNames(res)
	assert.Greater(t, work, 0)

	// One at a time: a second capture while one is pending or running is refused. (Tried
	// again if the probe happened to come first.)
	deadline, probes := time.Now().Add(10*time.Second), 0
	for held := false; !held; {
		require.True(t, time.Now().Before(deadline), "no conflict seen")
		cctx, cancel := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() {
			_, err := p.Capture(cctx, CaptureOptions{Steps: 1 << 20})
			errc <- err
		}()
		time.Sleep(10 * time.Millisecond) // a head start; the probe may still come first
	probe:
		for {
			select {
			case err := <-errc: // the probe came first
				assert.ErrorIs(t, err, ErrCaptureBusy)
				break probe
			default:
			}
			_, err := p.Capture(ctx, CaptureOptions{Steps: 1})
			if errors.Is(err, ErrCaptureBusy) {
				held = true
				break probe
			}
			require.NoError(t, err)
			probes++
		}
		cancel()
		if held {
			// Cancelling frees the profiler and stops the session.
			assert.ErrorIs(t, <-errc, context.Canceled)
		}
	}
	res, err = p.Capture(ctx, CaptureOptions{Steps: 2})
	require.NoError(t, err)
	steps, _ := stepNames(res)
	assert.Len(t, steps, 2)

	_, err = p.Capture(ctx, CaptureOptions{})
	assert.ErrorContains(t, err, "want Steps > 0 or Duration > 0")

	mu.Lock()
	assert.Len(t, ready, 5+probes, "every finished capture goes to OnTraceReady, the cancelled ones not")
	mu.Unlock()
}

// TestCaptureWindowNoOpenRangeWarning: a time-window capture ends inside a step, as it says it
// does: the step in progress is left out and counted in Unfinished, without the "still open"
// warning, which would otherwise come with every seconds= capture.
func TestCaptureWindowNoOpenRangeWarning(t *testing.T) {
	p, err := NewProfiler(ProfilerOptions{})
	require.NoError(t, err)
	stop := stepLoop(t, p, 5*time.Millisecond) // a step is open nearly all the time
	defer stop()
	res, err := p.Capture(context.Background(), CaptureOptions{Duration: 30 * time.Millisecond})
	require.NoError(t, err)
	assert.Positive(t, res.Unfinished, "the window ended inside a step")
	for _, w := range res.Warnings {
		assert.NotContains(t, w, "still open")
	}
}

// TestOpenRangeWarningCount: ranges open at Stop are counted in a warning, one in the
// singular.
func TestOpenRangeWarningCount(t *testing.T) {
	for _, n := range []int{1, 2} {
		s, err := Start(Options{})
		require.NoError(t, err)
		ctx := WithThread(context.Background(), NewThread())
		for range n {
			Begin(ctx, Op{Name: "open"})
		}
		res, err := s.Stop()
		require.NoError(t, err)
		assert.Equal(t, n, res.Unfinished)
		want := map[int]string{1: "1 range was still open at Stop and is left out",
			2: "2 ranges were still open at Stop and are left out"}[n]
		assert.Contains(t, res.Warnings, want)
	}
}
