package orprof

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/gid"
	"github.com/orprof/orprof/internal/tsc"
	"github.com/orprof/orprof/stubs"
)

// Thread is a logical thread, PyTorch's RecordFunction thread id: ranges begun on one Thread
// nest into one tree. Give every goroutine that records its own Thread (NewThread) and carry
// it in the context (WithThread); ranges recorded with a context that carries no Thread go to
// the main thread, id 1.
//
// Any use is safe and loses nothing: every goroutine records into a buffer of its own, and when
// goroutines use one Thread at the same time (many goroutines recording with a plain
// context.Background(), say) their ranges would overlap without nesting on one thread, so at
// Stop the goroutines whose ranges overlap another's get thread ids of their own. A Thread
// handed from goroutine to goroutine (a worker pool) keeps its id.
type Thread struct {
	id int64
	// cur is the buffer this Thread last recorded into: one goroutine's, in the running
	// session. It makes the usual case (one goroutine per Thread) one pointer load.
	cur atomic.Pointer[lane]
	// lanes finds the buffer of any goroutine using this Thread in the running session.
	lanes atomic.Pointer[laneTable]
	mu    sync.Mutex // serializes adding to lanes
}

var (
	threadSeq  atomic.Int64
	mainThread = NewThread()
)

// NewThread returns a new logical thread with the next id (the first is 1, the main thread).
func NewThread() *Thread { return &Thread{id: threadSeq.Add(1)} }

// MainThread is the thread of contexts that carry none, id 1.
func MainThread() *Thread { return mainThread }

// ID is the thread's logical id.
func (t *Thread) ID() int64 { return t.id }

type threadKey struct{}

// WithThread returns a context whose ranges are recorded on t.
func WithThread(ctx context.Context, t *Thread) context.Context {
	return context.WithValue(ctx, threadKey{}, t)
}

// ThreadFrom returns the thread ctx carries, or the main thread.
func ThreadFrom(ctx context.Context) *Thread {
	if ctx != nil {
		if t, ok := ctx.Value(threadKey{}).(*Thread); ok {
			return t
		}
	}
	return mainThread
}

// Op describes an operator or range being recorded.
type Op struct {
	Name string
	// Scope is the RecordScope: 0 for operators, events.ScopeBackwardFunction for backward
	// nodes, events.ScopeUserScope for user ranges (PyTorch's scopes are < 16; a range keeps
	// 16 bits of it).
	Scope int
	// Inputs are the input shapes; kept only when the session records shapes.
	Inputs [][]int64
	// SequenceNr links forward and backward ops; set HasSequence to record it.
	SequenceNr  int64
	HasSequence bool
	// FwdThread is the forward op's thread, for backward ops.
	FwdThread int64
	// Stack is the call stack, innermost first; kept only when the session records stacks.
	Stack []string
	// Async marks a range that may end on another thread.
	Async bool
}

// Range is an open operator or user range. The zero Range (returned when no session is
// running) does nothing. End a Range once; ending it again does nothing.
type Range struct {
	sl *slot
	l  *lane
	d  *devSlot // the range's device record in a fallback session
}

// RecordFunction begins a user range (record_function) on ctx's thread. End it with End.
func RecordFunction(ctx context.Context, name string) Range {
	s := active.Load()
	if s == nil {
		return Range{}
	}
	// Begin without an Op: a range with a name and a scope alone is most ranges, and building
	// and copying the 100-byte Op was a tenth of a range's instructions.
	return s.begin(ctx, ThreadFrom(ctx), name, events.ScopeUserScope, nil)
}

// Begin starts recording op on ctx's thread. With a device session a start event is recorded
// on the device before the host start time. It never blocks on device work, takes no lock
// shared with other goroutines, and costs one atomic load when no session is running.
func Begin(ctx context.Context, op Op) Range {
	s := active.Load()
	if s == nil {
		return Range{}
	}
	return s.begin(ctx, ThreadFrom(ctx), op.Name, op.Scope, &op)
}

// Active reports whether a session is recording.
func Active() bool { return active.Load() != nil }

