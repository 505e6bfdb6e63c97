package perfetto

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"strconv"

	"github.com/orprof/orprof/internal/jsonscan"
	"github.com/orprof/orprof/internal/segment"
)

// Parallel parsing and encoding of the trace-event array (Convert; ConvertJSON reads in
// sequence). internal/segment cuts the array, from its first element on, and runs the workers;
// its cuts here are the first event start at or past parConfig.segSize bytes into a segment,
// so they depend on the input's bytes alone. Workers parse segments speculatively and encode
// each event's category, name and args with interning state of the segment's own (a fresh
// encoder per segment); the reading goroutine merges the usable results in file order and
// parses a failed segment itself, in sequence, wording every error as the sequential read
// words it.
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

// segResult is a worker's parse of one segment: its events, the bytes they point into, the
// payloads it encoded (chunks of their exact size) and the strings those intern, as the
// fields of an InternedData message.
type segResult struct {
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

// piece is a segment of the event array with a worker's result.
type piece = segment.Segment[segResult]

// parallel runs the parse of one rank's event array.
type parallel struct {
	cfg  parConfig
	c    *converter
	r    *rank
	name string

	arr   *segment.Array[segResult]
	spare chan scratch
	ev    event
}

// array reads the trace-event array, the scanner standing at its '['.
func (p *parallel) array(rd *reader) error {
	s := rd.s
	it := s.Array()
	if !it.Next() {
		return it.Err()
	}
	ahead := p.cfg.workers // segments cut and not yet merged
	p.spare = make(chan scratch, ahead+p.cfg.workers)
	p.arr = &segment.Array[segResult]{
		Config:  segment.Config{Workers: p.cfg.workers, Size: p.cfg.segSize, Ahead: ahead, FirstCut: true},
		Scanner: s, Worker: p.worker, Merge: p.merge,
		Element: func() error {
			if c, _ := s.Peek(); c != '{' {
				return s.Skip()
			}
			return rd.event()
		},
		Fallback: func() { p.c.stats.fallbacks++ },
	}
	return p.arr.Parse()
}

// merge adds a segment's events to the rank in file order: its payload chunks become the
// rank's, on a new packet sequence.
func (p *parallel) merge(seg *piece) error {
	c, r, res := p.c, p.r, &seg.Res
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

// worker is a worker's parse of a segment, with an encoder whose interning starts afresh at
// each segment.
func (p *parallel) worker(int) func(*piece) {
	w := &worker{p: p, enc: newEncoder(p.c.noIntern, p.name), metas: map[string]string{}}
	w.rd = reader{s: jsonscan.NewBytes(nil, 0, p.name), fn: w.collect, encodeArgs: w.enc.encodeArgs}
	return w.parse
}

// parse parses seg as a run of array elements starting at its first byte.
func (w *worker) parse(seg *piece) {
	p, s := w.p, w.rd.s
	s.Reset(seg.Buf, seg.Off)
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
	p.arr.Elements(s, seg, w.rd.event)
	res := segResult{}
	if seg.Status != segment.Failed { // a failed segment's events are dropped
		res.events, res.arena = w.events, w.arena
		w.events, w.arena = nil, nil
		res.chunks = make([][]byte, len(w.pay.chunks))
		for i, c := range w.pay.chunks {
			res.chunks[i] = bytes.Clone(c)
		}
		res.interned = w.enc.interned(nil)
	}
	seg.Res = res
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
