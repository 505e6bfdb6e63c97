package orprof

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// ProfilerOptions configure a Profiler.
type ProfilerOptions struct {
	// Options are the options of every session the profiler runs; a capture may change the
	// recording switches (CaptureOptions.Options).
	Options Options
	// Schedule, when set, decides at every step whether the profiler records
	// (torch.profiler.schedule). Without one the profiler records only on demand (Capture).
	Schedule *Schedule
	// OnTraceReady receives the result of every finished cycle and of every capture. For a
	// schedule it is called synchronously by the Step (or Stop) that ends the cycle, on that
	// goroutine, as torch.profiler calls on_trace_ready; for a capture, by Capture's goroutine.
	// Its error is returned by that Step, Stop or Capture. It may be nil.
	OnTraceReady func(*Result) error
}

// Profiler is torch.profiler.profile for a long-running program: a loop marks its iterations
// with Step, each iteration becomes a "ProfilerStep#N" range (N from 0), and sessions run only
// for the steps a schedule or an on-demand capture asks for. Outside them recording costs what
// it costs with no session: one atomic load per range. A Profiler is safe for concurrent use;
// Start, Step and Stop are meant for the loop's goroutine, Capture for any other.
type Profiler struct {
	opts ProfilerOptions

	mu      sync.Mutex
	state   int // profilerNew, profilerRunning, profilerStopped
	stepNum int
	action  ProfilerAction
	sess    *Session // the schedule's session
	warm    bool     // sess is a warmup session whose records are discarded
	step    Range    // the open ProfilerStep#stepNum range
	cap     *capture // the on-demand capture, pending or running
}

const (
	profilerNew = iota
	profilerRunning
	profilerStopped
)

// capture is an on-demand capture: pending until the next step boundary (steps) or running.
type capture struct {
	opts      Options
	steps     int // 0 for a capture by time
	remaining int
	sess      *Session
	done      chan captureDone // buffered: the stepping goroutine never waits for the client
}

type captureDone struct {
	res *Result
	err error
}

// Errors of Capture.
var (
	// ErrCaptureBusy is returned by Capture while another capture is pending or running.
	ErrCaptureBusy = errors.New("orprof: a capture is already running (one at a time); retry when it ends")
	// ErrScheduled is returned by Capture on a profiler that follows a schedule.
	ErrScheduled = errors.New("orprof: the profiler follows a schedule; on-demand captures need a profiler without one")
	// ErrProfilerStopped is returned by Step and Capture after Stop.
	ErrProfilerStopped = errors.New("orprof: the profiler is stopped")
)

// NewProfiler returns a profiler; Start begins counting steps. It fails when the schedule
// fails Check.
func NewProfiler(opts ProfilerOptions) (*Profiler, error) {
	if opts.Schedule != nil {
		if err := opts.Schedule.Check(); err != nil {
			return nil, err
		}
		s := *opts.Schedule
		opts.Schedule = &s
	}
	return &Profiler{opts: opts}, nil
}

// StepName is the name of step n's range, "ProfilerStep#n".
func StepName(n int) string { return "ProfilerStep#" + strconv.Itoa(n) }

// Start makes step 0 current, starts a session if the schedule records step 0, and opens the
// ProfilerStep#0 range on ctx's thread (recorded only when a session runs).
func (p *Profiler) Start(ctx context.Context) error {
	p.mu.Lock()
	if p.state != profilerNew {
		p.mu.Unlock()
		return errors.New("orprof: Profiler.Start: already started")
	}
	p.state = profilerRunning
	p.stepNum = 0
	p.action = p.actionAt(0)
	ready, err := p.transit(ActionNone, p.action)
	p.openStep(ctx)
	p.mu.Unlock()
	return errors.Join(err, p.deliver(ready))
}

// Step ends the current step and begins the next: it closes ProfilerStep#N, applies the
// schedule's action for step N+1 (ending a cycle hands its result to OnTraceReady before Step
// returns; starting a warmup or a cycle starts a session), advances on-demand captures, and
// opens ProfilerStep#N+1 on ctx's thread. Its error reports a session that could not start or
// stopped with backend failures, or OnTraceReady's error; the loop can go on after it.
func (p *Profiler) Step(ctx context.Context) error {
	p.mu.Lock()
	if p.state != profilerRunning {
		p.mu.Unlock()
		if p.state == profilerNew {
			return errors.New("orprof: Profiler.Step: Start was not called")
		}
		return ErrProfilerStopped
	}
	p.step.End()
	p.step = Range{}
	prev := p.action
	p.stepNum++
	p.action = p.actionAt(p.stepNum)
	ready, err := p.transit(prev, p.action)
	p.advanceCapture()
	p.openStep(ctx)
	p.mu.Unlock()
	return errors.Join(err, p.deliver(ready))
}

// StepNum is the current step's number.
func (p *Profiler) StepNum() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stepNum
}

