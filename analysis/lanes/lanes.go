package lanes

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/internal/namecap"
	"github.com/orprof/orprof/internal/reserve"
	"github.com/orprof/orprof/trace/tracefile"
)

// Version is the summary's format version (its first member, "lanes_version").
const Version = 1

// The budgets of a summary (all its ranks): events kept beyond them are binned.
const (
	DeviceBudget = 60_000
	HostBudget   = 60_000
	GapBudget    = 20_000
	// BinsPerSpan is about how many coverage bins a rank's span has on a page of one rank;
	// a page of n ranks has BinsPerSpan/n per rank, at least MinBins.
	BinsPerSpan = 2048
	MinBins     = 128
)

// Categories are the events' categories, indexed by Lane.C: the kernel view's categories
// (kernels.Categories, in order), then the kinds that keep their own colour.
var Categories = func() []string {
	var out []string
	for _, c := range kernels.Categories() {
		out = append(out, c.String())
	}
	return append(out, "memcpy", "memset", "sync", "device range", "op", "user annotation", "runtime")
}()

var (
	catMemcpy  = len(kernels.Categories())
	catMemset  = catMemcpy + 1
	catSync    = catMemcpy + 2
	catRange   = catMemcpy + 3
	catOp      = catMemcpy + 4
	catAnnot   = catMemcpy + 5
	catRuntime = catMemcpy + 6
)

// Causes name the gaps' causes, indexed by Lane.GC (timeline.IdleCause's order).
var Causes = []string{timeline.HostWait.String(), timeline.KernelWait.String(), timeline.OtherWait.String()}

// Summary is the lanes of one rank or of several merged.
type Summary struct {
	Version    int      `json:"lanes_version"`
	Categories []string `json:"categories"`
	Causes     []string `json:"causes"`
	// OriginNs is the earliest rank start (the trace's clock); each rank's OffsetNs is from it.
	OriginNs int64 `json:"origin_ns"`
	// DeviceMinNs, HostMinNs and GapMinNs are the thresholds: shorter events and gaps are
	// binned (0: none is).
	DeviceMinNs int64 `json:"device_min_ns"`
	HostMinNs   int64 `json:"host_min_ns"`
	GapMinNs    int64 `json:"gap_min_ns"`
	// Events counts every event of every lane; Kept those drawn one by one, Binned the rest.
	Events int    `json:"events"`
	Kept   int    `json:"kept"`
	Binned int    `json:"binned"`
	Ranks  []Rank `json:"ranks"`
}

// Rank is one rank's lanes. Times of its lanes are ns from StartNs.
type Rank struct {
	Rank int64 `json:"rank"`
	// StartNs is the rank's first event's start on the trace's clock; OffsetNs is StartNs −
	// the summary's OriginNs, SpanNs the last end − StartNs.
	StartNs  int64 `json:"start_ns"`
	OffsetNs int64 `json:"offset_ns"`
	SpanNs   int64 `json:"span_ns"`
	// BinNs is the bins' width; bin i of a lane starts at i×BinNs − BinPhaseNs.
	BinNs      int64 `json:"bin_ns"`
	BinPhaseNs int64 `json:"bin_phase_ns"`
	// Names are the kept events' names (Lane.N, Lane.Op index them), in order.
	Names []string `json:"names"`
	// Steps are the ProfilerStep#N ranges, each [N, start, end] (the union of its ranges on
	// every thread), in start order.
	Steps [][3]int64 `json:"steps"`
	// Lanes are the threads in (pid, tid) order, then the streams in (device, stream) order.
	Lanes []Lane `json:"lanes"`
}

