package tracefile

import (
	"bytes"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/jsonscan"
	"github.com/orprof/orprof/report/trace"
)

// argExternalIDLower is the link key as Kineto builds of 2021 (PyTorch 1.8, 1.9) spelled it
// on runtime and kernel events; later ones write trace.ArgExternalID.
const argExternalIDLower = "external id"

// rawKind says what a kept trace event becomes.
type rawKind uint8

const (
	rawHostOp  rawKind = iota // cpu_op, user_annotation, or a legacy "X" event: a CPU operator
	rawRuntime                // a *_runtime / *_driver call: a CPU event that can be linked to an op
	rawDevice                 // kernel, memcpy, memset, …: an event on the accelerator
	rawMemory                 // a "[memory]" instant: bytes allocated (or freed, < 0)
	rawOOM                    // an "[OutOfMemory]" instant
)

// Event categories ("cat") the reader distinguishes.
const (
	catNone              uint8 = iota // no "cat": PyTorch's legacy exporter
	catCPUOp                          // cpu_op
	catUserAnnotation                 // user_annotation (record_function ranges)
	catRuntimeCUDA                    // cuda_runtime, cuda_driver
	catRuntimeXPU                     // xpu_runtime, xpu_driver
	catRuntimeMTIA                    // mtia_runtime
	catRuntimePU1                     // privateuse1_runtime, privateuse1_driver
	catRuntimeOther                   // any other *_runtime / *_driver (glow_runtime, …)
	catDevGeneric                     // kernel, gpu_memcpy, gpu_memset, cuda_sync, cuda_profiler_range
	catDevUserAnnotation              // gpu_user_annotation
	catDevMTIA                        // mtia_ccp_events, mtia_workloadd
	catDevHPU                         // hpu_op
	catTrace                          // "Trace" spans (one per profiler buffer)
	catInstant                        // cpu_instant_event
	catIgnored                        // python_function, overhead, counters, … : not FunctionEvents
)

// classifyCat maps a "cat" value to one of the categories above.
func classifyCat(b []byte) uint8 {
	switch string(b) {
	case "cpu_op", "Operator", "operator":
		return catCPUOp
	case "user_annotation":
		return catUserAnnotation
	case "cuda_runtime", "cuda_driver", "Runtime":
		return catRuntimeCUDA
	case "xpu_runtime", "xpu_driver":
		return catRuntimeXPU
	case "mtia_runtime":
		return catRuntimeMTIA
	case "privateuse1_runtime", "privateuse1_driver":
		return catRuntimePU1
	case "kernel", "Kernel", "gpu_memcpy", "gpu_memset", "cuda_sync", "cuda_profiler_range",
		"Memcpy", "Memset":
		return catDevGeneric
	case "gpu_user_annotation":
		return catDevUserAnnotation
	case "mtia_ccp_events", "mtia_workloadd":
		return catDevMTIA
	case "hpu_op":
		return catDevHPU
	case "Trace":
		return catTrace
	case "cpu_instant_event":
		return catInstant
	}
	if bytes.HasSuffix(b, []byte("_runtime")) || bytes.HasSuffix(b, []byte("_driver")) {
		return catRuntimeOther
	}
	return catIgnored
}

// rawEvent is the compact record the scan keeps for an event it uses; resolve turns the records
// into FunctionEvents once the whole file (time base, device type, links) is known.
type rawEvent struct {
	ts, dur  int64 // Kineto form: ns as written (µs with 3 decimals); legacy: math.Float64bits of µs
	pid, tid int64
	extID    int64 // "External id" (0 = none); "[memory]": "Bytes"
	corr     int64 // "correlation" (0 = none); "[memory]": "Device Type" (a c10::DeviceType number)
	seq, fwd int64 // "Sequence number" (−1 = none), "Fwd thread id"
	devUs    int64 // orprof fallback traces: "Device time us" (0 = none)
	name     uint32
	shapes   int32 // index into decoder.shapeStrs; −1 = none
	stack    int32 // index into decoder.stacks; −1 = none
	node     int32 // legacy remote events: node id; else −1
	devIdx   int32 // orprof fallback traces: "Device"
	kind     rawKind
	cat      uint8
	scope    int8 // an explicit "Scope" argument (orprof traces); −1 = none
	remote   bool
	async    bool // an explicit "Async": true argument (orprof traces)
}

// rawChunk is how many rawEvents one allocation holds: the records are kept in chunks so that
// a large trace never copies them to grow a slice.
const rawChunk = 2048

// rawList is an append-only list of rawEvents in chunks. Chunks may be shorter than rawChunk
// (a parallel parse adopts each segment's records as they are).
type rawList struct {
	chunks [][]rawEvent
	starts []int // starts[k] is the index of chunks[k][0]
	n      int
	spare  []rawEvent // unused capacity to start the next chunk in
}

