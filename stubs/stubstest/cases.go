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

// deviceCount is the backend's device count, or -1 when it cannot say.
func deviceCount(s stubs.Stubs) int {
	if dc, ok := s.(stubs.DeviceCounter); ok {
		if n, err := dc.DeviceCount(); err == nil && n > 0 {
			return n
		}
	}
	return -1
}

// onLockedThread runs f on a new goroutine locked to its OS thread and never unlocked, so the
// runtime retires the thread afterwards: thread-local state a backend keeps (current device,
// range stack) cannot leak into other cases. Panics become errors.
func onLockedThread(f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v", r)
			}
		}()
		done <- f()
	}()
	return <-done
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
	return onLockedThread(func() error {
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
	})
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

// Host-gap bounds: two records HostGap apart on an idle device measure about HostGap.
const (
	hostGap    = 20 * time.Millisecond
	hostGapMin = 15 * time.Millisecond
	hostGapMax = 60 * time.Millisecond
)

func checkElapsedHostGap(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	var got []string
	for range 3 { // a loaded host may oversleep once; a wrong unit fails every time
		a, err := record(ctx, s)
		if err != nil {
			return err
		}
		time.Sleep(hostGap)
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
		us := time.Duration(d * float64(time.Microsecond))
		if us >= hostGapMin && us <= hostGapMax {
			return nil
		}
		got = append(got, fmt.Sprintf("%g µs", d))
	}
	return fmt.Errorf("two records %v apart on an idle device measured %s; want %v to %v (Elapsed is in microseconds)",
		hostGap, strings.Join(got, ", "), hostGapMin, hostGapMax)
}

func checkElapsedNull(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	r, err := record(ctx, s)
	if err != nil {
		return err
	}
	defer release(s, r.Event)
	elapsed := s.Elapsed
	if ne, ok := s.(NullElapser); ok {
		elapsed = ne.ElapsedRaw
	}
	for _, p := range []struct {
		name       string
		start, end stubs.Event
	}{{"nil, e", nil, r.Event}, {"e, nil", r.Event, nil}, {"nil, nil", nil, nil}} {
		if d, err := elapsed(p.start, p.end); err == nil {
			return fmt.Errorf("Elapsed(%s) = %g, nil error; want an error for a nil event", p.name, d)
		}
	}
	return nil
}

func checkOnEachDevice(s stubs.Stubs, _ Config) error {
	ctx := context.Background()
	n := deviceCount(s)
	return onLockedThread(func() error {
		before, err := record(ctx, s)
		if err != nil {
			return err
		}
		release(s, before.Event)

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
		after, err := record(ctx, s)
		if err != nil {
			return fmt.Errorf("after OnEachDevice: %w", err)
		}
		release(s, after.Event)
		if after.Device != before.Device {
			return fmt.Errorf("device %d was current before OnEachDevice and device %d after; want the previous device restored",
				before.Device, after.Device)
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
	})
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

	// Synchronize from several goroutines while another one records.
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for range 4 {
		wg.Go(func() {
			for range 10 {
				if err := s.Synchronize(ctx); err != nil {
					errs <- fmt.Errorf("concurrent Synchronize: %w", err)
					return
				}
			}
		})
	}
	wg.Go(func() {
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

func checkRanges(s stubs.Stubs, _ Config) error {
	rg, ok := s.(stubs.Ranger)
	if !ok {
		return Skipf("backend does not implement stubs.Ranger")
	}
	return onLockedThread(func() error {
		if err := rg.RangePush("conformance/outer"); err != nil {
			if errors.Is(err, errors.ErrUnsupported) {
				return Skipf("%v", err)
			}
			return fmt.Errorf("RangePush: %w", err)
		}
		for i := range 100 {
			if err := rg.RangePush(fmt.Sprintf("conformance/inner %d", i)); err != nil {
				return fmt.Errorf("nested RangePush %d: %w", i, err)
			}
		}
		for i := range 101 {
			if err := rg.RangePop(); err != nil {
				return fmt.Errorf("RangePop %d of 101 balanced pops: %w", i+1, err)
			}
		}
		if err := rg.RangePop(); err == nil {
			return errors.New("RangePop with nothing pushed returned nil; want an error")
		}
		if err := rg.RangePush("conformance/after"); err != nil {
			return fmt.Errorf("RangePush after a failed pop: %w", err)
		}
		if err := rg.RangePop(); err != nil {
			return fmt.Errorf("RangePop after a failed pop: %w", err)
		}
		return nil
	})
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

func checkEventLifetime(s stubs.Stubs, cfg Config) error {
	ctx := context.Background()
	const batch = 1000
	evs := make([]stubs.Event, 0, batch)
	for made := 0; made < cfg.Events; {
		evs = evs[:0]
		for j := 0; j < batch && made < cfg.Events; j++ {
			r, err := record(ctx, s)
			if err != nil {
				release(s, evs...)
				return fmt.Errorf("event %d of %d (each earlier one released): %w", made+1, cfg.Events, err)
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