// Stop closes the current step and ends the profiler: a cycle in progress is stopped and, if
// it had begun recording, handed to OnTraceReady (torch.profiler does the same on exit); a
// warmup is discarded; a pending or running capture fails with ErrProfilerStopped.
func (p *Profiler) Stop() error {
	p.mu.Lock()
	if p.state != profilerRunning {
		p.mu.Unlock()
		if p.state == profilerNew {
			return errors.New("orprof: Profiler.Stop: Start was not called")
		}
		return ErrProfilerStopped
	}
	p.state = profilerStopped
	p.step.End()
	p.step = Range{}
	var ready []*Result
	var err error
	if p.sess != nil {
		res, serr := p.sess.Stop()
		err = serr
		if !p.warm && res != nil {
			ready = append(ready, res)
		}
		p.sess, p.warm = nil, false
	}
	if c := p.cap; c != nil {
		p.cap = nil
		if c.sess != nil {
			c.sess.Stop() //nolint:errcheck // the capture failed; its result is not wanted
		}
		c.done <- captureDone{err: ErrProfilerStopped}
	}
	p.mu.Unlock()
	return errors.Join(err, p.deliver(ready))
}

func (p *Profiler) actionAt(step int) ProfilerAction {
	if p.opts.Schedule == nil {
		return ActionNone
	}
	return p.opts.Schedule.Action(step)
}

// openStep opens ProfilerStep#stepNum when a session records it. p.mu is held.
func (p *Profiler) openStep(ctx context.Context) {
	if Active() {
		p.step = RecordFunction(ctx, StepName(p.stepNum))
	}
}

// transit moves the schedule's session from prev to next, torch.profiler's action
// transitions: a finished cycle (prev RECORD_AND_SAVE) is stopped and returned for
// OnTraceReady; a warmup starts a session whose records are discarded when the cycle's first
// active step begins (the session is restarted) or when the cycle is abandoned. p.mu is held.
func (p *Profiler) transit(prev, next ProfilerAction) ([]*Result, error) {
	var ready []*Result
	var errs []error
	if prev == ActionRecordAndSave || (prev == ActionRecord && !next.recording()) {
		// A cycle ends with its RECORD_AND_SAVE step. A RECORD step followed by no recording
		// cannot come from a Schedule; it would be an abandoned cycle, dropped as torch does.
		res, err := p.stopSession()
		errs = append(errs, err)
		if res != nil && prev == ActionRecordAndSave {
			ready = append(ready, res)
		}
		prev = ActionNone
	}
	switch {
	case prev == ActionNone && next == ActionWarmup:
		errs = append(errs, p.startSession(true))
	case prev == ActionNone && next.recording():
		errs = append(errs, p.startSession(false))
	case prev == ActionWarmup && next != ActionWarmup:
		// Warmup records and discards: what it recorded goes, and the cycle's first active
		// step starts on a fresh session.
		_, err := p.stopSession()
		errs = append(errs, err)
		if next.recording() {
			errs = append(errs, p.startSession(false))
		}
	}
	return ready, errors.Join(errs...)
}

func (p *Profiler) startSession(warm bool) error {
	s, err := Start(p.opts.Options)
	if err != nil {
		return fmt.Errorf("step %d: %w", p.stepNum, err) // Start's errors name orprof already
	}
	p.sess, p.warm = s, warm
	return nil
}

func (p *Profiler) stopSession() (*Result, error) {
	if p.sess == nil {
		return nil, nil
	}
	res, err := p.sess.Stop()
	p.sess, p.warm = nil, false
	if err != nil {
		err = fmt.Errorf("orprof: step %d: %w", p.stepNum, err)
	}
	return res, err
}

// deliver hands results to OnTraceReady, outside p.mu so that the callback may use p.
func (p *Profiler) deliver(ready []*Result) error {
	if p.opts.OnTraceReady == nil {
		return nil
	}
	var errs []error
	for _, res := range ready {
		if err := p.opts.OnTraceReady(res); err != nil {
			errs = append(errs, fmt.Errorf("orprof: OnTraceReady: %w", err))
		}
	}
	return errors.Join(errs...)
}

// CaptureOptions say what an on-demand capture records.
type CaptureOptions struct {
	// Steps captures the next Steps whole steps: the session starts at the next step boundary
	// and stops when the last of them ends, so the result holds exactly ProfilerStep#N ..
	// ProfilerStep#N+Steps-1.
	Steps int
	// Duration, when Steps is 0, captures from now for this long, whatever steps do; a step
	// open when it starts or ends is left out (counted in Result.Unfinished when it ends
	// after).
	Duration time.Duration
	// Options are the session's options; nil keeps the profiler's.
	Options *Options
	// MaxEvents, when > 0, bounds the capture's memory: once its session holds that many
	// records (checked every 20 ms, so a few more may get in) the capture ends there, before
	// its steps or its time are done, and its result says so in Warnings (a warning starting
	// with CaptureBoundWarning). 0 is no bound. The records are the host records (ops, ranges,
	// memory records) and the device records: in fallback mode each op's device events (one
	// more record per host record), in kernels mode the kernels, copies and launches the child
	// profilers hold so far (those that count them, kineto.RecordCounter: OpenReg's does;
	// Kineto plugins cannot say).
	MaxEvents int
}