func (l *rawList) add(r rawEvent) {
	k := len(l.chunks) - 1
	if k < 0 || len(l.chunks[k]) == cap(l.chunks[k]) {
		c := l.spare[:0:cap(l.spare)]
		l.spare = nil
		if cap(c) == 0 {
			c = make([]rawEvent, 0, rawChunk)
		}
		l.chunks = append(l.chunks, c)
		l.starts = append(l.starts, l.n)
		k++
	}
	l.chunks[k] = append(l.chunks[k], r)
	l.n++
}

// adopt appends the records of c, keeping c as a chunk (capped at its length, so that no later
// add writes past it).
func (l *rawList) adopt(c []rawEvent) {
	if len(c) == 0 {
		return
	}
	if k := len(l.chunks) - 1; k >= 0 && cap(l.spare) == 0 {
		// Records added later go on in the unused part of the last chunk, not in a new one.
		last := l.chunks[k]
		l.chunks[k], l.spare = last[:len(last):len(last)], last[len(last):]
	}
	l.chunks = append(l.chunks, c[:len(c):len(c)])
	l.starts = append(l.starts, l.n)
	l.n += len(c)
}

// at returns record i (0 ≤ i < n).
func (l *rawList) at(i int) *rawEvent {
	lo, hi := 0, len(l.starts)
	for hi-lo > 1 { // the last chunk k with starts[k] ≤ i
		m := int(uint(lo+hi) >> 1)
		if l.starts[m] <= i {
			lo = m
		} else {
			hi = m
		}
	}
	return &l.chunks[lo][i-l.starts[lo]]
}

// all yields every record with its index, in order.
func (l *rawList) all() iter.Seq2[int, *rawEvent] {
	return func(yield func(int, *rawEvent) bool) {
		i := 0
		for _, c := range l.chunks {
			for j := range c {
				if !yield(i, &c[j]) {
					return
				}
				i++
			}
		}
	}
}

// memBytes and memDevice read a "[memory]" record's fields.
func (r *rawEvent) memBytes() int64  { return r.extID }
func (r *rawEvent) memDevice() int64 { return r.corr }

// evFields collects the members of one trace event while it is scanned (members come in any
// order). Type problems with ts/dur/name are recorded and reported only if the event is used.
type evFields struct {
	at        int64 // offset of the event's '{'
	ph        byte
	cat       uint8
	hasCat    bool
	name      uint32
	hasName   bool
	nameErr   error
	hasTS     bool
	tsErr     error
	tsNs      int64
	tsUs      float64
	hasDur    bool
	durErr    error
	durNs     int64
	durUs     float64
	pid, tid  int64
	node      int32
	remote    bool
	extID     int64
	corr      int64
	seq, fwd  int64
	bytes     int64
	memDev    int64
	shapes    int32
	stack     int32
	devUs     int64
	devIdx    int64
	scope     int64
	async     bool
	fallback  bool   // args "device_time": "fallback": orprof's drawing of a fallback interval
	labels    []byte // M process_labels: args.labels (copied)
	hasLabels bool
	unused    bool // the event cannot contribute: its remaining members are only validated
}

// decoder turns the scanned trace into rawEvents plus the facts resolve needs.
type decoder struct {
	s      *jsonscan.Scanner
	format Form
	raws   rawList

	names     map[string]uint32
	nameCache [64]struct {
		name string
		id   uint32
	}
	nameStrs  []string
	nameFlags []uint8 // per name: nameFiltered, nameProfilerSpan

	shapeIdx  map[string]int32 // raw "Input Dims" JSON → index into shapeStrs
	shapeStrs []string
	stackIdx  map[string]int32 // raw "Call stack" → index into stacks
	stacks    [][]string

	baseTimeNs int64
	rank       int64 // top-level "distributedInfo": {"rank": N}; valid when hasRank
	hasRank    bool
	deviceName string // top-level "deviceName"
	orprofDev  string // top-level "orprof": {"device": …}
	isOrprof   bool   // the trace has orprof's top-level "orprof" object
	scanFacts

	par parConfig // parallel parsing of the event array (reader_parallel.go)
	ev  evFields
}

// scanFacts are what the scan of trace events learns beyond the records themselves. A
// parallel parse collects them per segment and merges them in file order.
type scanFacts struct {
	labelHint uint8  // strongest device hint from process_labels (hint* constants)
	labelName string // PrivateUse1 backend name seen in a process label
	catSeen   [catIgnored + 1]bool

	spanNs  int64 // start of the "PyTorch Profiler (…)" span; valid when hasSpan
	hasSpan bool
	minHost int64 // earliest host event start (Kineto form)
	hasHost bool
	minAny  int64
	hasAny  bool

	skipped   int   // malformed or unknown trace events skipped
	skipFirst error // the first one's problem
}

// skipEvent counts a malformed or unknown trace event, which is skipped.
func (f *scanFacts) skipEvent(err error) {
	f.skipped++
	if f.skipFirst == nil {
		f.skipFirst = err
	}
}

