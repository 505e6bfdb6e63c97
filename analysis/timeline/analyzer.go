package timeline

import (
	"cmp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/orprof/orprof/internal/reserve"
)

// Analyzer runs every timeline analysis over one trace (one rank) from its events handed over
// one at a time, in any order, from any number of goroutines (one Part each). It keeps a
// compact interval record per device event (48 bytes; communication kernels' names and
// collective identities apart),
// one per correlated launch (24 bytes) and one per step, never the events themselves.
type Analyzer struct {
	opts  Options
	mu    sync.Mutex
	parts []*Part
	// shift is added to every time at Finish: the events' origin on the trace's own clock,
	// for events handed over relative to it.
	shift int64
	// inRead: Finish runs while the read that feeds it goes on (a Consumer's), whose records
	// are live: collecting garbage first would mark them for nothing.
	inRead bool
	// phase is Options.Phase's selection (phase.go), set by a Consumer before Finish: the
	// phase's host ranges and, per device event in the parts' order, its range (−1: none).
	phaseRanges []span
	phaseOf     []int32
}

// NewAnalyzer returns an Analyzer with the options o (see Options.Check).
func NewAnalyzer(o Options) *Analyzer { return &Analyzer{opts: o} }

// Part is where one goroutine hands events to an Analyzer.
type Part struct {
	dev      []devRec
	launches []launchRec
	steps    []stepRec
	colls    map[string]*collRec // communication kernels known by name alone
	plot     plotRecs            // what the plots' figures need beside (plots.go)
}

type devRec struct {
	start, end int64
	corr       int64
	stream     int64
	coll       *collRec // communication kernels only
	device     int32
	class      Class
	htaComp    bool // HolisticTraceAnalysis would call it COMPUTATION
	notHTA     bool // HolisticTraceAnalysis's idle breakdown does not read its category
	cat        catTC
}

// collRec is a communication kernel's name and what the trace says of its call.
type collRec struct {
	name string
	id   *CommID
}

type launchRec struct{ corr, start, end int64 }

type stepRec struct{ n, start, end int64 }

// Part returns a new part; parts are safe to use from different goroutines, each from one.
func (a *Analyzer) Part() *Part {
	p := &Part{}
	a.mu.Lock()
	a.parts = append(a.parts, p)
	a.mu.Unlock()
	return p
}

// Grow makes room for device events and launches more, so that adding them allocates
// nothing (a list grown by append allocates several times its final size).
func (p *Part) Grow(device, launches int) {
	p.dev = reserve.Room(p.dev, device)
	p.launches = reserve.Room(p.launches, launches)
}

// Add takes one event into the analyses.
func (p *Part) Add(e *Event) {
	switch e.Kind {
	case Op:
		if n, ok := stepNumber(e.Name); ok {
			p.steps = append(p.steps, stepRec{n, e.StartNs, e.EndNs})
		} else if dataLoader(e.Name) {
			p.plot.loaders = append(p.plot.loaders, span{e.StartNs, max(e.EndNs, e.StartNs)})
		}
	case Launch:
		if e.Correlation != 0 {
			p.launches = append(p.launches, launchRec{e.Correlation, e.StartNs, e.EndNs})
		}
	case Device:
		c := e.Class
		if c == Unclassified {
			c = Classify(e.Name)
		}
		hta := e.hta == htaYes
		if e.hta == htaUnknown {
			hta = htaComputation(e.Name)
		}
		r := devRec{start: e.StartNs, end: max(e.EndNs, e.StartNs), corr: e.Correlation, stream: e.Stream,
			device: int32(e.Device), class: c, htaComp: c != Sync && c != Annotation && hta, notHTA: e.NotHTAKernel,
			cat: e.catTC(c)}
		if e.kargs {
			p.plot.kargs = append(p.plot.kargs, kargRec{r.start, r.end, e.blocks, e.occ, r.device})
		}
		if c == Communication {
			r.coll = p.collective(e)
		}
		p.dev = append(p.dev, r)
	}
}

