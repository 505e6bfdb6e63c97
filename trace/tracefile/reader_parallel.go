package tracefile

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/orprof/orprof/internal/jsonscan"
)

// Parallel parsing of the trace-event array.
//
// The array is the whole of a large trace. The reading goroutine cuts the input that follows
// the array's first element into segments of about parConfig.segSize bytes, each cut made just
// before a '{' that looks like the start of an event ("}, {" with any spacing), and worker
// goroutines parse the segments speculatively, each with a decoder of its own, as if every
// segment started at an element of the array. A segment's result is used only when its start
// is known to be one: the first segment starts at the array's first element, and a segment
// whose parse from a true element start ends exactly at its end, after a ',', makes the next
// cut a true element start too. Parsing is deterministic, so such a result is exactly what
// parsing the same bytes in sequence gives; the reading goroutine merges the results in file
// order (records, with their name, shape and stack ids renumbered, and the scan facts).
//
// When a segment's parse fails — invalid JSON, an error in a used event, or a cut that was not
// an element start (a "}, {" inside a string, say) — the reading goroutine parses from that
// segment's start itself, through the input in order, until it stands exactly at a later
// cut between two elements; from there the speculative results are used again. Every error is
// therefore found, and worded, by the same sequential code at the same offset as without the
// workers. When the array ends, the workers stop and the scanner reads on through the input
// already cut (scanner.pre and scanner.feed), then the source.

// parConfig says how the trace-event array is parsed.
type parConfig struct {
	workers int // goroutines that parse segments; ≤ 1 parses in sequence only
	segSize int // bytes per segment, about
}