// CaptureBoundWarning starts the warning of a capture that CaptureOptions.MaxEvents ended.
const CaptureBoundWarning = "the capture reached its bound of "

// captureCheckEvery is how often a bounded capture counts its records.
const captureCheckEvery = 20 * time.Millisecond

// Capture records the next opts.Steps steps (or opts.Duration) of the running program and
// returns the result, which is also handed to OnTraceReady. Only one capture runs at a time
// (ErrCaptureBusy); a profiler with a schedule takes none (ErrScheduled). Cancelling ctx
// cancels the capture: the session is stopped, its result discarded, and ctx's error
// returned. As with Session.Stop, a non-nil result may come with an error reporting backend
// or OnTraceReady failures.
func (p *Profiler) Capture(ctx context.Context, opts CaptureOptions) (*Result, error) {
	if opts.Steps < 0 || (opts.Steps == 0 && opts.Duration <= 0) {
		return nil, fmt.Errorf("orprof: Capture: want Steps > 0 or Duration > 0 (got %d steps, %v)", opts.Steps, opts.Duration)
	}
	c := &capture{opts: p.opts.Options, steps: opts.Steps, remaining: opts.Steps, done: make(chan captureDone, 1)}
	if opts.Options != nil {
		c.opts = *opts.Options
	}
	p.mu.Lock()
	switch {
	case p.state == profilerStopped:
		p.mu.Unlock()
		return nil, ErrProfilerStopped
	case p.opts.Schedule != nil:
		p.mu.Unlock()
		return nil, ErrScheduled
	case p.cap != nil:
		p.mu.Unlock()
		return nil, ErrCaptureBusy
	}
	if c.steps == 0 {
		s, err := Start(c.opts)
		if err != nil {
			p.mu.Unlock()
			return nil, err
		}
		c.sess = s
	}
	p.cap = c
	p.mu.Unlock()

	var timeout, tick <-chan time.Time
	if c.steps == 0 {
		t := time.NewTimer(opts.Duration)
		defer t.Stop()
		timeout = t.C
	}
	if opts.MaxEvents > 0 {
		t := time.NewTicker(captureCheckEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case d := <-c.done:
			return p.finishCapture(d)
		case <-tick:
			if p.boundCapture(c, opts.MaxEvents) {
				return p.finishCapture(<-c.done)
			}
			continue
		case <-timeout:
			p.mu.Lock()
			if p.cap == c {
				p.cap = nil
				c.sess.windowEnd = true
				res, err := c.sess.Stop()
				c.done <- captureDone{res: res, err: err}
			}
			p.mu.Unlock()
			return p.finishCapture(<-c.done)
		case <-ctx.Done():
			p.mu.Lock()
			if p.cap == c {
				p.cap = nil
				if c.sess != nil {
					c.sess.Stop() //nolint:errcheck // cancelled: the result is not wanted
				}
			}
			p.mu.Unlock()
			return nil, ctx.Err()
		}
	}
}

// boundCapture ends capture c when its session holds max records or more, and reports whether
// it did (its result is then in c.done).
func (p *Profiler) boundCapture(c *capture, max int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cap != c || c.sess == nil {
		return false
	}
	n := c.sess.records()
	if n < max {
		return false
	}
	p.cap = nil
	c.sess.windowEnd = true // ended mid-step: the open step is left out, as at a window's end
	res, err := c.sess.Stop()
	if res != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s%d records (CaptureOptions.MaxEvents): it ended with %d, before the steps or time asked for were done", CaptureBoundWarning, max, n))
	}
	c.done <- captureDone{res: res, err: err}
	return true
}

func (p *Profiler) finishCapture(d captureDone) (*Result, error) {
	if d.res == nil {
		return nil, d.err
	}
	return d.res, errors.Join(d.err, p.deliver([]*Result{d.res}))
}

// advanceCapture moves a capture by steps at a step boundary: it ends the capture when its
// last step has just closed and starts a pending one. p.mu is held.
func (p *Profiler) advanceCapture() {
	c := p.cap
	if c == nil || c.steps == 0 {
		return
	}
	if c.sess != nil {
		c.remaining--
		if c.remaining > 0 {
			return
		}
		p.cap = nil
		res, err := c.sess.Stop()
		c.done <- captureDone{res: res, err: err}
		return
	}
	s, err := Start(c.opts)
	if err != nil {
		p.cap = nil
		c.done <- captureDone{err: fmt.Errorf("step %d: %w", p.stepNum, err)}
		return
	}
	c.sess = s
}

// Options are the session options the profiler was made with.
func (p *Profiler) Options() Options { return p.opts.Options }
