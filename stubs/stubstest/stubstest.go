// Package stubstest is the conformance kit for device backends: named cases that check a
// stubs.Stubs implementation, in Go or in C through stubs.Open, against PyTorch's ProfilerStubs
// contract and the rules orprof adds to it (package stubs, orprof_stubs.h). Each case's Desc
// states the rule it enforces. Run runs them as subtests of a backend author's `go test`, Check
// returns the failures as one error for programs such as `orprof conformance`:
//
//	func TestConformance(t *testing.T) {
//		stubstest.Run(t, func(t *testing.T) stubs.Stubs { return mybackend.New() })
//	}
package stubstest

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/orprof/orprof/internal/verdict"
	"github.com/orprof/orprof/stubs"
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

// Config holds the knobs a case reads: the defaults in the field comments, changed by Options.
type Config struct {
	// Timeout bounds each case (default 30 s; 0 means none). A case that times out is reported
	// as failed; its goroutine, stuck in the backend, is abandoned.
	Timeout time.Duration
	// Events is the number of events events-outstanding holds at once (default 100,000);
	// event-lifetime creates and releases twice as many.
	Events int
	// Device is the backend's device name, which error-text looks for in a failure's message.
	// A backend with a DeviceName() string method (C backends) names itself; otherwise, when
	// Device is empty, error-text checks the message without the name.
	Device string

	// another makes a second instance of the backend (elapsed-foreign); nil when unknown.
	another func() (stubs.Stubs, error)
}

func defaultConfig() Config { return Config{Timeout: 30 * time.Second, Events: 100_000} }

// Option changes the Config of Check, Run or Case.Run.
type Option func(*Config)

// Timeout sets the per-case time limit; 0 disables it.
func Timeout(d time.Duration) Option { return func(c *Config) { c.Timeout = d } }

// Events sets how many events events-outstanding holds at once (event-lifetime makes twice as
// many, in batches).
func Events(n int) Option { return func(c *Config) { c.Events = n } }

// Device names the backend for error-text (see Config.Device).
func Device(name string) Option { return func(c *Config) { c.Device = name } }

// SkipError is returned by a case whose capability the backend lacks; the case is reported as
// skipped with Reason.
type SkipError struct{ Reason string }

// Error returns "skipped: " and the reason.
func (e *SkipError) Error() string { return "skipped: " + e.Reason }

// Skipf returns a *SkipError with a formatted reason.
func Skipf(format string, args ...any) error { return &SkipError{Reason: fmt.Sprintf(format, args...)} }

// NullElapser is implemented by loaders whose Elapsed refuses nil events before the backend sees
// them, such as *stubs.CStubs. ElapsedRaw passes nil events on to the backend (as NULL for C), so
// elapsed-null tests the backend and not the loader.
type NullElapser interface {
	ElapsedRaw(start, end stubs.Event) (float64, error)
}

// Case is one named conformance check. Desc states the rule it enforces and where the rule comes
// from (PyTorch's ProfilerStubs contract, OpenReg's reference stubs, or orprof's own contract);
// `orprof conformance -v` prints it. Func runs the check against s and returns nil when s
// conforms, a *SkipError when s lacks an optional capability, and otherwise an error saying what
// is wrong. Func runs on a goroutine locked to a fresh OS thread (which ends with it), may call s
// from other threads it starts, and may leave s unusable; use a fresh backend per case.
type Case struct {
	Name string
	Desc string
	Func func(s stubs.Stubs, cfg Config) error
}

// Run makes a backend with newBackend, runs the case on it within the configured timeout, closes
// the backend if it is a stubs.Closer (unless the case timed out and may still be using it), and
// reports the outcome. A panic in the case or in the backend's Go code is a failure.
func (c Case) Run(newBackend func() (stubs.Stubs, error), opts ...Option) Result {
	cfg := configure(opts)
	s, err := newBackend()
	if err == nil && s == nil {
		err = errors.New("newBackend returned nil stubs")
	}
	if err != nil {
		return Result{Name: c.Name, Status: Fail, Reason: "new backend: " + err.Error()}
	}
	cfg.another = newBackend
	return result(c.Name, c.run(s, cfg))
}

