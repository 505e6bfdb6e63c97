package tracefile

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace"
)

// The rules resolve applies are documented on Read (reader.go).

// Device evidence, weakest first.
const (
	hintNone uint8 = iota
	hintCUDA
	hintHPU
	hintMTIA
	hintXPU
	hintPU1
)

// labelHintFrom reads a process label "NAME N" (Kineto writes "GPU 0", "MTIA 9", "CPU").
// It does not allocate unless it meets a new backend name.
func (d *decoder) labelHintFrom(label []byte) {
	label = bytes.TrimSpace(label)
	sp := bytes.IndexByte(label, ' ')
	if sp <= 0 || sp == len(label)-1 {
		return
	}
	word, rest := label[:sp], label[sp+1:]
	for _, c := range rest {
		if c < '0' || c > '9' {
			return
		}
	}
	h := hintNone
	switch {
	case bytes.EqualFold(word, []byte("gpu")), bytes.EqualFold(word, []byte("cpu")),
		bytes.EqualFold(word, []byte("cuda")):
		return // Kineto labels every GPU "GPU n": no more than the categories say
	case bytes.EqualFold(word, []byte("mtia")):
		h = hintMTIA
	case bytes.EqualFold(word, []byte("xpu")):
		h = hintXPU
	case bytes.EqualFold(word, []byte("hpu")):
		h = hintHPU
	default:
		for _, c := range word {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
				return
			}
		}
		h = hintPU1
		if d.labelName == "" {
			d.labelName = strings.ToLower(string(word))
		}
	}
	if h > d.labelHint {
		d.labelHint = h
	}
}

// traceDevice decides Data.Device and DeviceName.
func (d *decoder) traceDevice() (devices.Type, string) {
	name := d.deviceName
	if name == "" {
		name = d.orprofDev
	}
	if name != "" {
		if name == "cpu" {
			return devices.CPU, ""
		}
		switch t, err := devices.Parse(name); {
		case err == nil && t != devices.PrivateUse1:
			return t, t.String()
		case name == "privateuseone" || name == "privateuse1":
			return devices.PrivateUse1, devices.PrivateUse1BackendName()
		default:
			return devices.PrivateUse1, name
		}
	}
	h := d.labelHint
	seen := func(cats ...uint8) bool {
		for _, c := range cats {
			if d.catSeen[c] {
				return true
			}
		}
		return false
	}
	switch {
	case seen(catRuntimePU1):
		h = max(h, hintPU1)
	case seen(catRuntimeXPU):
		h = max(h, hintXPU)
	case seen(catRuntimeMTIA, catDevMTIA):
		h = max(h, hintMTIA)
	case seen(catDevHPU):
		h = max(h, hintHPU)
	case seen(catRuntimeCUDA, catDevGeneric, catDevUserAnnotation):
		h = max(h, hintCUDA)
	}
	switch h {
	case hintPU1:
		if d.labelName != "" {
			return devices.PrivateUse1, d.labelName
		}
		return devices.PrivateUse1, devices.PrivateUse1BackendName()
	case hintXPU:
		return devices.XPU, devices.XPU.String()
	case hintMTIA:
		return devices.MTIA, devices.MTIA.String()
	case hintHPU:
		return devices.HPU, devices.HPU.String()
	case hintCUDA:
		return devices.CUDA, devices.CUDA.String()
	}
	return devices.CPU, ""
}

// deviceEventType is the DeviceType of a device activity of category cat in a trace whose
// accelerator is trace.
func deviceEventType(cat uint8, trace devices.Type) devices.Type {
	switch {
	case cat == catDevEvent:
		return devices.CPU // PyTorch's deviceTypeFromActivity has no case for CUDA_EVENT
	case cat == catDevHPU:
		return devices.HPU
	case trace == devices.PrivateUse1:
		return devices.PrivateUse1
	case cat == catDevMTIA:
		return devices.MTIA
	case trace == devices.XPU:
		return devices.XPU
	}
	return devices.CUDA
}

// attachable reports whether device events of type t become kernels of their op.
func attachable(t devices.Type) bool {
	return t == devices.CUDA || t == devices.PrivateUse1 || t == devices.XPU
}

// memoryBytes splits a memory record's bytes by its "Device Type" the way
// _parse_kineto_results does. In orprof's own traces any type other than 0 (CPU) is the
// device's.
func (d *decoder) memoryBytes(r *rawEvent) (cpu, dev int64) {
	n := r.memBytes()
	if d.isOrprof {
		if r.memDevice() == 0 {
			return n, 0
		}
		return 0, n
	}
	switch r.memDevice() {
	case 0, 2, 5: // CPU, MKLDNN, IDEEP
		return n, 0
	case 1, 6, 12, 20: // CUDA, HIP, XPU, PrivateUse1
		return 0, n
	}
	return 0, 0
}

// memIndex answers which memory records fall in a host event's interval.
type memIndex struct {
	ts             []int64 // record times, sorted
	order          []int32 // raw index of each sorted record
	cpuSum, devSum []int64 // prefix sums over the sorted records
	covered        []bool  // per sorted record: inside some host event
}

func (d *decoder) buildMemIndex() *memIndex {
	type memRec struct {
		ts int64
		r  *rawEvent
		i  int32
	}
	var recs []memRec
	for i, r := range d.raws.all() {
		if r.kind == rawMemory {
			recs = append(recs, memRec{r.ts, r, int32(i)})
		}
	}
	if len(recs) == 0 {
		return nil
	}
	slices.SortStableFunc(recs, func(a, b memRec) int { return cmp.Compare(a.ts, b.ts) })
	m := &memIndex{order: make([]int32, len(recs)), ts: make([]int64, len(recs)),
		cpuSum: make([]int64, len(recs)+1), devSum: make([]int64, len(recs)+1)}
	order := m.order
	for k, rec := range recs {
		r := rec.r
		m.order[k] = rec.i
		m.ts[k] = r.ts
		c, dv := d.memoryBytes(r)
		m.cpuSum[k+1] = m.cpuSum[k] + c
		m.devSum[k+1] = m.devSum[k] + dv
	}
	// Mark every record some host event contains: +1 at each interval start, −1 after its end.
	diff := make([]int32, len(order)+1)
	for _, r := range d.raws.all() {
		if r.kind != rawHostOp && r.kind != rawRuntime {
			continue
		}
		if lo, hi := m.span(r); lo < hi {
			diff[lo]++
			diff[hi]--
		}
	}
	m.covered = make([]bool, len(order))
	var run int32
	for k := range order {
		run += diff[k]
		m.covered[k] = run > 0
	}
	return m
}

