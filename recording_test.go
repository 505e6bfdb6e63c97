package orprof

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/stubs"
	"github.com/orprof/orprof/trace"
)

// TestStartPublishesBuiltSession: a goroutine that records while another starts the session
// sees either no session or a finished one: before Start set its clock mode before publishing,
// a range begun in between was stamped with one clock and converted with the other (events ~25
// years off), and the race detector reported the write.
func TestStartPublishesBuiltSession(t *testing.T) {
	rounds := 200
	if raceEnabled {
		rounds = 40
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := WithThread(context.Background(), NewThread())
			for !stop.Load() {
				for i := 0; i < 20; i++ {
					RecordFunction(ctx, "racing").End()
				}
				time.Sleep(10 * time.Microsecond)
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	for i := 0; i < rounds; i++ {
		before := time.Now().UnixNano()
		s, err := Start(Options{})
		require.NoError(t, err)
		time.Sleep(50 * time.Microsecond)
		res, err := s.Stop()
		require.NoError(t, err)
		after := time.Now().UnixNano()
		base := res.Trace().BaseTimeNs
		for k := 0; k < res.Events.Len(); k++ {
			e := res.Events.Event(k)
			start, end := base+int64(e.StartUs*1000), base+int64(e.EndUs*1000)
			if start < before-int64(time.Millisecond) || end > after+int64(time.Millisecond) {
				t.Fatalf("round %d: event %d [%d, %d] outside the session [%d, %d]", i, k, start, end, before, after)
			}
		}
	}
}

// lossN is the ranges each of 8 goroutines records in TestNothingLost: the 200k, fewer
// under the race detector, which is ~20× slower.
func lossN() int {
	if raceEnabled || testing.Short() {
		return 4_000
	}
	return 200_000
}

// TestNothingLost: 8 goroutines record 200k ranges each — with a Thread each, all with a plain
// context.Background(), or all sharing one Thread — and every range is in the result, each
// inner op under an outer range of its own goroutine. Goroutines sharing a thread used to put
// overlapping ranges on one thread id, where the tree nested one goroutine's range into
// another's and collapsed same-name pairs: 399,189 of 400,000 kept.
func TestNothingLost(t *testing.T) {
	const goroutines = 8
	per := lossN()
	shared := NewThread()
	for _, tc := range []struct {
		name string
		ctx  func() context.Context
	}{
		{"own thread", func() context.Context { return WithThread(context.Background(), NewThread()) }},
		{"background", context.Background},
		{"shared thread", func() context.Context { return WithThread(context.Background(), shared) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Start(Options{})
			require.NoError(t, err)
			var wg sync.WaitGroup
			for g := 0; g < goroutines; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx := tc.ctx()
					for i := 0; i < per/2; i++ {
						outer := RecordFunction(ctx, "step")
						Begin(ctx, Op{Name: "aten::add"}).End()
						outer.End()
					}
				}()
			}
			wg.Wait()
			res, err := s.Stop()
			require.NoError(t, err)
			require.Equal(t, goroutines*per, res.Events.Len())
			assert.Zero(t, res.Unfinished)
			for _, r := range res.KeyAverages(events.AverageOptions{}) {
				assert.EqualValues(t, goroutines*per/2, r.Count, r.Key)
			}
			// Plain comparisons: a testify call per event would take most of the test's time.
			for i := 0; i < res.Events.Len(); i++ {
				e := res.Events.Event(i)
				p := res.Events.Parent(i)
				if e.Name == "step" {
					if p != -1 {
						t.Fatalf("event %d: a step nested in another goroutine's step", i)
					}
					continue
				}
				if p < 0 {
					t.Fatalf("event %d: an aten::add outside its step", i)
				}
				if pe := res.Events.Event(p); pe.Name != "step" || pe.Thread != e.Thread {
					t.Fatalf("event %d: aten::add on thread %d under %s on thread %d", i, e.Thread, pe.Name, pe.Thread)
				}
			}
		})
	}
}