// merge adds the facts of a later part of the file.
func (f *scanFacts) merge(o *scanFacts) {
	f.labelHint = max(f.labelHint, o.labelHint)
	if f.labelName == "" {
		f.labelName = o.labelName
	}
	for i, c := range o.catSeen {
		f.catSeen[i] = f.catSeen[i] || c
	}
	if o.hasSpan && (!f.hasSpan || o.spanNs < f.spanNs) {
		f.spanNs, f.hasSpan = o.spanNs, true
	}
	if o.hasHost && (!f.hasHost || o.minHost < f.minHost) {
		f.minHost, f.hasHost = o.minHost, true
	}
	if o.hasAny && (!f.hasAny || o.minAny < f.minAny) {
		f.minAny, f.hasAny = o.minAny, true
	}
	f.skipped += o.skipped
	if f.skipFirst == nil {
		f.skipFirst = o.skipFirst
	}
}

const (
	nameFiltered = 1 << iota
	nameProfilerSpan
	nameMemory
	nameOOM
	nameProcessLabels
	nameScopeMetrics // "metrics: …": a scope profiler's metrics slice, not device work
)

func newDecoder(r io.Reader, file string, opts Options, par parConfig) *decoder {
	return &decoder{
		s:        jsonscan.New(r, file, opts.Progress),
		names:    make(map[string]uint32, 1024),
		shapeIdx: make(map[string]int32, 256),
		stackIdx: make(map[string]int32, 256),
		par:      par,
	}
}

// intern returns the id of name b, adding it on first sight. A small cache in front of the map
// catches the names that repeat event after event.
func (d *decoder) intern(b []byte) uint32 {
	if len(b) == 0 {
		return d.internString("")
	}
	e := &d.nameCache[(uint(len(b))*131+uint(b[0])*31+uint(b[len(b)-1]))%uint(len(d.nameCache))]
	if e.name == string(b) { // an empty entry never matches: b is not empty
		return e.id
	}
	id, ok := d.names[string(b)]
	if !ok {
		id = d.internNew(string(b))
	}
	e.name, e.id = d.nameStrs[id], id
	return id
}

// internString is intern for a string.
func (d *decoder) internString(s string) uint32 {
	if id, ok := d.names[s]; ok {
		return id
	}
	return d.internNew(s)
}

// internNew adds name s, which is not interned yet.
func (d *decoder) internNew(s string) uint32 {
	id := uint32(len(d.nameStrs))
	d.names[s] = id
	d.nameStrs = append(d.nameStrs, s)
	var f uint8
	if events.FilterName(s) {
		f |= nameFiltered
	}
	if strings.HasPrefix(s, "PyTorch Profiler") {
		f |= nameProfilerSpan
	}
	if strings.HasPrefix(s, "metrics: ") {
		f |= nameScopeMetrics
	}
	switch s {
	case "[memory]":
		f |= nameMemory
	case "[OutOfMemory]":
		f |= nameOOM
	case "process_labels":
		f |= nameProcessLabels
	}
	d.nameFlags = append(d.nameFlags, f)
	return id
}

// run scans the whole input.
func (d *decoder) run() error {
	s := d.s
	s.SkipBOM()
	c, ok := s.Peek()
	if !ok {
		if s.ReadErr != nil {
			return s.ErrEOF()
		}
		return s.ErrAt(0, "empty input: not a trace")
	}
	switch c {
	case '[':
		d.format = Legacy
		if err := d.eventArray(); err != nil {
			return err
		}
	case '{':
		d.format = Kineto
		if err := d.topObject(); err != nil {
			return err
		}
	case 0xFE, 0xFF:
		return s.ErrHere("not a trace: it starts with a UTF-16 byte order mark (%s); JSON traces are UTF-8", jsonscan.QuoteByte(c))
	default:
		return s.ErrHere("not a trace: expected '[' or '{', found %s", jsonscan.QuoteByte(c))
	}
	if c, ok := s.Peek(); ok {
		return s.ErrHere("unexpected %s after the end of the trace", jsonscan.QuoteByte(c))
	}
	if s.ReadErr != nil {
		return s.ErrEOF()
	}
	return nil
}

// topObject reads Kineto's top-level object. Its members may come in any order; only
// traceEvents, baseTimeNanoseconds and deviceName are read, the rest are skipped.
func (d *decoder) topObject() error {
	s := d.s
	at := s.Offset()
	s.Pos++ // '{'
	sawEvents := false
	more, err := s.First('}')
	for more && err == nil {
		var k []byte
		if k, err = s.Key(); err != nil {
			return err
		}
		switch string(k) {
		case "traceEvents":
			sawEvents = true
			err = d.eventArray()
		case "baseTimeNanoseconds":
			d.baseTimeNs, err = d.intValue("baseTimeNanoseconds")
		case trace.MetaOrprof:
			err = d.orprofMeta()
		case "distributedInfo":
			err = d.distributedInfo()
		case trace.MetaDeviceName:
			if c, _ := s.Peek(); c == '"' {
				var v []byte
				if v, err = s.Str(); err == nil {
					d.deviceName = strings.ToLower(strings.TrimSpace(string(v)))
				}
			} else {
				err = s.Skip()
			}
		default:
			err = s.Skip()
		}
		if err != nil {
			return err
		}
		more, err = s.More('}')
	}
	if err != nil {
		return err
	}
	if !sawEvents {
		return s.ErrAt(at, "not a trace: the top-level object has no \"traceEvents\" array")
	}
	return nil
}

