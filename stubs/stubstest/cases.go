package stubstest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orprof/orprof/stubs"
)

// cases is the list Cases returns. Each Desc is the rule, in one sentence or two, and its source.
func cases() []Case {
	return []Case{
		{"enabled", "Enabled() is true for a usable backend (PyTorch: DefaultStubs return false, real backends true); " +
			"when it is false every other case is skipped as \"not enabled\".", checkEnabled},
		{"device-count", "DeviceCount, when the backend has it, is at least 1 and the same on every call " +
			"(orprof: stubs.DeviceCounter, the C ABI's deviceCount).", checkDeviceCount},
		{"record-outputs", "Record produces exactly the outputs asked for: every out-pointer of ProfilerStubs::record " +
			"is optional (NULL means \"don't\") and no event is made unless asked for (PyTorch).", checkRecordOutputs},
		{"record-cpu-clock", "Record's cpu_ns is CLOCK_REALTIME in nanoseconds, as c10::getTime(), taken during the call " +
			"and never going backwards on one thread (PyTorch).", checkRecordCPUClock},
		{"elapsed-self", "Elapsed(e, e) is 0 µs (PyTorch: elapsed is end − start).", checkElapsedSelf},
		{"elapsed-order", "Elapsed(earlier, later) ≥ 0 and Elapsed(later, earlier) is its negative; back-to-back records " +
			"on one stream complete in order (PyTorch: elapsed is end − start, not clamped).", checkElapsedOrder},
		{"elapsed-host-gap", "Two records ≥ 20 ms apart on an idle stream measure the difference of their cpu_ns within " +
			"max(200 µs, 2 %): PyTorch places device time on the host timeline at the start event's cpu_ns + elapsed, " +
			"so elapsed must be right, in microseconds, not just plausible.", checkElapsedHostGap},
		{"elapsed-repeatable", "Elapsed of the same pair of events gives the same value every time " +
			"(PyTorch reads completed events' stored times).", checkElapsedRepeatable},
		{"elapsed-additive", "E(a, b) + E(b, c) = E(a, c) within 1 µs + 0.1 % for events a, b, c recorded in order " +
			"(times are stamps on one device clock).", checkElapsedAdditive},
		{"elapsed-null", "Elapsed with a NULL event returns 0 or an error and never crashes " +
			"(PyTorch: OpenReg's stubs return a quiet 0, CUDA's fail).", checkElapsedNull},
		{"elapsed-devices", "Elapsed of events recorded on two devices is an error, not a crash or a number " +
			"(legacy PyTorch: \"Events are not on the same device\"; OpenReg's orEventElapsedTime fails).", checkElapsedDevices},
		{"elapsed-foreign", "Elapsed of an event another backend, or another instance of this one, made is an error, " +
			"not a crash (orprof: an event belongs to the backend that made it).", checkElapsedForeign},
		{"elapsed-released", "Elapsed of an event already given back with ReleaseEvent is an error, not a crash " +
			"(orprof: stubs.EventReleaser, the C ABI's destroyEvent through the loader).", checkElapsedReleased},
		{"error-text", "A provoked failure's message is not empty and names the backend and the hook once each " +
			"(orprof: \"DEVICE: HOOK: message\", the C backend's lastError not repeating them).", checkErrorText},
		{"on-each-device", "OnEachDevice calls fn for devices 0..count−1 in order with that device current, restores " +
			"the previous device, and stops at fn's first error (PyTorch: a device guard around set_index(i)).", checkOnEachDevice},
		{"device-per-thread", "The current device is per thread: a thread inside OnEachDevice at another device does not " +
			"change the device another thread's Record reports (PyTorch, CUDA, OpenReg: a thread-local current device).", checkDevicePerThread},
		{"synchronize", "Synchronize succeeds on an idle and a busy device, concurrently with Record and itself " +
			"(PyTorch: a device-wide synchronize).", checkSynchronize},
		{"synchronize-keeps-device", "Synchronize leaves the calling thread's current device as it was " +
			"(PyTorch calls it between ops; a changed device would move later events).", checkSynchronizeKeepsDevice},
		{"ranges", "RangePush/RangePop nest and a pop with nothing pushed is an error; push and pop that are observable " +
			"no-ops (that pop succeeds) mean \"no annotation tool\", a skip (PyTorch: NVTX ranges; OpenReg's are no-ops).", checkRanges},
		{"ranges-per-thread", "The range stack is per OS thread: a pop on another thread does not pop this thread's push " +
			"(NVTX's ranges are per thread; the C ABI pops on the push's thread).", checkRangesPerThread},
		{"mark", "Mark accepts empty, long and UTF-8 names (PyTorch: nvtxMark; OpenReg's is a no-op).", checkMark},
		{"concurrent-record", "Record and Elapsed are safe from many OS threads at once " +
			"(PyTorch records from every thread running ops).", checkConcurrentRecord},
		{"events-cross-threads", "An event recorded on one OS thread, which then exits, can be measured on a second and " +
			"released on a third (PyTorch measures workers' events on the collecting thread).", checkEventsCrossThreads},
		{"elapsed-spans-work", "With the optional device-work hook: Elapsed of events recorded around work queued for " +
			"30 ms is at least 30 ms, however fast the host recorded them (PyTorch: elapsed is device time).", checkElapsedSpansWork},
		{"synchronize-waits-all", "With the optional device-work hook: Synchronize returns only after work queued on every " +
			"device has finished, not just the current one (orprof's contract; OpenReg's orDeviceSynchronize covers the " +
			"current device only).", checkSynchronizeWaitsAll},
		{"events-outstanding", "No cap on live events: 100,000 outstanding, then Elapsed(first, last), then all released " +
			"(a profiled run holds two events per op until the end).", checkEventsOutstanding},
		{"event-lifetime", "Released events give their resources back: twice the outstanding count created and released " +
			"in batches never runs out (orprof: ReleaseEvent/destroyEvent once per event).", checkEventLifetime},
	}
}