// span is the range of sorted records with start ≤ ts ≤ end for a host event.
func (m *memIndex) span(r *rawEvent) (lo, hi int) {
	start, end := r.ts, r.ts+r.dur
	lo = sort.Search(len(m.ts), func(k int) bool { return m.ts[k] >= start })
	hi = lo + sort.Search(len(m.ts)-lo, func(k int) bool { return m.ts[lo+k] > end })
	return lo, hi
}

// eventSink is where resolve puts the events it converts: a FunctionEvent slice (Read), or an
// Averager that keeps only what the table needs (ReadAverages).
type eventSink interface {
	// part returns the setter of one converting goroutine; parts are made before the
	// goroutines that use them start.
	part() sinkPart
	// apply moves linked runtime events onto their operator's thread and attaches the kernels.
	apply(lk *links)
}

// sinkPart fills events from one goroutine: event(i) is a zeroed event to fill for index i,
// handed over by done(i).
type sinkPart interface {
	event(i int) *events.FunctionEvent
	done(i int)
}

// sliceSink keeps every event.
type sliceSink struct{ evs []events.FunctionEvent }

func (s *sliceSink) part() sinkPart                    { return s }
func (s *sliceSink) event(i int) *events.FunctionEvent { return &s.evs[i] }
func (s *sliceSink) done(int)                          {}
func (s *sliceSink) apply(lk *links)                   { lk.apply(s.evs) }

// averagerSink hands each event to an Averager and keeps none.
type averagerSink struct{ a *events.Averager }

type averagerPart struct {
	p  *events.AveragerPart
	fe events.FunctionEvent
}

func (s averagerSink) part() sinkPart { return &averagerPart{p: s.a.Part()} }

func (p *averagerPart) event(int) *events.FunctionEvent {
	p.fe = events.FunctionEvent{}
	return &p.fe
}

func (p *averagerPart) done(i int) { p.p.Set(i, &p.fe) }

func (s averagerSink) apply(lk *links) {
	for _, t := range lk.threads {
		s.a.SetThread(int(t.ev), t.tid)
	}
	if s.a.WalksTree() {
		s.a.GrowNamedKernels(len(lk.pairs))
		for _, p := range lk.pairs { // in file order, as links.apply appends them
			s.a.AddNamedKernel(int(p.op), events.Kernel{Name: events.RewriteName(lk.names[p.name], true),
				Device: int(p.device), DurationUs: p.durUs})
		}
		return
	}
	for _, p := range lk.pairs { // in file order, as links.apply appends them
		s.a.AddKernel(int(p.op), p.durUs)
	}
}

// collectRecords is how many records a read needs before it collects its garbage where its
// memory turns over (after the parse, after linking, once the records are passed): below it
// the garbage is a few MB, which a forced cycle costs more time to reclaim than it saves.
const collectRecords = 1 << 16

// collects reports whether the read is large enough to collect (collectRecords).
func (d *decoder) collects() bool { return d.raws.n >= collectRecords }

// resolve turns the scanned records into the Data, with its events; see resolveInto.
func (d *decoder) resolve() *Data {
	if d.collects() {
		// The parse's garbage (input buffers, segment scratch) goes before the link tables and
		// the events (about 300 bytes each) are made, so that they reuse its pages rather than
		// take more: the peak RSS of a large trace is here. The records hold no pointers, so
		// this is quick (a few ms for 800k events; 2-3 % of the peak RSS).
		runtime.GC()
		d.parseCollected = true
	}
	var s sliceSink
	td := d.resolveInto(func(n int) eventSink {
		s.evs = make([]events.FunctionEvent, n)
		return &s
	})
	td.Events = s.evs
	return td
}

// resolveAverages turns the scanned records into the Data, without events, and their key
// averages grouped by g, which must not group by stack.
func (d *decoder) resolveAverages(g events.AverageOptions, tree func(*events.TreeEvent)) (*Data, *events.Averager) {
	var a *events.Averager
	td := d.resolveInto(func(n int) eventSink {
		a, _ = events.NewAverager(n, g)
		if tree != nil {
			a.WalkTree(tree)
		}
		return averagerSink{a}
	})
	return td, a
}