// distributedInfo reads the rank from Kineto's top-level "distributedInfo" object
// ({"backend": "nccl", "rank": 0, "world_size": 8, …}); a rank that is not an integer, or a
// value of another shape, is skipped.
func (d *decoder) distributedInfo() error {
	s := d.s
	if c, _ := s.Peek(); c != '{' {
		return s.Skip()
	}
	s.Pos++
	more, err := s.First('}')
	for more && err == nil {
		var k []byte
		if k, err = s.Key(); err != nil {
			return err
		}
		if c, _ := s.Peek(); string(k) == "rank" && (c == '-' || c >= '0' && c <= '9') {
			var v int64
			if v, err = d.argInt(-1); err == nil && v >= 0 {
				d.rank, d.hasRank = v, true
			}
		} else {
			err = s.Skip()
		}
		if err != nil {
			return err
		}
		more, err = s.More('}')
	}
	return err
}

// orprofMeta reads the top-level "orprof" object orprof's sessions write
// ({"device": "openreg", "device_time": "kernels" | "fallback"}); a value of another shape is
// skipped.
func (d *decoder) orprofMeta() error {
	s := d.s
	if c, _ := s.Peek(); c != '{' {
		return s.Skip()
	}
	d.isOrprof = true
	s.Pos++
	more, err := s.First('}')
	for more && err == nil {
		var k []byte
		if k, err = s.Key(); err != nil {
			return err
		}
		if c, _ := s.Peek(); string(k) == trace.MetaDevice && c == '"' {
			var v []byte
			if v, err = s.Str(); err == nil {
				d.orprofDev = strings.ToLower(strings.TrimSpace(string(v)))
			}
		} else {
			err = s.Skip()
		}
		if err != nil {
			return err
		}
		more, err = s.More('}')
	}
	return err
}