// all asks Record for every output. Cases other than record-outputs ask for everything, so a
// backend that mishandles NULL out-pointers fails record-outputs only.
const all = stubs.WantDevice | stubs.WantEvent | stubs.WantCPUTime

func release(s stubs.Stubs, events ...stubs.Event) {
	if r, ok := s.(stubs.EventReleaser); ok {
		for _, e := range events {
			if e != nil {
				r.ReleaseEvent(e)
			}
		}
	}
}

// record asks for every output and checks that an event came back.
func record(ctx context.Context, s stubs.Stubs) (stubs.Recorded, error) {
	r, err := s.Record(ctx, all)
	if err != nil {
		return r, fmt.Errorf("Record: %w", err)
	}
	if r.Event == nil {
		return r, errors.New("Record(WantEvent) returned no event")
	}
	return r, nil
}

// currentDevice is the device Record reports in ctx on the calling thread. It asks for every
// output, as every case but record-outputs does.
func currentDevice(ctx context.Context, s stubs.Stubs) (int, error) {
	r, err := record(ctx, s)
	if err != nil {
		return 0, err
	}
	release(s, r.Event)
	return r.Device, nil
}

// deviceCount is the backend's device count, or -1 when it cannot say.
func deviceCount(s stubs.Stubs) int {
	if dc, ok := s.(stubs.DeviceCounter); ok {
		if n, err := dc.DeviceCount(); err == nil && n > 0 {
			return n
		}
	}
	return -1
}

// osThread is a goroutine locked to its own OS thread that runs what do hands it, so a case can
// act on several threads in an order it chooses (no scheduling decides a verdict). exit ends the
// goroutine still locked, so the runtime ends the thread with it and its thread-local state.
type osThread struct {
	reqs chan func()
	done chan struct{}
}

func newThread() *osThread {
	t := &osThread{reqs: make(chan func()), done: make(chan struct{})}
	go func() {
		runtime.LockOSThread() // never unlocked
		defer close(t.done)
		for f := range t.reqs {
			f()
		}
	}()
	return t
}

// do runs f on the thread and waits for it; a panic becomes an error.
func (t *osThread) do(f func() error) error {
	res := make(chan error, 1)
	t.reqs <- func() {
		defer func() {
			if r := recover(); r != nil {
				res <- fmt.Errorf("panic: %v", r)
			}
		}()
		res <- f()
	}
	return <-res
}

func (t *osThread) exit() {
	close(t.reqs)
	<-t.done
}

// onLockedThread runs f on a new thread that ends afterwards.
func onLockedThread(f func() error) error {
	t := newThread()
	defer t.exit()
	return t.do(f)
}

func checkEnabled(s stubs.Stubs, _ Config) error {
	if !s.Enabled() {
		return errors.New("Enabled() = false: the backend says it is not usable")
	}
	return nil
}

func checkDeviceCount(s stubs.Stubs, _ Config) error {
	dc, ok := s.(stubs.DeviceCounter)
	if !ok {
		return Skipf("backend does not implement stubs.DeviceCounter")
	}
	n, err := dc.DeviceCount()
	if err != nil {
		return fmt.Errorf("DeviceCount: %w", err)
	}
	if n < 1 {
		return fmt.Errorf("DeviceCount() = %d, want at least 1", n)
	}
	m, err := dc.DeviceCount()
	if err != nil {
		return fmt.Errorf("second DeviceCount: %w", err)
	}
	if m != n {
		return fmt.Errorf("DeviceCount() = %d, then %d", n, m)
	}
	return nil
}

