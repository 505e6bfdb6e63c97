package tracefile

import (
	"bytes"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/orprof/orprof/internal/jsonscan"
	"github.com/orprof/orprof/trace"
)

// argExternalIDLower is the link key as Kineto builds of 2021 (PyTorch 1.8, 1.9) spelled it
// on runtime and kernel events; later ones write trace.ArgExternalID.
const argExternalIDLower = "external id"

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
	memDevID  int64   // "[memory]": "Device Id" (−1: none)
	memAlloc  int64   // "[memory]": "Total Allocated" (−1: none)
	memRes    int64   // "[memory]": "Total Reserved" (−1: none)
	memAddr   int64   // "[memory]": "Addr" (0: none)
	blocksSM  float32 // kernels: "blocks per SM" (−1: none)
	occPct    float32 // kernels: "est. achieved occupancy %" (−1: none)
	shapes    int32
	stack     int32
	devUs     int64
	devIdx    int64
	stream    int64 // "stream" (device events); valid when hasStream
	hasStream bool
	devKind   Kind // the Kind a device category gives
	rangeProf bool // cat cuda_profiler_range
	scope     int64
	async     bool
	fallback  bool   // args "device_time": "fallback": orprof's drawing of a fallback interval
	labels    []byte // M process_labels: args.labels (copied)
	hasLabels bool
	unused    bool   // the event cannot contribute: its remaining members are only validated
	comm      int32  // 1 + the index in decoder.comms of its collective args; 0: none
	flowID    int64  // a flow's "id" (read only for NeedPython)
	graphNode int64  // "graph node id" (device events of a CUDA-graph replay; 0: none)
	pidIsStr  bool   // a counter event's pid is a string: decoder.ctrPid holds it
	gScope    []byte // the args' "name": a CUDA-graph annotation's scope (reader_graph.go)
	hasGScope bool
}

// skipArgs names the event arguments a read does not need: they are validated and skipped, and
// no event gets them.
type skipArgs struct {
	shapes bool // "Input Dims"
	stacks bool // "Call stack"
}

// decoder turns the scanned trace into rawEvents plus the facts resolve needs.
type decoder struct {
	// consumersFinished is closed when the consumers' goroutine is done; deferConsumers
	// leaves waiting for it to the caller of resolve (waitConsumers), so that the consumers'
	// Finish overlaps the work that caller does after resolve (the table's rows).
	consumersFinished chan struct{}
	deferConsumers    bool
	// counts are the events of each kind the consumers will be handed, info what they are
	// told at Begin (resolveInto).
	counts Counts
	info   Info
	// prepared is closed when the consumers that want the device names are begun, early
	// when the consumers that need no links have had every event and finished (nil: none);
	// late are the consumers fed once the links are known (startEarly).
	prepared, early chan struct{}
	late            []Consumer
	// pyFed is closed when the late consumers that need the Python layer are begun and have
	// had it (startPython; nil: the late feed does both).
	pyFed chan struct{}
	// linked, in a paced read that collects, is closed once its events are linked: its early
	// feed starts then, not beside the linking, whose link tables are the read's peak.
	linked chan struct{}
	// noEvents is set when the read makes no events (ReadConsumers): what only the
	// conversion reads, the memory index, is not built.
	noEvents bool
	// parseCollected is set once the parse's garbage has been collected (resolve,
	// ReadConsumers).
	parseCollected bool
	// hold releases the chunks of records as their readers pass them, when the read has
	// consumers (resolveInto).
	hold *chunkHold

	s      *jsonscan.Scanner
	format Form
	raws   rawList
	// skipScopeMetrics is Options.SkipScopeMetrics.
	skipScopeMetrics bool
	// python is whether a consumer takes the python_function events and fwdbwd flows
	// (NeedPython); py holds their records, apart from raws (python.go), in pyCur.
	python bool
	py     pyList
	pyCur  []pyRecord

	names     map[string]uint32
	nameCache [64]struct {
		name string
		id   uint32
	}
	nameStrs  []string
	nameFlags []uint8 // per name: nameFiltered, nameProfilerSpan

	shapeIdx  map[string]int32 // raw "Input Dims" JSON → index into shapeStrs
	skip      skipArgs
	shapeStrs []string
	stackIdx  map[string]int32 // raw "Call stack" → index into stacks
	stacks    [][]string
	// graph are the operators added for CUDA-graph scopes (reader_graph.go); nil: none.
	graph *graphScopes
	// comms are the collective args of the events that carry them (collective.go), indexed by
	// their records (rawComm).
	comms []Collective

	baseTimeNs int64
	rank       int64 // top-level "distributedInfo": {"rank": N}; valid when hasRank
	hasRank    bool
	deviceName string // top-level "deviceName"
	orprofDev  string // top-level "orprof": {"device": …}
	isOrprof   bool   // the trace has orprof's top-level "orprof" object
	scanFacts

	par  parConfig // parallel parsing of the event array (reader_parallel.go)
	opts Options
	// For input scanned in place (newDecoderInPlace): consumed is told the offset before which
	// the parse is done with the input, progress how far the parse has cut it.
	consumed func(end int64)
	progress func(int64)
	ev       evFields
	rep      repeats
	lay      int // the layout of the last event read in one (index into layouts)
	// factsGen counts the resets of scanFacts (a worker's, one per segment).
	factsGen uint32
	// The counter event being read (counter.go): its category, string pid and values.
	ctrCat  string
	ctrPid  []byte
	ctr     []counterValue
	ctrStrs map[string]string // ctrString's
}