// TestHandedOverThreadKeepsItsID: a Thread passed from goroutine to goroutine, used by one at a
// time, stays one thread.
func TestHandedOverThreadKeepsItsID(t *testing.T) {
	s, err := Start(Options{})
	require.NoError(t, err)
	th := NewThread()
	ctx := WithThread(context.Background(), th)
	for i := 0; i < 4; i++ {
		done := make(chan struct{})
		go func() {
			defer close(done)
			outer := RecordFunction(ctx, "outer")
			Begin(ctx, Op{Name: "aten::mm"}).End()
			outer.End()
		}()
		<-done
	}
	res, err := s.Stop()
	require.NoError(t, err)
	require.Equal(t, 8, res.Events.Len())
	for i := 0; i < res.Events.Len(); i++ {
		assert.Equal(t, th.ID(), res.Events.Event(i).Thread)
	}
}

// TestRecordingRacesStartAndStop: goroutines record all the time (own Threads, the main
// thread, ranges ended by other goroutines) while sessions on a device start and stop under
// them. Every result is well formed, and every device event the backend handed out is
// released exactly once, whether its range was collected, left unfinished or began after Stop
// took its snapshot.
func TestRecordingRacesStartAndStop(t *testing.T) {
	dev := &fakeDevice{usPerTick: 1}
	stubs.Register("racedev", dev)
	defer stubs.Unregister("racedev")
	rounds := 30
	if raceEnabled || testing.Short() {
		rounds = 10
	}
	var stop atomic.Bool
	var producers, consumer sync.WaitGroup
	handoff := make(chan Range, 16)
	for g := 0; g < 4; g++ {
		producers.Add(1)
		go func() {
			defer producers.Done()
			ctx := context.Background()
			if g%2 == 0 {
				ctx = WithThread(ctx, NewThread())
			}
			for !stop.Load() {
				for i := 0; i < 20; i++ {
					outer := RecordFunction(ctx, "outer")
					Begin(ctx, Op{Name: "aten::add"}).End()
					RecordMemory(ctx, 8, 0)
					select {
					case handoff <- Begin(ctx, Op{Name: "handed"}):
					default:
					}
					outer.End()
				}
				time.Sleep(10 * time.Microsecond)
			}
		}()
	}
	consumer.Add(1)
	go func() { // ends ranges other goroutines began
		defer consumer.Done()
		for r := range handoff {
			r.End()
		}
	}()
	for i := 0; i < rounds; i++ {
		s, err := Start(Options{Device: "racedev", ProfileMemory: true})
		require.NoError(t, err)
		time.Sleep(200 * time.Microsecond)
		res, err := s.Stop()
		require.NoError(t, err)
		for k := 0; k < res.Events.Len(); k++ {
			if e := res.Events.Event(k); e.StartUs > e.EndUs {
				t.Fatalf("round %d: event %d ends before it starts", i, k)
			}
		}
		if i%5 == 0 {
			var buf bytes.Buffer
			require.NoError(t, trace.Write(&buf, res.Trace()))
		}
	}
	stop.Store(true)
	producers.Wait()
	close(handoff)
	consumer.Wait()
	assert.Equal(t, dev.recorded.Load(), dev.released.Load(), "every device event released once")
}

// TestLateEndReleasesDeviceEvents: a range still open at Stop is counted; ending it afterwards
// releases its end event.
func TestLateEndReleasesDeviceEvents(t *testing.T) {
	dev := &fakeDevice{usPerTick: 1}
	stubs.Register("latedev", dev)
	defer stubs.Unregister("latedev")
	s, err := Start(Options{Device: "latedev"})
	require.NoError(t, err)
	ctx := context.Background()
	r := RecordFunction(ctx, "open")
	done := RecordFunction(ctx, "done")
	done.End()
	res, err := s.Stop()
	require.NoError(t, err)
	assert.Equal(t, 1, res.Unfinished)
	assert.Equal(t, 1, res.Events.Len())
	r.End()
	r.End()
	assert.Equal(t, dev.recorded.Load(), dev.released.Load())
}

