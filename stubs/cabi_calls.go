//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package stubs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
)

// ErrClosed is the error of every call on a CStubs after Close.
var ErrClosed = errors.New("backend closed")

// ErrNoMessage is wrapped by the error of a C hook that failed without a lastError message.
var ErrNoMessage = errors.New("no lastError message")

// cEvent is an event made by a CStubs: the backend's ORProf_Event* and the CStubs that made it.
type cEvent struct {
	owner    *CStubs
	h        uintptr
	released atomic.Bool
}

// recordOut holds record's out-values; one allocation per Record, alive only during the call.
type recordOut struct {
	device int32
	event  uintptr
	cpuNs  int64
}

// Enabled calls the backend's enabled hook; false after Close. It does not block unless the
// backend does.
func (s *CStubs) Enabled() bool {
	if s.closed.Load() {
		return false
	}
	return s.fn.enabled() != 0
}

// DeviceCount calls the backend's deviceCount hook. Safe for concurrent use.
func (s *CStubs) DeviceCount() (int, error) {
	if s.closed.Load() {
		return 0, s.wrap("deviceCount", ErrClosed)
	}
	n := new(int32)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if rc := s.fn.deviceCount(n); rc != 0 {
		return 0, s.callErr("deviceCount", rc)
	}
	return int(*n), nil
}

// Record calls the backend's record hook on the calling goroutine's OS thread, passing NULL for
// the outputs want does not ask for. The device is the backend's current device on that thread
// (see CStubs about locking). A returned Event must be given back with ReleaseEvent.
func (s *CStubs) Record(_ context.Context, want Want) (Recorded, error) {
	if s.closed.Load() {
		return Recorded{}, s.wrap("record", ErrClosed)
	}
	out := new(recordOut)
	var (
		pd *int32
		pe *uintptr
		pn *int64
	)
	if want&WantDevice != 0 {
		pd = &out.device
	}
	if want&WantEvent != 0 {
		pe = &out.event
	}
	if want&WantCPUTime != 0 {
		pn = &out.cpuNs
	}
	runtime.LockOSThread()
	rc := s.fn.record(pd, pe, pn)
	var err error
	if rc != 0 {
		err = s.callErr("record", rc)
	}
	runtime.UnlockOSThread()
	if err != nil {
		return Recorded{}, err
	}
	r := Recorded{Device: int(out.device), CPUNs: out.cpuNs}
	if pe != nil {
		if out.event == 0 {
			return Recorded{}, s.wrap("record", errors.New("succeeded but returned a NULL event"))
		}
		r.Event = &cEvent{owner: s, h: out.event}
	}
	return r, nil
}

// Elapsed calls the backend's elapsed hook, which blocks until both events have completed, and
// returns microseconds from start to end. Nil events, released events and events from another
// backend are an error and never reach C. It may be called from any goroutine.
func (s *CStubs) Elapsed(start, end Event) (float64, error) {
	if start == nil || end == nil {
		return 0, s.wrap("elapsed", errors.New("nil event"))
	}
	return s.ElapsedRaw(start, end)
}

// ElapsedRaw is Elapsed without the nil check: a nil event is passed to the backend as NULL, whose
// elapsed hook must fail without crashing. It exists so the conformance kit (stubstest) can test
// the backend rather than this loader; profiling code uses Elapsed.
func (s *CStubs) ElapsedRaw(start, end Event) (float64, error) {
	if s.closed.Load() {
		return 0, s.wrap("elapsed", ErrClosed)
	}
	hs, err := s.handle(start)
	if err != nil {
		return 0, s.wrap("elapsed", fmt.Errorf("start: %w", err))
	}
	he, err := s.handle(end)
	if err != nil {
		return 0, s.wrap("elapsed", fmt.Errorf("end: %w", err))
	}
	us := new(float32)
	runtime.LockOSThread()
	rc := s.fn.elapsed(hs, he, us)
	if rc != 0 {
		err = s.callErr("elapsed", rc)
	}
	runtime.UnlockOSThread()
	runtime.KeepAlive(start)
	runtime.KeepAlive(end)
	if err != nil {
		return 0, err
	}
	return float64(*us), nil
}