// begin records the start of a range named name in scope; op, when not nil, is the rest of it
// (Begin's Op, whose Name and Scope are name and scope).
func (s *Session) begin(ctx context.Context, t *Thread, name string, scope int, op *Op) Range {
	var dev stubs.Recorded
	devOK := false
	if s.fallback {
		var err error
		dev, err = s.dev.Record(ctx, s.want|stubs.WantDevice)
		if err != nil {
			s.fail("record", err)
		}
		devOK = err == nil
	}
	l := s.laneOf(t)
	if l == nil { // the session is stopping
		s.release(dev.Event)
		return Range{}
	}
	if raceEnabled {
		l.mu.Lock()
	}
	sl := l.next()
	*sl = slot{kind: events.RangeRecord, name: l.name(name), handle: l.nextHandle(), scope: int16(scope)}
	if op != nil {
		s.beginOp(l, sl, op)
	}
	var d *devSlot
	if s.fallback {
		d = l.devFor()
		d.ctx = ctx
		d.start = dev.Event
		d.device = dev.Device
		d.stream = dev.Stream
	}
	l.prune()
	l.open = append(l.open, sl)
	if devOK && s.want&stubs.WantCPUTime != 0 {
		sl.start = dev.CPUNs
	} else if s.fast {
		sl.start = tsc.Read() // s.now() in line: a call less
	} else {
		sl.start = s.clock.Now()
	}
	l.publish()
	if raceEnabled {
		l.mu.Unlock()
	}
	if s.stopped.Load() && s.orphan(sl, d) {
		// Stop began while this range was being written and has not seen it: it belongs to no
		// session.
		return Range{}
	}
	for _, c := range s.corr {
		c.PushCorrelationID(uint64(sl.handle))
	}
	return Range{sl: sl, l: l, d: d}
}

// beginOp records what op adds to a range beyond its name and scope.
func (s *Session) beginOp(l *lane, sl *slot, op *Op) {
	sl.async = op.Async
	if (op.Inputs != nil && s.opts.RecordShapes) || (op.Stack != nil && s.opts.WithStack) || op.HasSequence || op.FwdThread != 0 {
		x := slotExt{seq: -1, fwdThread: op.FwdThread}
		if op.HasSequence {
			x.seq = op.SequenceNr
		}
		if s.opts.RecordShapes {
			x.shapes = op.Inputs
		}
		if s.opts.WithStack {
			x.stack = op.Stack
		}
		sl.ext = int32(l.exts.add(x)) + 1
	}
}

// End closes the range on the thread it began on.
func (r Range) End() { r.end(nil) }

// EndOn closes the range from another logical thread; the range becomes async, as a
// RecordFunction whose end callbacks ran on another thread.
func (r Range) EndOn(t *Thread) { r.end(t) }

func (r Range) end(on *Thread) {
	sl, l, d := r.sl, r.l, r.d
	if sl == nil || sl.state.Load() != stateOpen {
		return
	}
	s := l.sess
	for i := len(s.corr) - 1; i >= 0; i-- {
		s.corr[i].PopCorrelationID()
	}
	var now int64
	var devEnd stubs.Event
	if s.fallback {
		rec, err := s.dev.Record(d.ctx, s.want)
		if err != nil {
			s.fail("record", err)
		}
		devEnd = rec.Event
		if err == nil && s.want&stubs.WantCPUTime != 0 {
			now = rec.CPUNs
		} else {
			now = s.now()
		}
	} else if s.fast {
		now = tsc.Read()
	} else {
		now = s.clock.Now()
	}
	owner := l.g == gid.G()
	if !owner && !sl.state.CompareAndSwap(stateOpen, stateClaimed) {
		s.release(devEnd) // ended meanwhile, or left behind by Stop
		return
	}
	sl.end = now
	if on != nil && on != l.t {
		sl.endThread = on.id
	}
	if devEnd != nil {
		d.end = devEnd
	}
	if owner {
		if raceEnabled {
			l.mu.Lock()
		}
		l.pop(sl)
		if raceEnabled {
			l.mu.Unlock()
		}
		if !sl.state.CompareAndSwap(stateOpen, stateEnded) {
			// Stop left the range behind as unfinished while it was being ended.
			d.releaseEnd(s)
			return
		}
	} else {
		sl.state.Store(stateEnded)
	}
	if s.stopped.Load() && sl.state.CompareAndSwap(stateEnded, stateOrphan) {
		// Ended after Stop took its snapshot: the events are this goroutine's to release.
		d.releaseAll(s)
	}
}

