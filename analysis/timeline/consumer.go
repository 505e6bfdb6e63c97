package timeline

import (
	"math"
	"sync"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/trace/tracefile"
)

// Consumer is the analyses as one read's analysis (analysis.Analysis): given to a read
// (tracefile.Options Consumers) with the table's, the kernel view's or any other consumer, it
// costs that read no second pass. Summary gives the rank's summary.
type Consumer struct {
	a    *Analyzer
	p    *Part
	cls  classifier
	e    Event
	info RankInfo
	done *Summary
	ph   *phaseCollect // Options.Phase's (nil without)
	err  error
	// later: the analyses run at the first Summary call, not at Finish (AfterRead).
	later bool
	once  sync.Once
}

// NewConsumer returns a Consumer with the options o, classing kernels by rules (nil:
// kernels.Default(), the kernel view's built-in rules). Its Finish collects the garbage of a
// large read first, for a read that feeds it alone (the records are garbage by then); the
// report's (Analysis.New) does not, as its read goes on beside it.
func NewConsumer(o Options, rules *kernels.Rules) *Consumer {
	a := NewAnalyzer(o)
	c := &Consumer{a: a, p: a.Part(), cls: newClassifier(rules)}
	if o.Phase != "" {
		c.ph = &phaseCollect{}
	}
	return c
}

// AfterRead has Finish leave the analyses to the first Summary call: for a caller that asks
// for the summary once the read is over (orprof export), so that the analyses' memory is
// taken when the read's records are garbage rather than on top of them, while the read
// still converts its events. The read collects its garbage at its end, so Summary does not
// collect first. Call it before the read.
func (c *Consumer) AfterRead() {
	c.later = true
	c.a.inRead = true
}

// UseRules classes kernels by rules (a user's rules file) instead of the built-in ones; it
// is called before Begin.
func (c *Consumer) UseRules(rules *kernels.Rules) { c.cls = newClassifier(rules) }

// Needs asks for the links (collectives found through a kernel's launch) and the device
// names, classed once each while the read links its events.
func (c *Consumer) Needs() tracefile.Needs { return tracefile.NeedLinks | tracefile.NeedDeviceNames }

// Begin takes the trace's rank, device and origin, sizes the lists and classes the device
// event names: each once, by the kernel view's rules and HolisticTraceAnalysis's patterns, so
// that Event only looks its name up.
func (c *Consumer) Begin(info *tracefile.Info) {
	c.info = RankInfo{Rank: info.Rank, Device: info.DeviceName}
	c.a.shift = info.OriginNs
	c.p.Grow(info.Counts.Device, info.Counts.Runtime)
	for _, n := range info.DeviceNames {
		c.cls.info(n)
	}
}

// Event takes one converted event (one goroutine, in file order). Its times are µs from the
// profile's start; Finish puts them back on the trace's clock.
func (c *Consumer) Event(ev *tracefile.Event) {
	if c.ph != nil {
		c.ph.add(ev)
	}
	e := &c.e
	*e = Event{Name: ev.Name, StartNs: usToNs(ev.StartUs), EndNs: usToNs(ev.EndUs), Device: int(ev.Pid),
		Stream: ev.Stream, Correlation: ev.Correlation}
	switch {
	case ev.Kind.Host():
		e.Kind = Op
	case ev.Kind == tracefile.KindRuntime:
		e.Kind = Launch
	case ev.Kind.Device():
		e.Kind = Device
		e.Class, e.hta, e.cat = c.cls.class(ev.Kind, ev.Name)
		if ev.Kind == tracefile.KindKernel && (ev.BlocksPerSM >= 0 || ev.OccupancyPct >= 0) {
			e.kargs, e.blocks, e.occ = true, ev.BlocksPerSM, ev.OccupancyPct
		}
		e.NotHTAKernel = ev.Kind != tracefile.KindKernel && ev.Kind != tracefile.KindMemcpy && ev.Kind != tracefile.KindMemset
		if ev.Comm != nil && e.Class == Communication {
			e.Comm = commID(ev.Comm)
		}
	default:
		return
	}
	c.p.Add(e)
}

// Finish runs the analyses and makes the summary of the rank. Times go back on the trace's
// own clock (Info.OriginNs), so that the ranks of a job line up.
func (c *Consumer) Finish() {
	if c.ph != nil {
		c.a.phaseRanges, c.a.phaseOf, c.err = c.ph.selection(c.a.opts.Phase)
		c.ph = nil
	}
	if !c.later {
		c.done = c.a.Finish(c.info)
	}
}

// Summary is the rank's summary, after Finish.
func (c *Consumer) Summary() *Summary {
	if c.later {
		c.once.Do(func() { c.done = c.a.Finish(c.info) })
	}
	return c.done
}

// Err is what made the summary wrong, after Finish: a phase (Options.Phase) the trace has
// not, naming those it has.
func (c *Consumer) Err() error { return c.err }

// commID is the collective identity of the reader's c.
func commID(c *tracefile.Collective) *CommID {
	id := &CommID{Op: c.Name, Group: c.Group, Ranks: c.Ranks, Seq: c.Seq, HasSeq: c.Seq >= 0, Peer: -1,
		CommsID: c.CommsID, Bytes: -1, GroupSize: -1}
	if b, ok := c.Bytes(); ok {
		id.Bytes = b
	}
	if n, ok := c.Size(); ok {
		id.GroupSize = n
	}
	switch {
	case c.Dst >= 0:
		id.P2P, id.Peer = "send", c.Dst
	case c.Src >= 0:
		id.P2P, id.Peer = "recv", c.Src
	case c.Name == "send" || c.Name == "recv":
		id.P2P = c.Name
	}
	return id
}

// usToNs turns the reader's µs from the profile start back into its integer ns.
func usToNs(us float64) int64 { return int64(math.Round(us * 1000)) }

// classifier classes device events by the kernel view's rules (kernels.Rules.Of: a user's
// rule, then the reader's kind, then the name; ClassOf) and says whether
// HolisticTraceAnalysis would call them computation: one lookup per event, the work once per name.
type classifier struct {
	rules *kernels.Rules
	names map[string]nameInfo
}

// nameInfo is what a device event's name says: the rules' decision, and htaComputation's
// answer (htaYes, htaNo).
type nameInfo struct {
	d   kernels.Decision
	hta uint8
	tc  bool // kernels.TensorCore
}

func newClassifier(rules *kernels.Rules) classifier {
	if rules == nil {
		rules = kernels.Default()
	}
	return classifier{rules: rules, names: map[string]nameInfo{}}
}

// info is name's nameInfo, worked out on its first call.
func (c *classifier) info(name string) nameInfo {
	if in, ok := c.names[name]; ok {
		return in
	}
	d := c.rules.Lookup(name)
	in := nameInfo{d: d, hta: htaNo, tc: d.TensorCore()}
	if htaComputation(name) {
		in.hta = htaYes
	}
	c.names[name] = in
	return in
}

// class is the class of a device event of kind k named name, htaComputation's answer, and
// its category with its tensor-core flag.
func (c *classifier) class(k tracefile.Kind, name string) (Class, uint8, catTC) {
	in := c.info(name)
	cat := in.d.Of(k)
	return ClassOf(k, cat), in.hta, makeCatTC(cat, in.tc)
}