// handle returns the C event behind e; nil gives 0 (NULL).
func (s *CStubs) handle(e Event) (uintptr, error) {
	if e == nil {
		return 0, nil
	}
	ce, ok := e.(*cEvent)
	switch {
	case !ok || ce == nil:
		return 0, fmt.Errorf("event of type %T is not from this backend", e)
	case ce.owner != s:
		return 0, fmt.Errorf("event is from another backend (%s)", ce.owner.name)
	case ce.released.Load():
		return 0, errors.New("event already released")
	}
	return ce.h, nil
}

// ReleaseEvent calls the backend's destroyEvent for an event this CStubs made. A second release
// of the same event, nil and foreign events are ignored. It works after Close too, so events
// still held can be freed. It does not block unless the backend does.
func (s *CStubs) ReleaseEvent(e Event) {
	ce, ok := e.(*cEvent)
	if !ok || ce == nil || ce.owner != s || ce.released.Swap(true) {
		return
	}
	s.fn.destroyEvent(ce.h)
}

// OnEachDevice calls the backend's onEachDevice hook, which calls fn(ctx, i) for every device i
// with i current in the backend's thread-local state. The whole call runs with the calling
// goroutine locked to its OS thread, so Record inside fn sees device i; fn must not hand that
// work to other goroutines. fn runs on that thread, synchronously. The C ABI cannot stop the
// loop early: after fn returns an error (or panics, which is turned into an error) the remaining
// devices are skipped on the Go side and the first error is returned. The callback is one C
// function pointer made once per process; the call is found through an integer handle passed as
// userData, never through a Go pointer.
func (s *CStubs) OnEachDevice(ctx context.Context, fn func(ctx context.Context, device int) error) error {
	if s.closed.Load() {
		return s.wrap("onEachDevice", ErrClosed)
	}
	if fn == nil {
		return s.wrap("onEachDevice", errors.New("nil fn"))
	}
	st := &eachState{run: func(device int) error { return fn(ctx, device) }}
	h := registerEach(st)
	defer unregisterEach(h)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := s.fn.onEachDevice(eachCallback(), h)
	st.mu.Lock()
	ferr := st.err
	st.mu.Unlock()
	if ferr != nil {
		return ferr
	}
	if rc != 0 {
		return s.callErr("onEachDevice", rc)
	}
	return nil
}