// metaLit starts a metadata event in Kineto's layout.
const metaLit = "{\n    \"name\": "

// layout is how a trace's event objects are spaced: the literal that starts an activity
// ("ph" first; x when its phase is "X", through its "cat" key), or a metadata event ("name"
// first), the separator and key before each member's value in the order the writer puts them,
// and the bytes that end the object. event reads an event laid out so in a few comparisons,
// and walks anything else member by member.
type layout struct {
	x, ph, meta                        string
	cat, name, pid, tid, ts, dur, args string // an activity's members after "ph"
	mPh, mTs, mPid, mTid, mArgs        string // a metadata event's members after "name"
	end                                string
	// An operator's "args" as Kineto writes them: from the brace through "External id", the
	// keys after it in order, and the bytes that close the object.
	argsOpen, argRec, argConcrete, argType, argStrides, argDims, argIdx, argsEnd string
}

// layouts are the layouts event tries, in this order after the one the last event had:
// Kineto's own (its indentation and line breaks), and the same members re-saved by Python's
// json.dump with its default separators (", ", ": ") and minified (",", ":"), as analysis
// tools commonly rewrite traces.
var layouts = [...]layout{{
	x: "{\n    \"ph\": \"X\", \"cat\": ", ph: "{\n    \"ph\": ", meta: metaLit,
	cat: `, "cat": `, name: `, "name": `, pid: `, "pid": `, tid: `, "tid": `, ts: ",\n    \"ts\": ",
	dur: `, "dur": `, args: ",\n    \"args\": ",
	mPh: `, "ph": `, mTs: `, "ts": `, mPid: `, "pid": `, mTid: `, "tid": `, mArgs: ",\n    \"args\": ",
	end:      "\n  }",
	argsOpen: "{\n      \"External id\": ", argRec: `,"Record function id": `, argConcrete: `, "Concrete Inputs": `,
	argType: `, "Input type": `, argStrides: `, "Input Strides": `, argDims: `, "Input Dims": `, argIdx: `, "Ev Idx": `,
	argsEnd: "\n    }",
}, flatLayout(", ", ": "), flatLayout(",", ":")}

// flatLayout is the layout of events written on one line with these separators.
func flatLayout(comma, colon string) layout {
	k := func(key string) string { return comma + `"` + key + `"` + colon }
	return layout{x: `{"ph"` + colon + `"X"` + k("cat"), ph: `{"ph"` + colon, meta: `{"name"` + colon,
		cat: k("cat"), name: k("name"), pid: k("pid"), tid: k("tid"), ts: k("ts"), dur: k("dur"), args: k("args"),
		mPh: k("ph"), mTs: k("ts"), mPid: k("pid"), mTid: k("tid"), mArgs: k("args"), end: "}",
		argsOpen: `{"External id"` + colon, argRec: k("Record function id"), argConcrete: k("Concrete Inputs"),
		argType: k("Input type"), argStrides: k("Input Strides"), argDims: k("Input Dims"), argIdx: k("Ev Idx"), argsEnd: "}"}
}

// repeats are the last distinct metadata events read whole in Kineto's layout, byte for byte
// after metaLit. Kineto repeats the same few over and over (the MTIA trace in testdata has
// 310,050 metadata events, 28 of them distinct, a third of its bytes), and a metadata event
// does the same the second time as the first: an event that is one of them again is stepped
// over in one comparison, and what it did is done again.
type repeats struct {
	ev   [32]repeat // the first min(adds, 32) are filled
	last int        // the entry of the last metadata event read
	hits int
	adds int
}