// Handle is the range's RecordFunction handle (its correlation id), 0 for the zero Range.
func (r Range) Handle() int64 {
	if r.sl == nil {
		return 0
	}
	return r.sl.handle
}

// CorrelationID is the handle of the innermost range open on ctx's thread (0 when none): the
// id a device runtime stamps on the work it launches, so the work can be linked to its op.
func CorrelationID(ctx context.Context) int64 {
	s := active.Load()
	if s == nil {
		return 0
	}
	l := s.laneIfAny(ThreadFrom(ctx))
	if l == nil {
		return 0
	}
	if raceEnabled {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	return l.innermost()
}

// RecordMemory reports an allocation (bytes > 0) or a free (bytes < 0) on device d, attributed
// to the ranges open on ctx's thread. It does nothing unless the session profiles memory.
func RecordMemory(ctx context.Context, bytes int64, d devices.Type) {
	s := active.Load()
	if s == nil || !s.opts.ProfileMemory {
		return
	}
	s.instant(ThreadFrom(ctx), events.MemoryRecord, "", bytes, d)
}

// instant records a finished instant record on t stamped now (memory and marks).
func (s *Session) instant(t *Thread, kind events.RecordKind, name string, bytes int64, d devices.Type) {
	l := s.laneOf(t)
	if l == nil {
		return
	}
	if raceEnabled {
		l.mu.Lock()
	}
	sl := l.next()
	// An instant has no handle: the field holds a memory record's bytes.
	*sl = slot{kind: kind, name: l.name(name), handle: bytes, scope: int16(d)}
	sl.start = s.now()
	sl.end = sl.start
	sl.state.Store(stateEnded)
	l.publish()
	if raceEnabled {
		l.mu.Unlock()
	}
	if s.stopped.Load() {
		s.orphan(sl, nil)
	}
}

// Mark places an instant marker: in the trace, and in the backend's own tools when it is a
// stubs.Marker.
func Mark(ctx context.Context, name string) {
	s := active.Load()
	if s == nil {
		return
	}
	if m, ok := s.dev.(stubs.Marker); ok {
		if err := m.Mark(name); err != nil {
			s.fail("mark", err)
		}
	}
	s.instant(ThreadFrom(ctx), events.MarkRecord, name, 0, 0)
}

// ErrNoRanges is returned by RangePush and RangePop when no session with a device that has
// its own range tools (a stubs.Ranger, NVTX's role) is running.
var ErrNoRanges = errors.New("orprof: no running session has a device with ranges")

// sessionRanger returns the running session's device ranges.
func sessionRanger() (stubs.Ranger, string, error) {
	s := active.Load()
	if s == nil || s.dev == nil {
		return nil, "", ErrNoRanges
	}
	r, ok := s.dev.(stubs.Ranger)
	if !ok {
		return nil, "", fmt.Errorf("%w: %s has none", ErrNoRanges, s.devName)
	}
	return r, s.devName, nil
}

// RangePush opens a range in the device backend's own tracing tools (NVTX-style: not an orprof
// event), as PyTorch's emit_nvtx mode does through rangePush. Backends usually require the pop
// on the same OS thread: lock the goroutine's thread (runtime.LockOSThread) around the pair.
func RangePush(name string) error {
	r, dev, err := sessionRanger()
	if err != nil {
		return err
	}
	if err := r.RangePush(name); err != nil {
		return stubs.Wrap(dev, "rangePush", err)
	}
	return nil
}

// RangePop closes the innermost range RangePush opened. Popping with nothing pushed is the
// backend's error, returned with its message.
func RangePop() error {
	r, dev, err := sessionRanger()
	if err != nil {
		return err
	}
	if err := r.RangePop(); err != nil {
		return stubs.Wrap(dev, "rangePop", err)
	}
	return nil
}
