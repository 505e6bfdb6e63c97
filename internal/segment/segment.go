// Package segment parses a JSON array of trace events on several goroutines: it cuts the
// input into segments, has workers parse them speculatively, and hands their results back
// in file order. The trace reader (trace/tracefile) and the converter (trace/perfetto) share
// it; each says how one element is parsed and what a result holds.
//
// Each cut is made just before a '{' that looks like the start of an event after another
// ("}, {" with any spacing). A worker parses a segment as if it started at an element. Its
// result is used only when its start is known to be one: the first segment's is, and a
// segment parsed from a true start that ends exactly at its end, after a ',', makes the next
// one's true too. When a result is not usable (invalid JSON, or a cut inside a string), the
// reading goroutine parses from that segment's start itself, in order, until it stands at a
// later cut between two elements. Every error is therefore found, and worded, by the
// sequential code at the same offset as without the workers.
package segment

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/orprof/orprof/internal/jsonscan"
)

// Status is what a worker's parse of a segment found.
type Status uint8

const (
	Failed   Status = iota // not usable: parse sequentially from the segment's start
	Landed                 // its elements end exactly at its end, after a ','
	ArrayEnd               // the array closed inside it, at Segment.End
)

// Segment is a piece of the input cut before what may be an array element, and a worker's
// result of parsing it.
type Segment[R any] struct {
	Buf    []byte
	Off    int64 // input offset of Buf[0]
	Last   bool  // it runs to the end of the input
	Status Status
	End    int64 // ArrayEnd: input offset just after the ']'
	Res    R     // the caller's result, set by the worker
	done   chan struct{}
}

// Config says how an array is cut and how many workers parse it.
type Config struct {
	Workers int // goroutines that parse segments
	Size    int // bytes per segment, about
	Ahead   int // segments cut and not yet merged, at most
	// FirstCut cuts at the first event start at or past Size bytes, so that the cuts depend
	// on the input's bytes alone; otherwise at the last one in what was read (Size bytes or
	// more).
	FirstCut bool
}

// Array is the parallel parse of one event array. The caller fills the exported fields and
// calls Parse once.
type Array[R any] struct {
	Config
	Scanner *jsonscan.Scanner // standing at the array's first element
	// Worker returns worker w's parse of a segment, called on that worker's goroutine. The
	// parse sets the segment's Status, End and Res (Elements, on a scanner of its own, does the first two).
	Worker func(w int) func(*Segment[R])
	// Merge takes a usable segment's result, on the reading goroutine, in file order.
	Merge func(*Segment[R]) error
	// Element parses the element the scanner stands at, on the reading goroutine.
	Element func() error
	// Optional: Fallback is called before each sequential parse; Consumed, for input scanned
	// in place, with the offset before which the input was parsed; Progress, in place, with
	// the offset up to which it was cut.
	Fallback           func()
	Consumed, Progress func(off int64)

	jobs    chan *Segment[R]
	wg      sync.WaitGroup
	quit    atomic.Bool   // workers: stop parsing
	stopped bool          // no more segments go to the workers
	queue   []*Segment[R] // cut and not yet merged, oldest first
	carry   []byte        // input read after the last cut
	next    int64         // input offset of carry[0]
	free    [][]byte      // segment buffers to reuse
	// whole is the rest of the input from the array's first element when the scanner reads
	// it in place: the segments are cut out of it, not read and copied.
	whole    []byte
	wholeOff int64 // input offset of whole[0]
}

// Parse parses the array from the element the scanner stands at to the closing ']', after
// which the scanner stands, reading on through the input already cut, then the source.
func (a *Array[R]) Parse() error {
	s := a.Scanner
	a.jobs = make(chan *Segment[R], a.Ahead+1)
	rest, off := s.Detach()
	a.next = off
	if s.InPlace() {
		a.whole, a.wholeOff = rest, off
	} else {
		a.carry = append(make([]byte, 0, max(a.Size, len(rest))), rest...)
	}
	for w := range a.Workers {
		a.wg.Add(1)
		go a.work(w)
	}
	defer a.stop()
	for {
		for !a.stopped && len(a.queue) < a.Ahead && a.cut() != nil {
		}
		if len(a.queue) > 0 && a.queue[0].done != nil {
			seg := a.queue[0]
			<-seg.done
			switch seg.Status {
			case Landed:
				a.queue = a.queue[1:]
				if err := a.Merge(seg); err != nil {
					return err
				}
				if a.whole == nil {
					a.free = append(a.free, seg.Buf[:0])
				} else if a.Consumed != nil {
					a.Consumed(seg.Off + int64(len(seg.Buf)))
				}
				continue
			case ArrayEnd:
				a.queue = a.queue[1:]
				if err := a.Merge(seg); err != nil {
					return err
				}
				a.stop()
				s.Resume(seg.End, seg.Buf[seg.End-seg.Off:], a.feedNext)
				return nil
			}
		}
		// The segment at the head of the queue starts at an element but its result is not
		// usable: parse on from there in sequence.
		if a.Fallback != nil {
			a.Fallback()
		}
		resumed, err := a.sequential()
		if err != nil || !resumed {
			return err
		}
	}
}