// TestSharedStreamTracePassesCheck: three goroutines launch work on one device stream in
// fallback mode. Their device intervals overlap without nesting; each host thread gets its
// own row under the stream, so the trace passes the checker (one row failed it before).
func TestSharedStreamTracePassesCheck(t *testing.T) {
	dev := &fakeDevice{usPerTick: 1, realTime: true}
	stubs.Register("streamdev", dev)
	defer stubs.Unregister("streamdev")
	s, err := Start(Options{Device: "streamdev"})
	require.NoError(t, err)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := WithThread(context.Background(), NewThread())
			<-start
			for i := 0; i < 200; i++ {
				r := Begin(ctx, Op{Name: "aten::mm"})
				time.Sleep(time.Duration(i%3) * time.Microsecond)
				r.End()
			}
		}()
	}
	close(start)
	wg.Wait()
	res, err := s.Stop()
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, trace.Write(&buf, res.Trace()))
	require.NoError(t, trace.Check(buf.Bytes()))
	rows := map[int64]bool{}
	for _, e := range res.Trace().Events {
		if e.Cat == "gpu_user_annotation" {
			rows[e.Tid] = true
		}
	}
	assert.Len(t, rows, 3, "a device row per host thread")
	names := map[string]bool{}
	for _, r := range res.Trace().Threads {
		names[r.Name] = true
	}
	assert.Len(t, names, 6, "three host threads and three stream rows, each named")
}

// TestRangesEndedElsewhereDoNotPileUp: a goroutine whose ranges another goroutine ends keeps
// no growing stack of them, and its correlation id is that of its innermost open range.
func TestRangesEndedElsewhereDoNotPileUp(t *testing.T) {
	s, err := Start(Options{})
	require.NoError(t, err)
	ctx := WithThread(context.Background(), NewThread())
	outer := RecordFunction(ctx, "outer")
	for i := 0; i < 1000; i++ {
		r := Begin(ctx, Op{Name: "handed"})
		done := make(chan struct{})
		go func() { r.End(); close(done) }()
		<-done
	}
	assert.Equal(t, outer.Handle(), CorrelationID(ctx))
	l := s.laneOf(ThreadFrom(ctx))
	assert.LessOrEqual(t, len(l.open), 2)
	outer.End()
	assert.Zero(t, CorrelationID(ctx))
	res, err := s.Stop()
	require.NoError(t, err)
	assert.Equal(t, 1001, res.Events.Len())
}

// TestManyGoroutines: thousands of goroutines, each recording a little with a plain
// context.Background() at the same time, cost little each and all get their own thread.
func TestManyGoroutines(t *testing.T) {
	n := 5000
	if raceEnabled || testing.Short() {
		n = 500
	}
	s, err := Start(Options{})
	require.NoError(t, err)
	var ready, done sync.WaitGroup
	release := make(chan struct{})
	for g := 0; g < n; g++ {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			r := RecordFunction(context.Background(), "request")
			ready.Done()
			<-release // every range is open at once
			Begin(context.Background(), Op{Name: "aten::add"}).End()
			r.End()
		}()
	}
	ready.Wait()
	close(release)
	done.Wait()
	res, err := s.Stop()
	require.NoError(t, err)
	require.Equal(t, 2*n, res.Events.Len())
	threads := map[int64]bool{}
	for i := 0; i < res.Events.Len(); i++ {
		e := res.Events.Event(i)
		if e.Name == "request" {
			threads[e.Thread] = true
			if res.Events.Parent(i) != -1 {
				t.Fatalf("event %d: a request nested in another goroutine's", i)
			}
		} else if p := res.Events.Parent(i); p < 0 || res.Events.Event(p).Thread != e.Thread {
			t.Fatalf("event %d: aten::add outside its request", i)
		}
	}
	assert.Len(t, threads, n, "a thread per goroutine: their ranges all overlap")
}

func TestSpans(t *testing.T) {
	assert.Equal(t, []span{{0, 10}, {10, 20}, {25, 40}},
		unionSpans([]span{{25, 30}, {0, 5}, {10, 20}, {2, 10}, {28, 40}}), "touching spans stay apart")
	kept := []span{{0, 10}, {20, 30}}
	for _, tc := range []struct {
		b    []span
		want bool
	}{
		{[]span{{10, 20}}, false},
		{[]span{{30, 35}, {-5, 0}}, false},
		{[]span{{9, 11}}, true},
		{[]span{{12, 15}, {25, 26}}, true},
		{[]span{{-1, 40}}, true},
	} {
		assert.Equal(t, tc.want, overlaps(kept, tc.b), "%v", tc.b)
	}
	assert.Equal(t, []span{{-5, 0}, {0, 10}, {10, 20}, {20, 30}}, mergeSpans(kept, []span{{-5, 0}, {10, 20}}))
}