// collective is the record of communication kernel e's name and call: one per name for
// kernels the trace says nothing more of.
func (p *Part) collective(e *Event) *collRec {
	if e.Comm != nil {
		return &collRec{name: e.Name, id: e.Comm}
	}
	if c, ok := p.colls[e.Name]; ok {
		return c
	}
	if p.colls == nil {
		p.colls = map[string]*collRec{}
	}
	c := &collRec{name: e.Name}
	p.colls[e.Name] = c
	return c
}

// stepNumber reads N from "ProfilerStep#N".
func stepNumber(name string) (int64, bool) {
	s, ok := strings.CutPrefix(name, "ProfilerStep#")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// rec is a device event at Finish: its record, its launch and its step.
type rec struct {
	devRec
	lstart, lend int64
	launched     bool
	step         int32 // index into the steps; −1 outside every step
	phase        int32 // index into the phase's ranges (Options.Phase); −1: not the phase's
}

func (r *rec) work() bool { return r.class.Work() }

// Finish runs the analyses over everything added and returns the summary of this one rank.
// The Analyzer must not be used afterwards.
func (a *Analyzer) Finish(info RankInfo) *Summary {
	var n, nl, ns int
	for _, p := range a.parts {
		n, nl, ns = n+len(p.dev), nl+len(p.launches), ns+len(p.steps)
	}
	if n >= 1<<14 && !a.inRead {
		// The read that handed the events over is done and its records are garbage: collect
		// them before the analyses allocate, so that these reuse their pages rather than add
		// to the peak (a few ms; the MTIA trace's peak RSS drops by a fifth).
		runtime.GC()
	}
	var x plotRecs
	for _, p := range a.parts {
		x.add(&p.plot, a.shift)
	}
	launch := make(map[int64]launchRec, nl)
	stepsRaw := make([]stepRec, 0, ns)
	for _, p := range a.parts {
		for _, l := range p.launches {
			if _, dup := launch[l.corr]; !dup {
				l.start, l.end = l.start+a.shift, l.end+a.shift
				launch[l.corr] = l
			}
		}
		for _, st := range p.steps {
			st.start, st.end = st.start+a.shift, st.end+a.shift
			stepsRaw = append(stepsRaw, st)
		}
	}
	steps := mergeSteps(stepsRaw)
	recs := make([]rec, 0, n)
	for i := range a.phaseRanges {
		a.phaseRanges[i].start += a.shift
		a.phaseRanges[i].end += a.shift
	}
	for _, p := range a.parts {
		for _, d := range p.dev {
			r := rec{devRec: d, step: -1, phase: -1}
			if k := len(recs); k < len(a.phaseOf) {
				r.phase = a.phaseOf[k]
			}
			r.start, r.end = r.start+a.shift, r.end+a.shift
			if d.corr != 0 {
				if l, ok := launch[d.corr]; ok {
					r.lstart, r.lend, r.launched = l.start, l.end, true
				}
			}
			recs = append(recs, r)
		}
		p.dev, p.launches, p.steps, p.colls, p.plot = nil, nil, nil, nil, plotRecs{}
	}
	a.parts = nil
	return analyze(recs, steps, a.phaseRanges, a.opts, info, &x)
}

// mergeSteps turns the ProfilerStep ranges into one per step number (the union of its ranges
// on every thread), in start order.
func mergeSteps(raw []stepRec) []stepRec {
	slices.SortFunc(raw, func(a, b stepRec) int { return cmp.Compare(a.n, b.n) })
	out := raw[:0]
	for _, s := range raw {
		if k := len(out) - 1; k >= 0 && out[k].n == s.n {
			out[k].start, out[k].end = min(out[k].start, s.start), max(out[k].end, s.end)
			continue
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b stepRec) int { return cmp.Compare(a.start, b.start) })
	return out
}

// analyze is Finish's work on the records; phase are Options.Phase's host ranges.
func analyze(recs []rec, steps []stepRec, phase []span, o Options, info RankInfo, x *plotRecs) *Summary {
	rank := info.Number
	// Each device event belongs to the step whose host range holds its launch's start (its own
	// start when it has no launch).
	for i := range recs {
		r := &recs[i]
		t := r.start
		if r.launched {
			t = r.lstart
		}
		k, found := slices.BinarySearchFunc(steps, t, func(s stepRec, t int64) int {
			if s.start <= t {
				return -1
			}
			return 1
		})
		_ = found
		if k > 0 && t < steps[k-1].end {
			r.step = int32(k - 1)
		}
	}
	// Step windows: from the host start (not before the previous window's end) to the later
	// of the host end and the end of the step's device work.
	devEnd := make([]int64, len(steps))
	for i := range devEnd {
		devEnd[i] = steps[i].end
	}
	for i := range recs {
		if r := &recs[i]; r.step >= 0 && r.work() {
			devEnd[r.step] = max(devEnd[r.step], r.end)
		}
	}
	windows := make([]span, len(steps))
	var prev int64
	for i, s := range steps {
		st := s.start
		if i > 0 {
			st = max(st, prev)
		}
		windows[i] = span{st, max(devEnd[i], st)}
		prev = windows[i].end
	}
	selected := make([]bool, len(steps))
	filter := len(o.Steps) > 0
	for i, s := range steps {
		selected[i] = !filter || slices.Contains(o.Steps, s.n)
	}
	in := func(r *rec) bool { return !filter || (r.step >= 0 && selected[r.step]) }
	byPhase := o.Phase != ""
	if byPhase { // (Check refuses Steps with it)
		in = func(r *rec) bool { return r.phase >= 0 }
	}

	info.DeviceEvents = len(recs)
	work := make([]item, 0, len(recs))
	first, last := int64(0), int64(0)
	for i := range recs {
		r := &recs[i]
		if !r.work() || !in(r) {
			continue
		}
		info.Work++
		if !r.launched {
			info.Unlaunched++
		}
		if len(work) == 0 || r.start < first {
			first = r.start
		}
		if len(work) == 0 || r.end > last {
			last = r.end
		}
		work = append(work, item{r.start, r.end, classBit(r.class)})
	}
	var rankWin []span
	if byPhase {
		rankWin = phaseWindows(recs, phase)
		if len(rankWin) > 0 {
			first, last = rankWin[0].start, rankWin[len(rankWin)-1].end
		}
	} else if filter {
		for i, w := range windows {
			if selected[i] {
				rankWin = append(rankWin, w)
			}
		}
		if len(rankWin) > 0 {
			first, last = rankWin[0].start, rankWin[len(rankWin)-1].end
		}
	} else if len(work) > 0 {
		rankWin = []span{{first, last}}
	}
	s := &Summary{Version: Version, Options: o, Ranks: []RankInfo{info}}
	sw := sweep(work, rankWin, windows)
	var rt Times
	for i := range sw[0] {
		rt = rt.Add(timesOf(&sw[0][i], rankWin[i].len()))
	}
	htaKeep := htaFilter(steps, filter || byPhase, in)
	s.Breakdown = []RankBreakdown{{Rank: rank, StartNs: first, EndNs: last, Times: rt, HTA: htaBreakdown(recs, htaKeep)}}

	// Steps.
	rs := RankSteps{Rank: rank, Steps: []Step{}}
	stepTimes := sw[1]
	for i, st := range steps {
		if !selected[i] {
			continue
		}
		rs.Steps = append(rs.Steps, Step{Step: st.n, HostStartNs: st.start, HostEndNs: st.end,
			StartNs: windows[i].start, EndNs: windows[i].end, Times: timesOf(&stepTimes[i], windows[i].len())})
	}
	s.Steps = []RankSteps{rs}

	keys, groups := byStream(recs, in)
	s.Idle = idleByStream(keys, groups, o, rank)
	htaIdle(groups, htaKeep, o, s.Idle)
	s.Overlap = []Overlap{overlapOf(recs, in, rank, rt)}
	s.Launches = []Launches{launchesOf(recs, in, o, rank, htaKeep)}
	s.Queue = queues(keys, groups, o, rank, htaKeep)
	s.Stragglers.Collectives = []RankCollectives{collectivesOf(recs, in, rank)}
	plots(s, recs, in, groups, windows, selected, rankWin, x)
	s.derive()
	return s
}

func classBit(c Class) uint8 {
	switch c {
	case Computation:
		return bitCompute
	case Communication:
		return bitComm
	case Memory:
		return bitMemory
	}
	return bitOther
}

// htaBreakdown is HolisticTraceAnalysis's temporal breakdown: device events with a stream
// (sync events included, device ranges not), times rounded to whole µs (start up, end down),
// classified COMPUTATION or not by its name patterns, of the events keep keeps (htaFilter).
func htaBreakdown(recs []rec, keep func(*rec) bool) HTABreakdown {
	var h HTABreakdown
	items := make([]item, 0, len(recs))
	first, last, any := int64(0), int64(0), false
	for i := range recs {
		r := &recs[i]
		if r.class == Annotation || r.stream == -1 {
			continue
		}
		if !keep(r) {
			h.Dropped++
			continue
		}
		st, en := ceilUs(r.start), floorUs(r.end)
		if en < st {
			en = st
		}
		bit := uint8(bitOther)
		if r.htaComp {
			bit = bitCompute
		}
		items = append(items, item{st, en, bit})
		if en > st {
			if !any || st < first {
				first = st
			}
			if !any || en > last {
				last = en
			}
			any = true
		}
	}
	if !any {
		return h
	}
	m := sweep(items, []span{{first, last}})[0][0]
	t := timesOf(&m, last-first)
	h.KernelTimeNs, h.IdleNs, h.ComputeNs = t.TotalNs, t.IdleNs, t.ComputeNs
	h.NonComputeNs = t.TotalNs - t.ComputeNs - t.IdleNs
	return h
}

// htaFilter is the events the HTA columns read: with --steps (filter), the selected steps'
// device events (in) that have a launch, since HolisticTraceAnalysis gives a device event the
// step of its launch and none without one, so that its columns cover what orprof's do;
// otherwise its own last-step filter.
func htaFilter(steps []stepRec, filter bool, in func(*rec) bool) func(*rec) bool {
	if filter {
		return func(r *rec) bool { return r.launched && in(r) }
	}
	return htaLastStepFilter(steps)
}

// htaLastStepFilter is HolisticTraceAnalysis's last-step filter (reference/hta.md, loading
// rule 5): with two or more ProfilerSteps it keeps only the device events whose launch
// started before the last step did (times rounded to whole µs, as it reads them); none
// without a launch. With fewer steps it keeps every event.
func htaLastStepFilter(steps []stepRec) func(*rec) bool {
	if len(steps) < 2 {
		return func(*rec) bool { return true }
	}
	lastStep := steps[0].start
	for _, s := range steps {
		lastStep = max(lastStep, s.start)
	}
	lastStep = ceilUs(lastStep)
	return func(r *rec) bool { return r.launched && ceilUs(r.lstart) < lastStep }
}

// htaIdle is HolisticTraceAnalysis's get_idle_time_breakdown of each stream (HTAIdle), by its
// rules: the kernels, copies and fills of the stream (no waits, no other device activity),
// of the events keep keeps (htaFilter), times rounded to whole µs (start and launch up, end down, an end
// before its start taken as the start), in start order (groups' order: rounding keeps it; HTA's
// own sort leaves ties in any order); each gap measured to the previous event's end whatever its
// sign; host wait when the event's launch started after that end, kernel wait when the gap is
// under the micro-idle threshold, else other. groups are byStream's, out orprof's figures of
// the same streams.
func htaIdle(groups [][]*rec, keep func(*rec) bool, o Options, out []StreamIdle) {
	for j, g := range groups {
		var h HTAIdle
		var prevEnd int64
		first := true
		for _, r := range g {
			if r.notHTA || !keep(r) {
				continue
			}
			st, en := ceilUs(r.start), floorUs(r.end)
			if !first {
				gap := st - prevEnd
				switch {
				case r.launched && ceilUs(r.lstart) > prevEnd:
					h.HostWaitNs += gap
				case gap < o.MicroIdleNs:
					h.KernelWaitNs += gap
				default:
					h.OtherNs += gap
				}
			}
			first, prevEnd = false, max(en, st)
		}
		out[j].HTA = h
	}
}

func ceilUs(ns int64) int64 {
	q := ns / 1000 * 1000
	if q < ns {
		q += 1000
	}
	return q
}

func floorUs(ns int64) int64 {
	q := ns / 1000 * 1000
	if q > ns {
		q -= 1000
	}
	return q
}

type streamKey struct {
	device int32
	stream int64
}

// byStream groups the work records that pass in by stream, each in start order (ties: the
// shorter first), the streams in (device, stream) order.
func byStream(recs []rec, in func(*rec) bool) ([]streamKey, [][]*rec) {
	// Two passes: the streams and their sizes, then every group cut from one array (grown by
	// append, the groups of a large trace took several times their size).
	idx := map[streamKey]int{}
	var keys []streamKey
	var sizes []int
	total := 0
	for i := range recs {
		r := &recs[i]
		if !r.work() || !in(r) {
			continue
		}
		k := streamKey{r.device, r.stream}
		j, ok := idx[k]
		if !ok {
			j = len(keys)
			idx[k] = j
			keys = append(keys, k)
			sizes = append(sizes, 0)
		}
		sizes[j]++
		total++
	}
	all := make([]*rec, total)
	groups := make([][]*rec, len(keys))
	at := 0
	for j, n := range sizes {
		groups[j] = all[at : at : at+n]
		at += n
	}
	for i := range recs {
		r := &recs[i]
		if !r.work() || !in(r) {
			continue
		}
		j := idx[streamKey{r.device, r.stream}]
		groups[j] = append(groups[j], r)
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(keys[a].device, keys[b].device); c != 0 {
			return c
		}
		return cmp.Compare(keys[a].stream, keys[b].stream)
	})
	k2, g2 := make([]streamKey, len(keys)), make([][]*rec, len(keys))
	for i, j := range order {
		k2[i], g2[i] = keys[j], groups[j]
		byStart := func(a, b *rec) int {
			if c := cmp.Compare(a.start, b.start); c != 0 {
				return c
			}
			return cmp.Compare(a.end, b.end)
		}
		// A stream's events come in time order: the check reads them once, where the stable
		// sort merged them again.
		if !slices.IsSortedFunc(g2[i], byStart) {
			slices.SortStableFunc(g2[i], byStart)
		}
	}
	return k2, g2
}

