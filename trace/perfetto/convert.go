package perfetto

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/orprof/orprof/internal/jsonscan"
	"github.com/orprof/orprof/trace"
)

// Input is one trace to convert: its name in errors and a way to open it (called once, when
// its turn comes, so that only one input is open at a time).
type Input struct {
	Name string
	Open func() (io.ReadCloser, error)
}

// Stats is what a conversion wrote.
type Stats struct {
	Ranks         int
	Slices        int // complete events, each one slice
	Instants      int // instant events
	Samples       int // counter values (one per series of a counter event)
	CounterTracks int
	FlowEnds      int // flow events ('s', 't', 'f'), each bound to a slice or an instant of its own
	Unbound       int // flow ends no slice held, written as instants carrying the flow
	OverlapTracks int // tracks added so that slices nest: a thread's levels past the first
	// Skipped counts the events of phases the converter does not know (by phase, e.g. "B: 3").
	Skipped  int
	Warnings []string

	fallbacks int // times a failed segment was read in sequence (parallel.go)
}

// Options tune a conversion.
type Options struct {
	// NoIntern writes names, categories and arg keys inline in every event instead of
	// interning them: only to measure what interning saves.
	NoIntern bool
	// AfterRank, when set, is called after each rank is written, its records dropped: where a
	// command returns their memory to the system (debug.FreeOSMemory) before the next rank.
	AfterRank func()

	par *parConfig // the tests' segment size and worker count (parallel.go); nil: the default
}

// Perfetto's field numbers (protos/perfetto/trace/...; see doc.go).
const (
	fTracePacket = 1 // Trace.packet

	fPktTimestamp     = 8
	fPktSeqID         = 10
	fPktTrackEvent    = 11
	fPktInterned      = 12
	fPktSeqFlags      = 13
	fPktTrackDesc     = 60
	fPktFirstOnSeq    = 87
	seqStateCleared   = 1
	seqNeedsState     = 2
	fTEcategoryIIDs   = 3
	fTEannotations    = 4
	fTEtype           = 9
	fTEnameIID        = 10
	fTEtrackUUID      = 11
	fTEcategories     = 22
	fTEname           = 23
	fTEcounterValue   = 30
	fTEdoubleCounter  = 44
	fTEflowIDs        = 47
	fTEterminateFlows = 48
	typeSliceBegin    = 1
	typeSliceEnd      = 2
	typeInstant       = 3
	typeCounter       = 4

	fTDuuid          = 1
	fTDname          = 2
	fTDparent        = 5
	fTDcounter       = 8
	fTDchildOrdering = 11
	fTDsiblingRank   = 12
	orderingExplicit = 3

	fCDunit       = 3
	fCDunitName   = 6
	unitTimeNs    = 1
	unitCount     = 2
	unitSizeBytes = 3

	fIDcategories = 1
	fIDnames      = 2
	fIDargNames   = 3
	fIDargStrings = 29

	fDAnameIID   = 1
	fDAbool      = 2
	fDAuint      = 3
	fDAint       = 4
	fDAdouble    = 5
	fDAstring    = 6
	fDAlegacy    = 9
	fDAname      = 10
	fDAdict      = 11
	fDAarray     = 12
	fDAstringIID = 17
)

// converter holds what outlives one rank: the output, the interned strings of the main
// sequence, the uuids, sequence and flow ids given so far, the clock of the first rank.
type converter struct {
	encoder
	w        *bufio.Writer
	json     bool
	opts     Options
	par      parConfig
	nextUUID uint64
	nextFlow uint64
	nextSeq  uint32 // the next packet sequence id a segment's events get (parallel.go)
	nextRoot int32
	buf      []byte
	hdr      [12]byte
	stats    Stats
	started  bool
	ref      *clockRef
	seq      int32
	outBase  int64
	jsonOut  jsonState
}

// encoder turns an event's category, name and args into TrackEvent fields, interning the
// strings on one packet sequence: the converter's main sequence, or a segment's (parallel.go).
type encoder struct {
	noIntern bool
	names    *interner
	cats     *interner
	keys     *interner
	vals     *interner
	as       *jsonscan.Scanner
	keySlots [32]slot // the top-level arg keys by position
	catSlot  slot
	nameSlot slot
}

func newEncoder(noIntern bool, file string) encoder {
	return encoder{noIntern: noIntern, names: newInterner(), cats: newInterner(), keys: newInterner(),
		vals: newInterner(), as: jsonscan.NewBytes(nil, 0, file)}
}