// TestReusedGoroutineDescriptors: goroutines that exit while others start reuse the runtime's
// goroutine descriptors, and so each other's lanes; nothing is lost and, under -race, the
// detector sees the lanes' handover.
func TestReusedGoroutineDescriptors(t *testing.T) {
	s, err := Start(Options{})
	require.NoError(t, err)
	const n = 2000
	var wg sync.WaitGroup
	for g := 0; g < n; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			RecordFunction(context.Background(), "short").End()
			RecordMemory(context.Background(), 8, 0)
		}()
		if g%8 == 0 {
			time.Sleep(time.Microsecond) // let some exit before the next start
		}
	}
	wg.Wait()
	res, err := s.Stop()
	require.NoError(t, err)
	assert.Equal(t, n, res.Events.Len())
}

// TestSlotHasNoPointers: the recording buffers' slots hold no pointers, so the garbage
// collector never scans their chunks and writing a slot takes no write barrier.
func TestSlotHasNoPointers(t *testing.T) {
	var walk func(reflect.Type) string
	walk = func(ty reflect.Type) string {
		switch ty.Kind() {
		case reflect.Struct:
			for i := range ty.NumField() {
				if p := walk(ty.Field(i).Type); p != "" {
					return ty.Field(i).Name + "." + p
				}
			}
		case reflect.Array:
			return walk(ty.Elem())
		case reflect.Pointer, reflect.UnsafePointer, reflect.String, reflect.Slice, reflect.Map, reflect.Chan,
			reflect.Func, reflect.Interface:
			return ty.String()
		}
		return ""
	}
	assert.Empty(t, walk(reflect.TypeFor[slot]()), "a pointer in slot")
	assert.Equal(t, "ext.x.*int", walk(reflect.TypeFor[struct{ ext struct{ x *int } }]()), "the walk finds pointers")
}

// TestTable: a table's elements stay where they were written while it grows.
func TestTable(t *testing.T) {
	var tb table[int]
	first := (*int)(nil)
	for i := range 5000 {
		require.Equal(t, i, tb.add(i))
		if i == 0 {
			first = tb.at(0)
		}
	}
	for i := range 5000 {
		require.Equal(t, i, *tb.at(i))
	}
	assert.Same(t, first, tb.at(0))
	k, j := seg(math.MaxInt32)
	assert.Less(t, k, tableSegs, "every int32 index has a segment")
	assert.Less(t, j, firstSeg<<k)
}

// TestNames: names reach the result whatever their strings: constants, the same string reused,
// equal strings built anew for every range, more names than the lane's cache has entries, and
// the empty name.
func TestNames(t *testing.T) {
	s, err := Start(Options{ProfileMemory: true})
	require.NoError(t, err)
	ctx := WithThread(context.Background(), NewThread())
	built := make([]string, 3*nameCache)
	for i := range built {
		built[i] = "op" + strconv.Itoa(i)
	}
	want := map[string]int{}
	for round := 0; round < 3; round++ {
		for i, name := range built {
			RecordFunction(ctx, name).End()
			fresh := "fresh" + strconv.Itoa(i%10)
			RecordFunction(ctx, fresh).End()
			want[name]++
			want[fresh]++
		}
		RecordFunction(ctx, "").End()
		RecordFunction(ctx, "const").End()
		want[""]++
		want["const"]++
		RecordMemory(ctx, 8, 0) // an instant: no name
	}
	res, err := s.Stop()
	require.NoError(t, err)
	got := map[string]int{}
	for i := 0; i < res.Events.Len(); i++ {
		if e := res.Events.Event(i); e.Name != "[memory]" {
			got[e.TraceName]++
		}
	}
	assert.Equal(t, want, got)
	l := s.lanes[0]
	assert.Equal(t, len(built)+10+1, l.names.n, "each name once in the lane's names")
}