// Synchronize calls the backend's synchronize hook, which blocks until all queued work on every
// device has completed.
func (s *CStubs) Synchronize(context.Context) error {
	if s.closed.Load() {
		return s.wrap("synchronize", ErrClosed)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if rc := s.fn.synchronize(); rc != 0 {
		return s.callErr("synchronize", rc)
	}
	return nil
}

// Mark calls the backend's mark hook on the annotation thread (see CStubs) and waits for it.
// A name containing a NUL byte is refused. A backend without annotation hooks gives an error
// matching errors.ErrUnsupported.
func (s *CStubs) Mark(name string) error { return s.annotate(opMark, "mark", name) }

// RangePush calls the backend's rangePush hook on the annotation thread and waits for it. Ranges
// from all goroutines share that thread's stack. Errors as for Mark.
func (s *CStubs) RangePush(name string) error { return s.annotate(opPush, "rangePush", name) }

// RangePop calls the backend's rangePop hook on the annotation thread and waits for it; a pop
// with nothing pushed is the backend's error.
func (s *CStubs) RangePop() error { return s.annotate(opPop, "rangePop", "") }

func (s *CStubs) annotate(op rangeOp, hook, name string) error {
	if s.closed.Load() {
		return s.wrap(hook, ErrClosed)
	}
	if s.ranges == nil {
		return s.wrap(hook, fmt.Errorf("%w: the backend's mark, rangePush and rangePop are NULL", errors.ErrUnsupported))
	}
	if strings.IndexByte(name, 0) >= 0 {
		return s.wrap(hook, errors.New("name contains a NUL byte"))
	}
	rc, msg, err := s.ranges.do(op, name)
	if err != nil {
		return s.wrap(hook, err)
	}
	if rc != 0 {
		return s.wrap(hook, cCallError(s.name, hook, rc, msg))
	}
	return nil
}

// callErr builds the error of a hook that returned rc, with the backend's lastError message. It
// must run on the OS thread of the failed call, still locked.
func (s *CStubs) callErr(hook string, rc int32) error {
	msg, _ := cString(s.fn.lastError(), 64<<10)
	return s.wrap(hook, cCallError(s.name, hook, rc, msg))
}

// cCallError is the backend's message for a failed hook. The CallError around it names the device
// and the hook, so a message that starts with them ("testreg: record: …", as backends written
// before orprof_stubs.h said so may do) loses that start rather than repeating it.
func cCallError(device, hook string, rc int32, msg string) error {
	msg = strings.TrimPrefix(msg, device+": ")
	msg = strings.TrimPrefix(msg, hook+": ")
	if msg == "" {
		return fmt.Errorf("failed with code %d (%w)", rc, ErrNoMessage)
	}
	return errors.New(msg)
}

func (s *CStubs) wrap(hook string, err error) error { return Wrap(s.name, hook, err) }

// QueueWork calls the backend's optional queueWork hook on the calling goroutine's OS thread, so
// the work goes to the current stream of the backend's current device on that thread (inside
// OnEachDevice's fn: device i). It fails with an error matching errors.ErrUnsupported when the
// backend has no queueWork hook (NULL, or a table compiled before the hook was appended).
func (s *CStubs) QueueWork(_ context.Context, d time.Duration) error {
	if s.closed.Load() {
		return s.wrap("queueWork", ErrClosed)
	}
	if s.fn.queueWork == nil {
		return s.wrap("queueWork", fmt.Errorf("%w: the backend has no queueWork hook", errors.ErrUnsupported))
	}
	if d < 0 {
		return s.wrap("queueWork", fmt.Errorf("negative duration %v", d))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if rc := s.fn.queueWork(int64(d)); rc != 0 {
		return s.callErr("queueWork", rc)
	}
	return nil
}

// HasQueueWork reports whether the backend has the optional queueWork hook.
func (s *CStubs) HasQueueWork() bool { return s.fn.queueWork != nil }

// ThreadRangePush calls the backend's rangePush hook on the calling goroutine's OS thread, which
// the caller keeps locked until the matching ThreadRangePop (stubs.ThreadRanger): each thread has
// the backend's own stack. Errors as for RangePush.
func (s *CStubs) ThreadRangePush(name string) error {
	return s.annotateHere(opPush, "rangePush", name)
}

// ThreadRangePop calls the backend's rangePop hook on the calling goroutine's OS thread.
func (s *CStubs) ThreadRangePop() error { return s.annotateHere(opPop, "rangePop", "") }

func (s *CStubs) annotateHere(op rangeOp, hook, name string) error {
	if s.closed.Load() {
		return s.wrap(hook, ErrClosed)
	}
	if s.ranges == nil {
		return s.wrap(hook, fmt.Errorf("%w: the backend's mark, rangePush and rangePop are NULL", errors.ErrUnsupported))
	}
	if strings.IndexByte(name, 0) >= 0 {
		return s.wrap(hook, errors.New("name contains a NUL byte"))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var rc int32
	if op == opPush {
		rc = s.fn.rangePush(name)
	} else {
		rc = s.fn.rangePop()
	}
	if rc != 0 {
		return s.callErr(hook, rc)
	}
	return nil
}