// reset forgets the strings interned so far: a new sequence starts.
func (e *encoder) reset() {
	for _, n := range []*interner{e.names, e.cats, e.keys, e.vals} {
		n.reset()
	}
	e.keySlots = [32]slot{}
	e.catSlot, e.nameSlot = slot{}, slot{}
}

// interned appends the strings interned and not yet written as the fields of an InternedData
// message.
func (e *encoder) interned(b []byte) []byte {
	b = e.cats.flush(b, fIDcategories)
	b = e.names.flush(b, fIDnames)
	b = e.keys.flush(b, fIDargNames)
	return e.vals.flush(b, fIDargStrings)
}

// clockRef is the first rank's clock marks, which later ranks without a clock of their own
// are aligned to.
type clockRef struct {
	step, coll       int64 // on the output clock
	hasStep, hasColl bool
}

// Convert writes the traces of inputs, several ranks of a job or one, as one Perfetto trace
// (protobuf) to w: each rank read and written in turn.
func Convert(w io.Writer, inputs []Input, opts Options) (*Stats, error) {
	return convert(w, inputs, opts, false)
}

// ConvertJSON writes the traces of inputs as one Kineto JSON trace whose complete events nest
// on every thread row (overlapping ones moved to extra rows), so that Perfetto's JSON
// importer keeps them all.
func ConvertJSON(w io.Writer, inputs []Input, opts Options) (*Stats, error) {
	return convert(w, inputs, opts, true)
}

func convert(w io.Writer, inputs []Input, opts Options, asJSON bool) (*Stats, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("no trace to convert")
	}
	c := &converter{encoder: newEncoder(opts.NoIntern, ""), w: bufio.NewWriterSize(w, 1<<16), json: asJSON,
		opts: opts, par: defaultParConfig(), nextSeq: mainSequence + 1}
	if opts.par != nil {
		c.par = *opts.par
	}
	c.jsonOut.multi = len(inputs) > 1
	for i, in := range inputs {
		r, err := c.read(i, in)
		if err != nil {
			return nil, err
		}
		c.align(r)
		if asJSON {
			err = c.writeJSONRank(r, i == len(inputs)-1)
		} else {
			err = c.writeRank(r)
		}
		if err != nil {
			return nil, err
		}
		c.stats.Ranks++
		if opts.AfterRank != nil {
			r = nil
			opts.AfterRank()
		}
	}
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	return &c.stats, nil
}

func (c *converter) read(index int, in Input) (*rank, error) {
	rc, err := in.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r := newRank(index)
	c.seq = 0
	c.as = jsonscan.NewBytes(nil, 0, in.Name)
	rd := &reader{fn: func(ev *event) error { return c.ingest(r, ev, in.Name) }}
	if !c.json {
		rd.encodeArgs = c.encodeArgs
		// The events are parsed and encoded on workers, segment by segment (parallel.go).
		rd.par = &parallel{cfg: c.par, c: c, r: r, name: in.Name}
	}
	err = readJSON(rc, in.Name, &r.hdr, rd)
	if err != nil {
		return nil, err
	}
	if r.hdr.hasRank {
		r.number = r.hdr.rank
	}
	if len(r.skipped) > 0 {
		var phs []byte
		for ph, n := range r.skipped {
			c.stats.Skipped += n
			phs = append(phs, ph)
		}
		sort.Slice(phs, func(i, j int) bool { return phs[i] < phs[j] })
		var b bytes.Buffer
		for i, ph := range phs {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q: %d", string(ph), r.skipped[ph])
		}
		c.stats.Warnings = append(c.stats.Warnings, fmt.Sprintf("%s: skipped events of phases Perfetto's track events cannot hold (%s)", in.Name, b.String()))
	}
	r.layout()
	r.groupNames()
	return r, nil
}

// epochNs is the first instant of the year 2000, in ns since the Unix epoch: a trace whose
// times are past it without a base time has them on the wall clock already (Kineto before
// baseTimeNanoseconds).
const epochNs = 946684800 * 1_000_000_000