// repeat is one metadata event and what it does.
type repeat struct {
	raw    string // the event's bytes after metaLit, to its closing brace
	labels string // the process label it gives, "" for none
	// applied is 1 + the decoder's factsGen when labels was last applied: applying it again
	// before the facts are reset changes nothing.
	applied uint32
	// after is the entry that came after this one the last time (Kineto repeats them in
	// cycles), tried first.
	after int
}

// again steps over the metadata event at the scanner (after metaLit) when it is one of the
// repeats, doing what it does, and reports whether it did.
func (d *decoder) again() bool {
	r := &d.rep
	n := min(r.adds, len(r.ev))
	first := r.ev[r.last].after
	for k := 0; k < n; k++ {
		i := first + k
		if i >= n {
			i -= n
		}
		if d.s.Lit(r.ev[i].raw) {
			r.hits++
			r.ev[r.last].after, r.last = i, i
			if e := &r.ev[i]; e.labels != "" && e.applied != d.factsGen+1 {
				d.labelHintFrom([]byte(e.labels))
				e.applied = d.factsGen + 1
			}
			return true
		}
	}
	return false
}

// remember keeps the metadata event just read (from ev.at, the n bytes of its layout's meta
// literal included) among the repeats. It stops when they do not pay: more than 256 distinct
// events and fewer repeats.
func (d *decoder) remember(ev *evFields, n int) {
	r := &d.rep
	if r.adds > 256 && r.hits < r.adds {
		return
	}
	b, ok := d.s.Since(ev.at)
	if !ok || len(b) <= n {
		return
	}
	e := repeat{raw: string(b[n:])}
	if ev.hasName && ev.hasLabels && d.nameFlags[ev.name]&nameProcessLabels != 0 {
		e.labels = string(ev.labels)
	}
	i := r.adds % len(r.ev)
	r.ev[i] = e
	if r.adds > 0 {
		r.ev[r.last].after = i
	}
	r.adds++
	r.last = i
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

	// badNames are the distinct names that are not valid UTF-8, in file order, at most
	// maxBadNames of them, and nBadNames how many there are (at least; parts of a parallel
	// read count theirs apart, merge removes the repeats it can see).
	badNames  []string
	nBadNames int

	// counters are the counter events' series in file order (counter.go).
	counters    []CounterSeries
	counterOf   map[counterKey]int
	graphScoped int // device records that name a CUDA-graph annotation's scope
}

// maxBadNames bounds the names that are not valid UTF-8 kept to tell repeats apart.
const maxBadNames = 64

// badName notes a name that is not valid UTF-8 (as read, before its repair).
func (f *scanFacts) badName(s string) {
	f.nBadNames++
	if len(f.badNames) < maxBadNames {
		f.badNames = append(f.badNames, s)
	}
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
	for _, c := range o.counters {
		f.counterSample(c)
	}
	f.nBadNames += o.nBadNames
	f.graphScoped += o.graphScoped
	for _, n := range o.badNames {
		if slices.Contains(f.badNames, n) {
			f.nBadNames-- // the same name in an earlier part
		} else if len(f.badNames) < maxBadNames {
			f.badNames = append(f.badNames, n)
		}
	}
}

func newDecoder(r io.Reader, file string, opts Options, par parConfig) *decoder {
	d := newDecoderOf(jsonscan.New(r, file, opts.Progress), par)
	d.skipScopeMetrics = opts.SkipScopeMetrics
	d.python = wantsPython(opts.Consumers)
	d.opts = opts
	return d
}

// newDecoderInPlace returns a decoder that scans in.data where it is.
func newDecoderInPlace(in *inPlace, file string, opts Options, par parConfig) *decoder {
	d := newDecoderOf(jsonscan.NewBytes(in.data, 0, file), par)
	d.consumed, d.progress = in.consumed, opts.Progress
	d.skipScopeMetrics = opts.SkipScopeMetrics
	d.python = wantsPython(opts.Consumers)
	d.opts = opts
	return d
}

func newDecoderOf(s *jsonscan.Scanner, par parConfig) *decoder {
	return &decoder{
		s:        s,
		names:    make(map[string]uint32, 1024),
		shapeIdx: make(map[string]int32, 256),
		stackIdx: make(map[string]int32, 256),
		par:      par,
	}
}

