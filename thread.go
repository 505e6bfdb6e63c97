package orprof

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/stubs"
)

// Thread is a logical thread, PyTorch's RecordFunction thread id: ranges begun on one Thread
// nest into one tree. A Thread must be used by one goroutine at a time; give every goroutine
// that records its own Thread (NewThread) and carry it in the context (WithThread). Ranges
// recorded with a context that carries no Thread go to the main thread, id 1.
type Thread struct {
	id int64

	mu   sync.Mutex
	sess *Session // session the buffer belongs to
	buf  *threadBuf
	open []int64 // handles of the ranges open on this thread, innermost last
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

const chunkSize = 512

// slot is one raw record while a session runs.
type slot struct {
	rec      events.Record
	stream   int64
	devStart stubs.Event
	devEnd   stubs.Event
	ended    bool
}

// threadBuf is a thread's records for one session: chunks that never move, so a Range can keep
// a pointer to its slot.
type threadBuf struct {
	thread *Thread
	chunks []*[chunkSize]slot
	n      int
}

func (b *threadBuf) next() *slot {
	c := b.n / chunkSize
	if c == len(b.chunks) {
		b.chunks = append(b.chunks, new([chunkSize]slot))
	}
	s := &b.chunks[c][b.n%chunkSize]
	b.n++
	return s
}

// bufFor returns t's buffer for session s, registering a new one on first use. t.mu is held.
func (t *Thread) bufFor(s *Session) *threadBuf {
	if t.sess != s {
		t.sess = s
		t.buf = &threadBuf{thread: t}
		t.open = t.open[:0]
		s.addBuf(t.buf)
	}
	return t.buf
}

// Op describes an operator or range being recorded.
type Op struct {
	Name string
	// Scope is the RecordScope: 0 for operators, events.ScopeBackwardFunction for backward
	// nodes, events.ScopeUserScope for user ranges.
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
// running) does nothing.
type Range struct {
	s    *slot
	t    *Thread
	sess *Session
	ctx  context.Context // the op's context: its end event goes to the same device and stream
}

// RecordFunction begins a user range (record_function) on ctx's thread. End it with End.
func RecordFunction(ctx context.Context, name string) Range {
	return Begin(ctx, Op{Name: name, Scope: events.ScopeUserScope})
}

// Begin starts recording op on ctx's thread. With a device session a start event is recorded
// on the device before the host start time. It never blocks on device work and costs one
// atomic load when no session is running.
func Begin(ctx context.Context, op Op) Range {
	s := active.Load()
	if s == nil {
		return Range{}
	}
	return s.begin(ctx, ThreadFrom(ctx), op)
}

// Active reports whether a session is recording.
func Active() bool { return active.Load() != nil }

func (s *Session) begin(ctx context.Context, t *Thread, op Op) Range {
	var dev stubs.Recorded
	if s.fallback {
		var err error
		dev, err = s.dev.Record(ctx, stubs.WantEvent|stubs.WantDevice|stubs.WantCPUTime)
		if err != nil {
			s.fail("record", err)
		}
	}
	handle := s.handles.Add(1)
	t.mu.Lock()
	sl := t.bufFor(s).next()
	r := &sl.rec
	r.Kind = events.RangeRecord
	r.Name = op.Name
	r.Handle = handle
	r.Thread = t.id
	r.Scope = op.Scope
	r.Async = op.Async
	r.SequenceNr = -1
	if op.HasSequence {
		r.SequenceNr = op.SequenceNr
	}
	r.FwdThread = op.FwdThread
	if s.opts.RecordShapes {
		r.Shapes = op.Inputs
	}
	if s.opts.WithStack {
		r.Stack = op.Stack
	}
	r.DeviceElapsedUs = -1
	sl.devStart = dev.Event
	r.DeviceIndex = dev.Device
	sl.stream = dev.Stream
	t.open = append(t.open, handle)
	r.StartNs = s.now()
	t.mu.Unlock()
	for _, c := range s.corr {
		c.PushCorrelationID(uint64(handle))
	}
	return Range{s: sl, t: t, sess: s, ctx: ctx}
}

// End closes the range on the thread it began on.
func (r Range) End() { r.end(r.t) }

// EndOn closes the range from another logical thread; the range becomes async, as a
// RecordFunction whose end callbacks ran on another thread.
func (r Range) EndOn(t *Thread) { r.end(t) }

func (r Range) end(on *Thread) {
	if r.s == nil {
		return
	}
	s := r.sess
	for i := len(s.corr) - 1; i >= 0; i-- {
		s.corr[i].PopCorrelationID()
	}
	now := s.now()
	var dev stubs.Recorded
	if s.fallback {
		var err error
		dev, err = s.dev.Record(r.ctx, stubs.WantEvent)
		if err != nil {
			s.fail("record", err)
		}
	}
	r.t.mu.Lock()
	if !r.s.ended {
		r.s.rec.EndNs = now
		r.s.rec.EndThread = on.id
		r.s.devEnd = dev.Event
		r.s.ended = true
		dev.Event = nil
	}
	h := r.s.rec.Handle
	for i := len(r.t.open) - 1; i >= 0; i-- {
		if r.t.open[i] == h {
			r.t.open = append(r.t.open[:i], r.t.open[i+1:]...)
			break
		}
	}
	r.t.mu.Unlock()
	if dev.Event != nil {
		s.release(dev.Event)
	}
}

// Handle is the range's RecordFunction handle (its correlation id), 0 for the zero Range.
func (r Range) Handle() int64 {
	if r.s == nil {
		return 0
	}
	return r.s.rec.Handle
}

// CorrelationID is the handle of the innermost range open on ctx's thread (0 when none): the
// id a device runtime stamps on the work it launches, so the work can be linked to its op.
func CorrelationID(ctx context.Context) int64 {
	if active.Load() == nil {
		return 0
	}
	t := ThreadFrom(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.open) == 0 {
		return 0
	}
	return t.open[len(t.open)-1]
}

// RecordMemory reports an allocation (bytes > 0) or a free (bytes < 0) on device d, attributed
// to the ranges open on ctx's thread. It does nothing unless the session profiles memory.
func RecordMemory(ctx context.Context, bytes int64, d devices.Type) {
	s := active.Load()
	if s == nil || !s.opts.ProfileMemory {
		return
	}
	s.instant(ThreadFrom(ctx), events.Record{Kind: events.MemoryRecord, Bytes: bytes, MemoryDevice: d})
}

// instant records r on t as a finished record stamped now (memory and marks).
func (s *Session) instant(t *Thread, r events.Record) {
	now := s.now()
	r.Thread, r.EndThread, r.StartNs, r.EndNs, r.DeviceElapsedUs = t.id, t.id, now, now, -1
	t.mu.Lock()
	sl := t.bufFor(s).next()
	sl.rec = r
	sl.ended = true
	t.mu.Unlock()
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
	s.instant(ThreadFrom(ctx), events.Record{Kind: events.MarkRecord, Name: name})
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