// resolveInto turns the scanned records into the Data and puts the events into the sink made
// by newSink for their number.
func (d *decoder) resolveInto(newSink func(n int) eventSink) *Data {
	td := &Data{Form: d.format, BaseTimeNs: d.baseTimeNs, Rank: d.rank, HasRank: d.hasRank, Bytes: d.s.BytesRead()}
	td.Device, td.DeviceName = d.traceDevice()

	var base int64
	switch {
	case d.hasSpan:
		base = d.spanNs
	case d.isOrprof:
		base = 0 // orprof's sessions measure from baseTimeNanoseconds, the origin of every ts
	case d.hasHost:
		base = d.minHost
	case d.hasAny:
		base = d.minAny
	}
	kineto := d.format == Kineto
	if kineto {
		td.OriginNs = base
	}
	times := func(r *rawEvent) (float64, float64) {
		if kineto {
			return float64(r.ts-base) / 1000, float64(r.ts+r.dur-base) / 1000
		}
		t := math.Float64frombits(uint64(r.ts))
		return t, t + math.Float64frombits(uint64(r.dur))
	}

	d.graph = d.addGraphScopes()
	// Per chunk of records: how many events and legacy-numbered ops come before it, so that
	// the chunks can be turned into events independently.
	type chunkStart struct{ ev, legacy int }
	starts := make([]chunkStart, len(d.raws.chunks)+1)
	nMem := 0
	var counts Counts
	for k, c := range d.raws.chunks {
		st := starts[k]
		for i := range c {
			switch r := &c[i]; r.kind {
			case rawMemory:
				counts.Memory++
			case rawOOM:
				nMem++
			default:
				st.ev++
				switch r.kind {
				case rawHostOp:
					counts.Host++
					if r.cat == catNone {
						st.legacy++
					}
				case rawRuntime:
					counts.Runtime++
				case rawDevice:
					counts.Device++
				}
			}
		}
		starts[k+1] = st
	}
	counts.Python = d.py.n
	d.counts = counts
	if !kineto {
		d.counts.Memory = 0 // only a Kineto trace's memory records are handed over
	}
	rank := trace.Rank{Number: int64(d.opts.Position), Trace: d.s.File()}
	if d.hasRank {
		rank.Number, rank.Named = d.rank, true
	}
	d.info = Info{Rank: rank, Form: td.Form, DeviceName: td.DeviceName, OriginNs: td.OriginNs, Counts: d.counts}
	nKeep := starts[len(d.raws.chunks)].ev
	var mem *memIndex
	if kineto && !d.noEvents {
		mem = d.buildMemIndex()
		if mem != nil {
			for _, c := range mem.covered {
				if !c {
					nMem++
				}
			}
		}
	}

	// Everything that needs the records of other events (the device links, the link report,
	// the top-level memory events) is worked out from the records first, so that each chunk of
	// records can be released as soon as it is converted: the records and the events never
	// exist in full at the same time.
	if len(d.opts.Consumers) > 0 {
		// The readers of the records: the conversion, the consumers' feed and, when some
		// consumers need no links, their early feed.
		readers, late, early := int32(1), 0, false
		for _, c := range d.opts.Consumers {
			if c.Needs()&(NeedLinks|NeedPython) == 0 {
				early = true
			} else {
				late++
			}
		}
		if early {
			readers++
		}
		readers += int32(lateFeeds(late))
		// Once every chunk is released, the consumers' Finish and their callers' output
		// come next and allocate about as much as the records held: collected then, the
		// records' memory is reused for them rather than fresh pages faulted in.
		var done func()
		if d.collects() {
			done = runtime.GC
		}
		d.hold = newChunkHold(d.raws.chunks, readers, done)
		if d.opts.Paced {
			d.hold.lastReader()
		}
	}
	collect := len(d.opts.Consumers) > 0 && d.collects()
	if collect && d.opts.Linking != nil {
		if !d.parseCollected {
			// The caller lifts its limit while the read links: the parse's garbage (a
			// .gz's inflated input) goes first, so that the link tables reuse its pages.
			runtime.GC()
		}
		d.opts.Linking(true)
	}
	if d.opts.Paced && collect {
		d.linked = make(chan struct{})
	}
	d.startEarly(times)
	d.startPython(times)
	lk := d.linkRaws(td.Device, times)
	if collect {
		if d.opts.Linking != nil {
			d.opts.Linking(false)
		}
		// The links' working lists are garbage now, and the consumers begun next reserve
		// about as much: collected now, that memory is reused, not faulted in fresh.
		runtime.GC()
		if d.linked != nil {
			close(d.linked)
		}
	}
	td.DeviceLink = d.deviceLinkReport(lk, td.Device, times)
	td.Counters = d.counters
	if td.BadNames = d.nBadNames; td.BadNames > 0 {
		td.BadNameFirst = d.badNames[0]
	}
	if td.Skipped = d.skipped; d.skipFirst != nil {
		td.SkipReason = d.skipFirst.Error()
		if e, ok := d.skipFirst.(*Error); ok {
			td.SkipReason = fmt.Sprintf("byte %d: %s", e.Offset, e.Msg)
		}
	}
	sink := newSink(nKeep + nMem)
	var feedPassed func(int) // the feed's pass of a chunk: those its links no longer read
	if d.hold != nil {
		evStart := make([]int, len(starts))
		for k := range starts {
			evStart[k] = starts[k].ev
		}
		due := d.feedDue(lk, evStart)
		feedPassed = func(k int) {
			for _, c := range due[k] {
				d.hold.pass(int(c))
			}
		}
	}
	if sink == nil {
		// The consumers were all the read was for: no event is made.
		if len(d.opts.Consumers) > 0 {
			d.hold.passAll() // no conversion
			d.feedLate(lk, times, feedPassed)
			d.waitEarly()
		}
		d.raws = rawList{}
		for _, c := range d.late {
			c.Finish()
		}
		return td
	}
	first := sink.part()
	d.setMemoryEvents(first, nKeep, mem, lk.maxID, base)

	// The consumers are fed on goroutines of their own (feedLate) while the events are
	// converted: both only read the records, each chunk of which the last of its readers
	// releases (d.hold), so that the rest of the read (the links applied, the rows made) never
	// waits for the consumers. From here on the feeding goroutines alone use d.raws; the
	// conversion uses chunks.
	chunks := d.raws.chunks
	feeding := len(d.opts.Consumers) > 0
	if feeding {
		finished := make(chan struct{})
		d.consumersFinished = finished
		go func() {
			defer close(finished)
			d.feedLate(lk, times, feedPassed)
			d.raws = rawList{}
			for _, c := range d.late {
				c.Finish() // while the rest of the read goes on
			}
			d.waitEarly()
		}()
	}

	// convert fills the events of chunks [k0, k1) through out, releasing each chunk's records
	// after it (unless the consumers are still reading them).
	convert := func(out sinkPart, k0, k1 int) {
		for k := k0; k < k1; k++ {
			if feeding && d.hold.last != nil {
				<-d.hold.last[k] // paced: the consumers have been fed chunk k
			}
			c := chunks[k]
			j, legacyID := starts[k].ev, int64(starts[k].legacy)
			for i := range c {
				r := &c[i]
				if r.kind == rawMemory || r.kind == rawOOM {
					continue
				}
				d.convert(out.event(j), r, td.Device, mem, times, &legacyID)
				out.done(j)
				j++
			}
			if feeding {
				d.hold.pass(k)
			} else {
				chunks[k] = nil
				releaseRecords(c)
			}
		}
	}
	if n := len(chunks); d.par.workers > 1 && nKeep >= 32<<10 && n > 1 {
		// Two goroutines: the work is light, but the events are large and fresh memory.
		var wg sync.WaitGroup
		first, second := sink.part(), sink.part()
		wg.Go(func() { convert(second, n/2, n) })
		convert(first, 0, n/2)
		wg.Wait()
	} else {
		convert(sink.part(), 0, len(chunks))
	}
	if !feeding {
		d.raws = rawList{}
	}
	sink.apply(lk)
	if !d.deferConsumers {
		d.waitConsumers()
	}
	return td
}

// waitConsumers waits until the consumers' goroutine is done (every consumer finished), if
// the read has one.
func (d *decoder) waitConsumers() {
	if d.consumersFinished != nil {
		<-d.consumersFinished
	}
}

// lateFeeds is the number of goroutines that feed n consumers needing the links: two when
// there are two or more and two processors, each with half of them, so that the heaviest
// does not hold up the others once the events are converted.
func lateFeeds(n int) int {
	if n < 2 || runtime.GOMAXPROCS(0) < 2 {
		return 1 // (one feed even of none: it passes the chunks)
	}
	return 2
}