// align sets the rank's shift onto the output clock: a trace on the wall clock (a base time,
// or times past 2000) keeps its times; one on a clock of its own has its first ProfilerStep
// start put on the first rank's, else its first collective's end.
func (c *converter) align(r *rank) {
	r.shift = r.hdr.base
	wall := r.hdr.hasBase || r.minTs >= epochNs
	if c.ref == nil {
		ref := &clockRef{step: r.firstStep + r.shift, coll: r.firstColl + r.shift, hasStep: r.hasStep, hasColl: r.hasColl}
		c.ref = ref
		if r.hdr.hasBase {
			c.outBase = r.hdr.base
		}
		return
	}
	if wall {
		return
	}
	switch {
	case r.hasStep && c.ref.hasStep:
		r.shift = c.ref.step - r.firstStep
	case r.hasColl && c.ref.hasColl:
		r.shift = c.ref.coll - r.firstColl
	default:
		c.stats.Warnings = append(c.stats.Warnings, fmt.Sprintf(
			"rank %d: no base time, ProfilerStep or collective to align its clock on; its times are kept as they are", r.number))
	}
}

// ingest turns one event into the rank's records.
func (c *converter) ingest(r *rank, ev *event, name string) error {
	seq := c.seq
	c.seq++
	switch ev.ph {
	case 'X':
		th := r.thread(ev.pid, ev.tid)
		r.noteTimes(ev)
		dur := max(ev.dur, 0)
		pay := ev.pay
		if c.json {
			pay = r.addPay(c.jsonPayload(ev, true))
		} else if !ev.hasPay {
			// Encoded in place, at the end of the payloads.
			start := r.payStart()
			b, err := c.encodeEvent(r.chunks[len(r.chunks)-1], ev)
			if err != nil {
				return err
			}
			pay = r.payEnd(b, start)
		}
		r.slices.add(slice{start: ev.ts, end: ev.ts + dur, thread: th, pay: pay})
		if c.json {
			r.sliceSeq = append(r.sliceSeq, seq)
		}
	case 'i', 'I', 'R':
		th := r.thread(ev.pid, ev.tid)
		r.noteTimes(ev)
		if c.json {
			r.others = append(r.others, other{seq: seq, thread: th, ts: ev.ts, pay: r.addPay(c.jsonPayload(ev, false))})
			return nil
		}
		if !ev.hasPay {
			b, err := c.encodeEvent(c.buf[:0], ev)
			if err != nil {
				return err
			}
			c.buf = b
			ev.pay = r.addPay(b)
		}
		r.instants = append(r.instants, instant{ts: ev.ts, thread: th, seq: seq, pay: ev.pay, flow: -1})
	case 'C':
		th := r.thread(ev.pid, ev.tid)
		r.noteTimes(ev)
		if c.json {
			r.others = append(r.others, other{seq: seq, thread: th, ts: ev.ts, pay: r.addPay(c.jsonPayload(ev, false))})
		}
		return c.counter(r, th, ev, seq)
	case 's', 't', 'f':
		th := r.thread(ev.pid, ev.tid)
		f := flowEnd{ts: ev.ts, thread: th, seq: seq, ph: ev.ph, next: ev.ph == 'f' && ev.bp != 'e',
			id: r.flowID(ev.cat, ev.id, &c.nextFlow)}
		if c.json {
			f.pay = r.addPay(c.jsonPayload(ev, false))
		} else if ev.hasPay {
			f.name = ev.pay
		} else {
			e := event{name: ev.name, cat: ev.cat}
			b, err := c.encodeEvent(c.buf[:0], &e)
			if err != nil {
				return err
			}
			c.buf = b
			f.name = r.addPay(b)
		}
		r.flows = append(r.flows, f)
	case 'M':
		return c.metadata(r, ev, seq)
	default:
		r.skipped[ev.ph]++
	}
	return nil
}

// metaKey is the args member a metadata event of a kind the converter keeps holds its value
// in; "" for the other kinds.
func metaKey(name []byte) string {
	switch string(name) {
	case "process_name", "thread_name":
		return "name"
	case "process_labels":
		return "labels"
	case "process_sort_index", "thread_sort_index":
		return "sort_index"
	}
	return ""
}

// Kinds of a metadata event's value.
const (
	metaNone uint8 = iota
	metaStr
	metaInt
)

// metaValue reads the value of member key of args: an integer for "sort_index", else a
// string; the last one of its type wins, as in Chrome.
func metaValue(s *jsonscan.Scanner, args []byte, key string) (str []byte, num int64, kind uint8, err error) {
	s.Reset(args, 0)
	it := s.ObjectOrSkip()
	for it.Next() {
		if string(it.Key()) != key {
			if err := s.Skip(); err != nil {
				return nil, 0, 0, err
			}
			continue
		}
		if key == "sort_index" {
			v, ok, err := s.Int(true)
			if err != nil {
				return nil, 0, 0, err
			}
			if ok {
				num, kind = v, metaInt
			}
			continue
		}
		v, ok, err := s.StrOrSkip()
		if err != nil {
			return nil, 0, 0, err
		}
		if ok {
			str, kind = v, metaStr
		}
	}
	return str, num, kind, it.Err()
}