// Lane is one thread's or stream's events, kept ones in start order as columns.
type Lane struct {
	Kind string `json:"kind"` // "thread" or "stream"
	// Pid and ID are a thread's pid and tid, a stream's device and stream.
	Pid int64 `json:"pid"`
	ID  int64 `json:"id"`
	// Events counts all the lane's events; Binned those in its bins. Its events span
	// [StartNs, EndNs); Rows is the number of rows (depths, or sub-lanes) of its kept events.
	Events  int   `json:"events"`
	Binned  int   `json:"binned"`
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
	Rows    int   `json:"rows"`
	// The kept events: T the start (from the previous kept event's start; the first from the
	// rank's), D the duration, N the name, C the category, R the row.
	T []int64 `json:"t"`
	D []int64 `json:"d"`
	N []int32 `json:"n"`
	C []int16 `json:"c"`
	R []int32 `json:"r"`
	// Streams: Op the operator the event was charged to (a name, −1: none); LL the thread lane
	// of its launch (−1: none) and LT the launch's start − the event's.
	Op []int32 `json:"op"`
	LL []int32 `json:"ll"`
	LT []int64 `json:"lt"`
	// The bins of binned events: BI the bin, BC the events starting in it, BV the ns of them
	// within it.
	BI []int64 `json:"bi"`
	BC []int64 `json:"bc"`
	BV []int64 `json:"bv"`
	// Streams: the kept idle gaps, GT the start (from the previous gap's; the first from the
	// rank's), GD the length, GC the cause (Causes); GapCount and GapNs the binned gaps, by
	// cause.
	GT       []int64  `json:"gt"`
	GD       []int64  `json:"gd"`
	GC       []int16  `json:"gc"`
	GapCount [3]int64 `json:"gap_count"`
	GapNs    [3]int64 `json:"gap_ns"`
}

// Analysis names the summary's kind: "lanes".
func (*Summary) Analysis() string { return "lanes" }

type laneKey struct{ pid, id int64 }

type launchRec struct {
	lane  int32
	start int64
}