// IdleCause is why a stream sat idle in a gap (the idle view's causes, the package doc's
// "Idle"): the other views that draw gaps class them by CauseOf, so that they add up to
// the idle view's figures.
type IdleCause uint8

const (
	// HostWait: the next work's launch started after the stream became free.
	HostWait IdleCause = iota
	// KernelWait: a gap shorter than the micro-idle threshold between work launched ahead.
	KernelWait
	// OtherWait: a synchronization, an event wait, a dependency on another stream.
	OtherWait
)

var causeNames = [...]string{"host wait", "kernel wait", "other"}

// String names the cause as the idle view's columns do: "host wait", "kernel wait", "other".
func (c IdleCause) String() string { return causeNames[c] }

// CauseOf is the cause of a positive gap before work on a stream free since freeNs (the end
// of everything before it on the stream), whose launch started at launchNs when launched.
func CauseOf(gap, freeNs int64, launched bool, launchNs int64, o Options) IdleCause {
	switch {
	case launched && launchNs > freeNs:
		return HostWait
	case gap < o.MicroIdleNs:
		return KernelWait
	}
	return OtherWait
}

// idleByStream is each stream's idle time by cause.
func idleByStream(keys []streamKey, groups [][]*rec, o Options, rank int64) []StreamIdle {
	out := make([]StreamIdle, 0, len(keys))
	for i, g := range groups {
		si := StreamIdle{Rank: rank, Device: int(keys[i].device), Stream: keys[i].stream, Events: len(g)}
		frontier := g[0].end
		busyStart := g[0].start
		for j, r := range g {
			if j > 0 {
				// orprof: the gap after everything before it on the stream has ended.
				if gap := r.start - frontier; gap > 0 {
					si.BusyNs += frontier - busyStart
					busyStart = r.start
					switch CauseOf(gap, frontier, r.launched, r.lstart, o) {
					case HostWait:
						si.HostWaitNs += gap
						si.HostWaitGaps++
					case KernelWait:
						si.KernelWaitNs += gap
						si.KernelWaitGaps++
					default:
						si.OtherNs += gap
						si.OtherGaps++
					}
				}
			}
			frontier = max(frontier, r.end)
		}
		si.BusyNs += frontier - busyStart
		si.SpanNs = frontier - g[0].start
		si.IdleNs = si.HostWaitNs + si.KernelWaitNs + si.OtherNs
		out = append(out, si)
	}
	return out
}