func defaultParConfig() parConfig {
	return parConfig{workers: min(runtime.GOMAXPROCS(0), 8), segSize: 256 << 10}
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

// segResult is a worker's parse of one segment. names, shapes and stacks are the worker's
// tables at the end of the segment; the records' ids index them.
type segResult struct {
	status segStatus
	end    int64 // segArrayEnd: input offset just after the ']'
	worker int
	raws   rawList
	facts  scanFacts
	names  []string
	shapes []string
	stacks [][]string
	comms  []Collective // the segment's own (rawComm records index them)
	py     pyList       // the segment's python records (python.go)
}

// idMaps renumber one worker's name, shape and stack ids into the main decoder's (value+1;
// 0 = not seen yet).
type idMaps struct {
	names          []uint32
	shapes, stacks []int32
}

// parser runs the parallel parse of one event array for decoder d.
type parser struct {
	d    *decoder
	s    *jsonscan.Scanner
	cfg  parConfig
	jobs chan *segment
	wg   sync.WaitGroup
	quit atomic.Bool // workers: stop parsing

	stopped bool       // no more segments go to the workers
	queue   []*segment // cut and not yet consumed, oldest first
	carry   []byte     // input read after the last cut
	next    int64      // input offset of carry[0]
	maps    []idMaps
	free    [][]byte // segment buffers to reuse

	// whole is the rest of the input from the array's first element when the decoder scans
	// it in place (newDecoderInPlace): the segments are cut out of it, not read and copied.
	whole    []byte
	wholeOff int64 // input offset of whole[0]
}

// ahead is how many segments may be cut and not yet merged.
func (p *parser) ahead() int { return 2*p.cfg.workers + 2 }

// eventArrayParallel parses the event array from its first element (the scanner stands at
// its '{') to the closing ']', after which the scanner stands.
func (d *decoder) eventArrayParallel() error {
	s := d.s
	p := &parser{d: d, s: s, cfg: d.par, maps: make([]idMaps, d.par.workers)}
	p.jobs = make(chan *segment, p.ahead()+1)
	rest, off := s.Detach()
	p.next = off
	if s.InPlace() {
		p.whole, p.wholeOff = rest, off
	} else {
		p.carry = append(make([]byte, 0, max(p.cfg.segSize, len(rest))), rest...)
	}
	for w := range p.cfg.workers {
		p.wg.Add(1)
		go p.work(w)
	}
	defer p.stop()
	for {
		for !p.stopped && len(p.queue) < p.ahead() && p.cut() != nil {
		}
		if len(p.queue) > 0 {
			seg := p.queue[0]
			<-seg.done
			switch seg.res.status {
			case segLanded:
				p.merge(seg)
				p.queue = p.queue[1:]
				if p.whole == nil {
					p.free = append(p.free, seg.buf[:0])
				} else if p.d.consumed != nil {
					p.d.consumed(seg.off + int64(len(seg.buf)))
				}
				continue
			case segArrayEnd:
				end := seg.res.end
				p.merge(seg)
				p.queue = p.queue[1:]
				p.stop()
				s.Resume(end, seg.buf[end-seg.off:], p.feedNext)
				return nil
			}
		}
		// The segment at the head of the queue starts at an element but its result is not
		// usable: parse on from there in sequence.
		resumed, err := p.sequential()
		if err != nil || !resumed {
			return err
		}
	}
}

// sequential parses with the main decoder from the start of the head segment (or the cut
// point, when nothing is queued), which is an element start, until it stands exactly at the
// start of a queued segment that a worker is parsing (resumed: that segment is now the head),
// or the array ends (the scanner stands after the ']' and reads on through p.feedNext).
func (p *parser) sequential() (resumed bool, err error) {
	s, d := p.s, p.d
	start := p.next
	if len(p.queue) > 0 {
		start = p.queue[0].off
	}
	s.Resume(start, nil, p.feedNext)
	it := s.InArray()
	for {
		if err := d.arrayElement(); err != nil {
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
			if p.whole != nil && p.d.consumed != nil {
				p.d.consumed(s.Offset())
			}
			return true, nil
		}
	}
}

// feedNext hands the scanner the next segment's bytes, cutting one when none is queued; nil at
// the end of the input.
func (p *parser) feedNext() []byte {
	if len(p.queue) == 0 && p.cut() == nil {
		return nil
	}
	seg := p.queue[0]
	p.queue = p.queue[1:]
	return seg.buf
}

// cut reads the next segment from the source, queues it and, unless the workers are stopped,
// hands it to them. It returns nil at the end of the input.
func (p *parser) cut() *segment {
	if p.whole != nil {
		return p.cutInPlace()
	}
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
	want := max(p.cfg.segSize, len(buf)+1)
	seg := &segment{off: p.next}
	for {
		for len(buf) < want && !s.SourceDone() {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n := s.ReadSome(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
		}
		if s.SourceDone() {
			seg.buf, seg.last = buf, true
			p.carry = p.carry[:0]
			break
		}
		if c := findCut(buf); c > 0 {
			seg.buf = buf[:c]
			p.carry = append(p.carry[:0], buf[c:]...)
			break
		}
		want *= 2 // no cut: read on
	}
	p.next += int64(len(seg.buf))
	p.enqueue(seg)
	return seg
}

// enqueue queues seg and, unless the workers are stopped, hands it to them.
func (p *parser) enqueue(seg *segment) {
	p.queue = append(p.queue, seg)
	if !p.stopped {
		seg.done = make(chan struct{})
		p.jobs <- seg
	}
}

// cutInPlace is cut of input scanned in place: the segment is a piece of p.whole, capped so
// that nothing appends into the input (a mapped file's pages are read-only).
func (p *parser) cutInPlace() *segment {
	rest := p.whole[p.next-p.wholeOff:]
	if len(rest) == 0 {
		return nil
	}
	n := len(rest)
	for want := p.cfg.segSize; want < len(rest); want *= 2 {
		if c := findCut(rest[:want]); c > 0 {
			n = c
			break
		}
	}
	seg := &segment{off: p.next, buf: rest[:n:n], last: n == len(rest)}
	p.next += int64(n)
	if p.d.progress != nil {
		p.d.progress(p.next)
	}
	p.enqueue(seg)
	return seg
}

// findCut returns the index of the last '{' in buf that looks like the start of a trace event
// after another one: the non-space bytes before it are '}' and ',', the one after it is '"' or
// '}'. It returns 0 when there is none.
func findCut(buf []byte) int {
	i := len(buf)
	for {
		c := bytes.LastIndexByte(buf[:i], '{')
		if c <= 0 {
			return 0
		}
		i = c
		j := c + 1
		for j < len(buf) && jsonscan.Space[buf[j]] {
			j++
		}
		if j == len(buf) || buf[j] != '"' && buf[j] != '}' {
			continue
		}
		k := c - 1
		for k >= 0 && jsonscan.Space[buf[k]] {
			k--
		}
		if k < 0 || buf[k] != ',' {
			continue
		}
		k--
		for k >= 0 && jsonscan.Space[buf[k]] {
			k--
		}
		if k >= 0 && buf[k] == '}' {
			return c
		}
	}
}

// stop tells the workers to finish and waits for them. Segments cut later are not parsed.
func (p *parser) stop() {
	if p.stopped {
		return
	}
	p.stopped = true
	p.quit.Store(true)
	close(p.jobs)
	p.wg.Wait()
}

// merge adds a segment's records (renumbering their ids in place and adopting their chunks)
// and facts to the main decoder.
func (p *parser) merge(seg *segment) {
	d, r := p.d, &seg.res
	m := &p.maps[r.worker]
	if n := len(r.names); len(m.names) < n {
		m.names = append(m.names, make([]uint32, n-len(m.names))...)
	}
	if n := len(r.shapes); len(m.shapes) < n {
		m.shapes = append(m.shapes, make([]int32, n-len(m.shapes))...)
	}
	if n := len(r.stacks); len(m.stacks) < n {
		m.stacks = append(m.stacks, make([]int32, n-len(m.stacks))...)
	}
	base := int32(len(d.comms))
	d.comms = append(d.comms, r.comms...)
	for _, c := range r.raws.chunks {
		for i := range c {
			e := &c[i]
			if e.flags&rawComm != 0 {
				e.node += base
			}
			if v := m.names[e.name]; v != 0 {
				e.name = v - 1
			} else {
				id := d.internString(r.names[e.name])
				m.names[e.name] = id + 1
				e.name = id
			}
			if e.shapes >= 0 {
				e.shapes = renumber(e.shapes, m.shapes, r.shapes, &d.shapeStrs)
			}
			if e.stack >= 0 {
				e.stack = renumber(e.stack, m.stacks, r.stacks, &d.stacks)
			}
		}
		d.raws.adopt(c)
	}
	for _, c := range r.py.chunks {
		for i := range c {
			e := &c[i]
			if v := m.names[e.name]; v != 0 {
				e.name = v - 1
			} else {
				id := d.internString(r.names[e.name])
				m.names[e.name] = id + 1
				e.name = id
			}
		}
	}
	d.py.adopt(&r.py)
	d.scanFacts.merge(&r.facts)
	*r = segResult{}
}

// renumber returns the main decoder's id for a worker's id (an index into from), appending
// from[id] to the main decoder's table to on first sight; m caches the answers (value+1).
func renumber[T any](id int32, m []int32, from []T, to *[]T) int32 {
	if v := m[id]; v != 0 {
		return v - 1
	}
	n := int32(len(*to))
	*to = append(*to, from[id])
	m[id] = n + 1
	return n
}

// work parses the segments handed to worker w, with a decoder of its own whose name, shape and
// stack tables last for the whole array.
func (p *parser) work(w int) {
	defer p.wg.Done()
	d := &decoder{
		s:      jsonscan.NewBytes(nil, 0, p.s.File()),
		format: p.d.format,
		skip:   p.d.skip,
		names:  make(map[string]uint32, 64),
		// the reading goroutine's option
		skipScopeMetrics: p.d.skipScopeMetrics,
		python:           p.d.python,
		shapeIdx:         make(map[string]int32, 64),
		stackIdx:         make(map[string]int32, 16),
	}
	if p.whole != nil {
		// A mapped file cut short while it is read faults where its pages are gone: the
		// segment fails, and the reading goroutine meets the fault and reports it.
		debug.SetPanicOnFault(true)
	}
	var spare []rawEvent
	for seg := range p.jobs {
		if !p.quit.Load() {
			spare = p.parseGuarded(d, w, seg, spare)
		}
		close(seg.done)
		// Let the reading goroutine run now if it waits for this segment: it merges the
		// segment and cuts the next ones. Otherwise it waits until both workers run out of
		// segments, and then they wait for it.
		runtime.Gosched()
	}
}

// parseGuarded is parseSegment that turns a fault in a mapped trace into a failed segment and
// stops every worker (the decoder's state is not to be trusted after it).
func (p *parser) parseGuarded(d *decoder, w int, seg *segment, spare []rawEvent) (out []rawEvent) {
	defer func() {
		if r := recover(); r != nil {
			if !isMappingFault(r) {
				panic(r)
			}
			seg.res = segResult{}
			p.quit.Store(true)
			out = nil
		}
	}()
	return p.parseSegment(d, w, seg, spare)
}

// parseSegment parses seg as a run of array elements starting at its first byte. Its records
// start in spare, the unused end of the worker's last chunk; it returns the new spare.
func (p *parser) parseSegment(d *decoder, w int, seg *segment, spare []rawEvent) []rawEvent {
	s := d.s
	s.Reset(seg.buf, seg.off)
	d.scanFacts = scanFacts{}
	d.factsGen++
	// The records go on in the worker's current chunk: each segment hands over its own part.
	d.raws = rawList{spare: spare}
	d.comms = nil
	d.py = pyList{}
	res := segResult{worker: w}
	it := s.InArray()
	for !p.quit.Load() {
		if c, ok := s.Peek(); !ok || c != '{' {
			break
		}
		if d.event() != nil {
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
	spare = d.raws.spare
	if k := len(d.raws.chunks) - 1; k >= 0 {
		// Cap the chunks handed over: the next segment's records go after them.
		last := d.raws.chunks[k]
		spare = last[len(last):]
		for i, c := range d.raws.chunks {
			d.raws.chunks[i] = c[:len(c):len(c)]
		}
	}
	if res.status != segFailed { // a failed segment's records are dropped
		res.raws, res.facts = d.raws, d.scanFacts
		res.names, res.shapes, res.stacks = d.nameStrs, d.shapeStrs, d.stacks
		res.comms = d.comms
		res.py = d.py
	}
	seg.res = res
	d.raws = rawList{}
	s.Reset(nil, 0) // let go of the segment's buffer
	return spare
}