// metadata keeps process and thread names, labels and sort indexes (the last one given wins,
// as in Chrome); other metadata events are kept by the JSON writer as they were. A worker
// may have read the value already (ev.meta).
func (c *converter) metadata(r *rank, ev *event, seq int32) error {
	key := metaKey(ev.name)
	if key == "" {
		if c.json {
			th := r.thread(ev.pid, ev.tid)
			r.others = append(r.others, other{seq: seq, thread: th, ts: ev.ts, pay: r.addPay(c.jsonPayload(ev, false))})
		}
		return nil
	}
	str, num, kind := ev.metaStr, ev.metaNum, ev.meta
	if !ev.hasMeta {
		var err error
		if str, num, kind, err = metaValue(c.as, ev.args, key); err != nil {
			return err
		}
	}
	switch kind {
	case metaInt:
		if ev.name[0] == 'p' {
			p := &r.procs[r.proc(ev.pid)]
			p.sort, p.hasSort = num, true
		} else {
			t := &r.threads[r.thread(ev.pid, ev.tid)]
			t.sort, t.hasSort = num, true
		}
	case metaStr:
		switch string(ev.name) {
		case "process_name":
			p := &r.procs[r.proc(ev.pid)]
			if !p.hasName || p.name != string(str) {
				p.name = string(str)
			}
			p.hasName = true
		case "process_labels":
			p := &r.procs[r.proc(ev.pid)]
			if p.labels != string(str) {
				p.labels = string(str)
			}
		case "thread_name":
			t := &r.threads[r.thread(ev.pid, ev.tid)]
			if !t.hasName || t.name != string(str) {
				t.name = string(str)
			}
			t.hasName = true
		}
	}
	return nil
}

// counter adds one sample per series (arg) of a counter event, each series a track of its
// own.
func (c *converter) counter(r *rank, th int32, ev *event, seq int32) error {
	proc := r.threads[th].proc
	s := c.as
	s.Reset(ev.args, 0)
	it := s.ObjectOrSkip()
	for it.Next() {
		key := it.Key()
		k := ctrackKey{proc: proc, name: string(ev.name), key: string(key)}
		tok, kind, err := s.Num()
		if err != nil {
			return fmt.Errorf("%s: counter %s: series %s: %w", s.File(), jsonscan.Clip(ev.name), jsonscan.Clip([]byte(k.key)), err)
		}
		ti, ok := r.ctrackOf[k]
		if !ok {
			ti = int32(len(r.ctracks))
			r.ctracks = append(r.ctracks, ctrack{proc: proc, name: k.name, key: k.key})
			r.ctrackOf[k] = ti
		}
		smp := sample{ts: ev.ts, track: ti, seq: seq}
		if kind == jsonscan.NumInt {
			if v, ok := jsonscan.ParseInt(tok); ok {
				smp.isInt, smp.i = true, v
			}
		}
		if !smp.isInt {
			f, err := strconv.ParseFloat(string(tok), 64)
			if err != nil {
				return fmt.Errorf("%s: counter %s: value %s", s.File(), jsonscan.Clip(ev.name), jsonscan.Clip(tok))
			}
			smp.f = f
		}
		r.counters = append(r.counters, smp)
	}
	return it.Err()
}

// encodeEvent appends an event's TrackEvent fields that do not depend on its track: its
// category, name and args.
func (c *encoder) encodeEvent(b []byte, ev *event) ([]byte, error) {
	if len(ev.cat) > 0 {
		if c.noIntern {
			b = appendString(b, fTEcategories, ev.cat)
		} else {
			b = appendUint(b, fTEcategoryIIDs, c.cats.cached(ev.cat, &c.catSlot))
		}
	}
	if c.noIntern {
		b = appendString(b, fTEname, ev.name)
	} else {
		b = appendUint(b, fTEnameIID, c.names.cached(ev.name, &c.nameSlot))
	}
	if ev.hasEnc {
		return append(b, ev.encArgs...), nil
	}
	if len(ev.args) == 0 {
		return b, nil
	}
	c.as.Reset(ev.args, 0)
	return c.encodeArgs(c.as, b)
}