// overlapOf is the rank's communication/computation overlap, with the exposed communication
// per kernel name.
func overlapOf(recs []rec, in func(*rec) bool, rank int64, t Times) Overlap {
	ov := Overlap{Rank: rank, CommunicationNs: t.CommunicationNs, ComputeNs: t.ComputeNs, OverlapNs: t.OverlapNs,
		ExposedNs: t.ExposedCommunicationNs, Collectives: []CollectiveExposure{}}
	var comp []span
	for i := range recs {
		if r := &recs[i]; r.class == Computation && in(r) {
			comp = append(comp, span{r.start, r.end})
		}
	}
	comp = union(comp)
	idx := map[string]int{}
	for i := range recs {
		r := &recs[i]
		if r.class != Communication || !in(r) {
			continue
		}
		j, ok := idx[r.coll.name]
		if !ok {
			j = len(ov.Collectives)
			idx[r.coll.name] = j
			ov.Collectives = append(ov.Collectives, CollectiveExposure{Name: r.coll.name})
		}
		c := &ov.Collectives[j]
		d := span{r.start, r.end}
		c.Count++
		c.TotalNs += d.len()
		c.ExposedNs += d.len() - coveredLen(d, comp)
	}
	slices.SortStableFunc(ov.Collectives, func(a, b CollectiveExposure) int {
		if c := cmp.Compare(b.ExposedNs, a.ExposedNs); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return ov
}

// launchesOf is the rank's launch statistics.
func launchesOf(recs []rec, in func(*rec) bool, o Options, rank int64, htaKeep func(*rec) bool) Launches {
	l := Launches{Rank: rank}
	hc, hd, hl := newHistBuilder(), newHistBuilder(), newHistBuilder()
	for i := range recs {
		r := &recs[i]
		if !r.work() || !in(r) {
			continue
		}
		if !r.launched {
			l.Unlaunched++
			continue
		}
		cpu, dev, delay := r.lend-r.lstart, r.end-r.start, r.start-r.lend
		l.CPU.add(cpu)
		l.Device.add(dev)
		l.Delay.add(delay)
		hc.add(cpu)
		hd.add(dev)
		hl.add(delay)
		if !r.notHTA && htaKeep(r) {
			// HolisticTraceAnalysis: whole µs (start up, end down), after its last-step filter.
			l.HTADelaySumNs += max(ceilUs(r.start)-max(floorUs(r.lend), ceilUs(r.lstart)), 0)
			l.HTADelayCount++
		}
		if dev < o.ShortKernelNs {
			l.ShortKernels++
		}
		if cpu > dev {
			l.SlowerLaunches++
		}
	}
	for _, x := range []struct {
		s *Stat
		h histBuilder
	}{{&l.CPU, hc}, {&l.Device, hd}, {&l.Delay, hl}} {
		x.s.Hist = x.h.hist()
		x.s.setPercentiles()
	}
	return l
}

// queues is each stream's queue of launched, unfinished work; HolisticTraceAnalysis's
// figures beside, by its rules (its kernels, copies and fills, whole µs, its last-step filter:
// htaKeep).
func queues(keys []streamKey, groups [][]*rec, o Options, rank int64, htaKeep func(*rec) bool) []StreamQueue {
	out := make([]StreamQueue, 0, len(keys))
	type point struct {
		t int64
		d int
	}
	var pts, hta []point
	for i, g := range groups {
		q := StreamQueue{Rank: rank, Device: int(keys[i].device), Stream: keys[i].stream}
		pts, hta = pts[:0], hta[:0]
		for _, r := range g {
			if !r.launched {
				continue
			}
			q.Launches++
			// A launch is outstanding from its call to its work's end (never, for a call that
			// starts after its work ended: clocks of a bad trace).
			if r.lstart < r.end {
				pts = append(pts, point{r.lstart, 1}, point{r.end, -1})
			}
			if !r.notHTA && htaKeep(r) {
				hta = append(hta, point{ceilUs(r.lstart), 1}, point{ceilUs(r.start), -1})
			}
		}
		if q.Launches == 0 {
			continue
		}
		// Ends before starts at the same instant: work that ends as the next is launched
		// never counts both.
		byTime := func(a, b point) int {
			if c := cmp.Compare(a.t, b.t); c != 0 {
				return c
			}
			return cmp.Compare(a.d, b.d)
		}
		slices.SortFunc(pts, byTime)
		n := 0
		for j, p := range pts {
			if j > 0 {
				d := p.t - pts[j-1].t
				q.AreaNs += int64(n) * d
				if n >= o.QueueLength {
					q.AtOrAboveNs += d
				}
			}
			n += p.d
			q.Max = max(q.Max, n)
		}
		if len(pts) > 0 {
			q.SpanNs = pts[len(pts)-1].t - pts[0].t
		}
		slices.SortStableFunc(hta, func(a, b point) int { return cmp.Compare(a.t, b.t) })
		n, sum := 0, 0
		for _, p := range hta {
			n += p.d
			sum += n
			q.HTAMax = max(q.HTAMax, n)
		}
		if len(hta) > 0 {
			q.HTAMean = float64(sum) / float64(len(hta))
		}
		out = append(out, q)
	}
	return out
}

// collectivesOf is the rank's communication kernels in start order.
func collectivesOf(recs []rec, in func(*rec) bool, rank int64) RankCollectives {
	rc := RankCollectives{Rank: rank, Items: []Collective{}}
	for i := range recs {
		if r := &recs[i]; r.class == Communication && in(r) {
			c := Collective{Name: r.coll.name, StartNs: r.start, EndNs: r.end}
			if id := r.coll.id; id != nil {
				c.Op, c.Group, c.Ranks, c.Seq, c.HasSeq, c.P2P = id.Op, id.Group, id.Ranks, id.Seq, id.HasSeq, id.P2P
				if id.P2P != "" {
					c.Peer = id.Peer
				}
				c.CommsID, c.Bytes, c.GroupSize = id.CommsID, max(id.Bytes, 0), max(id.GroupSize, 0)
			}
			rc.Items = append(rc.Items, c)
		}
	}
	slices.SortStableFunc(rc.Items, func(a, b Collective) int { return cmp.Compare(a.StartNs, b.StartNs) })
	return rc
}

// The device record's size is what a large trace's memory in the analyses is made of.
var _ [48 - unsafe.Sizeof(devRec{})]struct{}
