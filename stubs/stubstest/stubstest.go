// Package stubstest is the conformance kit for device backends: named cases that check a
// stubs.Stubs implementation, in Go or in C through stubs.Open, against the contract of package
// stubs and orprof_stubs.h. Run runs them as subtests of a backend author's `go test`, Check
// returns the failures as one error for programs such as `orprof conformance`:
//
//	func TestConformance(t *testing.T) {
//		stubstest.Run(t, func(t *testing.T) stubs.Stubs { return mybackend.New() })
//	}
package stubstest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orprof/orprof/stubs"
)

// Status is the outcome of one case.
type Status string

// The outcomes of a case.
const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	Skip Status = "SKIP"
)

// Result is the outcome of one case against one backend. Reason is empty for Pass.
type Result struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// String is the one-line form `orprof conformance` prints: "PASS name", "FAIL name: reason" or
// "SKIP name: reason". Line breaks in the reason are folded.
func (r Result) String() string {
	if r.Reason == "" {
		return string(r.Status) + " " + r.Name
	}
	return string(r.Status) + " " + r.Name + ": " + oneLine(r.Reason)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// Config holds the knobs a case reads: the defaults in the field comments, changed by Options.
type Config struct {
	// Timeout bounds each case (default 30 s; 0 means none). A case that times out is reported
	// as failed; its goroutine, stuck in the backend, is abandoned.
	Timeout time.Duration
	// Events is the number of events event-lifetime creates and releases (default 100,000).
	Events int
}

func defaultConfig() Config { return Config{Timeout: 30 * time.Second, Events: 100_000} }

// Option changes the Config of Check, Run or Case.Run.
type Option func(*Config)

// Timeout sets the per-case time limit; 0 disables it.
func Timeout(d time.Duration) Option { return func(c *Config) { c.Timeout = d } }

// Events sets how many events the event-lifetime case creates and releases.
func Events(n int) Option { return func(c *Config) { c.Events = n } }

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

// Case is one named conformance check. Func runs it against s and returns nil when s conforms,
// a *SkipError when s lacks an optional capability, and otherwise an error saying what is wrong.
// Func may call s from several goroutines and may leave s unusable; use a fresh backend per case.
type Case struct {
	Name string
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

// run runs the case on s with cfg.Timeout, recovering panics, and closes s afterwards.
func (c Case) run(s stubs.Stubs, cfg Config) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v", r)
			}
		}()
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

// Cases returns the conformance cases in the order Check and Run use. Names are stable:
// enabled, device-count, record-outputs, record-cpu-clock, elapsed-self, elapsed-order,
// elapsed-host-gap, elapsed-null, on-each-device, synchronize, ranges, mark, concurrent-record,
// event-lifetime. The slice is new on every call.
func Cases() []Case {
	return []Case{
		{"enabled", checkEnabled},
		{"device-count", checkDeviceCount},
		{"record-outputs", checkRecordOutputs},
		{"record-cpu-clock", checkRecordCPUClock},
		{"elapsed-self", checkElapsedSelf},
		{"elapsed-order", checkElapsedOrder},
		{"elapsed-host-gap", checkElapsedHostGap},
		{"elapsed-null", checkElapsedNull},
		{"on-each-device", checkOnEachDevice},
		{"synchronize", checkSynchronize},
		{"ranges", checkRanges},
		{"mark", checkMark},
		{"concurrent-record", checkConcurrentRecord},
		{"event-lifetime", checkEventLifetime},
	}
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
// their case. Missing optional capabilities (DeviceCounter, Ranger, Marker) call t.Skip with the
// reason. A C backend is checked the same way, with a backend made by
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
			err := c.run(s, cfg)
			var se *SkipError
			switch {
			case err == nil:
			case errors.As(err, &se):
				t.Skip(se.Reason)
			default:
				t.Error(err)
			}
		})
	}
}