// encodeArgs appends the args object s holds next as debug annotations.
func (c *encoder) encodeArgs(s *jsonscan.Scanner, b []byte) ([]byte, error) {
	it := s.ObjectOrSkip()
	for i := 0; it.Next(); i++ {
		var at int
		b, at = openMsg(b, fTEannotations)
		switch {
		case c.noIntern:
			b = appendString(b, fDAname, it.Key())
		case i < len(c.keySlots):
			b = appendUint(b, fDAnameIID, c.keys.cached(it.Key(), &c.keySlots[i]))
		default:
			b = appendUint(b, fDAnameIID, c.keys.id(it.Key()))
		}
		var err error
		if b, err = c.value(s, b, 0); err != nil {
			return nil, err
		}
		b = closeMsg(b, at)
	}
	return b, it.Err()
}

// maxDepth bounds the nesting of an arg's value that is encoded as nested annotations; deeper
// values go in as their JSON text.
const maxDepth = 32

// value appends the next JSON value of c.as as a DebugAnnotation's value, its type kept: an
// integer as int (uint past int64), a fraction as double, a string, a bool, an object as dict
// entries, an array as array values; null and empty containers as their JSON text.
func (c *encoder) value(s *jsonscan.Scanner, b []byte, depth int) ([]byte, error) {
	ch, _ := s.Peek()
	switch ch {
	case '{', '[':
		if depth >= maxDepth {
			raw, err := s.Raw()
			return appendString(b, fDAlegacy, raw), err
		}
		empty := true
		if ch == '{' {
			it := s.Object()
			for it.Next() {
				empty = false
				var at int
				b, at = openMsg(b, fDAdict)
				if c.noIntern {
					b = appendString(b, fDAname, it.Key())
				} else {
					b = appendUint(b, fDAnameIID, c.keys.id(it.Key()))
				}
				var err error
				if b, err = c.value(s, b, depth+1); err != nil {
					return nil, err
				}
				b = closeMsg(b, at)
			}
			if err := it.Err(); err != nil {
				return nil, err
			}
		} else {
			it := s.Array()
			for it.Next() {
				empty = false
				var at int
				b, at = openMsg(b, fDAarray)
				var err error
				if b, err = c.value(s, b, depth+1); err != nil {
					return nil, err
				}
				b = closeMsg(b, at)
			}
			if err := it.Err(); err != nil {
				return nil, err
			}
		}
		if empty {
			b = appendString(b, fDAlegacy, map[byte]string{'{': "{}", '[': "[]"}[ch])
		}
		return b, nil
	case '"':
		v, err := s.Str()
		if err != nil {
			return nil, err
		}
		if c.noIntern || len(v) > 64 {
			return appendString(b, fDAstring, v), nil
		}
		return appendUint(b, fDAstringIID, c.vals.id(v)), nil
	case 't', 'f', 'n':
		raw, err := s.Raw()
		if err != nil {
			return nil, err
		}
		switch string(raw) {
		case "true":
			return appendUint(b, fDAbool, 1), nil
		case "false":
			return appendUint(b, fDAbool, 0), nil
		}
		return appendString(b, fDAlegacy, raw), nil
	}
	tok, kind, err := s.Num()
	if err != nil {
		return nil, err
	}
	if kind == jsonscan.NumInt {
		if v, ok := jsonscan.ParseInt(tok); ok {
			return appendInt(b, fDAint, v), nil
		}
		if u, err := strconv.ParseUint(string(tok), 10, 64); err == nil {
			return appendUint(b, fDAuint, u), nil
		}
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		// Past float64's range: kept as its text.
		return appendString(b, fDAlegacy, tok), nil
	}
	return appendDouble(b, fDAdouble, f), nil
}

// WriteTrace writes t, a profile's own trace (orprof run, httpprof), as a Perfetto trace:
// the JSON trace.Write makes of it, converted, so that both files hold the same events.
func WriteTrace(w io.Writer, t *trace.Trace) error {
	var buf bytes.Buffer
	if err := trace.Write(&buf, t); err != nil {
		return err
	}
	_, err := Convert(w, []Input{{Name: "trace", Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(buf.Bytes())), nil
	}}}, Options{})
	return err
}

// IsPerfettoName reports whether an output's name asks for a Perfetto trace: it ends in
// .pftrace or .perfetto-trace, optionally followed by .gz.
func IsPerfettoName(path string) bool {
	p := strings.TrimSuffix(path, ".gz")
	return strings.HasSuffix(p, ".pftrace") || strings.HasSuffix(p, ".perfetto-trace")
}