// run scans the whole input.
func (d *decoder) run() error {
	s := d.s
	s.SkipBOM()
	c, ok := s.Peek()
	if !ok {
		if err := s.ReadErr(); err != nil {
			return err
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
	return s.ReadErr()
}

// topObject reads Kineto's top-level object. Its members may come in any order; only
// traceEvents, baseTimeNanoseconds and deviceName are read, the rest are skipped.
func (d *decoder) topObject() error {
	s := d.s
	at := s.Offset()
	sawEvents := false
	it := s.Object()
	for it.Next() {
		var err error
		switch string(it.Key()) {
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
			var v []byte
			var ok bool
			if v, ok, err = s.StrOrSkip(); ok {
				d.deviceName = strings.ToLower(strings.TrimSpace(string(v)))
			}
		default:
			err = s.Skip()
		}
		if err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
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
	it := s.ObjectOrSkip()
	for it.Next() {
		var err error
		if string(it.Key()) == "rank" {
			var v int64
			var ok bool
			if v, ok, err = d.intOrString(); ok && v >= 0 {
				d.rank, d.hasRank = v, true
			}
		} else {
			err = s.Skip()
		}
		if err != nil {
			return err
		}
	}
	return it.Err()
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
	it := s.Object()
	for it.Next() {
		var err error
		if string(it.Key()) == trace.MetaDevice {
			var v []byte
			var ok bool
			if v, ok, err = s.StrOrSkip(); ok {
				d.orprofDev = strings.ToLower(strings.TrimSpace(string(v)))
			}
		} else {
			err = s.Skip()
		}
		if err != nil {
			return err
		}
	}
	return it.Err()
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
	if v, ok := jsonscan.IntOf(tok, kind, true); ok {
		return v, nil
	}
	return 0, s.ErrAt(at, "%q is not an integer (%s)", key, jsonscan.Cut(tok))
}

// eventArray reads an array of trace events.
func (d *decoder) eventArray() error {
	s := d.s
	if c, ok := s.Peek(); ok && c != '[' {
		return s.ErrHere("\"traceEvents\" is %s, not an array", s.ValueKind())
	}
	it := s.Array()
	if !it.Next() {
		return it.Err()
	}
	if d.par.workers > 1 && (s.Streaming() || s.InPlace() && s.Buffered() > 2*d.par.segSize) {
		// More input than one buffer, or two segments in place: parse it on several goroutines.
		return d.eventArrayParallel()
	}
	for {
		if err := d.arrayElement(); err != nil {
			return err
		}
		if !it.Next() {
			return it.Err()
		}
	}
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
//
// An event as Kineto writes it has its opening brace indented by two spaces and its lines by
// four; an activity's members come in the order "ph", "cat", "name", "pid", "tid", "ts", "dur",
// "args", a metadata event's "name", "ph", "ts", "pid", "tid", "args". event reads each
// member's separator and name as one literal (one comparison: runtime.memequal, the compiler
// does not compare a literal passed through Lit in line) and looks names up only where the bytes
// differ. A metadata event that repeats a recent one byte for byte is stepped over (again).
func (d *decoder) event() error {
	s := d.s
	ev := &d.ev
	at := s.Offset()
	it := s.Object()
	// Kineto's layout, then the others: the walk takes over where the bytes differ. A complete
	// event's phase is read with the literal: its category decides its use. Kineto's literals
	// are constants, which the compiler compares in line.
	x := s.Lit("{\n    \"ph\": \"X\", \"cat\": ")
	phLaid := x || s.Lit("{\n    \"ph\": ")
	metaLaid := !phLaid && s.Lit(metaLit)
	L := &layouts[0]
	if !phLaid && !metaLaid {
		L, x, phLaid, metaLaid = d.otherLayout()
	}
	if metaLaid && d.again() {
		return nil // before the fields are reset: two thirds of the MTIA trace's events
	}
	*ev = evFields{at: at, seq: -1, shapes: -1, stack: -1, node: -1, scope: -1, memDevID: -1, memAlloc: -1, memRes: -1,
		blocksSM: -1, occPct: -1, labels: ev.labels[:0], gScope: ev.gScope[:0]}
	var err error
	var laid, meta, all bool
	if phLaid {
		laid = true
		if x {
			ev.ph = 'X'
		}
		if L == &layouts[0] {
			all = (x || d.laid(ev, memberPh, &err) && s.Lit(`, "cat": `)) &&
				d.laid(ev, memberCat, &err) &&
				s.Lit(`, "name": `) && d.laid(ev, memberName, &err) &&
				s.Lit(`, "pid": `) && d.laid(ev, memberPid, &err) &&
				s.Lit(`, "tid": `) && d.laid(ev, memberTid, &err) &&
				s.Lit(",\n    \"ts\": ") && d.laid(ev, memberTs, &err) &&
				s.Lit(`, "dur": `) && d.laid(ev, memberDur, &err) &&
				s.Lit(",\n    \"args\": ") && d.laid(ev, memberArgs, &err)
		} else {
			all = (x || d.laid(ev, memberPh, &err) && s.Lit(L.cat)) &&
				d.laid(ev, memberCat, &err) &&
				s.Lit(L.name) && d.laid(ev, memberName, &err) &&
				s.Lit(L.pid) && d.laid(ev, memberPid, &err) &&
				s.Lit(L.tid) && d.laid(ev, memberTid, &err) &&
				s.Lit(L.ts) && d.laid(ev, memberTs, &err) &&
				s.Lit(L.dur) && d.laid(ev, memberDur, &err) &&
				s.Lit(L.args) && d.laid(ev, memberArgs, &err)
		}
	} else if metaLaid {
		laid, meta = true, true
		if L == &layouts[0] {
			all = d.laid(ev, memberName, &err) &&
				s.Lit(`, "ph": `) && d.laid(ev, memberPh, &err) &&
				s.Lit(`, "ts": `) && d.laid(ev, memberTs, &err) &&
				s.Lit(`, "pid": `) && d.laid(ev, memberPid, &err) &&
				s.Lit(`, "tid": `) && d.laid(ev, memberTid, &err) &&
				s.Lit(",\n    \"args\": ") && d.laid(ev, memberArgs, &err)
		} else {
			all = d.laid(ev, memberName, &err) &&
				s.Lit(L.mPh) && d.laid(ev, memberPh, &err) &&
				s.Lit(L.mTs) && d.laid(ev, memberTs, &err) &&
				s.Lit(L.mPid) && d.laid(ev, memberPid, &err) &&
				s.Lit(L.mTid) && d.laid(ev, memberTid, &err) &&
				s.Lit(L.mArgs) && d.laid(ev, memberArgs, &err)
		}
	}
	if err != nil {
		return err
	}
	if laid {
		it = s.ObjectFrom()
		all = all && it.EndLit(L.end)
	}
	for it.Next() {
		if ev.unused {
			// The event cannot contribute: validate the rest without decoding it.
			if err := s.Skip(); err != nil {
				return err
			}
			continue
		}
		if err := d.member(ev, memberOf(it.Key())); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if meta && all && ev.ph == 'M' {
		// Laid out as Kineto lays it out and whole: keep would only take its process label.
		d.remember(ev, len(L.meta))
	}
	if ev.unused {
		if !knownPhase(ev.ph) {
			d.skipEvent(s.ErrAt(ev.at, "trace event has an unknown \"ph\" %s", jsonscan.Clip([]byte{ev.ph})))
		}
		return nil
	}
	return d.keep(ev)
}

// otherLayout reads the start of an event laid out as one of the layouts after Kineto's (the
// last one seen first), and returns it and what event's literals would have said; the first
// layout (Kineto's) when none matches (the event is then walked member by member).
func (d *decoder) otherLayout() (L *layout, x, phLaid, metaLaid bool) {
	s := d.s
	for k := range len(layouts) - 1 {
		i := 1 + (max(d.lay, 1)-1+k)%(len(layouts)-1)
		L = &layouts[i]
		x = s.Lit(L.x)
		phLaid = x || s.Lit(L.ph)
		metaLaid = !phLaid && s.Lit(L.meta)
		if phLaid || metaLaid {
			d.lay = i
			return L, x, phLaid, metaLaid
		}
	}
	return &layouts[0], false, false, false
}

// member names the members of a trace event the reader reads. Those that decide whether an
// event is used come first: decoder.member works that out again only after them.
type member uint8

const (
	memberOther member = iota
	memberPh
	memberCat
	memberName
	memberTs
	memberDur
	memberPid
	memberTid
	memberArgs
	memberID // a flow's "id"
)

func memberOf(key []byte) member {
	switch string(key) {
	case "ph":
		return memberPh
	case "cat":
		return memberCat
	case "name":
		return memberName
	case "ts":
		return memberTs
	case "dur":
		return memberDur
	case "pid":
		return memberPid
	case "tid":
		return memberTid
	case "args":
		return memberArgs
	case "id":
		return memberID
	}
	return memberOther
}

// laid reads the value of member m of an event read in Kineto's layout (only validating it
// when the event is unused), setting *err; it reports whether the read went well.
func (d *decoder) laid(ev *evFields, m member, err *error) bool {
	if ev.unused {
		*err = d.s.Skip()
	} else {
		*err = d.member(ev, m)
	}
	return *err == nil
}

// member reads the value of the event member m and notes whether the event can still be used.
func (d *decoder) member(ev *evFields, m member) error {
	var err error
	switch m {
	case memberPh:
		err = d.phValue(ev)
	case memberCat:
		err = d.catValue(ev)
	case memberName:
		err = d.nameValue(ev)
	case memberTs:
		err = d.timeValue(ev, false)
	case memberDur:
		err = d.timeValue(ev, true)
	case memberPid:
		if ev.ph == 'C' {
			if c, _ := d.s.Peek(); c == '"' {
				var v []byte
				if v, err = d.s.Str(); err == nil {
					d.ctrPid, ev.pidIsStr = append(d.ctrPid[:0], v...), true
					ev.pid, _, _ = parseIDString(v)
				}
				break
			}
		}
		ev.pid, _, _, err = d.idValue()
	case memberTid:
		ev.tid, ev.node, ev.remote, err = d.idValue()
	case memberArgs:
		if ev.ph == 'C' {
			err = d.counterArgs()
		} else if ev.hasCat && ev.cat == catPython {
			err = d.s.Skip() // a python_function event's args say nothing a consumer reads
		} else {
			err = d.args(ev)
		}
	case memberID:
		if d.python {
			ev.flowID, _, _, err = d.idValue()
		} else {
			err = d.s.Skip()
		}
	default:
		err = d.s.Skip()
	}
	if err != nil {
		return err
	}
	if m <= memberName { // unused looks at the phase, the category and the name only
		ev.unused = d.unused(ev)
	}
	return nil
}

// knownPhase reports whether ph is an event type of the Trace Event Format.
func knownPhase(ph byte) bool { return knownPhases[ph] }

var knownPhases = func() (t [256]bool) {
	for _, ph := range []byte("BEXiICbnesPtfpONDMVvRc()") {
		t[ph] = true
	}
	return t
}()

// unused reports whether what is known of an event already rules out that keep uses it.
func (d *decoder) unused(ev *evFields) bool {
	switch ev.ph {
	case 0:
		return false
	case 'X':
		return ev.hasCat && (ev.cat == catIgnored || ev.cat == catInstant || ev.cat == catFwdBwd ||
			ev.cat == catPython && !d.python)
	case 's', 'f':
		return !d.python || ev.hasCat && ev.cat != catFwdBwd
	case 'i', 'I':
		return d.format != Kineto || ev.hasName && d.nameFlags[ev.name]&(nameMemory|nameOOM) == 0
	case 'M':
		return ev.hasName && d.nameFlags[ev.name]&nameProcessLabels == 0
	case 'C':
		return d.format != Kineto
	}
	return true
}

func (d *decoder) phValue(ev *evFields) error {
	v, ok, err := d.s.StrOrSkip()
	if ok && len(v) == 1 {
		ev.ph = v[0]
	}
	return err
}

func (d *decoder) catValue(ev *evFields) error {
	v, ok, err := d.s.StrOrSkip()
	if ok && ev.ph == 'C' && string(v) != d.ctrCat {
		d.ctrCat = string(v)
	}
	if ok {
		ev.cat, ev.hasCat = classifyCat(v), true
		if ev.cat >= catDevGeneric && ev.cat <= catDevEvent {
			ev.devKind, ev.rangeProf = deviceKind(v), string(v) == "cuda_profiler_range"
		}
	}
	return err
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
// integer-nanosecond arithmetic); in the legacy form as the float64 the text denotes. A value
// that is not a valid time is recorded as the event's problem, reported only if it is used.
func (d *decoder) timeValue(ev *evFields, isDur bool) error {
	key := "ts"
	if isDur {
		key = "dur"
	}
	ns, us, problem, err := d.timeNumber(key, isDur)
	switch {
	case err != nil:
		return err
	case problem != nil && isDur:
		ev.durErr = problem
	case problem != nil:
		ev.tsErr = problem
	case isDur:
		ev.durNs, ev.durUs, ev.hasDur = ns, us, true
	default:
		ev.tsNs, ev.tsUs, ev.hasTS = ns, us, true
	}
	return nil
}

// timeNumber reads the value of the time member key: ns in the Kineto form, µs in the legacy
// form, or the problem with it.
func (d *decoder) timeNumber(key string, isDur bool) (ns int64, us float64, problem, err error) {
	s := d.s
	c, ok := s.Peek()
	if !ok {
		return 0, 0, nil, s.ErrEOF()
	}
	if d.format == Kineto && c-'0' <= 9 {
		if v, ok := s.Fixed3(); ok {
			return v, 0, nil, nil // thousandths of µs: ns, as parseMicrosToNs gives them
		}
	}
	at := s.Offset()
	var tok []byte
	var kind jsonscan.NumKind
	switch c {
	case '"':
		// A time written as a string ("1234.567"): read as the number it holds.
		if tok, err = s.Str(); err != nil {
			return 0, 0, nil, err
		}
		var ok bool
		if kind, ok = jsonscan.NumGrammar(tok); !ok {
			return 0, 0, s.ErrAt(at, "%q is a string, not a number", key), nil
		}
	case '{', '[', 't', 'f', 'n':
		problem = s.ErrAt(at, "%q is %s, not a number", key, s.ValueKind())
		return 0, 0, problem, s.Skip()
	default:
		tok, kind, err = s.Num()
	}
	switch {
	case err != nil:
		return 0, 0, nil, err
	case isDur && tok[0] == '-' && !isZero(tok):
		return 0, 0, s.ErrAt(at, "%q is negative (%s)", key, jsonscan.Cut(tok)), nil
	}
	if d.format == Kineto {
		ns, ok = parseMicrosToNs(tok, kind)
	} else {
		us, ok = parseFloatTok(tok, kind)
		ok = ok && !math.IsInf(us, 0)
	}
	if !ok {
		return 0, 0, s.ErrAt(at, "%q is out of range (%s)", key, jsonscan.Cut(tok)), nil
	}
	return ns, us, nil, nil
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
	}
	v, _, err := s.Int(true) // another type is skipped: 0
	return v, node, false, err
}

// args reads the members of "args" that the reader uses and skips the others. An operator's
// args as recent Kineto builds lay them out (the MTIA and ROCm traces in testdata: lines
// indented by six spaces, "External id", "Record function id", "Concrete Inputs", "Input
// type", "Input Strides" with record_shapes' strides, "Input Dims", "Ev Idx") are read by
// literal as event's members are.
func (d *decoder) args(ev *evFields) error {
	s := d.s
	c, _ := s.Peek()
	it := s.ObjectOrSkip() // a value that is not an object is skipped: no literal may follow it
	if c == '{' && s.Lit("{\n      \"External id\": ") {
		var err error
		all := d.argOK(ev, argExternalID, &err) &&
			s.Lit(`,"Record function id": `) && d.argOK(ev, argOther, &err) &&
			s.Lit(`, "Concrete Inputs": `) && d.argOK(ev, argOther, &err) &&
			s.Lit(`, "Input type": `) && d.argOK(ev, argOther, &err) &&
			(!s.Lit(`, "Input Strides": `) || d.argOK(ev, argOther, &err)) &&
			s.Lit(`, "Input Dims": `) && d.argOK(ev, argInputDims, &err) &&
			s.Lit(`, "Ev Idx": `) && d.argOK(ev, argOther, &err)
		if err != nil {
			return err
		}
		it = s.ObjectFrom()
		if all {
			it.EndLit("\n    }")
		}
	} else if L := &layouts[d.lay]; c == '{' && d.lay > 0 && s.Lit(L.argsOpen) {
		// The same arguments in another layout (layouts).
		var err error
		all := d.argOK(ev, argExternalID, &err) &&
			s.Lit(L.argRec) && d.argOK(ev, argOther, &err) &&
			s.Lit(L.argConcrete) && d.argOK(ev, argOther, &err) &&
			s.Lit(L.argType) && d.argOK(ev, argOther, &err) &&
			(!s.Lit(L.argStrides) || d.argOK(ev, argOther, &err)) &&
			s.Lit(L.argDims) && d.argOK(ev, argInputDims, &err) &&
			s.Lit(L.argIdx) && d.argOK(ev, argOther, &err)
		if err != nil {
			return err
		}
		it = s.ObjectFrom()
		if all {
			it.EndLit(L.argsEnd)
		}
	}
	for it.Next() {
		if err := d.arg(ev, it.Key()); err != nil {
			return err
		}
	}
	return it.Err()
}

// The keys of the args args reads by literal, as arg's key (argOther: one arg skips).
var argExternalID, argInputDims, argOther = []byte(trace.ArgExternalID), []byte(trace.ArgInputDims), []byte("")

// argOK is arg for args' literals: it sets *err and reports whether it is nil.
func (d *decoder) argOK(ev *evFields, key []byte, err *error) bool {
	*err = d.arg(ev, key)
	return *err == nil
}

// arg reads the value of the "args" member named key, or skips it.
func (d *decoder) arg(ev *evFields, key []byte) (err error) {
	s := d.s
	switch string(key) {
	case trace.ArgExternalID, argExternalIDLower:
		ev.extID, err = d.argInt(ev.extID)
	case trace.ArgCorrelation:
		ev.corr, err = d.argInt(ev.corr)
	case trace.ArgStream:
		if v, ok, e := d.argIntOK(); ok {
			ev.stream, ev.hasStream = v, true
		} else {
			err = e
		}
	case trace.ArgSequenceNumber:
		ev.seq, err = d.argInt(ev.seq)
	case trace.ArgFwdThreadID:
		ev.fwd, err = d.argInt(ev.fwd)
	case trace.ArgMemBytes:
		ev.bytes, err = d.argInt(ev.bytes)
	case trace.ArgMemDeviceType:
		ev.memDev, err = d.argInt(ev.memDev)
	case trace.ArgMemDeviceID:
		ev.memDevID, err = d.argInt(ev.memDevID)
	case trace.ArgMemTotalAllocated:
		ev.memAlloc, err = d.argInt(ev.memAlloc)
	case trace.ArgMemTotalReserved:
		ev.memRes, err = d.argInt(ev.memRes)
	case trace.ArgMemAddr:
		ev.memAddr, err = d.argInt(ev.memAddr)
	case trace.ArgBlocksPerSM:
		ev.blocksSM, err = d.argFloat32(ev.blocksSM)
	case trace.ArgOccupancy:
		ev.occPct, err = d.argFloat32(ev.occPct)
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
		var v []byte
		var ok bool
		if v, ok, err = s.StrOrSkip(); ok && string(v) == trace.DeviceTimeFallback {
			ev.fallback = true
		}
	case trace.ArgInputDims:
		if d.skip.shapes {
			err = s.Skip()
		} else {
			ev.shapes, err = d.inputDims()
		}
	case trace.ArgCallStack:
		if d.skip.stacks {
			err = s.Skip()
		} else {
			ev.stack, err = d.callStack()
		}
	case trace.ArgLabels:
		var v []byte
		var ok bool
		if v, ok, err = s.StrOrSkip(); ok {
			ev.labels, ev.hasLabels = append(ev.labels[:0], v...), true
		}
	case argGraphNodeID:
		ev.graphNode, err = d.argInt(ev.graphNode)
	case argGraphScope:
		var v []byte
		var ok bool
		if v, ok, err = s.StrOrSkip(); ok {
			ev.gScope, ev.hasGScope = append(ev.gScope[:0], v...), true
		}
	default:
		if mayBeCollective(key) {
			if k := collectiveKey(key); k != 0 {
				return d.collectiveArg(ev, k)
			}
		}
		err = s.Skip()
	}
	return err
}

// argInt reads an integer argument (intOrString); a value of another type leaves def in place.
func (d *decoder) argInt(def int64) (int64, error) {
	var v int64
	var ok bool
	var err error
	if c, _ := d.s.Peek(); c == '"' {
		v, ok, err = d.intOrString()
	} else {
		v, ok, err = d.s.Int(false)
	}
	if !ok {
		return def, err
	}
	return v, nil
}

// argFloat32 reads a number argument; a value of another type leaves def in place.
func (d *decoder) argFloat32(def float32) (float32, error) {
	if c, _ := d.s.Peek(); c != '-' && (c < '0' || c > '9') {
		return def, d.s.Skip()
	}
	tok, _, err := d.s.Num()
	if err != nil {
		return def, err
	}
	v, perr := strconv.ParseFloat(string(tok), 32)
	if perr != nil || v != v {
		return def, nil
	}
	return float32(v), nil
}

// argIntOK is intOrString with the number's path first.
func (d *decoder) argIntOK() (int64, bool, error) {
	if c, _ := d.s.Peek(); c == '"' {
		return d.intOrString()
	}
	return d.s.Int(false)
}

// intOrString reads an integer written as a number or as a string holding one: PyTorch's
// typed metadata (kineto #1464, #1482) writes numbers where older builds wrote pre-quoted
// strings, and a reader of either era sees both. Any other value is skipped (ok false).
func (d *decoder) intOrString() (v int64, ok bool, err error) {
	s := d.s
	if c, _ := s.Peek(); c != '"' {
		return s.Int(false)
	}
	str, err := s.Str()
	if err != nil {
		return 0, false, err
	}
	tok := bytes.TrimSpace(str)
	kind, ok := jsonscan.NumGrammar(tok)
	if !ok {
		return 0, false, nil
	}
	v, ok = jsonscan.IntOf(tok, kind, false)
	return v, ok, nil
}

// inputDims reads the "Input Dims" value and returns the index of its Python rendering.
// Identical raw texts are rendered once.
func (d *decoder) inputDims() (int32, error) {
	raw, err := d.s.Raw()
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
	v, ok, err := d.s.StrOrSkip()
	if !ok {
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