func wantString(w stubs.Want) string {
	var parts []string
	for _, f := range []struct {
		bit  stubs.Want
		name string
	}{{stubs.WantDevice, "WantDevice"}, {stubs.WantEvent, "WantEvent"}, {stubs.WantCPUTime, "WantCPUTime"}} {
		if w&f.bit != 0 {
			parts = append(parts, f.name)
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

func checkRecordOutputs(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	n := deviceCount(s)
	for want := stubs.Want(0); want <= all; want++ {
		r, err := s.Record(ctx, want)
		if err != nil {
			return fmt.Errorf("Record(%s): %w", wantString(want), err)
		}
		release(s, r.Event)
		switch {
		case want&stubs.WantEvent == 0 && r.Event != nil:
			return fmt.Errorf("Record(%s) made an event it was not asked for", wantString(want))
		case want&stubs.WantEvent != 0 && r.Event == nil:
			return fmt.Errorf("Record(%s) returned no event", wantString(want))
		case want&stubs.WantCPUTime == 0 && r.CPUNs != 0:
			return fmt.Errorf("Record(%s) set CPUNs, which was not asked for", wantString(want))
		case want&stubs.WantCPUTime != 0 && r.CPUNs <= 0:
			return fmt.Errorf("Record(%s) returned CPUNs = %d", wantString(want), r.CPUNs)
		case want&stubs.WantDevice == 0 && r.Device != 0:
			return fmt.Errorf("Record(%s) set Device, which was not asked for", wantString(want))
		case want&stubs.WantDevice != 0 && (r.Device < 0 || n > 0 && r.Device >= n):
			return fmt.Errorf("Record(%s) returned device %d, outside [0, %d)", wantString(want), r.Device, n)
		}
	}
	return nil
}

// clockTolerance is how far a Record's CPUNs may be from the host's CLOCK_REALTIME readings
// around the call: generous for coarse clocks, far below any clock or unit mix-up.
const clockTolerance = 50 * time.Millisecond

func checkRecordCPUClock(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	var prev int64
	for i := range 100 {
		before := time.Now().UnixNano()
		r, err := record(ctx, s)
		after := time.Now().UnixNano()
		if err != nil {
			return err
		}
		release(s, r.Event)
		if r.CPUNs < before-int64(clockTolerance) || r.CPUNs > after+int64(clockTolerance) {
			off, dir := time.Duration(before-r.CPUNs), "behind"
			if r.CPUNs > after {
				off, dir = time.Duration(r.CPUNs-after), "ahead of"
			}
			return fmt.Errorf("CPUNs = %d is %v %s the host's CLOCK_REALTIME (%d); want Unix-epoch nanoseconds within %v",
				r.CPUNs, off, dir, before, clockTolerance)
		}
		if r.CPUNs < prev {
			return fmt.Errorf("CPUNs went backwards on one thread by %v at record %d", time.Duration(prev-r.CPUNs), i)
		}
		prev = r.CPUNs
	}
	return nil
}

func checkElapsedSelf(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	for range 3 {
		r, err := record(ctx, s)
		if err != nil {
			return err
		}
		d, err := s.Elapsed(r.Event, r.Event)
		release(s, r.Event)
		if err != nil {
			return fmt.Errorf("Elapsed(e, e): %w", err)
		}
		if d != 0 {
			return fmt.Errorf("Elapsed(e, e) = %g µs, want 0", d)
		}
	}
	return nil
}

func checkElapsedOrder(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	a, err := record(ctx, s)
	if err != nil {
		return err
	}
	defer release(s, a.Event)
	time.Sleep(time.Millisecond)
	b, err := record(ctx, s)
	if err != nil {
		return err
	}
	defer release(s, b.Event)
	fwd, err := s.Elapsed(a.Event, b.Event)
	if err != nil {
		return fmt.Errorf("Elapsed(earlier, later): %w", err)
	}
	rev, err := s.Elapsed(b.Event, a.Event)
	if err != nil {
		return fmt.Errorf("Elapsed(later, earlier): %w", err)
	}
	switch {
	case fwd < 0:
		return fmt.Errorf("Elapsed(earlier, later) = %g µs, want ≥ 0", fwd)
	case rev > 0:
		return fmt.Errorf("Elapsed(later, earlier) = %g µs, want ≤ 0 (Elapsed(earlier, later) = %g µs)", rev, fwd)
	case math.Abs(fwd+rev) > math.Max(1, 0.01*math.Abs(fwd)):
		return fmt.Errorf("Elapsed(earlier, later) = %g µs but Elapsed(later, earlier) = %g µs; want opposite values", fwd, rev)
	}
	// Back-to-back records on one stream complete in order.
	evs := make([]stubs.Event, 0, 10)
	defer func() { release(s, evs...) }()
	for range 10 {
		r, err := record(ctx, s)
		if err != nil {
			return err
		}
		evs = append(evs, r.Event)
	}
	for i := 1; i < len(evs); i++ {
		d, err := s.Elapsed(evs[i-1], evs[i])
		if err != nil {
			return fmt.Errorf("Elapsed(record %d, record %d): %w", i-1, i, err)
		}
		if d < 0 {
			return fmt.Errorf("Elapsed(record %d, record %d) = %g µs for back-to-back records, want ≥ 0", i-1, i, d)
		}
	}
	return nil
}

// hostGaps are the host sleeps of elapsed-host-gap's tries. A backend whose device clock is exact
// passes the first. One whose stream is a host thread stamping events when it gets to run
// (OpenReg's worker, pocl) is off by that thread's wake-up delays, which a loaded host can stretch
// to milliseconds: it passes the first try whose tolerance (2 % of a longer gap each time) the
// delays stay within. A backend whose Elapsed is off by a factor fails every try, in 300 ms.
var hostGaps = []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond, 160 * time.Millisecond}

// hostTolerance is max(200 µs, 2 % of d).
func hostTolerance(d time.Duration) time.Duration { return max(200*time.Microsecond, d/50) }

func checkElapsedHostGap(s stubs.Stubs, _ Config) error {
	ctx := context.Background() // an idle stream: every earlier case waited for its events
	var got []string
	var ratio float64
	for _, gap := range hostGaps {
		a, err := record(ctx, s)
		if err != nil {
			return err
		}
		time.Sleep(gap)
		b, err := record(ctx, s)
		if err != nil {
			release(s, a.Event)
			return err
		}
		d, err := s.Elapsed(a.Event, b.Event)
		release(s, a.Event, b.Event)
		if err != nil {
			return fmt.Errorf("Elapsed: %w", err)
		}
		host := time.Duration(b.CPUNs - a.CPUNs)
		dev := time.Duration(d * float64(time.Microsecond))
		if (dev - host).Abs() <= hostTolerance(host) {
			return nil
		}
		ratio = float64(dev) / float64(host)
		got = append(got, fmt.Sprintf("%.1f µs vs %.1f µs", d, float64(host)/1e3))
	}
	hint := ""
	if ratio > 300 || ratio < 1.0/300 {
		hint = " (Elapsed is in microseconds)"
	}
	return fmt.Errorf("Elapsed of two records a host sleep apart on an idle stream vs their cpu_ns difference: %s "+
		"(last ratio %.3f); want equal within max(200 µs, 2 %%)%s", strings.Join(got, ", "), ratio, hint)
}

// pair records n events on the calling thread, sleeping gap before each but the first.
func pair(ctx context.Context, s stubs.Stubs, n int, gap time.Duration) ([]stubs.Recorded, error) {
	var out []stubs.Recorded
	for i := range n {
		if i > 0 {
			time.Sleep(gap)
		}
		r, err := record(ctx, s)
		if err != nil {
			for _, o := range out {
				release(s, o.Event)
			}
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func releaseAll(s stubs.Stubs, rs []stubs.Recorded) {
	for _, r := range rs {
		release(s, r.Event)
	}
}

func checkElapsedRepeatable(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	rs, err := pair(ctx, s, 2, 2*time.Millisecond)
	if err != nil {
		return err
	}
	defer releaseAll(s, rs)
	first, err := s.Elapsed(rs[0].Event, rs[1].Event)
	if err != nil {
		return fmt.Errorf("Elapsed: %w", err)
	}
	for i := range 3 {
		time.Sleep(time.Millisecond)
		again, err := s.Elapsed(rs[0].Event, rs[1].Event)
		if err != nil {
			return fmt.Errorf("Elapsed of the same pair again: %w", err)
		}
		if again != first {
			return fmt.Errorf("Elapsed of the same pair gave %g µs, then %g µs on call %d; want the same value", first, again, i+2)
		}
	}
	return nil
}

func checkElapsedAdditive(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	rs, err := pair(ctx, s, 3, 3*time.Millisecond)
	if err != nil {
		return err
	}
	defer releaseAll(s, rs)
	var e [3]float64
	for i, p := range [][2]int{{0, 1}, {1, 2}, {0, 2}} {
		if e[i], err = s.Elapsed(rs[p[0]].Event, rs[p[1]].Event); err != nil {
			return fmt.Errorf("Elapsed(%c, %c): %w", 'a'+p[0], 'a'+p[1], err)
		}
	}
	if diff := math.Abs(e[0] + e[1] - e[2]); diff > 1+0.001*math.Abs(e[2]) {
		return fmt.Errorf("E(a, b) + E(b, c) = %g + %g = %g µs but E(a, c) = %g µs; want equal within 1 µs + 0.1 %%",
			e[0], e[1], e[0]+e[1], e[2])
	}
	return nil
}

// elapsedRaw is Elapsed, or the loader's ElapsedRaw, which passes nil events on to the backend.
func elapsedRaw(s stubs.Stubs) func(start, end stubs.Event) (float64, error) {
	if ne, ok := s.(NullElapser); ok {
		return ne.ElapsedRaw
	}
	return s.Elapsed
}

func checkElapsedNull(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	r, err := record(ctx, s)
	if err != nil {
		return err
	}
	defer release(s, r.Event)
	elapsed := elapsedRaw(s)
	for _, p := range []struct {
		name       string
		start, end stubs.Event
	}{{"nil, e", nil, r.Event}, {"e, nil", r.Event, nil}, {"nil, nil", nil, nil}} {
		if d, err := elapsed(p.start, p.end); err == nil && d != 0 {
			return fmt.Errorf("Elapsed(%s) = %g µs with no error; want 0 or an error for a nil event", p.name, d)
		}
	}
	return nil
}

// onOtherDevice runs f inside OnEachDevice with the first device other than the calling thread's
// current one current. It skips when there is only one device.
func onOtherDevice(ctx context.Context, s stubs.Stubs, f func(ctx context.Context, dev int) error) (cur int, err error) {
	cur, err = currentDevice(ctx, s)
	if err != nil {
		return 0, err
	}
	ran := false
	err = s.OnEachDevice(ctx, func(ctx context.Context, dev int) error {
		if dev == cur || ran {
			return nil
		}
		ran = true
		return f(ctx, dev)
	})
	if err == nil && !ran {
		return cur, Skipf("one device: nothing to compare with")
	}
	return cur, err
}

func checkElapsedDevices(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	a, err := record(ctx, s)
	if err != nil {
		return err
	}
	defer release(s, a.Event)
	var b stubs.Recorded
	if _, err := onOtherDevice(ctx, s, func(ctx context.Context, _ int) error {
		b, err = record(ctx, s)
		return err
	}); err != nil {
		return err
	}
	defer release(s, b.Event)
	if a.Device == b.Device {
		return fmt.Errorf("Record inside OnEachDevice's fn reported device %d, the caller's device too", b.Device)
	}
	if d, err := s.Elapsed(a.Event, b.Event); err == nil {
		return fmt.Errorf("Elapsed of events on devices %d and %d = %g µs with no error; want an error", a.Device, b.Device, d)
	}
	return nil
}

// foreignEvent is an event no backend made.
type foreignEvent struct{ _ int }

func checkElapsedForeign(s stubs.Stubs, cfg Config) error {
	ctx := context.Background()
	a, err := record(ctx, s)
	if err != nil {
		return err
	}
	defer release(s, a.Event)
	if d, err := s.Elapsed(a.Event, &foreignEvent{}); err == nil {
		return fmt.Errorf("Elapsed(e, an event of another backend) = %g µs with no error; want an error", d)
	}
	if cfg.another == nil {
		return nil
	}
	o, err := cfg.another()
	if err != nil || o == nil || o == s {
		return nil // no second instance to take an event from
	}
	if c, ok := o.(stubs.Closer); ok {
		defer c.Close()
	}
	b, err := record(ctx, o)
	if err != nil {
		return fmt.Errorf("a second instance: %w", err)
	}
	defer release(o, b.Event)
	if d, err := s.Elapsed(a.Event, b.Event); err == nil {
		return fmt.Errorf("Elapsed(e, an event of another instance) = %g µs with no error; want an error", d)
	}
	return nil
}

func checkElapsedReleased(s stubs.Stubs, _ Config) error {
	if _, ok := s.(stubs.EventReleaser); !ok {
		return Skipf("backend does not implement stubs.EventReleaser: its events are never released")
	}
	ctx := context.Background()
	rs, err := pair(ctx, s, 2, 0)
	if err != nil {
		return err
	}
	defer release(s, rs[0].Event)
	release(s, rs[1].Event)
	if d, err := s.Elapsed(rs[0].Event, rs[1].Event); err == nil {
		return fmt.Errorf("Elapsed(e, a released event) = %g µs with no error; want an error", d)
	}
	return nil
}

// deviceName is the name error-text looks for: the backend's own DeviceName, else cfg.Device.
func deviceName(s stubs.Stubs, cfg Config) string {
	if n, ok := s.(interface{ DeviceName() string }); ok && n.DeviceName() != "" {
		return n.DeviceName()
	}
	return cfg.Device
}

// words counts the occurrences of w in s not inside a longer identifier (case-sensitive).
func words(s, w string) int {
	isID := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	n := 0
	for i := 0; w != "" && i+len(w) <= len(s); {
		j := strings.Index(s[i:], w)
		if j < 0 {
			break
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isID(s[j-1])) && (end == len(s) || !isID(s[end])) {
			n++
		}
		i = end
	}
	return n
}

// rangeFuncs returns push and pop on the calling OS thread: a ThreadRanger's, else a Ranger's.
func rangeFuncs(s stubs.Stubs) (push func(string) error, pop func() error, ok bool) {
	if tr, ok := s.(stubs.ThreadRanger); ok {
		return tr.ThreadRangePush, tr.ThreadRangePop, true
	}
	if r, ok := s.(stubs.Ranger); ok {
		return r.RangePush, r.RangePop, true
	}
	return nil, nil, false
}

func checkErrorText(s stubs.Stubs, cfg Config) error {
	ctx := context.Background()
	var (
		hook   string
		failed error
		tried  []string
	)
	// Provoke a failure the backend itself reports: events of two devices, a pop with nothing
	// pushed, a NULL event — whichever the backend refuses first.
	if a, err := record(ctx, s); err == nil {
		var b stubs.Recorded
		if _, err := onOtherDevice(ctx, s, func(ctx context.Context, _ int) error {
			b, err = record(ctx, s)
			return err
		}); err == nil {
			_, failed = s.Elapsed(a.Event, b.Event)
			hook = "elapsed"
			release(s, b.Event)
			tried = append(tried, "Elapsed of two devices")
		}
		if failed == nil {
			_, failed = elapsedRaw(s)(nil, a.Event)
			hook = "elapsed"
			tried = append(tried, "Elapsed(nil, e)")
		}
		release(s, a.Event)
	}
	if _, pop, ok := rangeFuncs(s); ok && failed == nil {
		failed, hook = pop(), "rangePop"
		tried = append(tried, "RangePop with nothing pushed")
		if errors.Is(failed, errors.ErrUnsupported) {
			failed = nil
		}
	}
	if failed == nil {
		return Skipf("no failure to provoke: the backend accepted %s", strings.Join(tried, ", "))
	}
	name := deviceName(s, cfg)
	dev := name
	if dev == "" {
		dev = "DEVICE"
	}
	msg := stubs.Wrap(dev, hook, failed).Error()
	var ce *stubs.CallError
	inner := failed
	if errors.As(failed, &ce) {
		inner = ce.Err
	}
	switch {
	case errors.Is(failed, stubs.ErrNoMessage):
		return fmt.Errorf("%s failed without a lastError message: %q", hook, msg)
	case strings.TrimSpace(inner.Error()) == "":
		return fmt.Errorf("%s failed with an empty message: %q", hook, msg)
	case words(msg, hook) != 1:
		return fmt.Errorf("the message of a failed %s names the hook %d times, want once: %q", hook, words(msg, hook), msg)
	case name != "" && words(msg, name) != 1:
		return fmt.Errorf("the message of a failed %s names the backend %q %d times, want once: %q", hook, name, words(msg, name), msg)
	}
	return nil
}

func checkOnEachDevice(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	n := deviceCount(s)
	before, err := currentDevice(ctx, s)
	if err != nil {
		return err
	}
	var (
		mu      sync.Mutex
		visited []int
		wrong   []string
	)
	err = s.OnEachDevice(ctx, func(ctx context.Context, dev int) error {
		r, err := record(ctx, s)
		if err != nil {
			return fmt.Errorf("inside fn for device %d: %w", dev, err)
		}
		release(s, r.Event)
		mu.Lock()
		defer mu.Unlock()
		visited = append(visited, dev)
		if r.Device != dev {
			wrong = append(wrong, fmt.Sprintf("fn(%d) ran with device %d current", dev, r.Device))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("OnEachDevice: %w", err)
	}
	want := n
	if want < 0 {
		want = max(len(visited), 1)
	}
	ok := len(visited) == want
	for i := 0; ok && i < want; i++ {
		ok = visited[i] == i
	}
	if !ok {
		return fmt.Errorf("OnEachDevice visited devices %v, want each of 0..%d once, in order", visited, want-1)
	}
	if len(wrong) > 0 {
		return fmt.Errorf("device not current while visited (checked with Record(WantDevice) inside fn): %s",
			strings.Join(wrong, "; "))
	}
	after, err := currentDevice(ctx, s)
	if err != nil {
		return fmt.Errorf("after OnEachDevice: %w", err)
	}
	if after != before {
		return fmt.Errorf("device %d was current before OnEachDevice and device %d after; want the previous device restored",
			before, after)
	}

	stop := errors.New("conformance: stop")
	calls := 0
	err = s.OnEachDevice(ctx, func(context.Context, int) error { calls++; return stop })
	if !errors.Is(err, stop) {
		return fmt.Errorf("OnEachDevice returned %v when fn failed; want fn's error", err)
	}
	if calls != 1 {
		return fmt.Errorf("OnEachDevice called fn %d times after fn failed; want it to stop at the first error", calls)
	}
	return nil
}

// checkDevicePerThread: this thread stands inside OnEachDevice at a device other than its own
// while a second thread, waited for step by step, reads its current device.
func checkDevicePerThread(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	other := newThread()
	defer other.exit()
	var base int
	if err := other.do(func() (err error) { base, err = currentDevice(context.Background(), s); return err }); err != nil {
		return fmt.Errorf("second thread: %w", err)
	}
	checked := false
	err := s.OnEachDevice(ctx, func(ctx context.Context, dev int) error {
		if dev == base {
			return nil
		}
		checked = true
		var got int
		if err := other.do(func() (err error) { got, err = currentDevice(context.Background(), s); return err }); err != nil {
			return fmt.Errorf("second thread: %w", err)
		}
		if got != base {
			return fmt.Errorf("a second thread's Record reported device %d while this thread was inside OnEachDevice at device %d "+
				"(it reported %d before); want the current device kept per thread", got, dev, base)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !checked {
		return Skipf("one device: nothing to switch to")
	}
	return nil
}

func checkSynchronize(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	if err := s.Synchronize(ctx); err != nil {
		return fmt.Errorf("Synchronize on an idle device: %w", err)
	}
	a, err := record(ctx, s)
	if err != nil {
		return err
	}
	b, err := record(ctx, s)
	if err != nil {
		release(s, a.Event)
		return err
	}
	serr := s.Synchronize(ctx)
	_, eerr := s.Elapsed(a.Event, b.Event)
	release(s, a.Event, b.Event)
	if serr != nil {
		return fmt.Errorf("Synchronize with work queued: %w", serr)
	}
	if eerr != nil {
		return fmt.Errorf("Elapsed after Synchronize: %w", eerr)
	}

	// Synchronize from several threads while another one records.
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for range 4 {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for range 10 {
				if err := s.Synchronize(ctx); err != nil {
					errs <- fmt.Errorf("concurrent Synchronize: %w", err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		runtime.LockOSThread() // events released on the thread that recorded them
		defer runtime.UnlockOSThread()
		for range 50 {
			r, err := record(ctx, s)
			if err != nil {
				errs <- fmt.Errorf("Record during Synchronize: %w", err)
				return
			}
			release(s, r.Event)
		}
	})
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return s.Synchronize(ctx)
}

func checkSynchronizeKeepsDevice(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	before, err := currentDevice(ctx, s)
	if err != nil {
		return err
	}
	if err := s.Synchronize(ctx); err != nil {
		return fmt.Errorf("Synchronize: %w", err)
	}
	after, err := currentDevice(ctx, s)
	if err != nil {
		return err
	}
	if after != before {
		return fmt.Errorf("device %d was current before Synchronize and device %d after; want it unchanged", before, after)
	}
	_, err = onOtherDevice(ctx, s, func(ctx context.Context, dev int) error {
		if err := s.Synchronize(ctx); err != nil {
			return fmt.Errorf("Synchronize at device %d: %w", dev, err)
		}
		got, err := currentDevice(ctx, s)
		if err != nil {
			return err
		}
		if got != dev {
			return fmt.Errorf("device %d was current before Synchronize (inside OnEachDevice) and device %d after; want it unchanged", dev, got)
		}
		return nil
	})
	var se *SkipError
	if errors.As(err, &se) {
		return nil // one device: checked above
	}
	return err
}

// noAnnotationTool is the skip of the range cases when a pop with nothing pushed succeeds.
const noAnnotationTool = "no annotation tool: RangePop with nothing pushed succeeded, so push and pop are observable no-ops (as OpenReg's)"

// rangeStack returns push and pop on the calling thread, or a skip when the backend has no ranges
// or its ranges cannot be observed. It leaves the thread's stack empty.
func rangeStack(s stubs.Stubs) (push func(string) error, pop func() error, err error) {
	push, pop, ok := rangeFuncs(s)
	if !ok {
		return nil, nil, Skipf("backend does not implement stubs.Ranger")
	}
	perr := pop()
	switch {
	case perr == nil:
		return nil, nil, Skipf("%s", noAnnotationTool)
	case errors.Is(perr, errors.ErrUnsupported):
		return nil, nil, Skipf("%v", perr)
	}
	return push, pop, nil
}

func checkRanges(s stubs.Stubs, _ Config) error {
	push, pop, err := rangeStack(s)
	if err != nil {
		return err
	}
	if err := push("conformance/outer"); err != nil {
		return fmt.Errorf("RangePush: %w", err)
	}
	for i := range 100 {
		if err := push(fmt.Sprintf("conformance/inner %d", i)); err != nil {
			return fmt.Errorf("nested RangePush %d: %w", i+2, err)
		}
	}
	for i := range 101 {
		if err := pop(); err != nil {
			return fmt.Errorf("RangePop %d of 101 balanced pops: %w", i+1, err)
		}
	}
	if err := pop(); err == nil {
		return errors.New("RangePop with nothing left pushed returned nil after balanced pops; want an error")
	}
	if err := push("conformance/after"); err != nil {
		return fmt.Errorf("RangePush after a failed pop: %w", err)
	}
	if err := pop(); err != nil {
		return fmt.Errorf("RangePop after a failed pop: %w", err)
	}
	return nil
}

// checkRangesPerThread: this thread pushes, a second thread (empty stack) pops, waited for.
func checkRangesPerThread(s stubs.Stubs, _ Config) error {
	push, pop, err := rangeStack(s)
	if err != nil {
		return err
	}
	other := newThread()
	defer other.exit()
	if err := push("conformance/this thread"); err != nil {
		return fmt.Errorf("RangePush: %w", err)
	}
	if err := other.do(pop); err == nil {
		return errors.New("a RangePop on a second thread, which pushed nothing, succeeded while this thread had a range pushed; " +
			"want one range stack per thread")
	}
	if err := pop(); err != nil {
		return fmt.Errorf("RangePop of this thread's push after a second thread's failed pop: %w", err)
	}
	if err := other.do(func() error { return push("conformance/second thread") }); err != nil {
		return fmt.Errorf("RangePush on a second thread: %w", err)
	}
	if err := pop(); err == nil {
		return errors.New("a RangePop on this thread, which pushed nothing, popped a second thread's range; want one range stack per thread")
	}
	return other.do(pop)
}

func checkMark(s stubs.Stubs, _ Config) error {
	mk, ok := s.(stubs.Marker)
	if !ok {
		return Skipf("backend does not implement stubs.Marker")
	}
	for i, m := range []struct{ what, name string }{
		{"an empty name", ""},
		{"a 4 KiB name", strings.Repeat("m", 4096)},
		{"a UTF-8 name", "aten::конв2д/卷积 ✓ µs"},
	} {
		if err := mk.Mark(m.name); err != nil {
			if i == 0 && errors.Is(err, errors.ErrUnsupported) {
				return Skipf("%v", err)
			}
			return fmt.Errorf("Mark with %s: %w", m.what, err)
		}
	}
	return nil
}

// Concurrency shape of concurrent-record.
const (
	concGoroutines = 8
	concPairs      = 200
)

// checkConcurrentRecord runs concGoroutines goroutines, each locked to its own OS thread, that
// record and measure at once. It raises GOMAXPROCS to at least concGoroutines while it runs:
// with fewer Ps the runtime rarely lets two short C calls overlap, and a backend that is not
// thread-safe would pass.
func checkConcurrentRecord(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	if prev := runtime.GOMAXPROCS(0); prev < concGoroutines {
		runtime.GOMAXPROCS(concGoroutines)
		defer runtime.GOMAXPROCS(prev)
	}
	var (
		ok    atomic.Int64
		mu    sync.Mutex
		first []string
		ready sync.WaitGroup
		wg    sync.WaitGroup
	)
	fail := func(g, i int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if len(first) < 3 {
			first = append(first, fmt.Sprintf("goroutine %d pair %d: %v", g, i, err))
		}
	}
	start := make(chan struct{})
	for g := range concGoroutines {
		ready.Add(1)
		wg.Go(func() {
			// Locked and all running at once: concGoroutines distinct OS threads.
			runtime.LockOSThread()
			defer func() {
				if r := recover(); r != nil {
					fail(g, -1, fmt.Errorf("panic: %v", r))
				}
			}()
			ready.Done()
			<-start
			for i := range concPairs {
				a, err := record(ctx, s)
				if err != nil {
					fail(g, i, err)
					continue
				}
				b, err := record(ctx, s)
				if err != nil {
					release(s, a.Event)
					fail(g, i, err)
					continue
				}
				d, err := s.Elapsed(a.Event, b.Event)
				release(s, a.Event, b.Event)
				switch {
				case err != nil:
					fail(g, i, fmt.Errorf("Elapsed: %w", err))
				case d < 0:
					fail(g, i, fmt.Errorf("Elapsed(earlier, later) = %g µs on one thread's stream", d))
				default:
					ok.Add(1)
				}
			}
		})
	}
	ready.Wait()
	close(start)
	wg.Wait()
	if got, want := ok.Load(), int64(concGoroutines*concPairs); got != want {
		return fmt.Errorf("%d of %d measurements from %d threads at once succeeded; first failures: %s",
			got, want, concGoroutines, strings.Join(first, "; "))
	}
	return nil
}

func checkEventsCrossThreads(s stubs.Stubs, _ Config) error {
	var rs []stubs.Recorded
	rec := newThread()
	err := rec.do(func() (err error) { rs, err = pair(context.Background(), s, 2, time.Millisecond); return err })
	rec.exit() // the recording thread ends before the events are used
	if err != nil {
		return fmt.Errorf("recording thread: %w", err)
	}
	var d float64
	err = onLockedThread(func() (err error) { d, err = s.Elapsed(rs[0].Event, rs[1].Event); return err })
	if err != nil {
		_ = onLockedThread(func() error { releaseAll(s, rs); return nil })
		return fmt.Errorf("Elapsed on a second thread of events recorded on a thread that has exited: %w", err)
	}
	if d < 0 {
		return fmt.Errorf("Elapsed(earlier, later) on a second thread = %g µs, want ≥ 0", d)
	}
	return onLockedThread(func() error { releaseAll(s, rs); return nil })
}

func checkEventsOutstanding(s stubs.Stubs, cfg Config) error {
	ctx := context.Background()
	evs := make([]stubs.Event, 0, cfg.Events)
	defer func() { release(s, evs...) }()
	for i := range cfg.Events {
		r, err := record(ctx, s)
		if err != nil {
			if len(evs) > 0 {
				// Let the stream reach every event before they are released, so a backend that
				// counts queued events as live has none left for the next case.
				_, _ = s.Elapsed(evs[0], evs[len(evs)-1])
			}
			return fmt.Errorf("event %d of %d outstanding: %w", i+1, cfg.Events, err)
		}
		evs = append(evs, r.Event)
	}
	if len(evs) == 0 {
		return nil
	}
	d, err := s.Elapsed(evs[0], evs[len(evs)-1])
	if err != nil {
		return fmt.Errorf("Elapsed(first, last) of %d outstanding events: %w", len(evs), err)
	}
	if d < 0 {
		return fmt.Errorf("Elapsed(first, last) of %d outstanding events = %g µs, want ≥ 0", len(evs), d)
	}
	return nil
}

func checkEventLifetime(s stubs.Stubs, cfg Config) error {
	ctx := context.Background()
	const batch = 1000
	total := 2 * cfg.Events
	evs := make([]stubs.Event, 0, batch)
	for made := 0; made < total; {
		evs = evs[:0]
		for j := 0; j < batch && made < total; j++ {
			r, err := record(ctx, s)
			if err != nil {
				release(s, evs...)
				return fmt.Errorf("event %d of %d (each earlier one released, at most %d live): %w", made+1, total, batch, err)
			}
			evs = append(evs, r.Event)
			made++
		}
		if _, err := s.Elapsed(evs[0], evs[len(evs)-1]); err != nil {
			release(s, evs...)
			return fmt.Errorf("Elapsed after %d events: %w", made, err)
		}
		release(s, evs...)
	}
	return nil
}

// workTime is how long elapsed-spans-work's queued work lasts; workLong how long each device
// other than the caller's is kept busy in synchronize-waits-all, and workShort the caller's own.
const (
	workTime  = 30 * time.Millisecond
	workLong  = 60 * time.Millisecond
	workShort = 2 * time.Millisecond
)

// worker returns the backend's device-work hook, or a skip.
func worker(s stubs.Stubs) (stubs.DeviceWorker, error) {
	w, ok := s.(stubs.DeviceWorker)
	if !ok {
		return nil, Skipf("no device-work hook (stubs.DeviceWorker, the C ABI's queueWork)")
	}
	if h, ok := s.(interface{ HasQueueWork() bool }); ok && !h.HasQueueWork() {
		return nil, Skipf("no device-work hook (the C ABI's queueWork is NULL)")
	}
	return w, nil
}

func checkElapsedSpansWork(s stubs.Stubs, _ Config) error {
	w, err := worker(s)
	if err != nil {
		return err
	}
	ctx := context.Background()
	a, err := record(ctx, s)
	if err != nil {
		return err
	}
	defer release(s, a.Event)
	if err := w.QueueWork(ctx, workTime); err != nil {
		return fmt.Errorf("QueueWork: %w", err)
	}
	b, err := record(ctx, s)
	if err != nil {
		return err
	}
	defer release(s, b.Event)
	d, err := s.Elapsed(a.Event, b.Event)
	if err != nil {
		return fmt.Errorf("Elapsed: %w", err)
	}
	if dev := time.Duration(d * float64(time.Microsecond)); dev < workTime-hostTolerance(workTime) {
		return fmt.Errorf("Elapsed of events recorded around %v of queued work = %g µs (their cpu_ns are %.1f µs apart); "+
			"want at least %v: Elapsed must measure the device, not the host", workTime, d, float64(b.CPUNs-a.CPUNs)/1e3, workTime)
	}
	return nil
}

func checkSynchronizeWaitsAll(s stubs.Stubs, _ Config) error {
	w, err := worker(s)
	if err != nil {
		return err
	}
	ctx := context.Background()
	cur, err := currentDevice(ctx, s)
	if err != nil {
		return err
	}
	n := max(deviceCount(s), 1)
	for range 2 { // both tries must pass; a host stall can only hide an early return, not fake one
		ends := map[int]time.Time{}
		err := s.OnEachDevice(ctx, func(ctx context.Context, dev int) error {
			d := workLong
			if dev == cur && n > 1 {
				d = workShort
			}
			t0 := time.Now()
			if err := w.QueueWork(ctx, d); err != nil {
				return fmt.Errorf("QueueWork on device %d: %w", dev, err)
			}
			ends[dev] = t0.Add(d) // the work cannot finish earlier
			return nil
		})
		if err != nil {
			return err
		}
		if err := s.Synchronize(ctx); err != nil {
			return fmt.Errorf("Synchronize: %w", err)
		}
		done := time.Now()
		for dev := range n {
			if end, ok := ends[dev]; ok && done.Before(end) {
				return fmt.Errorf("Synchronize on device %d returned %v before the work queued on device %d could have finished; "+
					"want it to wait for every device", cur, end.Sub(done).Round(time.Millisecond/10), dev)
			}
		}
	}
	return nil
}
