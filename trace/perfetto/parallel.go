package perfetto

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/orprof/orprof/internal/jsonscan"
)

// Parallel parsing and encoding of the trace-event array (Convert; ConvertJSON reads in
// sequence).
//
// The reading goroutine cuts the array, from its first element on, into segments of about
// parConfig.segSize bytes: each cut is the first '{' at or past segSize bytes into the segment
// that looks like an event's start after another's ("}, {" with any spacing), so the cuts
// depend on the input's bytes alone. Workers parse the segments speculatively, as if each
// started at an element, and encode each event's category, name and args with interning state
// of the segment's own (a fresh encoder per segment). A segment's result is used only when its
// start is known to be an element's: the first segment's is, and a segment parsed from a true
// start that ends exactly at its end, after a ',', makes the next one's true too. The reading
// goroutine merges the results in file order; a segment that failed (invalid JSON, or a cut
// inside a string) is parsed by it in sequence from its start until it stands exactly at a
// later cut, so every error is found and worded as the sequential read words it.
//
// Each merged segment's events go out on a packet sequence of their own (its
// trusted_packet_sequence_id, its InternedData on a packet that clears the sequence's
// incremental state): iids never cross segments, so the output does not depend on how many
// workers ran or in what order they finished.

// mainSequence is the packet sequence of the track descriptors, the counter values and the
// events the reading goroutine encodes itself.
const mainSequence = 1

// parConfig says how the trace-event array is parsed.
type parConfig struct {
	workers int // goroutines that parse segments
	segSize int // bytes per segment, about
}

func defaultParConfig() parConfig {
	return parConfig{workers: max(1, min(runtime.GOMAXPROCS(0), 4)), segSize: 256 << 10}
}

// segment is a piece of the input cut before what may be an array element.
type segment struct {
	buf  []byte
	off  int64 // input offset of buf[0]
	last bool  // it runs to the end of the input
	done chan struct{}
	res  segResult // set by the worker before done is closed
}

type segStatus uint8

const (
	segFailed   segStatus = iota // not usable: parse sequentially from the segment's start
	segLanded                    // its elements end exactly at its end, after a ','
	segArrayEnd                  // the array closed inside it, at res.end
)

// segResult is a worker's parse of one segment: its events, the bytes they point into, the
// payloads it encoded (chunks of their exact size) and the strings those intern, as the
// fields of an InternedData message.
type segResult struct {
	status   segStatus
	end      int64 // segArrayEnd: input offset just after the ']'
	events   []wevent
	arena    []byte
	chunks   [][]byte
	interned []byte
}

// wspan locates bytes in a segment's arena; n < 0 for none.
type wspan struct{ off, n int32 }

// wevent is an event as a worker read it. A metadata event's value is in dur (an integer)
// or args (a string).
type wevent struct {
	ts, dur                       int64
	pay                           payload // in the segment's chunks
	name, cat, pid, tid, id, args wspan
	ph, bp                        byte
	hasDur, hasPay, hasMeta       bool
	meta                          uint8
}

// scratch is a result's event list and arena, handed back for reuse once merged.
type scratch struct {
	events []wevent
	arena  []byte
}

// parallel runs the parse of one rank's event array.
type parallel struct {
	cfg  parConfig
	c    *converter
	r    *rank
	name string

	s       *jsonscan.Scanner
	jobs    chan *segment
	spare   chan scratch
	wg      sync.WaitGroup
	quit    atomic.Bool // workers: stop parsing
	stopped bool        // no more segments go to the workers
	queue   []*segment  // cut and not yet merged, oldest first
	carry   []byte      // input read after the last cut
	next    int64       // input offset of carry[0]
	free    [][]byte    // segment buffers to reuse
	ev      event
}

// ahead is how many segments may be cut and not yet merged.
func (p *parallel) ahead() int { return p.cfg.workers }