// sequential parses on the reading goroutine from the start of the head segment (or the cut
// point, when nothing is queued), which is an element's start, until it stands exactly at the
// start of a queued segment a worker parses (resumed: that segment is now the head), or the
// array ends (the scanner stands after the ']' and reads on through feedNext).
func (a *Array[R]) sequential() (resumed bool, err error) {
	s := a.Scanner
	start := a.next
	if len(a.queue) > 0 {
		start = a.queue[0].Off
	}
	s.Resume(start, nil, a.feedNext)
	it := s.InArray()
	for {
		if err := a.Element(); err != nil {
			return false, err
		}
		if !it.Next() {
			if err := it.Err(); err != nil {
				return false, err
			}
			a.stop()
			return false, nil
		}
		// At a cut with nothing buffered beyond it, the next segment starts here.
		if !s.AtBufferEnd() || a.stopped {
			continue
		}
		if len(a.queue) == 0 && a.cut() == nil {
			continue
		}
		if a.queue[0].Off == s.Offset() && a.queue[0].done != nil {
			s.Resume(s.Offset(), nil, nil) // the segment is the worker's: stop feeding it
			if a.whole != nil && a.Consumed != nil {
				a.Consumed(s.Offset())
			}
			return true, nil
		}
	}
}

// feedNext hands the scanner the next segment's bytes, cutting one when none is queued; nil at
// the end of the input.
func (a *Array[R]) feedNext() []byte {
	if len(a.queue) == 0 && a.cut() == nil {
		return nil
	}
	seg := a.queue[0]
	a.queue = a.queue[1:]
	return seg.Buf
}

// cut reads the next segment from the source, queues it and, unless the workers are stopped,
// hands it to them. It returns nil at the end of the input.
func (a *Array[R]) cut() *Segment[R] {
	if a.whole != nil {
		return a.cutInPlace()
	}
	s := a.Scanner
	if len(a.carry) == 0 && s.SourceDone() {
		return nil
	}
	var buf []byte
	if n := len(a.free); n > 0 {
		buf, a.free = a.free[n-1], a.free[:n-1]
	} else {
		buf = make([]byte, 0, a.Size+a.Size/4)
	}
	buf = append(buf, a.carry...)
	seg := &Segment[R]{Off: a.next}
	fill := func(want int) {
		for len(buf) < want && !s.SourceDone() {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n := s.ReadSome(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
		}
	}
	c := 0
	if a.FirstCut {
		for want := a.Size + 256; ; want = 2 * len(buf) {
			fill(want)
			if c = FirstCut(buf, a.Size); c > 0 || s.SourceDone() {
				break
			}
		}
	} else {
		for want := max(a.Size, len(buf)+1); ; want *= 2 {
			fill(want)
			if s.SourceDone() {
				break
			}
			if c = LastCut(buf); c > 0 {
				break
			}
		}
	}
	if c > 0 {
		seg.Buf = buf[:c]
		a.carry = append(a.carry[:0], buf[c:]...)
	} else {
		seg.Buf, seg.Last = buf, true
		a.carry = a.carry[:0]
	}
	a.next += int64(len(seg.Buf))
	a.enqueue(seg)
	return seg
}

// enqueue queues seg and, unless the workers are stopped, hands it to them.
func (a *Array[R]) enqueue(seg *Segment[R]) {
	a.queue = append(a.queue, seg)
	if !a.stopped {
		seg.done = make(chan struct{})
		a.jobs <- seg
	}
}

// cutInPlace is cut of input scanned in place: the segment is a piece of a.whole, capped so
// that nothing appends into the input (a mapped file's pages are read-only).
func (a *Array[R]) cutInPlace() *Segment[R] {
	rest := a.whole[a.next-a.wholeOff:]
	if len(rest) == 0 {
		return nil
	}
	n := len(rest)
	if a.FirstCut {
		if c := FirstCut(rest, a.Size); c > 0 {
			n = c
		}
	} else {
		for want := a.Size; want < len(rest); want *= 2 {
			if c := LastCut(rest[:want]); c > 0 {
				n = c
				break
			}
		}
	}
	seg := &Segment[R]{Off: a.next, Buf: rest[:n:n], Last: n == len(rest)}
	a.next += int64(n)
	if a.Progress != nil {
		a.Progress(a.next)
	}
	a.enqueue(seg)
	return seg
}

// stop tells the workers to finish and waits for them. Segments cut later are not parsed.
func (a *Array[R]) stop() {
	if a.stopped || a.jobs == nil {
		return
	}
	a.stopped = true
	a.quit.Store(true)
	close(a.jobs)
	a.wg.Wait()
}

// Quit tells every worker to stop parsing: a worker that meets a fault its state does not
// survive fails its segment and calls it.
func (a *Array[R]) Quit() { a.quit.Store(true) }

// Quitting reports whether the workers are to stop parsing.
func (a *Array[R]) Quitting() bool { return a.quit.Load() }

func (a *Array[R]) work(w int) {
	defer a.wg.Done()
	parse := a.Worker(w)
	for seg := range a.jobs {
		if !a.quit.Load() {
			parse(seg)
		}
		close(seg.done)
		// Let the reading goroutine run now if it waits for this segment: it merges the
		// segment and cuts the next ones. Otherwise it waits until every worker runs out of
		// segments, and then they wait for it.
		runtime.Gosched()
	}
}

// Elements is a worker's parse of seg as a run of array elements, s reading seg from its
// first byte: event parses the element s stands at. It sets seg's Status and End; the
// caller keeps its result only when the Status is not Failed.
func (a *Array[R]) Elements(s *jsonscan.Scanner, seg *Segment[R], event func() error) {
	it := s.InArray()
	for !a.quit.Load() {
		if c, ok := s.Peek(); !ok || c != '{' {
			break
		}
		if event() != nil {
			break
		}
		if !it.Next() {
			if it.Err() == nil {
				seg.Status, seg.End = ArrayEnd, s.Offset()
			}
			break
		}
		if _, ok := s.Peek(); !ok {
			if !seg.Last {
				seg.Status = Landed
			}
			break
		}
	}
}