func result(name string, err error) Result {
	var se *SkipError
	switch {
	case err == nil:
		return Result{Name: name, Status: Pass}
	case errors.As(err, &se):
		return Result{Name: name, Status: Skip, Reason: se.Reason}
	default:
		return Result{Name: name, Status: Fail, Reason: err.Error()}
	}
}

// notEnabled is the reason every case but enabled skips a backend whose Enabled is false.
const notEnabled = "not enabled: Enabled() is false, so the backend cannot be checked"

// run runs the case on s with cfg.Timeout, on a goroutine locked to an OS thread that ends with
// it (so thread-local state the backend keeps cannot leak into another case), recovering panics,
// and closes s afterwards. Every case but enabled skips a backend that is not enabled.
func (c Case) run(s stubs.Stubs, cfg Config) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the case
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v", r)
			}
		}()
		if c.Name != "enabled" && !s.Enabled() {
			done <- &SkipError{Reason: notEnabled}
			return
		}
		done <- c.Func(s, cfg)
	}()
	var timeout <-chan time.Time
	if cfg.Timeout > 0 {
		t := time.NewTimer(cfg.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case err := <-done:
		if cl, ok := s.(stubs.Closer); ok {
			if cerr := cl.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("Close: %w", cerr)
			}
		}
		return err
	case <-timeout:
		return fmt.Errorf("timed out after %v", cfg.Timeout)
	}
}

func configure(opts []Option) Config {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// Cases returns the conformance cases in the order Check and Run use; Names lists their names.
// The slice is new on every call.
func Cases() []Case { return cases() }

// Names returns the names of the cases, in order. Names are stable.
func Names() []string {
	var out []string
	for _, c := range cases() {
		out = append(out, c.Name)
	}
	return out
}

// Check runs every case, each against a fresh backend from newBackend, one after another, and
// returns the failures joined with errors.Join, each prefixed by its case name; nil when the
// backend conforms. Skipped cases are not failures. It is the form programs use; tests use Run.
func Check(newBackend func() (stubs.Stubs, error), opts ...Option) error {
	cfg := configure(opts)
	var errs []error
	for _, c := range Cases() {
		s, err := newBackend()
		if err == nil && s == nil {
			err = errors.New("newBackend returned nil stubs")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: new backend: %w", c.Name, err))
			continue
		}
		cfg.another = newBackend
		err = c.run(s, cfg)
		var se *SkipError
		if err != nil && !errors.As(err, &se) {
			errs = append(errs, fmt.Errorf("%s: %w", c.Name, err))
		}
	}
	return errors.Join(errs...)
}

// Run runs every case as a subtest named after it, each with a fresh backend from newBackend
// (which may call t.Fatal or register t.Cleanup). Backends that are stubs.Closer are closed after
// their case. Missing optional capabilities (DeviceCounter, Ranger, Marker, DeviceWorker, a
// second device) call t.Skip with the reason; a failure is one t.Error line starting with the
// rule the case enforces. A C backend is checked the same way, with a backend made by
// stubs.Open("./libmybackend.so"). Run it with -race: several cases call the backend from many
// goroutines at once (concurrent-record raises GOMAXPROCS to at least 8 while it runs, so their C
// calls overlap).
func Run(t *testing.T, newBackend func(t *testing.T) stubs.Stubs, opts ...Option) {
	t.Helper()
	cfg := configure(opts)
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			s := newBackend(t)
			if s == nil {
				t.Fatal("newBackend returned nil stubs")
			}
			cfg := cfg
			cfg.another = func() (stubs.Stubs, error) { return newBackend(t), nil }
			err := c.run(s, cfg)
			var se *SkipError
			switch {
			case err == nil:
			case errors.As(err, &se):
				t.Skip(se.Reason)
			default:
				t.Errorf("%v\n(rule: %s)", err, c.Desc)
			}
		})
	}
}