// array reads the trace-event array, the scanner standing at its '['.
func (p *parallel) array(rd *reader) error {
	s := rd.s
	p.s = s
	it := s.Array()
	if !it.Next() {
		return it.Err()
	}
	rest, off := s.Detach()
	p.next = off
	p.carry = append(make([]byte, 0, max(p.cfg.segSize, len(rest))), rest...)
	p.jobs = make(chan *segment, p.ahead()+1)
	p.spare = make(chan scratch, p.ahead()+p.cfg.workers)
	for range p.cfg.workers {
		p.wg.Add(1)
		go p.work()
	}
	defer p.stop()
	for {
		for !p.stopped && len(p.queue) < p.ahead() && p.cut() != nil {
		}
		if len(p.queue) > 0 && p.queue[0].done != nil {
			seg := p.queue[0]
			<-seg.done
			switch seg.res.status {
			case segLanded:
				p.queue = p.queue[1:]
				if err := p.merge(seg); err != nil {
					return err
				}
				p.free = append(p.free, seg.buf[:0])
				continue
			case segArrayEnd:
				p.queue = p.queue[1:]
				end := seg.res.end
				if err := p.merge(seg); err != nil {
					return err
				}
				p.stop()
				s.Resume(end, seg.buf[end-seg.off:], p.feedNext)
				return nil
			}
		}
		// The segment at the head of the queue starts at an element but its result is not
		// usable: parse on from there in sequence.
		p.c.stats.fallbacks++
		resumed, err := p.sequential(rd)
		if err != nil || !resumed {
			return err
		}
	}
}

// sequential parses on the reading goroutine from the start of the head segment (or the cut
// point, when nothing is queued), which is an element's start, until it stands exactly at the
// start of a queued segment a worker parses (resumed: that segment is now the head), or the
// array ends (the scanner stands after the ']' and reads on through p.feedNext).
func (p *parallel) sequential(rd *reader) (resumed bool, err error) {
	s := p.s
	start := p.next
	if len(p.queue) > 0 {
		start = p.queue[0].off
	}
	s.Resume(start, nil, p.feedNext)
	it := s.InArray()
	for {
		if c, _ := s.Peek(); c != '{' {
			if err := s.Skip(); err != nil {
				return false, err
			}
		} else if err := rd.event(); err != nil {
			return false, err
		}
		if !it.Next() {
			if err := it.Err(); err != nil {
				return false, err
			}
			p.stop()
			return false, nil
		}
		// At a cut with nothing buffered beyond it, the next segment starts here.
		if !s.AtBufferEnd() || p.stopped {
			continue
		}
		if len(p.queue) == 0 && p.cut() == nil {
			continue
		}
		if p.queue[0].off == s.Offset() && p.queue[0].done != nil {
			s.Resume(s.Offset(), nil, nil) // the segment is the worker's: stop feeding it
			return true, nil
		}
	}
}

// feedNext hands the scanner the next segment's bytes, cutting one when none is queued; nil at
// the end of the input.
func (p *parallel) feedNext() []byte {
	if len(p.queue) == 0 && p.cut() == nil {
		return nil
	}
	seg := p.queue[0]
	p.queue = p.queue[1:]
	return seg.buf
}