// TestEndOnRacesStop: ranges with sequence numbers, shapes and names built for each range are
// ended on another Thread by another goroutine (EndOn) while their goroutines go on recording
// and sessions start and stop under them. Every collected range keeps its own name, sequence
// number and shapes, and the handed ones end on the other Thread; under -race, the lanes' names
// and rare fields, written by the recording goroutine and read by Stop, show no race.
func TestEndOnRacesStop(t *testing.T) {
	rounds := 30
	if raceEnabled || testing.Short() {
		rounds = 10
	}
	other := NewThread()
	var stop atomic.Bool
	var producers, consumer sync.WaitGroup
	handoff := make(chan Range, 16)
	for g := 0; g < 3; g++ {
		producers.Add(1)
		go func() {
			defer producers.Done()
			ctx := WithThread(context.Background(), NewThread())
			for !stop.Load() {
				for i := 0; i < 50; i++ {
					k := int64(i % 7)
					op := Op{Name: "op" + strconv.FormatInt(k, 10), HasSequence: true, SequenceNr: k, Inputs: [][]int64{{k}}}
					Begin(ctx, op).End()
					op.Name = "handed" + strconv.FormatInt(k, 10)
					select {
					case handoff <- Begin(ctx, op):
					default:
					}
				}
				time.Sleep(10 * time.Microsecond)
			}
		}()
	}
	consumer.Add(1)
	go func() {
		defer consumer.Done()
		for r := range handoff {
			r.EndOn(other)
		}
	}()
	defer func() {
		stop.Store(true)
		producers.Wait()
		close(handoff)
		consumer.Wait()
	}()
	handed := 0
	// More rounds while none has seen a handed range end (up to 10 s): on a loaded machine the
	// producers may not run at all within a few sessions of 300 µs.
	for i, start := 0, time.Now(); i < rounds || handed == 0 && time.Since(start) < 10*time.Second; i++ {
		s, err := Start(Options{RecordShapes: true})
		require.NoError(t, err)
		time.Sleep(300 * time.Microsecond)
		res, err := s.Stop()
		require.NoError(t, err)
		for _, e := range res.Trace().Events {
			if e.Ph != 'X' || e.Cat != "cpu_op" {
				continue
			}
			k, err := strconv.ParseInt(strings.TrimLeft(e.Name, "ophanded"), 10, 64)
			if err != nil || !slices.Contains(e.Args, trace.Int(trace.ArgSequenceNumber, k)) ||
				!slices.Contains(e.Args, trace.Raw(trace.ArgInputDims, "[["+strconv.FormatInt(k, 10)+"]]")) {
				t.Fatalf("round %d: %s with args %v", i, e.Name, e.Args)
			}
			if async := slices.Contains(e.Args, trace.Int(trace.ArgEndThreadID, other.ID())); async != strings.HasPrefix(e.Name, "handed") {
				t.Fatalf("round %d: %s ended on the other thread: %v", i, e.Name, async)
			}
			if async := slices.Contains(e.Args, trace.Int(trace.ArgEndThreadID, other.ID())); async {
				handed++
			}
		}
	}
	assert.Positive(t, handed, "some ranges were ended on the other thread within a session")
}