// intValue reads an integer member value (an integral float is accepted).
func (d *decoder) intValue(key string) (int64, error) {
	s := d.s
	c, ok := s.Peek()
	if !ok {
		return 0, s.ErrEOF()
	}
	at := s.Offset()
	if c == '"' || c == '{' || c == '[' || c == 't' || c == 'f' || c == 'n' {
		return 0, s.ErrAt(at, "%q is %s, not a number", key, s.ValueKind())
	}
	tok, kind, err := s.Num()
	if err != nil {
		return 0, err
	}
	if kind == jsonscan.NumInt {
		if v, ok := jsonscan.ParseInt(tok); ok {
			return v, nil
		}
	} else if kind == jsonscan.NumFloat {
		f, err := strconv.ParseFloat(jsonscan.Bstr(tok), 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 9.2e18 {
			return int64(f), nil
		}
	}
	return 0, s.ErrAt(at, "%q is not an integer (%s)", key, jsonscan.Cut(tok))
}

// eventArray reads an array of trace events.
func (d *decoder) eventArray() error {
	s := d.s
	if err := s.Expect('[', "'[' (an array of trace events)"); err != nil {
		if c, ok := s.Peek(); ok && c != '[' {
			return s.ErrHere("\"traceEvents\" is %s, not an array", s.ValueKind())
		}
		return err
	}
	more, err := s.First(']')
	if more && err == nil && d.par.workers > 1 && !s.EOF && s.Feed == nil && len(s.Pre) == 0 {
		// More input than one buffer: parse it on several goroutines.
		return d.eventArrayParallel()
	}
	for more && err == nil {
		if err = d.arrayElement(); err != nil {
			return err
		}
		more, err = s.More(']')
	}
	return err
}

// arrayElement reads one element of the trace-event array, which must be an object.
func (d *decoder) arrayElement() error {
	s := d.s
	c, ok := s.Peek()
	if !ok {
		return s.ErrEOF()
	}
	switch c {
	case '{':
	case ']', '}', ',', ':':
		return s.ErrHere("expected a trace event object, found %s", jsonscan.QuoteByte(c))
	default:
		d.skipEvent(s.ErrHere("trace event is %s, not an object", s.ValueKind()))
		return s.Skip()
	}
	return d.event()
}

// event reads one trace event object and keeps what it contributes.
func (d *decoder) event() error {
	s := d.s
	ev := &d.ev
	*ev = evFields{at: s.Offset(), seq: -1, shapes: -1, stack: -1, node: -1, scope: -1, labels: ev.labels[:0]}
	s.Pos++ // '{'
	more, err := s.First('}')
	for more && err == nil {
		var k []byte
		if k, err = s.Key(); err != nil {
			return err
		}
		if ev.unused {
			// The event cannot contribute: validate the rest without decoding it.
			if err = s.Skip(); err != nil {
				return err
			}
			more, err = s.More('}')
			continue
		}
		switch string(k) {
		case "ph":
			err = d.phValue(ev)
		case "cat":
			err = d.catValue(ev)
		case "name":
			err = d.nameValue(ev)
		case "ts":
			err = d.timeValue(ev, false)
		case "dur":
			err = d.timeValue(ev, true)
		case "pid":
			ev.pid, _, _, err = d.idValue()
		case "tid":
			ev.tid, ev.node, ev.remote, err = d.idValue()
		case "args":
			err = d.args(ev)
		default:
			err = s.Skip()
		}
		if err != nil {
			return err
		}
		ev.unused = d.unused(ev)
		more, err = s.More('}')
	}
	if err != nil {
		return err
	}
	if ev.unused {
		if !knownPhase(ev.ph) {
			d.skipEvent(s.ErrAt(ev.at, "trace event has an unknown \"ph\" %s", jsonscan.Clip([]byte{ev.ph})))
		}
		return nil
	}
	return d.keep(ev)
}

// knownPhase reports whether ph is an event type of the Trace Event Format.
func knownPhase(ph byte) bool {
	return ph != 0 && strings.IndexByte("BEXiICbnesPtfpOND MVvRc()", ph) >= 0 && ph != ' '
}

// unused reports whether what is known of an event already rules out that keep uses it.
func (d *decoder) unused(ev *evFields) bool {
	switch ev.ph {
	case 0:
		return false
	case 'X':
		return ev.hasCat && (ev.cat == catIgnored || ev.cat == catInstant)
	case 'i', 'I':
		return d.format != Kineto || ev.hasName && d.nameFlags[ev.name]&(nameMemory|nameOOM) == 0
	case 'M':
		return ev.hasName && d.nameFlags[ev.name]&nameProcessLabels == 0
	}
	return true
}

func (d *decoder) phValue(ev *evFields) error {
	s := d.s
	if c, _ := s.Peek(); c != '"' {
		return s.Skip()
	}
	v, err := s.Str()
	if err != nil {
		return err
	}
	if len(v) == 1 {
		ev.ph = v[0]
	}
	return nil
}

func (d *decoder) catValue(ev *evFields) error {
	s := d.s
	if c, _ := s.Peek(); c != '"' {
		return s.Skip()
	}
	v, err := s.Str()
	if err != nil {
		return err
	}
	ev.cat, ev.hasCat = classifyCat(v), true
	return nil
}

func (d *decoder) nameValue(ev *evFields) error {
	s := d.s
	c, _ := s.Peek()
	at := s.Offset()
	if c != '"' {
		ev.nameErr = s.ErrAt(at, "\"name\" is %s, not a string", s.ValueKind())
		return s.Skip()
	}
	v, err := s.Str()
	if err != nil {
		return err
	}
	ev.name, ev.hasName = d.intern(v), true
	return nil
}

// timeValue reads "ts" or "dur". In the Kineto form the value is kept as integer nanoseconds
// (Kineto writes µs with exactly three decimals, so this is exact and matches PyTorch's
// integer-nanosecond arithmetic); in the legacy form as the float64 the text denotes.
func (d *decoder) timeValue(ev *evFields, isDur bool) error {
	s := d.s
	key := "ts"
	if isDur {
		key = "dur"
	}
	setErr := func(e error) {
		if isDur {
			ev.durErr = e
		} else {
			ev.tsErr = e
		}
	}
	c, ok := s.Peek()
	if !ok {
		return s.ErrEOF()
	}
	at := s.Offset()
	if c == '"' || c == '{' || c == '[' || c == 't' || c == 'f' || c == 'n' {
		setErr(s.ErrAt(at, "%q is %s, not a number", key, s.ValueKind()))
		return s.Skip()
	}
	tok, kind, err := s.Num()
	if err != nil {
		return err
	}
	if isDur && tok[0] == '-' && !isZero(tok) {
		setErr(s.ErrAt(at, "%q is negative (%s)", key, jsonscan.Cut(tok)))
		return nil
	}
	if d.format == Kineto {
		ns, ok := parseMicrosToNs(tok, kind)
		if !ok {
			setErr(s.ErrAt(at, "%q is out of range (%s)", key, jsonscan.Cut(tok)))
			return nil
		}
		if isDur {
			ev.durNs, ev.hasDur = ns, true
		} else {
			ev.tsNs, ev.hasTS = ns, true
		}
		return nil
	}
	f, ok := parseFloatTok(tok, kind)
	if !ok || math.IsInf(f, 0) {
		setErr(s.ErrAt(at, "%q is out of range (%s)", key, jsonscan.Cut(tok)))
		return nil
	}
	if isDur {
		ev.durUs, ev.hasDur = f, true
	} else {
		ev.tsUs, ev.hasTS = f, true
	}
	return nil
}

// isZero reports whether a number token denotes zero ("-0", "-0.000", "-0e5").
func isZero(tok []byte) bool {
	for _, c := range tok {
		if c >= '1' && c <= '9' {
			return false
		}
		if c == 'e' || c == 'E' {
			return true
		}
	}
	return true
}

// parseMicrosToNs converts a µs number token to integer ns: exactly when it has at most three
// decimals and no exponent, else by rounding the float value.
func parseMicrosToNs(tok []byte, kind jsonscan.NumKind) (int64, bool) {
	if kind == jsonscan.NumInt {
		v, ok := jsonscan.ParseInt(tok)
		if !ok || v > math.MaxInt64/1000 || v < math.MinInt64/1000 {
			return 0, false
		}
		return v * 1000, true
	}
	dot := -1
	if n := len(tok); n >= 2 && tok[n-2] == '.' {
		dot = n - 2
	} else if n >= 3 && tok[n-3] == '.' {
		dot = n - 3
	} else if n >= 4 && tok[n-4] == '.' {
		dot = n - 4
	}
	if dot > 0 {
		ip, ok := jsonscan.ParseInt(tok[:dot])
		if ok && ip <= math.MaxInt64/1000-1 && ip >= math.MinInt64/1000+1 {
			var frac int64
			digits := 0
			for _, c := range tok[dot+1:] {
				frac = frac*10 + int64(c-'0')
				digits++
			}
			for ; digits < 3; digits++ {
				frac *= 10
			}
			if tok[0] == '-' {
				return ip*1000 - frac, true
			}
			return ip*1000 + frac, true
		}
	}
	f, err := strconv.ParseFloat(jsonscan.Bstr(tok), 64)
	if err != nil {
		return 0, false
	}
	ns := math.Round(f * 1000)
	if math.Abs(ns) >= 9.2e18 {
		return 0, false
	}
	return int64(ns), true
}

// parseFloatTok parses a number token into the float64 Python's float() would give.
func parseFloatTok(tok []byte, kind jsonscan.NumKind) (float64, bool) {
	if kind == jsonscan.NumInt {
		if v, ok := jsonscan.ParseInt(tok); ok && v < 1<<53 && v > -(1<<53) {
			return float64(v), true
		}
	}
	f, err := strconv.ParseFloat(jsonscan.Bstr(tok), 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// idValue reads a pid or tid: an integer, an integral float, or a string. Strings are the
// legacy exporter's remote form " node_id:N, thread_id:T " (→ thread T, node N, remote), or
// any text holding a decimal number (the first one is used), or else 0.
func (d *decoder) idValue() (id int64, node int32, remote bool, err error) {
	s := d.s
	node = -1
	c, ok := s.Peek()
	if !ok {
		return 0, node, false, s.ErrEOF()
	}
	switch {
	case c == '"':
		v, err := s.Str()
		if err != nil {
			return 0, node, false, err
		}
		id, node, remote = parseIDString(v)
		return id, node, remote, nil
	case c == '-' || (c >= '0' && c <= '9'):
		tok, kind, err := s.Num()
		if err != nil {
			return 0, node, false, err
		}
		if kind == jsonscan.NumInt {
			if v, ok := jsonscan.ParseInt(tok); ok {
				return v, node, false, nil
			}
		}
		if f, ok := parseFloatTok(tok, kind); ok && f == math.Trunc(f) && math.Abs(f) < 9.2e18 {
			return int64(f), node, false, nil
		}
		return 0, node, false, nil
	}
	return 0, node, false, s.Skip()
}

func parseIDString(v []byte) (id int64, node int32, remote bool) {
	node = -1
	if i := bytes.Index(v, []byte("node_id:")); i >= 0 {
		if j := bytes.Index(v, []byte("thread_id:")); j >= 0 {
			n, okN := firstInt(v[i+len("node_id:"):])
			t, okT := firstInt(v[j+len("thread_id:"):])
			if okN && okT && n >= math.MinInt32 && n <= math.MaxInt32 {
				return t, int32(n), true
			}
		}
	}
	t, _ := firstInt(v)
	return t, node, false
}

// firstInt parses the first run of decimal digits in b (with a '-' right before it).
func firstInt(b []byte) (int64, bool) {
	i := 0
	for i < len(b) && (b[i] < '0' || b[i] > '9') {
		i++
	}
	if i == len(b) {
		return 0, false
	}
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if i > 0 && b[i-1] == '-' {
		i--
	}
	return jsonscan.ParseInt(b[i:j])
}

// args reads the members of "args" that the reader uses and skips the others.
func (d *decoder) args(ev *evFields) error {
	s := d.s
	if c, _ := s.Peek(); c != '{' {
		return s.Skip()
	}
	s.Pos++
	more, err := s.First('}')
	for more && err == nil {
		var k []byte
		if k, err = s.Key(); err != nil {
			return err
		}
		switch string(k) {
		case trace.ArgExternalID, argExternalIDLower:
			ev.extID, err = d.argInt(ev.extID)
		case trace.ArgCorrelation:
			ev.corr, err = d.argInt(ev.corr)
		case trace.ArgSequenceNumber:
			ev.seq, err = d.argInt(ev.seq)
		case trace.ArgFwdThreadID:
			ev.fwd, err = d.argInt(ev.fwd)
		case trace.ArgMemBytes:
			ev.bytes, err = d.argInt(ev.bytes)
		case trace.ArgMemDeviceType:
			ev.memDev, err = d.argInt(ev.memDev)
		case trace.ArgScope:
			ev.scope, err = d.argInt(ev.scope)
		case trace.ArgAsync:
			if c, _ := s.Peek(); c == 't' {
				ev.async = true
			}
			err = s.Skip()
		case trace.ArgDeviceTimeUs:
			ev.devUs, err = d.argInt(ev.devUs)
		case trace.ArgOpDevice:
			ev.devIdx, err = d.argInt(ev.devIdx)
		case trace.ArgDeviceTime:
			if c, _ := s.Peek(); c == '"' {
				var v []byte
				if v, err = s.Str(); err == nil && string(v) == trace.DeviceTimeFallback {
					ev.fallback = true
				}
			} else {
				err = s.Skip()
			}
		case trace.ArgInputDims:
			ev.shapes, err = d.inputDims()
		case trace.ArgCallStack:
			ev.stack, err = d.callStack()
		case trace.ArgLabels:
			if c, _ := s.Peek(); c == '"' {
				var v []byte
				if v, err = s.Str(); err == nil {
					ev.labels = append(ev.labels[:0], v...)
					ev.hasLabels = true
				}
			} else {
				err = s.Skip()
			}
		default:
			err = s.Skip()
		}
		if err != nil {
			return err
		}
		more, err = s.More('}')
	}
	return err
}

// argInt reads an integer argument; a value of another type leaves def in place.
func (d *decoder) argInt(def int64) (int64, error) {
	s := d.s
	c, ok := s.Peek()
	if !ok {
		return def, s.ErrEOF()
	}
	if c != '-' && (c < '0' || c > '9') {
		return def, s.Skip()
	}
	tok, kind, err := s.Num()
	if err != nil {
		return def, err
	}
	if kind == jsonscan.NumInt {
		if v, ok := jsonscan.ParseInt(tok); ok {
			return v, nil
		}
	}
	return def, nil
}

// inputDims reads the "Input Dims" value and returns the index of its Python rendering.
// Identical raw texts are rendered once.
func (d *decoder) inputDims() (int32, error) {
	s := d.s
	if _, ok := s.Peek(); !ok {
		return -1, s.ErrEOF()
	}
	s.Keep = s.Pos
	err := s.Skip()
	raw := s.Buf[s.Keep:s.Pos]
	s.Keep = -1
	if err != nil {
		return -1, err
	}
	if id, ok := d.shapeIdx[string(raw)]; ok {
		return id, nil
	}
	str, ok := pyShapes(raw)
	id := int32(-1)
	if ok {
		id = int32(len(d.shapeStrs))
		d.shapeStrs = append(d.shapeStrs, str)
	}
	d.shapeIdx[string(raw)] = id
	return id, nil
}

// callStack reads the "Call stack" string (frames separated by ';') and returns the index of
// its filtered frame list. Identical texts share one list.
func (d *decoder) callStack() (int32, error) {
	s := d.s
	if c, _ := s.Peek(); c != '"' {
		return -1, s.Skip()
	}
	v, err := s.Str()
	if err != nil {
		return -1, err
	}
	if id, ok := d.stackIdx[string(v)]; ok {
		return id, nil
	}
	var frames []string
	for _, f := range strings.Split(string(v), ";") {
		if f != "" && keepStackEntry(f) {
			frames = append(frames, f)
		}
	}
	id := int32(-1)
	if len(frames) > 0 {
		id = int32(len(d.stacks))
		d.stacks = append(d.stacks, frames[:len(frames):len(frames)])
	}
	d.stackIdx[string(v)] = id
	return id, nil
}

// keep decides what a scanned event contributes and records it.
func (d *decoder) keep(ev *evFields) error {
	switch ev.ph {
	case 'X':
	case 'i', 'I':
		return d.keepInstant(ev)
	case 'M':
		if ev.hasName && ev.hasLabels && d.nameFlags[ev.name]&nameProcessLabels != 0 {
			d.labelHintFrom(ev.labels)
		}
		return nil
	case 0:
		d.skipEvent(d.s.ErrAt(ev.at, "trace event has no \"ph\" (a one-letter string)"))
		return nil
	default:
		return nil // flows, counters, async and B/E events are not FunctionEvents
	}
	cat := ev.cat
	if !ev.hasCat {
		cat = catNone
	}
	var kind rawKind
	switch cat {
	case catNone, catCPUOp, catUserAnnotation:
		kind = rawHostOp
	case catRuntimeCUDA, catRuntimeXPU, catRuntimeMTIA, catRuntimePU1, catRuntimeOther:
		kind = rawRuntime
	case catDevGeneric, catDevUserAnnotation, catDevMTIA, catDevHPU:
		kind = rawDevice
	case catTrace:
		if d.format == Kineto && ev.hasName && ev.hasTS && ev.tsErr == nil &&
			d.nameFlags[ev.name]&nameProfilerSpan != 0 && (!d.hasSpan || ev.tsNs < d.spanNs) {
			d.spanNs, d.hasSpan = ev.tsNs, true
		}
		return nil
	default:
		return nil
	}
	if err := d.checkTimes(ev, true); err != nil {
		d.skipEvent(err)
		return nil
	}
	if d.nameFlags[ev.name]&nameFiltered != 0 || (kind == rawDevice && ev.fallback) {
		return nil
	}
	if kind == rawDevice && d.nameFlags[ev.name]&nameScopeMetrics != 0 && cat == catDevGeneric {
		// Kineto's XPU scope profiler writes each kernel's metrics as a "kernel" slice named
		// "metrics: <kernel>" around the kernel: counting it would count the kernel twice.
		return nil
	}
	d.catSeen[cat] = true
	if d.format == Kineto {
		if kind != rawDevice && (!d.hasHost || ev.tsNs < d.minHost) {
			d.minHost, d.hasHost = ev.tsNs, true
		}
		if !d.hasAny || ev.tsNs < d.minAny {
			d.minAny, d.hasAny = ev.tsNs, true
		}
	}
	d.raws.add(d.raw(ev, kind, cat))
	return nil
}

// keepInstant records "[memory]" and "[OutOfMemory]" instants (Kineto form only).
func (d *decoder) keepInstant(ev *evFields) error {
	if d.format != Kineto || !ev.hasName || ev.nameErr != nil {
		return nil
	}
	f := d.nameFlags[ev.name]
	if f&(nameMemory|nameOOM) == 0 {
		return nil
	}
	if err := d.checkTimes(ev, false); err != nil {
		d.skipEvent(err)
		return nil
	}
	kind := rawMemory
	if f&nameOOM != 0 {
		kind = rawOOM
	}
	d.raws.add(d.raw(ev, kind, catInstant))
	return nil
}

// checkTimes reports the deferred problems of an event that is used.
func (d *decoder) checkTimes(ev *evFields, needDur bool) error {
	switch {
	case ev.nameErr != nil:
		return ev.nameErr
	case !ev.hasName && ev.nameErr == nil:
		return d.s.ErrAt(ev.at, "trace event has no \"name\"")
	case ev.tsErr != nil:
		return ev.tsErr
	case !ev.hasTS:
		return d.s.ErrAt(ev.at, "trace event %s has no \"ts\"", jsonscan.Clip(d.nameStrs[ev.name]))
	case needDur && ev.durErr != nil:
		return ev.durErr
	case needDur && !ev.hasDur:
		return d.s.ErrAt(ev.at, "complete (\"X\") event %s has no \"dur\"", jsonscan.Clip(d.nameStrs[ev.name]))
	}
	if d.format == Kineto && ev.tsNs > math.MaxInt64-ev.durNs {
		return d.s.ErrAt(ev.at, "trace event %s ends beyond the representable time range", jsonscan.Clip(d.nameStrs[ev.name]))
	}
	return nil
}

func (d *decoder) raw(ev *evFields, kind rawKind, cat uint8) rawEvent {
	r := rawEvent{
		ts: ev.tsNs, dur: ev.durNs, pid: ev.pid, tid: ev.tid, extID: ev.extID, corr: ev.corr,
		seq: ev.seq, fwd: ev.fwd, name: ev.name, shapes: ev.shapes, stack: ev.stack,
		node: ev.node, kind: kind, cat: cat, remote: ev.remote, scope: -1, async: ev.async,
	}
	if ev.scope >= 0 && ev.scope <= 127 {
		r.scope = int8(ev.scope)
	}
	if ev.devUs > 0 {
		r.devUs = ev.devUs
		if ev.devIdx >= 0 && ev.devIdx <= math.MaxInt32 {
			r.devIdx = int32(ev.devIdx)
		}
	}
	if d.format == Legacy {
		r.ts, r.dur = int64(math.Float64bits(ev.tsUs)), int64(math.Float64bits(ev.durUs))
	}
	if kind == rawMemory || kind == rawOOM {
		r.extID, r.corr = ev.bytes, ev.memDev
	}
	return r
}