// cut reads the next segment from the source, queues it and, unless the workers are stopped,
// hands it to them. It returns nil at the end of the input.
func (p *parallel) cut() *segment {
	s := p.s
	if len(p.carry) == 0 && s.SourceDone() {
		return nil
	}
	var buf []byte
	if n := len(p.free); n > 0 {
		buf, p.free = p.free[n-1], p.free[:n-1]
	} else {
		buf = make([]byte, 0, p.cfg.segSize+p.cfg.segSize/4)
	}
	buf = append(buf, p.carry...)
	seg := &segment{off: p.next}
	want := p.cfg.segSize + 256
	for {
		for len(buf) < want && !s.SourceDone() {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n := s.ReadSome(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
		}
		if c := findCut(buf, p.cfg.segSize); c > 0 {
			seg.buf = buf[:c]
			p.carry = append(p.carry[:0], buf[c:]...)
			break
		}
		if s.SourceDone() {
			seg.buf, seg.last = buf, true
			p.carry = p.carry[:0]
			break
		}
		want = 2 * len(buf) // no cut yet: read on
	}
	p.next += int64(len(seg.buf))
	p.queue = append(p.queue, seg)
	if !p.stopped {
		seg.done = make(chan struct{})
		p.jobs <- seg
	}
	return seg
}

// findCut returns the index of the first '{' at or past from in buf that looks like the start
// of a trace event after another one: the non-space bytes before it are '}' and ',', the one
// after it is '"' or '}'. It returns 0 when there is none, or when buf ends before the byte
// after a candidate (more input tells), so that the cut depends on the input alone.
func findCut(buf []byte, from int) int {
	for i := max(from, 1); i < len(buf); {
		k := bytes.IndexByte(buf[i:], '{')
		if k < 0 {
			return 0
		}
		c := i + k
		i = c + 1
		j := c + 1
		for j < len(buf) && jsonscan.Space[buf[j]] {
			j++
		}
		if j == len(buf) {
			return 0
		}
		if buf[j] != '"' && buf[j] != '}' {
			continue
		}
		b := c - 1
		for b >= 0 && jsonscan.Space[buf[b]] {
			b--
		}
		if b < 0 || buf[b] != ',' {
			continue
		}
		b--
		for b >= 0 && jsonscan.Space[buf[b]] {
			b--
		}
		if b >= 0 && buf[b] == '}' {
			return c
		}
	}
	return 0
}

// stop tells the workers to finish and waits for them. Segments cut later are not parsed.
func (p *parallel) stop() {
	if p.stopped || p.jobs == nil {
		return
	}
	p.stopped = true
	p.quit.Store(true)
	close(p.jobs)
	p.wg.Wait()
}

// merge adds a segment's events to the rank in file order: its payload chunks become the
// rank's, on a new packet sequence.
func (p *parallel) merge(seg *segment) error {
	c, r, res := p.c, p.r, &seg.res
	base := payload(len(r.chunks)) << 40
	if len(res.chunks) > 0 {
		seq := c.nextSeq
		c.nextSeq++
		r.chunks = append(r.chunks, res.chunks...)
		for range res.chunks {
			r.payStore.seqs = append(r.payStore.seqs, seq)
		}
		if err := c.segmentStrings(seq, res.interned); err != nil {
			return err
		}
	}
	view := func(sp wspan) []byte {
		if sp.n < 0 {
			return nil
		}
		return res.arena[sp.off : sp.off+sp.n : sp.off+sp.n]
	}
	ev := &p.ev
	for i := range res.events {
		we := &res.events[i]
		*ev = event{ph: we.ph, bp: we.bp, ts: we.ts, dur: we.dur, hasDur: we.hasDur,
			name: view(we.name), cat: view(we.cat), pid: view(we.pid), tid: view(we.tid), id: view(we.id),
			args: view(we.args)}
		if we.hasPay {
			ev.pay, ev.hasPay = we.pay+base, true
		}
		if we.hasMeta {
			ev.hasMeta, ev.meta, ev.metaStr, ev.metaNum, ev.args = true, we.meta, ev.args, we.dur, nil
		}
		if err := c.ingest(r, ev, p.name); err != nil {
			return err
		}
	}
	select {
	case p.spare <- scratch{res.events[:0], res.arena[:0]}:
	default:
	}
	*res = segResult{}
	return nil
}

// worker parses segments with an encoder whose interning starts afresh at each segment.
type worker struct {
	p      *parallel
	rd     reader
	enc    encoder
	pay    payStore
	events []wevent
	arena  []byte
	last   wevent            // the spans of the last event's pid, tid and cat, to share
	metas  map[string]string // per metadata kind and process (or thread), the segment's last value
	key    []byte
	val    []byte
}

func (p *parallel) work() {
	defer p.wg.Done()
	w := &worker{p: p, enc: newEncoder(p.c.noIntern, p.name), metas: map[string]string{}}
	w.rd = reader{s: jsonscan.NewBytes(nil, 0, p.name), fn: w.collect, encodeArgs: w.enc.encodeArgs}
	for seg := range p.jobs {
		if !p.quit.Load() {
			w.parse(seg)
		}
		close(seg.done)
		// Let the reading goroutine run now if it waits for this segment: it merges the
		// segment and cuts the next ones.
		runtime.Gosched()
	}
}

// parse parses seg as a run of array elements starting at its first byte.
func (w *worker) parse(seg *segment) {
	p, s := w.p, w.rd.s
	s.Reset(seg.buf, seg.off)
	w.enc.reset()
	for i := range w.pay.chunks {
		w.pay.chunks[i] = w.pay.chunks[i][:0]
	}
	w.pay.chunks, w.pay.seqs = w.pay.chunks[:0], w.pay.seqs[:0]
	if len(w.events) == 0 && cap(w.events) == 0 {
		select {
		case sc := <-p.spare:
			w.events, w.arena = sc.events, sc.arena
		default:
		}
	}
	w.events, w.arena = w.events[:0], w.arena[:0]
	w.last = wevent{pid: wspan{n: -1}, tid: wspan{n: -1}, cat: wspan{n: -1}}
	clear(w.metas)
	res := segResult{}
	it := s.InArray()
	for !p.quit.Load() {
		if c, ok := s.Peek(); !ok || c != '{' {
			break
		}
		if w.rd.event() != nil {
			break
		}
		if !it.Next() {
			if it.Err() == nil {
				res.status, res.end = segArrayEnd, s.Offset()
			}
			break
		}
		if _, ok := s.Peek(); !ok {
			if !seg.last {
				res.status = segLanded
			}
			break
		}
	}
	if res.status != segFailed { // a failed segment's events are dropped
		res.events, res.arena = w.events, w.arena
		w.events, w.arena = nil, nil
		res.chunks = make([][]byte, len(w.pay.chunks))
		for i, c := range w.pay.chunks {
			res.chunks[i] = bytes.Clone(c)
		}
		res.interned = w.enc.interned(nil)
	}
	seg.res = res
	s.Reset(nil, 0) // let go of the segment's buffer
}

// errArena stops a segment whose arena would outgrow its 32-bit offsets: the reading
// goroutine parses it in sequence.
var errArena = fmt.Errorf("segment too large")

func (w *worker) keep(b []byte) (wspan, error) {
	if b == nil {
		return wspan{n: -1}, nil
	}
	off := len(w.arena)
	if off+len(b) > math.MaxInt32 {
		return wspan{}, errArena
	}
	w.arena = append(w.arena, b...)
	return wspan{int32(off), int32(len(b))}, nil
}

// keepAs is keep, sharing the span of the last event's same member when the bytes are equal.
func (w *worker) keepAs(b []byte, last wspan) (wspan, error) {
	if last.n >= 0 && b != nil && int(last.n) == len(b) && string(w.arena[last.off:last.off+last.n]) == string(b) {
		return last, nil
	}
	return w.keep(b)
}

// collect keeps one event: what the reading goroutine needs of it, and the payload of a
// slice, an instant or a flow end encoded on the segment's sequence. A metadata event whose
// value is the one the segment's last event of its kind for its process (or thread) gave
// changes nothing and is not kept: Kineto writes the same few thousands of times.
func (w *worker) collect(ev *event) error {
	we := wevent{ph: ev.ph, bp: ev.bp, ts: ev.ts, dur: ev.dur, hasDur: ev.hasDur, args: wspan{n: -1}}
	if ev.ph == 'M' {
		key := metaKey(ev.name)
		if key == "" {
			return nil // a kind Convert does not keep
		}
		str, num, kind, err := metaValue(w.enc.as, ev.args, key)
		if err != nil {
			return err
		}
		k := append(w.key[:0], ev.name...)
		k = append(append(k, 0), numeric(ev.pid)...)
		if ev.name[0] == 't' {
			k = append(append(k, 0), numeric(ev.tid)...)
		}
		v := append(append(w.val[:0], kind), str...)
		v = strconv.AppendInt(append(v, 0), num, 10)
		w.key, w.val = k, v
		if kind != metaNone {
			if last, ok := w.metas[string(k)]; ok && last == string(v) {
				return nil
			}
			w.metas[string(k)] = string(v)
		}
		if we.args, err = w.keep(str); err != nil {
			return err
		}
		we.hasMeta, we.meta, we.dur = true, kind, num
	}
	var err error
	if we.name, err = w.keep(ev.name); err != nil {
		return err
	}
	if we.cat, err = w.keepAs(ev.cat, w.last.cat); err != nil {
		return err
	}
	if we.pid, err = w.keepAs(ev.pid, w.last.pid); err != nil {
		return err
	}
	if we.tid, err = w.keepAs(ev.tid, w.last.tid); err != nil {
		return err
	}
	if we.id, err = w.keep(ev.id); err != nil {
		return err
	}
	w.last = we
	switch ev.ph {
	case 'X', 'i', 'I', 'R', 's', 't', 'f':
		e := ev
		if ev.ph == 's' || ev.ph == 't' || ev.ph == 'f' {
			e = &event{name: ev.name, cat: ev.cat}
		}
		start := w.pay.start(0)
		b, err := w.enc.encodeEvent(w.pay.chunks[len(w.pay.chunks)-1], e)
		if err != nil {
			return err
		}
		we.pay, we.hasPay = w.pay.end(b, start), true
	case 'C':
		if we.args, err = w.keep(ev.args); err != nil {
			return err
		}
	}
	w.events = append(w.events, we)
	return nil
}