// Collector gathers one trace's lanes: an analysis (analysis.Analysis) that needs the links.
// It keeps 48 bytes per event and each name once.
type Collector struct {
	rank    int64
	origin  int64
	threads map[laneKey]int32
	streams map[laneKey]int32
	tkeys   []laneKey
	skeys   []laneKey
	host    []ev
	dev     []ev
	launch  map[int64]launchRec
	steps   map[int64][2]int64
	rules   *kernels.Rules
	decided map[string]kernels.Decision
	names   []string
	nameIdx map[string]int32
	done    *Summary
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector {
	return &Collector{threads: map[laneKey]int32{}, streams: map[laneKey]int32{}, launch: map[int64]launchRec{},
		steps: map[int64][2]int64{}, rules: kernels.Default(), decided: map[string]kernels.Decision{}, nameIdx: map[string]int32{}}
}

// UseRules colours kernels by rules (a user's rules file) instead of the built-in ones; it is
// called before Begin.
func (c *Collector) UseRules(rules *kernels.Rules) {
	if rules != nil {
		c.rules = rules
	}
}

// Needs asks for the links: each device event's operator.
func (c *Collector) Needs() tracefile.Needs { return tracefile.NeedLinks }

// Begin takes the rank and sizes the lists.
func (c *Collector) Begin(info *tracefile.Info) {
	c.rank, c.origin = info.Rank.Number, info.OriginNs
	c.host = reserve.Room(c.host, info.Counts.Host+info.Counts.Runtime)
	c.dev = reserve.Room(c.dev, info.Counts.Device)
}

// usToNs turns the reader's µs from the profile start into its integer ns, as package
// timeline does, so that the gaps are the idle view's.
func usToNs(us float64) int64 { return int64(math.Round(us * 1000)) }

func lane(m map[laneKey]int32, keys *[]laneKey, k laneKey) int32 {
	if i, ok := m[k]; ok {
		return i
	}
	i := int32(len(*keys))
	m[k] = i
	*keys = append(*keys, k)
	return i
}

// name is the index of name in the collector's names (capped by internal/namecap).
func (c *Collector) name(name string) int32 {
	if i, ok := c.nameIdx[name]; ok {
		return i
	}
	i := int32(len(c.names))
	c.nameIdx[name] = i
	c.names = append(c.names, namecap.Cap(name))
	return i
}

// Event takes one event. Its times stay µs from the profile's start, in ns, until Finish.
func (c *Collector) Event(e *tracefile.Event) {
	start, end := usToNs(e.StartUs), usToNs(e.EndUs)
	end = max(end, start)
	switch k := e.Kind; {
	case k.Host() || k == tracefile.KindRuntime:
		l := lane(c.threads, &c.tkeys, laneKey{e.Pid, e.Tid})
		cat := int16(catOp)
		switch k {
		case tracefile.KindUserAnnotation:
			cat = int16(catAnnot)
		case tracefile.KindRuntime:
			cat = int16(catRuntime)
			if e.Correlation != 0 {
				if _, dup := c.launch[e.Correlation]; !dup {
					c.launch[e.Correlation] = launchRec{l, start}
				}
			}
		}
		if n, ok := stepNumber(e.Name); ok {
			s, seen := c.steps[n]
			if !seen {
				s = [2]int64{start, end}
			}
			c.steps[n] = [2]int64{min(s[0], start), max(s[1], end)}
		}
		c.host = append(c.host, ev{start: start, dur: end - start, name: c.name(e.Name), op: -1, ll: -1, lane: l, cat: cat})
	case k.Device() && k != tracefile.KindScopeMetrics: // (a metrics slice spans its kernel, drawn)
		l := lane(c.streams, &c.skeys, laneKey{e.Pid, e.Stream})
		d, ok := c.decided[e.Name]
		if !ok {
			d = c.rules.Lookup(e.Name)
			c.decided[e.Name] = d
		}
		kc := d.Of(k)
		var cat int16
		switch k {
		case tracefile.KindMemcpy:
			cat = int16(catMemcpy)
		case tracefile.KindMemset:
			cat = int16(catMemset)
		case tracefile.KindSync:
			cat = int16(catSync)
		case tracefile.KindDeviceAnnotation:
			cat = int16(catRange)
		default:
			cat = int16(kc)
		}
		op := int32(-1)
		if e.Op != "" {
			op = c.name(e.Op)
		}
		// lt holds the correlation until Finish finds the launch.
		c.dev = append(c.dev, ev{start: start, dur: end - start, lt: e.Correlation, name: c.name(e.Name), op: op, ll: -1,
			lane: l, cat: cat, work: timeline.ClassOf(k, kc).Work()})
	}
}

// Finish makes the rank's summary.
func (c *Collector) Finish() { c.done = c.finish() }

// Summary is the rank's summary, after Finish.
func (c *Collector) Summary() *Summary { return c.done }

// ev is an event while the summary is made or re-budgeted: times in ns from the rank's
// start, name and op indexes in the rank's names (op −1: none), ll the lane of its launch
// (−1: none) and lt the launch's start − its own.
type ev struct {
	start, dur, lt int64
	name, op       int32
	ll, row        int32
	lane           int32 // the collector's lane, then its place in the rank
	cat            int16
	work           bool // device work (timeline.Class.Work)
}

type gap struct {
	start, dur int64
	cause      int16
}

// laneEvents is a lane's events while the summary is made or re-budgeted.
type laneEvents struct {
	evs  []ev
	gaps []gap
}

func (c *Collector) finish() *Summary {
	if len(c.host) == 0 && len(c.dev) == 0 {
		return nil
	}
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, list := range [][]ev{c.host, c.dev} {
		for i := range list {
			first, last = min(first, list[i].start), max(last, list[i].start+list[i].dur)
		}
	}
	r := Rank{Rank: c.rank, SpanNs: last - first, Steps: [][3]int64{}}
	// Thread lanes in (pid, tid) order, then stream lanes in (device, stream) order.
	tord, sord := order(c.tkeys), order(c.skeys)
	tpos := make([]int32, len(c.tkeys))
	for i, j := range tord {
		tpos[j] = int32(i)
	}
	spos := make([]int32, len(c.skeys))
	for i, j := range sord {
		spos[j] = int32(len(tord) + i)
	}
	r.Lanes = make([]Lane, len(tord)+len(sord))
	for i, j := range tord {
		r.Lanes[i] = Lane{Kind: "thread", Pid: c.tkeys[j].pid, ID: c.tkeys[j].id}
	}
	for i, j := range sord {
		r.Lanes[len(tord)+i] = Lane{Kind: "stream", Pid: c.skeys[j].pid, ID: c.skeys[j].id}
	}
	for n, s := range c.steps {
		r.Steps = append(r.Steps, [3]int64{n, s[0] - first, s[1] - first})
	}
	slices.SortFunc(r.Steps, func(a, b [3]int64) int { return cmp.Or(cmp.Compare(a[1], b[1]), cmp.Compare(a[0], b[0])) })
	// Host events by lane, in start order, the longer first (then by name: the order of two
	// equal events is no matter).
	for i := range c.host {
		h := &c.host[i]
		h.lane, h.start = tpos[h.lane], h.start-first
	}
	byLane(c.host, true)
	// Device events by lane, in start order, the shorter first then in file order (as the
	// timeline's idle view takes them), each with its launch.
	for i := range c.dev {
		d := &c.dev[i]
		if l, ok := c.launch[d.lt]; ok && d.lt != 0 {
			d.ll, d.lt = tpos[l.lane], l.start-d.start
		} else {
			d.lt = 0
		}
		d.lane, d.start = spos[d.lane], d.start-first
	}
	byLane(c.dev, false)
	all := make([]laneEvents, len(r.Lanes))
	for _, list := range [][]ev{c.host, c.dev} {
		for i := 0; i < len(list); {
			j := i
			for j < len(list) && list[j].lane == list[i].lane {
				j++
			}
			all[list[i].lane].evs = list[i:j:j]
			i = j
		}
	}
	o := timeline.DefaultOptions()
	for i := range all {
		l, evs := &r.Lanes[i], all[i].evs
		l.Events = len(evs)
		if len(evs) > 0 {
			l.StartNs = evs[0].start
		}
		for _, e := range evs {
			l.EndNs = max(l.EndNs, e.start+e.dur)
		}
		if l.Kind == "thread" {
			depths(evs)
			continue
		}
		// The idle gaps: after everything before on the stream has ended, classed by
		// timeline.CauseOf.
		var frontier int64
		seen := false
		for _, e := range evs {
			if !e.work {
				continue
			}
			if g := e.start - frontier; seen && g > 0 {
				cause := timeline.CauseOf(g, frontier, e.ll >= 0, e.start+e.lt, o)
				all[i].gaps = append(all[i].gaps, gap{frontier, g, int16(cause)})
			}
			if !seen || e.start+e.dur > frontier {
				frontier = e.start + e.dur
			}
			seen = true
		}
	}
	r.StartNs = first + c.origin
	r.Names = c.names
	c.host, c.dev, c.launch, c.nameIdx, c.decided = nil, nil, nil, nil, nil
	s := &Summary{Ranks: []Rank{r}}
	s.rebudget([][]laneEvents{all})
	return s
}

// byLane sorts evs by lane, in place, each lane's events in start order: a thread's the
// longer first at equal starts (then by name and category: two such events are drawn
// alike), a stream's the shorter first then in file order, as the timeline's idle view
// takes them.
func byLane(evs []ev, threads bool) {
	order := streamOrder
	if threads {
		order = threadOrder
	}
	// Lanes are small numbers: a stable counting sort groups the events by lane in two passes,
	// then each lane, in file order and so mostly in start order already, is ordered alone.
	n := int32(0)
	grouped := true
	for i := range evs {
		n = max(n, evs[i].lane+1)
		if i > 0 && evs[i-1].lane > evs[i].lane {
			grouped = false
		}
	}
	if !grouped {
		at := make([]int, n+1)
		for i := range evs {
			at[evs[i].lane+1]++
		}
		for l := 1; l <= int(n); l++ {
			at[l] += at[l-1]
		}
		out := make([]ev, len(evs))
		for i := range evs {
			out[at[evs[i].lane]] = evs[i]
			at[evs[i].lane]++
		}
		copy(evs, out)
	}
	for lo := 0; lo < len(evs); {
		hi := lo + 1
		for hi < len(evs) && evs[hi].lane == evs[lo].lane {
			hi++
		}
		if seg := evs[lo:hi]; !slices.IsSortedFunc(seg, order) {
			// A stream's events equal in start and duration keep file order.
			slices.SortStableFunc(seg, order)
		}
		lo = hi
	}
}

func threadOrder(a, b ev) int {
	switch {
	case a.start != b.start:
		return sign(a.start < b.start)
	case a.dur != b.dur:
		return sign(a.dur > b.dur)
	case a.name != b.name:
		return sign(a.name < b.name)
	case a.cat != b.cat:
		return sign(a.cat < b.cat)
	}
	return 0
}

func streamOrder(a, b ev) int {
	switch {
	case a.start != b.start:
		return sign(a.start < b.start)
	case a.dur != b.dur:
		return sign(a.dur < b.dur)
	}
	return 0
}

func sign(less bool) int {
	if less {
		return -1
	}
	return 1
}

// depths sets each host event's row to its nesting depth on the thread (evs in start order,
// the longer first).
func depths(evs []ev) {
	var ends []int64
	for i := range evs {
		e := &evs[i]
		for len(ends) > 0 && ends[len(ends)-1] <= e.start {
			ends = ends[:len(ends)-1]
		}
		e.row = int32(len(ends))
		ends = append(ends, e.start+e.dur)
	}
}

// order is the indexes of keys in key order.
func order(keys []laneKey) []int {
	o := make([]int, len(keys))
	for i := range o {
		o[i] = i
	}
	slices.SortFunc(o, func(a, b int) int {
		return cmp.Or(cmp.Compare(keys[a].pid, keys[b].pid), cmp.Compare(keys[a].id, keys[b].id))
	})
	return o
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