// feedLate feeds the consumers that need the links (d.late) on lateFeeds goroutines, each
// passing the chunks it has fed (passed).
func (d *decoder) feedLate(lk *links, times func(*rawEvent) (float64, float64), passed func(int)) {
	cs := d.late
	if lateFeeds(len(cs)) < 2 {
		d.feedConsumers(cs, lk, d.raws.chunks, times, passed)
		return
	}
	var a, b []Consumer
	for i, c := range cs {
		if i%2 == 0 {
			a = append(a, c)
		} else {
			b = append(b, c)
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { d.feedConsumers(b, lk, d.raws.chunks, times, passed) })
	d.feedConsumers(a, lk, d.raws.chunks, times, passed)
	wg.Wait()
}

// startEarly starts the work on the consumers that need no links, on a goroutine of its own
// while the read links its events (a step that keeps one core busy and leaves the others
// idle), which only reads the records too: the device events' names collected and the
// consumers that need them begun (NeedDeviceNames; d.prepared is closed after), then every
// event fed to the consumers that need no links, which finish there (d.early is closed
// after). d.late are the consumers fed once the links are known.
func (d *decoder) startEarly(times func(*rawEvent) (float64, float64)) {
	var named, early []Consumer
	d.late = nil
	for _, c := range d.opts.Consumers {
		n := c.Needs()
		if n&NeedDeviceNames != 0 {
			named = append(named, c)
		}
		if n&(NeedLinks|NeedPython) == 0 {
			early = append(early, c)
		} else {
			d.late = append(d.late, c)
		}
	}
	if len(named) == 0 && len(early) == 0 {
		return
	}
	prepared, fed := make(chan struct{}), make(chan struct{})
	d.prepared = prepared
	if len(early) > 0 {
		d.early = fed
	}
	chunks := d.raws.chunks
	go func() {
		if len(named) > 0 {
			seen := make([]bool, len(d.nameStrs))
			var names []string
			for _, ch := range chunks {
				for i := range ch {
					if r := &ch[i]; r.kind == rawDevice && !seen[r.name] {
						seen[r.name] = true
						names = append(names, d.nameStrs[r.name])
					}
				}
			}
			for _, c := range named {
				d.begin(c, slices.Clone(names))
			}
		}
		close(prepared)
		if len(early) > 0 {
			if d.linked != nil {
				<-d.linked
			}
			d.feedConsumers(early, nil, chunks, times, d.hold.pass)
			for _, c := range early {
				c.Finish()
			}
		}
		close(fed)
	}()
}

// startPython begins the late consumers that need the Python layer and feeds it to them on
// a goroutine of its own while the read links its events (the layer needs no links);
// feedConsumers waits for it (d.pyFed) before their other events.
func (d *decoder) startPython(times func(*rawEvent) (float64, float64)) {
	var pcs []Consumer
	for _, c := range d.late {
		if c.Needs()&NeedPython != 0 {
			pcs = append(pcs, c)
		}
	}
	if len(pcs) == 0 {
		return
	}
	fed := make(chan struct{})
	d.pyFed = fed
	go func() {
		defer close(fed)
		for _, c := range pcs {
			if c.Needs()&NeedDeviceNames == 0 {
				d.begin(c, nil)
			} else {
				<-d.prepared // begun by startEarly
			}
		}
		d.feedPython(pcs, times)
		d.py, d.pyCur = pyList{}, nil // read by no one else: their memory is the GC's
	}()
}

// begin calls c.Begin with the read's Info and names.
func (d *decoder) begin(c Consumer, names []string) {
	info := d.info
	info.DeviceNames = names
	c.Begin(&info)
}

// waitEarly waits until the link-free consumers have had every event, if the read has any.
func (d *decoder) waitEarly() {
	if d.early != nil {
		<-d.early
	}
}

// feedConsumers begins the consumers cs (those that wanted the device names were begun by
// startEarly) and hands them every event of chunks, in file order: with its links resolved
// (lk), or, with lk nil, as NeedLinks says of a consumer without it (no operator, launch or
// rule; a device event's collective only from its own args). passed, when not nil, is called
// with each chunk's index once its events have been fed, in order, every chunk once.
func (d *decoder) feedConsumers(cs []Consumer, lk *links, chunks [][]rawEvent, times func(*rawEvent) (float64, float64), passed func(int)) {
	linked := lk != nil
	if linked && d.prepared != nil {
		<-d.prepared
	}
	if passed != nil && len(chunks) > 0 {
		defer passed(len(chunks) - 1)
	}
	if len(cs) == 0 {
		for k := range len(chunks) - 1 {
			if passed != nil {
				passed(k)
			}
		}
		return
	}
	if !linked {
		lk = &links{} // no operator, launch or rule for any event
	}
	kineto := d.format == Kineto
	opName := func(raw int32) string {
		return events.RewriteName(d.nameStrs[d.raws.at(int(raw)).name], true)
	}
	// The late feed's Python consumers were begun and had the Python layer (startPython);
	// the early feed (started before it) has none.
	var pyFed chan struct{}
	if linked {
		pyFed = d.pyFed
	}
	if pyFed != nil {
		<-pyFed
	}
	var mcs []Consumer
	for _, c := range cs {
		n := c.Needs()
		if n&NeedDeviceNames == 0 && (pyFed == nil || n&NeedPython == 0) {
			d.begin(c, nil)
		}
		if n&NeedMemory != 0 && kineto {
			mcs = append(mcs, c)
		}
	}
	if pyFed == nil {
		d.feedPython(cs, times)
	}
	var ev Event
	var mev Event
	next := 0 // the next pair, in event order
	k := -1
	var legacy int64
	var comms *commIndex
	if linked {
		comms = d.newCommIndex(times)
	}
	// Plain loops over the chunks, not range over d.raws.all(): its body, a closure, is too
	// large to be inlined and would cost a call per event.
	i := -1
	for kc, ch := range chunks {
		if kc > 0 && passed != nil {
			passed(kc - 1)
		}
		for j := range ch {
			i++
			r := &ch[j]
			if r.kind == rawMemory && len(mcs) > 0 {
				at, _ := times(r)
				alloc, res := r.memTotals()
				mev = Event{Kind: KindMemory, Name: "[memory]", StartUs: at, EndUs: at, StartNs: r.ts, EndNs: r.ts,
					Pid: r.pid, Tid: r.tid, Stream: -1, OpIndex: -1, Memory: Memory{Bytes: r.memBytes(),
						DeviceType: r.memDevice(), DeviceID: r.memDeviceID(), TotalAllocated: alloc, TotalReserved: res,
						Addr: r.memAddr()}}
				for _, c := range mcs {
					c.Event(&mev)
				}
				continue
			}
			if r.kind == rawMemory || r.kind == rawOOM {
				continue
			}
			k++
			start, end := times(r)
			ev = Event{Name: d.nameStrs[r.name], StartUs: start, EndUs: end, Pid: r.pid, Tid: r.tid, Stream: -1, SequenceNr: -1,
				Correlation: r.corr, ExternalID: r.extID, OpIndex: -1}
			ev.StartNs, ev.EndNs = r.timesNs(kineto)
			switch r.kind {
			case rawHostOp:
				ev.Kind = KindOp
				if r.cat == catUserAnnotation {
					ev.Kind = KindUserAnnotation
				}
				ev.ExternalID = hostID(r, &legacy)
				ev.Correlation = 0
				ev.SequenceNr, ev.FwdThread = r.seq, r.fwd
				if r.flags&rawComm != 0 {
					ev.Comm = d.commOf(r, nil, -1, -1, times)
				}
			case rawRuntime:
				ev.Kind = KindRuntime
				if op, ok := lk.rtOp[int32(i)]; ok {
					ev.Op, ev.OpIndex = opName(op.raw), int(op.ev)
				}
			case rawDevice:
				ev.Kind, ev.Stream = r.devKind(), r.stream()
				ev.BlocksPerSM, ev.OccupancyPct = r.kernelArgs()
				if r.cat == catDevScopeMetrics {
					ev.Kind = KindScopeMetrics
				}
				for next < len(lk.pairs) && int(lk.pairs[next].dev) < k {
					next++
				}
				var p *kernelPair
				if next < len(lk.pairs) && int(lk.pairs[next].dev) == k {
					p = &lk.pairs[next]
					ev.Op, ev.OpIndex, ev.Rule = opName(p.opRaw), int(p.op), p.rule
					if p.launch > 0 {
						ev.Launch = d.raws.at(int(p.launch - 1)).corr
					}
				}
				if comms != nil || r.flags&rawComm != 0 {
					ev.Comm = d.deviceComm(r, comms, p, times)
				}
			}
			for _, c := range cs {
				c.Event(&ev)
			}
		}
	}
}

// convert fills *fe, zero, from the record r (not a memory record); legacyID numbers legacy
// ops. Runtime events linked to an op get its thread, and ops their kernels, later (links.apply).
func (d *decoder) convert(fe *events.FunctionEvent, r *rawEvent, trace devices.Type, mem *memIndex,
	times func(*rawEvent) (float64, float64), legacyID *int64) {
	name := d.nameStrs[r.name]
	start, end := times(r)
	fe.Name, fe.TraceName = events.RewriteName(name, true), name
	fe.Thread, fe.NodeID, fe.StartUs, fe.EndUs, fe.SequenceNr = r.tid, -1, start, end, -1
	fe.InputShapes = "[]"
	switch r.kind {
	case rawHostOp:
		fe.ID = r.extID
		if r.cat == catNone {
			*legacyID++
			fe.ID = *legacyID
			fe.IsLegacy = d.format == Legacy
		}
		if r.remote() {
			fe.NodeID, fe.IsRemote = int(r.node), true
		}
		fe.FwdThread, fe.SequenceNr = r.fwd, r.seq
		if r.shapes >= 0 {
			fe.InputShapes = d.shapeStrs[r.shapes]
		}
		if r.stack >= 0 {
			fe.Stack = d.stacks[r.stack]
		}
		switch {
		case r.cat == catUserAnnotation:
			fe.Scope, fe.IsUserAnnotation = events.ScopeUserScope, true
		case r.fwd != 0:
			fe.Scope = events.ScopeBackwardFunction
		}
		if r.scope >= 0 {
			fe.Scope = int(r.scope)
		}
		fe.IsAsync = r.async()
		if r.devUs > 0 && !r.async() {
			// orprof's fallback device time: PyTorch's one fake kernel named after the op.
			fe.Kernels = []events.Kernel{{Name: fe.Name, Device: int(r.devIdx), DurationUs: float64(r.devUs)}}
			fe.IsLegacy = true
		}
	case rawRuntime:
		fe.ID = r.corr
	case rawDevice:
		fe.ID = r.corr
		fe.DeviceType = deviceEventType(r.cat, trace)
		fe.DeviceIndex = int(r.pid)
		fe.IsUserAnnotation = r.cat == catDevUserAnnotation
	}
	if mem != nil && (r.kind == rawHostOp || r.kind == rawRuntime) {
		if lo, hi := mem.span(r); lo < hi {
			fe.CPUMemoryUsage = mem.cpuSum[hi] - mem.cpuSum[lo]
			fe.DeviceMemoryUsage = mem.devSum[hi] - mem.devSum[lo]
		}
	}
}

// links is what linking device and runtime events to host operators decided, worked out from
// the records before they are converted (linkRaws) and applied to the events after (apply).
type links struct {
	maxID   int64        // the largest ID of any event (memory events are numbered after it)
	threads []threadFix  // runtime events that take their op's thread
	pairs   []kernelPair // device events attached to an op, in file order
	rule    []LinkRule   // per event: the rule that attached it; nil when none was
	l       *linker      // the host operators by id; nil until needed
	names   []string     // the decoder's names, which kernelPair.name indexes
	// rtOp is, when the read has consumers, the operator each runtime call's device work was
	// charged to (by raw index of the call): its raw record and event index, both kept here
	// so that feeding the consumers needs no map from every pair's op to its event (building
	// it cost orprof report 10 M instructions on the MTIA trace).
	rtOp map[int32]opRef
}

type threadFix struct {
	ev  int32
	tid int64
}

// kernelPair is a device event attached to an op: what becomes the op's Kernel (its name as
// an index into links.names, to keep the pair small), and how it was found.
type kernelPair struct {
	dev, op int32
	name    uint32
	opRaw   int32 // the op's raw record
	launch  int32 // raw index of the runtime call it was linked through + 1; 0: none known
	device  int32
	durUs   float64
	rule    LinkRule
}

// hostID is the ID convert gives a host operator record; legacy numbers the legacy ops.
func hostID(r *rawEvent, legacy *int64) int64 {
	if r.cat == catNone {
		*legacy++
		return *legacy
	}
	return r.extID
}

// linkRaws works out, from the records, which device events are attached to which host
// operators and which runtime events move onto their operator's thread. Event k is the k-th
// record that is not a memory record. The rules are LinkRule's, in its order; with
// Options.Link = LinkExternalID only rule 1, for the device types PyTorch attaches.
func (d *decoder) linkRaws(trace devices.Type, times func(*rawEvent) (float64, float64)) *links {
	lk := &links{names: d.nameStrs}
	all := d.opts.Link == LinkAll && d.format == Kineto
	nRuntime, nDevice := 0, 0 // the events that may be linked
	var legacy int64
	hasHostOps := false
	for _, r := range d.raws.all() {
		if r.kind == rawMemory || r.kind == rawOOM {
			continue
		}
		id := r.corr
		switch r.kind {
		case rawHostOp:
			id = hostID(r, &legacy)
			hasHostOps = true
		case rawRuntime:
			if r.extID > 0 {
				nRuntime++
			}
		case rawDevice:
			if d.mayLink(r, trace, all) {
				nDevice++
			}
		}
		lk.maxID = max(lk.maxID, id)
	}
	if nRuntime+nDevice == 0 {
		return lk
	}
	l := d.newLinker()
	lk.l = l
	// Sized up front: grown by appending, they would leave their old arrays behind as garbage
	// the size of the final ones, at the point where the read's memory peaks.
	lk.threads = make([]threadFix, 0, nRuntime)
	lk.pairs = make([]kernelPair, 0, nDevice)
	var later laterLinks // device events rule 1 leaves to rules 2-4
	k := -1
	for i, r := range d.raws.all() {
		if r.kind == rawMemory || r.kind == rawOOM {
			continue
		}
		k++
		switch {
		case r.kind == rawRuntime:
			if op, ok := l.ops.get(l.runtimeLink(r)); ok {
				lk.threads = append(lk.threads, threadFix{int32(k), d.raws.at(int(op.raw)).tid})
			}
		case r.kind == rawDevice && d.mayLink(r, trace, all):
			if op, rt, ok := d.graph.find(r); ok {
				lk.pairs = append(lk.pairs, d.pair(r, k, op, rt+1, ByGraphScope, times))
				continue
			}
			if d.opts.Link == LinkExternalID || attachable(deviceEventType(r.cat, trace)) || r.extID > 0 {
				if op, ok := l.ops.get(l.deviceLink(r)); ok {
					var launch int32
					if len(d.opts.Consumers) > 0 && r.corr > 0 {
						if rt, ok := l.runtimeIndex(r.corr); ok {
							launch = rt + 1
						}
					}
					lk.pairs = append(lk.pairs, d.pair(r, k, op, launch, ByExternalID, times))
					continue
				}
			}
			if all && hasHostOps && r.devKind() != KindDeviceAnnotation {
				later.add(d, l, r, int32(i), int32(k), trace)
			}
		}
	}
	if later.n() > 0 {
		// Rule 1's pairs are in file order; the later rules' are sorted and merged with them.
		n1 := len(lk.pairs)
		d.linkLater(lk, &later, times)
		byDev := func(a, b kernelPair) int { return cmp.Compare(a.dev, b.dev) }
		if rest := lk.pairs[n1:]; len(rest) > 0 {
			slices.SortFunc(rest, byDev)
			if n1 > 0 {
				merged := make([]kernelPair, 0, len(lk.pairs))
				a, b := lk.pairs[:n1], rest
				for len(a) > 0 && len(b) > 0 {
					if a[0].dev < b[0].dev {
						merged, a = append(merged, a[0]), a[1:]
					} else {
						merged, b = append(merged, b[0]), b[1:]
					}
				}
				lk.pairs = append(append(merged, a...), b...)
			}
		}
	}
	if len(lk.pairs) > 0 {
		lk.rule = make([]LinkRule, k+1)
		for _, p := range lk.pairs {
			lk.rule[p.dev] = p.rule
		}
	}
	if len(d.opts.Consumers) > 0 {
		lk.rtOp = make(map[int32]opRef)
		for _, p := range lk.pairs {
			if rt := p.launch - 1; rt >= 0 && p.rule != ByGraphScope {
				if _, dup := lk.rtOp[rt]; !dup {
					lk.rtOp[rt] = opRef{ev: p.op, raw: p.opRaw}
				}
			}
		}
	}
	return lk
}

// mayLink reports whether a device record can be charged to an operator under the rules in
// force (all: LinkAll on a Kineto trace).
func (d *decoder) mayLink(r *rawEvent, trace devices.Type, all bool) bool {
	if r.cat == catDevScopeMetrics || r.cat == catDevEvent {
		return false // a scope profiler's metrics slice (its kernel's time), an event record
	}
	if !all {
		return attachable(deviceEventType(r.cat, trace)) && (r.extID > 0 || r.corr > 0)
	}
	return r.extID > 0 || r.corr > 0 || r.rangeKernel() || !attachable(deviceEventType(r.cat, trace))
}

// pair is the kernelPair of device record r (event k) charged to op by rule, linked through
// the runtime call at raw index launch−1 (0: none known).
func (d *decoder) pair(r *rawEvent, k int, op opRef, launch int32, rule LinkRule,
	times func(*rawEvent) (float64, float64)) kernelPair {
	start, end := times(r)
	return kernelPair{dev: int32(k), op: op.ev, opRaw: op.raw, name: r.name, device: int32(r.pid),
		durUs: end - start, rule: rule, launch: launch}
}

// apply moves linked runtime events onto their operator's thread and attaches the kernels.
// evs holds one event per non-memory record, in the same order (then the memory events).
func (lk *links) apply(evs []events.FunctionEvent) {
	for _, t := range lk.threads {
		evs[t.ev].Thread = t.tid
	}
	if len(lk.pairs) == 0 {
		return
	}
	// One backing array for every kernel list (each op's existing kernels first), each list
	// capped at its own length.
	counts := make(map[int32]int)
	for _, p := range lk.pairs {
		counts[p.op]++
	}
	total := len(lk.pairs)
	for op := range counts {
		total += len(evs[op].Kernels)
	}
	backing := make([]events.Kernel, 0, total)
	for _, p := range lk.pairs {
		if n, ok := counts[p.op]; ok {
			old := evs[p.op].Kernels
			off := len(backing)
			backing = backing[:off+len(old)+n] // reserve this op's slots
			copy(backing[off:], old)
			evs[p.op].Kernels = backing[off : off+len(old) : off+len(old)+n]
			delete(counts, p.op)
		}
		evs[p.op].Kernels = append(evs[p.op].Kernels, events.Kernel{
			Name: events.RewriteName(lk.names[p.name], true), Device: int(p.device), DurationUs: p.durUs})
	}
}

// Why device time reached no operator, in the order deviceLinkReport tests them.
const (
	causeNotAttached = "PyTorch attaches only CUDA, XPU and PrivateUse1 activity to operators (this is MTIA or HPU work, shown in rows of its own)"
	causeNoHostOps   = "the trace has no host operators (a GPU-only trace)"
	causeSelfCorr    = "its \"External id\" equals the event's own \"correlation\", as some Kineto builds of 2022–2023 wrote it, so the file does not say which operator launched it"
	causeNoSuchOp    = "its \"External id\" names no operator in the trace"
	causeAfterOps    = "it has no \"External id\" and ran after every operator had ended (work the program launched outside any operator)"
	causeNoLaunch    = "it has no \"External id\" and no linked runtime launch (CUDA graph replay, or activity the profiler did not correlate)"
	// causeNoLaunchDev is causeNoLaunch for a trace of another device than CUDA, which has no
	// CUDA graphs to blame.
	causeNoLaunchDev = "it has no \"External id\" and no linked runtime launch (activity launched outside any operator, or that the profiler did not correlate)"
	causeOutsideOps  = "its runtime launch lies within no operator on its thread"
	causeRangeCount  = "the range-profiler kernels and the kernel launches differ in number, so their order pairs nothing"
	causeNoEnclosing = "it has no correlation and starts within no host operator"
)

// deviceLinkReport sums the device events' time (device-side user annotations, which span
// kernels, left out), the part each rule attached to an operator and the part attached to
// none, with the likeliest cause of the largest share of that part. It reads the records; lk
// says which events were attached.
func (d *decoder) deviceLinkReport(lk *links, trace devices.Type, times func(*rawEvent) (float64, float64)) DeviceLink {
	var rep DeviceLink
	l := lk.l
	all := d.opts.Link == LinkAll && d.format == Kineto
	byCause := map[string]float64{}
	k := -1
	hasHostOps := false
	for _, r := range d.raws.all() {
		if r.kind == rawHostOp {
			hasHostOps = true
			break
		}
	}
	// lastOpEnd is when the last host operator ended, worked out only for a trace with
	// device time that reached no operator (one more pass over the records).
	lastOpEnd, haveLastOpEnd := math.Inf(-1), false
	opsEnd := func() float64 {
		if !haveLastOpEnd {
			haveLastOpEnd = true
			for _, r := range d.raws.all() {
				if r.kind == rawHostOp && !r.async() {
					_, end := times(r)
					lastOpEnd = max(lastOpEnd, end)
				}
			}
		}
		return lastOpEnd
	}
	for _, r := range d.raws.all() {
		if r.kind == rawMemory || r.kind == rawOOM {
			continue
		}
		k++
		if r.kind != rawDevice || r.cat == catDevUserAnnotation || r.cat == catDevScopeMetrics || r.cat == catDevEvent {
			continue
		}
		start, end := times(r)
		us := end - start
		rep.TotalUs += us
		if lk.rule != nil && lk.rule[k] != Unlinked {
			rep.ByRuleUs[lk.rule[k]] += us
			continue
		}
		rep.ByRuleUs[Unlinked] += us
		rep.UnlinkedUs += us
		rep.Unlinked++
		var cause string
		switch {
		case !all && !attachable(deviceEventType(r.cat, trace)):
			cause = causeNotAttached
		case !hasHostOps:
			cause = causeNoHostOps
		default:
			if l == nil {
				l = d.newLinker()
			}
			switch id := l.deviceLink(r); {
			case id > 0:
				cause = causeNoSuchOp
			case all && r.corr > 0 && l.runtime(r.corr) != nil:
				cause = causeOutsideOps
			case r.extID > 0 && r.extID == r.corr:
				cause = causeSelfCorr
			case all && r.rangeKernel():
				cause = causeRangeCount
			case all && r.corr <= 0 && !attachable(deviceEventType(r.cat, trace)):
				cause = causeNoEnclosing
			case r.extID <= 0 && trace != devices.CUDA && start >= opsEnd():
				// (On CUDA, such work is as likely a graph replay launched by the last op.)
				cause = causeAfterOps
			case trace == devices.CUDA:
				cause = causeNoLaunch
			default:
				cause = causeNoLaunchDev
			}
		}
		byCause[cause] += us
	}
	for _, c := range []string{causeNotAttached, causeNoHostOps, causeSelfCorr, causeNoSuchOp, causeAfterOps, causeNoLaunch,
		causeNoLaunchDev, causeOutsideOps, causeRangeCount, causeNoEnclosing} {
		if t, ok := byCause[c]; ok && (rep.Cause == "" || t > byCause[rep.Cause]) {
			rep.Cause = c
		}
	}
	return rep
}

// newLinker returns a linker with every host operator's id indexed (the first non-async op
// of each id, as convert numbers them).
func (d *decoder) newLinker() *linker {
	nOps := 0
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	var legacy int64
	for _, r := range d.raws.all() {
		if r.kind == rawHostOp {
			nOps++
			if id := hostID(r, &legacy); id > 0 && !r.async() {
				lo, hi = min(lo, id), max(hi, id)
			}
		}
	}
	l := &linker{d: d}
	l.ops.init(lo, hi, nOps)
	k := int32(-1)
	legacy = 0
	for i, r := range d.raws.all() {
		if r.kind == rawMemory || r.kind == rawOOM {
			continue
		}
		k++
		if r.kind == rawHostOp {
			if id := hostID(r, &legacy); id > 0 && !r.async() {
				l.ops.addFirst(id, opRef{ev: k, raw: int32(i)})
			}
		}
	}
	return l
}

// opRef locates a host operator: its index in the events and in the raw records.
type opRef struct{ ev, raw int32 }

// opIndex finds the first host operator of an id. Kineto numbers ops from a counter, so the
// ids of a trace are usually dense: then it is a table indexed by id (8 bytes per id, against
// about 40 per entry in a map, at the point where a large trace's memory peaks); else a map.
type opIndex struct {
	lo    int64
	dense []opRef // id − lo → the op, with raw + 1 (0: none)
	m     map[int64]opRef
}

// init sizes the index for n ops whose ids are in [lo, hi].
func (x *opIndex) init(lo, hi int64, n int) {
	if lo <= hi && uint64(hi-lo) < uint64(2*n+1024) {
		x.lo, x.dense = lo, make([]opRef, hi-lo+1)
		return
	}
	x.m = make(map[int64]opRef, n)
}

// addFirst indexes op under id unless an op has that id already.
func (x *opIndex) addFirst(id int64, op opRef) {
	if x.dense != nil {
		if e := &x.dense[id-x.lo]; e.raw == 0 {
			*e = opRef{ev: op.ev, raw: op.raw + 1}
		}
		return
	}
	if _, dup := x.m[id]; !dup {
		x.m[id] = op
	}
}

// get returns the first op with id.
func (x *opIndex) get(id int64) (opRef, bool) {
	if x.dense != nil {
		if id < x.lo || id-x.lo >= int64(len(x.dense)) {
			return opRef{}, false
		}
		e := x.dense[id-x.lo]
		return opRef{ev: e.ev, raw: e.raw - 1}, e.raw != 0
	}
	op, ok := x.m[id]
	return op, ok
}

// linker resolves which host operator a runtime or device event belongs to.
type linker struct {
	d      *decoder
	ops    opIndex         // first non-async host op with each id
	rtCorr map[int64]int32 // runtime correlation → raw index (first one), built on demand
}

// runtimeLink is the id of the op a runtime event is linked to, or 0. Older Kineto versions
// wrote an unlinked activity's own correlation id as its "External id", so an "External id"
// equal to the event's "correlation" counts only if the call lies inside that op on the same
// thread (orprof's own traces, whose ids come from separate small counters, are trusted).
func (l *linker) runtimeLink(rt *rawEvent) int64 {
	x := rt.extID
	if x <= 0 {
		return 0
	}
	if x == rt.corr && !l.d.isOrprof {
		op, ok := l.ops.get(x)
		if !ok || !l.d.contains(l.d.raws.at(int(op.raw)), rt) {
			return 0
		}
	}
	return x
}

// deviceLink is the id of the op a device event is linked to, or 0: its "External id", or
// without one the link of the runtime call with the same "correlation". An "External id"
// equal to the event's own "correlation" counts only if that runtime call is linked to it.
func (l *linker) deviceLink(dev *rawEvent) int64 {
	x := dev.extID
	if x > 0 && (x != dev.corr || l.d.isOrprof) {
		return x
	}
	if dev.corr <= 0 {
		return 0
	}
	rt := l.runtime(dev.corr)
	if rt == nil {
		return 0
	}
	y := l.runtimeLink(rt)
	if x > 0 && y != x {
		return 0
	}
	return y
}

// runtime returns the first runtime event with correlation corr, or nil.
func (l *linker) runtime(corr int64) *rawEvent {
	i, ok := l.runtimeIndex(corr)
	if !ok {
		return nil
	}
	return l.d.raws.at(int(i))
}

// runtimeIndex returns the raw index of the first runtime event with correlation corr.
func (l *linker) runtimeIndex(corr int64) (int32, bool) {
	if l.rtCorr == nil {
		l.rtCorr = make(map[int64]int32)
		for i, r := range l.d.raws.all() {
			if r.kind == rawRuntime && r.corr > 0 {
				if _, dup := l.rtCorr[r.corr]; !dup {
					l.rtCorr[r.corr] = int32(i)
				}
			}
		}
	}
	i, ok := l.rtCorr[corr]
	return i, ok
}

// contains reports whether raw event r lies within op's interval on op's thread.
func (d *decoder) contains(op, r *rawEvent) bool {
	if op.tid != r.tid {
		return false
	}
	if d.format == Kineto {
		return op.ts <= r.ts && r.ts+r.dur <= op.ts+op.dur
	}
	os, od := math.Float64frombits(uint64(op.ts)), math.Float64frombits(uint64(op.dur))
	rs, rd := math.Float64frombits(uint64(r.ts)), math.Float64frombits(uint64(r.dur))
	return os <= rs && rs+rd <= os+od
}

// setMemoryEvents sets events at, at+1, … to the top-level "[memory]" events (records no host
// event contains, in file order) and one event per "[OutOfMemory]" record, numbered after the
// largest ID.
func (d *decoder) setMemoryEvents(out sinkPart, at int, mem *memIndex, maxID, base int64) {
	var uncovered map[int32]bool
	if mem != nil {
		for k, c := range mem.covered {
			if !c {
				if uncovered == nil {
					uncovered = make(map[int32]bool)
				}
				uncovered[mem.order[k]] = true
			}
		}
	}
	add := func(r *rawEvent) {
		maxID++
		t := float64(r.ts-base) / 1000
		fe := out.event(at)
		*fe = events.FunctionEvent{ID: maxID, Name: d.nameStrs[r.name], Thread: r.tid, NodeID: -1,
			StartUs: t, EndUs: t, FwdThread: r.tid, InputShapes: "[]", SequenceNr: -1}
		fe.CPUMemoryUsage, fe.DeviceMemoryUsage = d.memoryBytes(r)
		out.done(at)
		at++
	}
	if len(uncovered) > 0 {
		for i, r := range d.raws.all() {
			if r.kind == rawMemory && uncovered[int32(i)] {
				add(r)
			}
		}
	}
	for _, r := range d.raws.all() {
		if r.kind == rawOOM {
			add(r)
		}
	}
}

// timesNs are the record's start and end in integer ns on the trace's own clock: its ns in
// the Kineto form; in the legacy form, its float µs times 1000, rounded, and saturated at
// ±(2⁶³ − 1) (a legacy time beyond ±9.2·10¹⁵ µs has no ns to give).
func (r *rawEvent) timesNs(kineto bool) (start, end int64) {
	if kineto {
		return r.ts, r.ts + r.dur
	}
	t, d := math.Float64frombits(uint64(r.ts)), math.Float64frombits(uint64(r.dur))
	return usToNsSat(t), usToNsSat(t + d)
}

// usToNsSat is round(us × 1000) as an int64, saturated at ±(2⁶³ − 1).
func usToNsSat(us float64) int64 {
	ns := math.Round(us * 1000)
	switch {
	case ns >= math.MaxInt64: // 2⁶³ as a float64
		return math.MaxInt64
	case ns <= -math.MaxInt64:
		return -math.MaxInt64
	case ns != ns:
		return 0
	}
	return int64(ns)
}
