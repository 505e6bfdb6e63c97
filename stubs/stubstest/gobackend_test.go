package stubstest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/stubs"
	"github.com/orprof/orprof/stubs/stubstest"
)

// goBackend is a minimal correct Go backend: the current device travels in the context, an event
// is the monotonic time it was recorded (an always-idle device), and it has no annotation hooks.
type goBackend struct {
	start time.Time
	// brokenNil makes Elapsed dereference nil events, like a careless backend.
	brokenNil bool
	// block makes Synchronize wait on it.
	block chan struct{}
}

type devKey struct{}

type goEvent struct {
	owner      *goBackend
	device, ns int64
}

func newGoBackend() *goBackend { return &goBackend{start: time.Now()} }

func (b *goBackend) Enabled() bool { return true }

func (b *goBackend) DeviceCount() (int, error) { return 2, nil }

func (b *goBackend) Record(ctx context.Context, want stubs.Want) (stubs.Recorded, error) {
	dev, _ := ctx.Value(devKey{}).(int)
	var r stubs.Recorded
	if want&stubs.WantDevice != 0 {
		r.Device = dev
	}
	if want&stubs.WantCPUTime != 0 {
		r.CPUNs = time.Now().UnixNano()
	}
	if want&stubs.WantEvent != 0 {
		r.Event = &goEvent{owner: b, device: int64(dev), ns: int64(time.Since(b.start))}
	}
	return r, nil
}

func (b *goBackend) Elapsed(start, end stubs.Event) (float64, error) {
	s, ok1 := start.(*goEvent)
	e, ok2 := end.(*goEvent)
	switch {
	case !b.brokenNil && (s == nil || e == nil):
		return 0, errors.New("nil event")
	case start != nil && !ok1 || end != nil && !ok2:
		return 0, errors.New("not an event of this backend")
	case s.owner != b || e.owner != b: // brokenNil: dereferences nil events
		return 0, errors.New("event of another instance")
	case s.device != e.device:
		return 0, errors.New("events on different devices")
	}
	return float64(e.ns-s.ns) / 1e3, nil
}

func (b *goBackend) OnEachDevice(ctx context.Context, fn func(context.Context, int) error) error {
	for i := range 2 {
		if err := fn(context.WithValue(ctx, devKey{}, i), i); err != nil {
			return err
		}
	}
	return nil
}

func (b *goBackend) Synchronize(context.Context) error {
	if b.block != nil {
		<-b.block
	}
	return nil
}

func TestRunGoBackendSkipsMissingCapabilities(t *testing.T) {
	stubstest.Run(t, func(*testing.T) stubs.Stubs { return newGoBackend() })
	var skipped []string
	for _, c := range stubstest.Cases() {
		r := c.Run(func() (stubs.Stubs, error) { return newGoBackend(), nil })
		require.NotEqual(t, stubstest.Fail, r.Status, r.String())
		if r.Status == stubstest.Skip {
			skipped = append(skipped, r.String())
		}
	}
	assert.Equal(t, []string{
		"SKIP elapsed-released: backend does not implement stubs.EventReleaser: its events are never released",
		"SKIP ranges: backend does not implement stubs.Ranger",
		"SKIP ranges-per-thread: backend does not implement stubs.Ranger",
		"SKIP mark: backend does not implement stubs.Marker",
		"SKIP elapsed-spans-work: no device-work hook (stubs.DeviceWorker, the C ABI's queueWork)",
		"SKIP synchronize-waits-all: no device-work hook (stubs.DeviceWorker, the C ABI's queueWork)",
	}, skipped)
}

func TestPanickingBackendFailsItsCase(t *testing.T) {
	err := stubstest.Check(func() (stubs.Stubs, error) {
		b := newGoBackend()
		b.brokenNil = true
		return b, nil
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "elapsed-null: panic: runtime error: invalid memory address or nil pointer dereference")
	assert.Len(t, strings.Split(err.Error(), "\n"), 1, "only elapsed-null fails")
}

func TestHangingBackendTimesOut(t *testing.T) {
	b := newGoBackend()
	b.block = make(chan struct{})
	defer close(b.block)
	var sync stubstest.Case
	for _, c := range stubstest.Cases() {
		if c.Name == "synchronize" {
			sync = c
		}
	}
	r := sync.Run(func() (stubs.Stubs, error) { return b, nil }, stubstest.Timeout(50*time.Millisecond))
	assert.Equal(t, "FAIL synchronize: timed out after 50ms", r.String())
}
