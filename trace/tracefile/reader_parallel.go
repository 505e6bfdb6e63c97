package tracefile

import (
	"runtime"
	"runtime/debug"

	"github.com/orprof/orprof/internal/jsonscan"
	"github.com/orprof/orprof/internal/segment"
)

// Parallel parsing of the trace-event array: internal/segment cuts it into segments, runs the
// workers and falls back to the sequential parse where a segment's result is not usable.
//
// Each worker parses with a decoder of its own, whose name, shape and stack tables last for
// the whole array. Parsing is deterministic, so a usable segment's result is exactly what
// parsing the same bytes in sequence gives. The reading goroutine merges the results in file
// order (records, with their name, shape and stack ids renumbered, and the scan facts), and
// parses a failed segment with the main decoder, which finds and words every error as
// without the workers.

// parConfig says how the trace-event array is parsed.
type parConfig struct {
	workers int // goroutines that parse segments; ≤ 1 parses in sequence only
	segSize int // bytes per segment, about
}

func defaultParConfig() parConfig {
	return parConfig{workers: min(runtime.GOMAXPROCS(0), 8), segSize: 256 << 10}
}

// segResult is a worker's parse of one segment. names, shapes and stacks are the worker's
// tables at the end of the segment; the records' ids index them.
type segResult struct {
	worker int
	raws   rawList
	facts  scanFacts
	names  []string
	shapes []string
	stacks [][]string
	comms  []Collective // the segment's own (rawComm records index them)
	py     pyList       // the segment's python records (python.go)
}

// piece is a segment of the event array with a worker's result.
type piece = segment.Segment[segResult]

// idMaps renumber one worker's name, shape and stack ids into the main decoder's (value+1;
// 0 = not seen yet).
type idMaps struct {
	names          []uint32
	shapes, stacks []int32
}

// parser runs the parallel parse of one event array for decoder d (internal/segment).
type parser struct {
	d       *decoder
	arr     *segment.Array[segResult]
	maps    []idMaps
	inPlace bool // the segments are pieces of the input (a mapped file), not copies
}

// eventArrayParallel parses the event array from its first element (the scanner stands at
// its '{') to the closing ']', after which the scanner stands.
func (d *decoder) eventArrayParallel() error {
	p := &parser{d: d, maps: make([]idMaps, d.par.workers), inPlace: d.s.InPlace()}
	p.arr = &segment.Array[segResult]{
		Config:  segment.Config{Workers: d.par.workers, Size: d.par.segSize, Ahead: 2*d.par.workers + 2},
		Scanner: d.s, Worker: p.worker, Merge: p.merge, Element: d.arrayElement,
		Consumed: d.consumed, Progress: d.progress,
	}
	return p.arr.Parse()
}

// merge adds a segment's records (renumbering their ids in place and adopting their chunks)
// and facts to the main decoder.
func (p *parser) merge(seg *piece) error {
	d, r := p.d, &seg.Res
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
	return nil
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

// worker is worker w's parse of a segment, with a decoder of its own whose name, shape and
// stack tables last for the whole array.
func (p *parser) worker(w int) func(*piece) {
	d := &decoder{
		s:      jsonscan.NewBytes(nil, 0, p.d.s.File()),
		format: p.d.format,
		skip:   p.d.skip,
		names:  make(map[string]uint32, 64),
		// the reading goroutine's option
		skipScopeMetrics: p.d.skipScopeMetrics,
		python:           p.d.python,
		shapeIdx:         make(map[string]int32, 64),
		stackIdx:         make(map[string]int32, 16),
	}
	if p.inPlace {
		// A mapped file cut short while it is read faults where its pages are gone: the
		// segment fails, and the reading goroutine meets the fault and reports it.
		debug.SetPanicOnFault(true)
	}
	var spare []rawEvent
	return func(seg *piece) { spare = p.parseGuarded(d, w, seg, spare) }
}

// parseGuarded is parseSegment that turns a fault in a mapped trace into a failed segment and
// stops every worker (the decoder's state is not to be trusted after it).
func (p *parser) parseGuarded(d *decoder, w int, seg *piece, spare []rawEvent) (out []rawEvent) {
	defer func() {
		if r := recover(); r != nil {
			if !isMappingFault(r) {
				panic(r)
			}
			seg.Status, seg.Res = segment.Failed, segResult{}
			p.arr.Quit()
			out = nil
		}
	}()
	return p.parseSegment(d, w, seg, spare)
}

// parseSegment parses seg as a run of array elements starting at its first byte. Its records
// start in spare, the unused end of the worker's last chunk; it returns the new spare.
func (p *parser) parseSegment(d *decoder, w int, seg *piece, spare []rawEvent) []rawEvent {
	s := d.s
	s.Reset(seg.Buf, seg.Off)
	d.scanFacts = scanFacts{}
	d.factsGen++
	// The records go on in the worker's current chunk: each segment hands over its own part.
	d.raws = rawList{spare: spare}
	d.comms = nil
	d.py = pyList{}
	p.arr.Elements(s, seg, d.event)
	spare = d.raws.spare
	if k := len(d.raws.chunks) - 1; k >= 0 {
		// Cap the chunks handed over: the next segment's records go after them.
		last := d.raws.chunks[k]
		spare = last[len(last):]
		for i, c := range d.raws.chunks {
			d.raws.chunks[i] = c[:len(c):len(c)]
		}
	}
	res := segResult{worker: w}
	if seg.Status != segment.Failed { // a failed segment's records are dropped
		res.raws, res.facts = d.raws, d.scanFacts
		res.names, res.shapes, res.stacks = d.nameStrs, d.shapeStrs, d.stacks
		res.comms = d.comms
		res.py = d.py
	}
	seg.Res = res
	d.raws = rawList{}
	s.Reset(nil, 0) // let go of the segment's buffer
	return spare
}