// TestChunksReusedNoRace: once a session's result is gone, the full-size chunks of its lanes are
// cleared and taken by the lanes of the next session, which records into them correctly.
func TestChunksReusedNoRace(t *testing.T) {
	if raceEnabled {
		t.Skip("chunks are not kept for reuse under the race detector (see newLane); .ci/run runs this test without it")
	}
	const n = 3 * maxChunk
	names := []string{"a", "b", "c"}
	// The sessions whose chunks are kept write every field of their slots: a kept chunk is not
	// cleared, and the next session must write over all of it.
	rare := func(ctx context.Context, i int) {
		r := Begin(ctx, Op{Name: "rare", Scope: 3, HasSequence: true, SequenceNr: int64(i), FwdThread: 9, Async: true})
		if i%2 == 0 {
			r.EndOn(NewThread())
		}
		RecordMemory(ctx, 64, devices.CPU)
	}
	record := func(each func(ctx context.Context, i int)) *Result {
		s, err := Start(Options{ProfileMemory: true})
		require.NoError(t, err)
		ctx := WithThread(context.Background(), NewThread())
		for i := range n {
			each(ctx, i)
		}
		res, err := s.Stop()
		require.NoError(t, err)
		return res
	}
	kept := keptAfter(t, &spare, func() { record(rare) })
	var ctxThread int64
	res := record(func(ctx context.Context, i int) {
		ctxThread = ThreadFrom(ctx).ID()
		RecordFunction(ctx, names[i%len(names)]).End()
	})
	reused := 0
	for c := res.rec.lanes[0].head; c != nil; c = c.next.Load() {
		if kept[c] {
			reused++
		}
	}
	assert.Positive(t, reused, "the second session's lane took none of the kept chunks")
	count := map[string]int{}
	for _, e := range res.Events.Events() {
		count[e.Name]++
		if e.SequenceNr != -1 || e.FwdThread != 0 || e.IsAsync || e.Thread != ctxThread || e.Scope != events.ScopeUserScope || e.CPUMemoryUsage != 0 {
			t.Fatalf("a range in a kept chunk has what an earlier session wrote there: %+v", e)
		}
	}
	assert.Equal(t, map[string]int{"a": n / 3, "b": n / 3, "c": n / 3}, count)
}

// TestDeviceChunksReusedNoRace is TestChunksReusedNoRace for a fallback session, whose chunks
// also hold each range's device events: a kept chunk holds none of an earlier session's events,
// so the next session measures and releases its own only.
func TestDeviceChunksReusedNoRace(t *testing.T) {
	if raceEnabled {
		t.Skip("chunks are not kept for reuse under the race detector (see newLane); .ci/run runs this test without it")
	}
	const n = 3 * maxChunk
	record := func(name string, dev *fakeDevice) *Result {
		stubs.Register(name, dev)
		defer stubs.Unregister(name)
		s, err := Start(Options{Device: name})
		require.NoError(t, err)
		ctx := WithThread(context.Background(), NewThread())
		for i := range n {
			r := Begin(ctx, Op{Name: "aten::add"})
			if i != n-1 {
				r.End() // the last one is left open: Stop leaves it out
			}
		}
		res, err := s.Stop()
		require.NoError(t, err)
		require.Equal(t, 1, res.Unfinished)
		return res
	}
	kept := keptAfter(t, &spareDev, func() { record("olddev", &fakeDevice{usPerTick: 1000}) })
	for c := range kept {
		for i := range c.dev {
			require.Zero(t, c.dev[i], "a kept chunk holds an earlier session's device record")
		}
	}
	dev := &fakeDevice{usPerTick: 10}
	res := record("newdev", dev)
	reused := 0
	for c := res.rec.lanes[0].head; c != nil; c = c.next.Load() {
		if kept[c] {
			reused++
		}
	}
	assert.Positive(t, reused, "the second session's lane took none of the kept chunks")
	require.Equal(t, n-1, res.Events.Len())
	for i := range res.Events.Len() {
		// Each range's start and end are the device's consecutive ticks.
		require.Equal(t, 10.0, res.Events.DeviceTimeTotal(i), "event %d", i)
	}
	assert.Equal(t, dev.recorded.Load(), dev.released.Load(), "every event of the new device released, and no other")
}

// keptAfter runs drop, a session whose result is dropped at once, until a collection has put
// chunks of its lanes in pool, and returns those chunks, left in the pool for the next session.
func keptAfter(t *testing.T, pool *sync.Pool, drop func()) map[*chunk]bool {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		drop()
		runtime.GC() // the lane's cleanup runs after a collection finds it unreachable
		time.Sleep(10 * time.Millisecond)
		// Take what was kept (a pool may also drop it) and put it back.
		kept := map[*chunk]bool{}
		var got []*chunk
		for c, _ := pool.Get().(*chunk); c != nil; c, _ = pool.Get().(*chunk) {
			kept[c] = true
			got = append(got, c)
		}
		for _, c := range got {
			pool.Put(c)
		}
		if len(kept) > 0 {
			return kept
		}
		require.True(t, time.Now().Before(deadline), "no chunk was kept after the result was dropped")
	}
}
