// Package tbsteps is the step-time breakdown of the TensorBoard profiler plugin (removed from
// Kineto in 2026), as a summary of a trace: per ProfilerStep, the time of the step spent in
// Kernel, Memcpy, Memset, Communication, Runtime, DataLoader, CPU Exec and Other, and the
// average step — the Overview chart its users learned profiling from. A Collector is a
// tracefile.Consumer: it takes the reader's events one at a time (one pass shared with the
// other consumers: the table's, the kernel view's, the timeline's) and keeps intervals, not
// events; Finish gives one rank's Summary, and summaries of ranks merge (Merge) by keeping each
// rank's steps.
//
// # Definitions (the plugin's, in our words; reference: tb_plugin.md §2, §3.1, §3.2)
//
// Roles. Each event's [start, end) goes to one role: device work to Kernel, Memcpy (a memory
// event not named Memset…), Memset or Communication (collective kernels), by
// timeline.Classify's name rules (synchronization events and device-side ranges are no role);
// runtime and driver calls to Runtime; host ranges named like a DataLoader iteration
// (enumerate(DataLoader)#….__next__, enumerate(DataPipe)#…) to DataLoader, the host ranges of
// collectives (nccl:all_reduce, gloo:broadcast, … — the plugin's ten names) to Communication,
// every other host op or range but the ProfilerSteps to CPU Exec. Each role's intervals are
// merged (touching intervals join).
//
// Steps. The ProfilerStep#N host ranges in time order (one step spanning the host ops when
// there is none). A device event belongs to step i when the launch with its correlation id
// lies entirely within step i's host range; a step then ends at the later of its host end and
// its device work's last end, and starts at the later of its host start and the previous
// step's end, so steps never overlap. With device work and more than one step, the steps
// after the last one with device work are dropped, and that one too when it has fewer than
// 0.8 times the device events of the step before it (a step the profiler cut short).
//
// Breakdown. The free time starts as the union of the steps; for each role in priority order
// Kernel > Memcpy > Memset > Communication > Runtime > DataLoader > CPU Exec, the role's
// intervals within the free time count for it and leave the free time (Kernel's count whole);
// Other is the free time left. Each step's figure for a role is what counted for the role
// within the step. Total is the step's length; the average step is the sum over steps divided
// by their number.
//
// Where orprof differs from the plugin, and why: the plugin's "start cut" (the first step
// starts after device work of no step that ends before it) is not made — it moves the first
// step's start only for device work launched before any step; and its quirk that a role
// meeting no free time is counted unclipped, resetting the free time, is not copied (it can
// count the same time twice). Times are ns, not rounded to µs.
package tbsteps

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/orprof/orprof/internal/reserve"

	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// The categories, in the plugin's priority order (the order of Step.Ns).
const (
	Kernel = iota
	Memcpy
	Memset
	Communication
	Runtime
	DataLoader
	CPUExec
	Other
	NumCategories
)

// Names are the categories' names, as the plugin shows them.
var Names = [NumCategories]string{"Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec", "Other"}

// Step is one step's breakdown. Ns sums to TotalNs.
type Step struct {
	// Name is the step's number ("5" for ProfilerStep#5; "0" for the one step of a trace
	// without ProfilerSteps).
	Name    string               `json:"name"`
	StartNs int64                `json:"start_ns"`
	EndNs   int64                `json:"end_ns"`
	TotalNs int64                `json:"total_ns"`
	Ns      [NumCategories]int64 `json:"ns"`
}

// Rank is one rank's steps and their average.
type Rank struct {
	// Rank is the trace's (its JSON says not whether its trace named it: the table's does).
	trace.Rank
	Steps []Step `json:"steps"`
	// AverageNs and AverageTotalNs are the sums over the steps divided by their number.
	AverageNs      [NumCategories]float64 `json:"average_ns"`
	AverageTotalNs float64                `json:"average_total_ns"`
	// HasDevice says whether the trace has device work or runtime calls: the plugin shows the
	// Kernel, Memcpy, Memset and Runtime columns only then; HasCommunication, the
	// Communication column.
	HasDevice        bool `json:"has_device"`
	HasCommunication bool `json:"has_communication"`
}

// Summary is the breakdown of one rank or many.
type Summary struct {
	Categories []string `json:"categories"`
	Ranks      []Rank   `json:"ranks"`
}

// Merge appends o's ranks to s's.
func (s *Summary) Merge(o *Summary) { s.Ranks = append(s.Ranks, o.Ranks...) }

type span struct{ s, e int64 }

type step struct {
	n    int64
	name string
	span
}

type launch struct {
	corr int64
	span
}

// Collector gathers one trace's intervals: an analysis (analysis.Analysis) fed while the read
// links its events.
type Collector struct {
	p part
	// roles caches each device event name's role (−1: none), one lookup per name.
	roles map[string]int8
	rank  trace.Rank
	// done is the breakdown once worked out (Finish was called).
	done *Summary
}

type part struct {
	// roles are each role's intervals; one inside the role's last interval is not kept (the
	// union is what counts: a thread's nested ops come after their parent).
	roles    [NumCategories][]span
	steps    []step
	launches []launch
	devices  []launch // device work by correlation id
	hostWin  span     // the host events' extent
	hasHost  bool
	hasDev   bool
	// room is, per role, how many intervals its list is made for at its first one: the
	// events that can still take the role (Begin; 0 grows it by append). A device role's is
	// the device events not seen yet (devLeft) when its first comes.
	room    [NumCategories]int
	devLeft int
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector { return &Collector{} }

// Needs asks for no links: the breakdown reads the events' own times, kinds and names.
func (c *Collector) Needs() tracefile.Needs { return 0 }

// Begin takes the trace's rank and sizes the lists: each role's at its first interval, for
// all the events that can take it (a host operator nested in the one before it, the common
// case, takes no room, but the list is made for all). Which of the device roles a trace's
// work takes is known only then: grown by append, a list allocates several times its size.
func (c *Collector) Begin(info *tracefile.Info) {
	c.rank = info.Rank
	n := info.Counts
	p := &c.p
	p.room = [NumCategories]int{Runtime: n.Runtime, CPUExec: n.Host}
	p.devLeft = n.Device
	p.launches = reserve.Room(p.launches, n.Runtime)
	p.devices = reserve.Room(p.devices, n.Device)
}

// Event takes one converted event (the tracefile.Consumer contract), at its ns on the trace's
// own clock (so that the steps of the ranks of a job line up).
func (c *Collector) Event(ev *tracefile.Event) {
	sp := span{ev.StartNs, ev.EndNs}
	switch {
	case ev.Kind.Host():
		c.p.host(ev.Name, sp)
	case ev.Kind == tracefile.KindRuntime:
		c.p.runtime(sp, ev.Correlation)
	case ev.Kind == tracefile.KindScopeMetrics:
		// a metrics slice over a kernel, not device work of its own
	case ev.Kind == tracefile.KindDeviceAnnotation || ev.Kind == tracefile.KindEventRecord:
		// a device-side range, a CUDA event record (the plugin reads no cuda_event): no role
	case ev.Kind.Device():
		role, ok := c.roles[ev.Name]
		if !ok {
			role = deviceRole(ev.Name)
			if c.roles == nil {
				c.roles = map[string]int8{}
			}
			c.roles[ev.Name] = role
		}
		if role >= 0 {
			c.p.device(int(role), sp, ev.Correlation)
		}
	}
}

// commHost are the host ranges of collectives the plugin counts as communication.
var commHost = func() map[string]bool {
	m := map[string]bool{}
	for _, b := range []string{"nccl:", "gloo:"} {
		for _, op := range []string{"broadcast", "reduce", "all_reduce", "all_gather", "reduce_scatter"} {
			m[b+op] = true
		}
	}
	return m
}()

// isCommHost reports whether name is one of commHost's, looking the map up only for names
// that start as they do (every "aten::" operator has the ':' at [4] too: a lookup, with its
// string hash, per host operator was a tenth of this consumer's cost).
func isCommHost(name string) bool {
	return len(name) > 5 && name[4] == ':' && (name[:4] == "nccl" || name[:4] == "gloo") && commHost[name]
}

// deviceRole is the role of device work named name; −1 for none (synchronization).
func deviceRole(name string) int8 {
	switch timeline.Classify(name) {
	case timeline.Sync:
		return -1
	case timeline.Communication:
		return Communication
	case timeline.Memory:
		if len(name) >= 6 && strings.EqualFold(name[:6], "memset") || strings.Contains(strings.ToLower(name), "memset") {
			return Memset
		}
		return Memcpy
	}
	return Kernel
}

// add adds sp to role's intervals, unless the last one holds it.
func (p *part) add(role int, sp span) {
	if r := p.roles[role]; len(r) > 0 {
		if last := r[len(r)-1]; last.s <= sp.s && sp.e <= last.e {
			return
		}
	}
	if cap(p.roles[role]) == 0 {
		p.roles[role] = reserve.Room(p.roles[role], p.room[role])
	}
	p.roles[role] = append(p.roles[role], sp)
}

// device takes device work of a role.
func (p *part) device(role int, sp span, corr int64) {
	p.devLeft--
	if sp.e < sp.s {
		return
	}
	if cap(p.roles[role]) == 0 {
		p.room[role] = max(p.devLeft+1, 0) // this event and the device events after it
	}
	p.add(role, sp)
	p.hasDev = true
	if corr != 0 {
		p.devices = append(p.devices, launch{corr, sp})
	}
}

// runtime takes a runtime or driver call.
func (p *part) runtime(sp span, corr int64) {
	if sp.e < sp.s {
		return
	}
	p.add(Runtime, sp)
	p.hasDev = true
	if corr != 0 {
		p.launches = append(p.launches, launch{corr, sp})
	}
}

// host takes a host operator or range.
func (p *part) host(name string, sp span) {
	if sp.e < sp.s {
		return
	}
	if rest, ok := strings.CutPrefix(name, "ProfilerStep#"); ok {
		n, err := strconv.ParseInt(rest, 10, 64)
		if err == nil {
			p.steps = append(p.steps, step{n, rest, sp})
			p.hostSpan(sp)
			return
		}
	}
	role := CPUExec
	switch {
	case isDataLoader(name):
		role = DataLoader
	case isCommHost(name):
		role = Communication
	}
	p.add(role, sp)
	p.hostSpan(sp)
}

func (p *part) hostSpan(sp span) {
	if !p.hasHost {
		p.hostWin, p.hasHost = sp, true
		return
	}
	p.hostWin.s, p.hostWin.e = min(p.hostWin.s, sp.s), max(p.hostWin.e, sp.e)
}

func isDataLoader(name string) bool {
	return strings.HasPrefix(name, "enumerate(DataLoader)#") && strings.HasSuffix(name, ".__next__") ||
		strings.HasPrefix(name, "enumerate(DataPipe)#")
}

// Finish works the breakdown out.
func (c *Collector) Finish() {
	out := c.breakdown()
	out.Rank = c.rank
	c.done = &Summary{Categories: Names[:], Ranks: []Rank{out}}
}

// Summary is the rank's breakdown, after Finish.
func (c *Collector) Summary() *Summary { return c.done }

// breakdown is the rank's breakdown, unnamed. The events handed over are gone afterwards.
func (c *Collector) breakdown() Rank {
	all := c.p
	c.p = part{}
	out := Rank{HasDevice: all.hasDev, HasCommunication: len(all.roles[Communication]) > 0}
	steps := all.stepWindows()
	if len(steps) == 0 {
		return out
	}
	var roles [NumCategories][]span
	for r := range all.roles {
		roles[r] = merge(all.roles[r]) // all's lists are Finish's own
	}
	windows := make([]span, len(steps))
	for i, s := range steps {
		windows[i] = s.span
	}
	out.Steps = make([]Step, len(steps))
	for i, s := range steps {
		out.Steps[i] = Step{Name: s.name, StartNs: s.s, EndNs: s.e, TotalNs: s.e - s.s}
	}
	// Each role takes what the roles before it left of the windows: its time per step is
	// counted as soon as it is known, so that three lists serve every role (what is left, the
	// role's share, and the next what-is-left), not two per role.
	free := merge(windows)
	var share, next []span
	for r := range NumCategories {
		counted := free // Other: what no role took
		switch {
		case r == Kernel:
			counted = roles[r]
		case r < Other:
			share = intersectInto(share[:0], roles[r], free)
			counted = share
		}
		for i, s := range steps {
			out.Steps[i].Ns[r] = within(counted, s.span)
		}
		if r < Other {
			next = subtractInto(next[:0], free, counted)
			free, next = next, free
		}
	}
	for _, st := range out.Steps {
		for r := range st.Ns {
			out.AverageNs[r] += float64(st.Ns[r])
		}
		out.AverageTotalNs += float64(st.TotalNs)
	}
	n := float64(len(out.Steps))
	for r := range out.AverageNs {
		out.AverageNs[r] /= n
	}
	out.AverageTotalNs /= n
	return out
}

// stepWindows are the steps' windows (see the package doc), trimmed at the tail.
func (all *part) stepWindows() []step {
	steps := all.steps
	if len(steps) == 0 {
		if !all.hasHost {
			return nil
		}
		return []step{{0, "0", all.hostWin}}
	}
	slices.SortFunc(steps, func(a, b step) int { return cmp.Or(cmp.Compare(a.s, b.s), cmp.Compare(b.e, a.e)) })
	// Device work → its launch → the step whose host range holds the launch entirely.
	launchOf := make(map[int64]span, len(all.launches))
	for _, l := range all.launches {
		if _, ok := launchOf[l.corr]; !ok {
			launchOf[l.corr] = l.span
		}
	}
	devEnd := make([]int64, len(steps))
	count := make([]int, len(steps))
	matched := 0
	for _, d := range all.devices {
		l, ok := launchOf[d.corr]
		if !ok {
			continue
		}
		i, _ := slices.BinarySearchFunc(steps, l.s, func(s step, t int64) int { return cmp.Compare(s.s, t+1) })
		i-- // the last step starting at or before the launch
		if i < 0 || l.e > steps[i].e || l.s < steps[i].s {
			continue
		}
		if count[i] == 0 || d.e > devEnd[i] {
			devEnd[i] = max(devEnd[i], d.e)
		}
		count[i]++
		matched++
	}
	out := make([]step, len(steps))
	prevEnd := steps[0].s
	for i, s := range steps {
		start := max(prevEnd, s.s)
		end := max(s.e, start)
		if count[i] > 0 {
			end = max(s.e, devEnd[i])
		}
		end = max(end, start)
		out[i] = step{s.n, s.name, span{start, end}}
		prevEnd = end
	}
	if matched > 0 && len(out) > 1 {
		k := len(out) - 1
		for k >= 0 && count[k] == 0 {
			k--
		}
		if k > 0 && float64(count[k-1])*0.8 > float64(count[k]) {
			k--
		}
		out = out[:k+1]
	}
	return out
}

// merge sorts intervals (in place) and joins those that overlap or touch.
func merge(s []span) []span {
	if len(s) == 0 {
		return nil
	}
	byStart := func(a, b span) int { return cmp.Compare(a.s, b.s) }
	if !slices.IsSortedFunc(s, byStart) { // a thread's events come in time order: often sorted
		slices.SortFunc(s, byStart)
	}
	out := s[:1]
	for _, x := range s[1:] {
		last := &out[len(out)-1]
		if x.s <= last.e {
			last.e = max(last.e, x.e)
			continue
		}
		out = append(out, x)
	}
	return out
}

// within is the length of a merged list inside w, without making the intersection (a step's
// share of a role, found by binary search rather than a walk of the role's whole list for
// every step).
func within(a []span, w span) int64 {
	i, _ := slices.BinarySearchFunc(a, w.s, func(x span, t int64) int { return cmp.Compare(x.e, t+1) })
	var n int64
	for ; i < len(a) && a[i].s < w.e; i++ {
		if d := min(a[i].e, w.e) - max(a[i].s, w.s); d > 0 {
			n += d
		}
	}
	return n
}

// intersectInto appends the intersection of two merged lists to out.
func intersectInto(out, a, b []span) []span {
	out = reserve.Room(out, len(a)+len(b))
	for i, j := 0, 0; i < len(a) && j < len(b); {
		s, e := max(a[i].s, b[j].s), min(a[i].e, b[j].e)
		if s < e {
			out = append(out, span{s, e})
		}
		if a[i].e < b[j].e {
			i++
		} else {
			j++
		}
	}
	return out
}

// subtractInto appends a minus b, both merged, to out.
func subtractInto(out, a, b []span) []span {
	out = reserve.Room(out, len(a)+len(b))
	j := 0
	for _, x := range a {
		s := x.s
		for j < len(b) && b[j].e <= s {
			j++
		}
		k := j
		for k < len(b) && b[k].s < x.e {
			if b[k].s > s {
				out = append(out, span{s, b[k].s})
			}
			s = max(s, b[k].e)
			k++
		}
		if s < x.e {
			out = append(out, span{s, x.e})
		}
	}
	return out
}

// Finding is what the breakdown says a person should look at, with its figure: the plugin's
// recommendations that its step breakdown alone decides (tb_plugin.md §3.4, rule 1).
type Finding struct {
	Rank  int64   `json:"rank"`
	Share float64 `json:"share"`
	Text  string  `json:"text"`
}

// DataLoaderShare is the plugin's threshold: data loading above this share of the average
// step is worth a look.
const DataLoaderShare = 0.05

// Findings are the findings of each rank in s.
func (s *Summary) Findings() []Finding {
	var out []Finding
	for _, r := range s.Ranks {
		if r.AverageTotalNs <= 0 {
			continue
		}
		if x := r.AverageNs[DataLoader] / r.AverageTotalNs; x > DataLoaderShare {
			out = append(out, Finding{Rank: r.Number, Share: x, Text: "data loading takes " + strconv.FormatFloat(100*x, 'f', 1, 64) +
				"% of the average step: load in worker processes (DataLoader num_workers) or prefetch"})
		}
	}
	return out
}

// Check reports the first figure of s that no Collector could have made (a summary read back
// from a file): categories other than Names, a step whose length is not its end minus its
// start or whose categories are negative or do not add up to it.
func (s *Summary) Check() error {
	if !slices.Equal(s.Categories, Names[:]) {
		return fmt.Errorf("categories %s, not %s", quote.Clip(strings.Join(s.Categories, ", ")), strings.Join(Names[:], ", "))
	}
	for _, r := range s.Ranks {
		for _, st := range r.Steps {
			var sum int64
			for _, v := range st.Ns {
				if v < 0 {
					return fmt.Errorf("rank %d step %s: a negative time", r.Number, quote.String(st.Name))
				}
				sum += v
			}
			if st.TotalNs != st.EndNs-st.StartNs || sum != st.TotalNs {
				return fmt.Errorf("rank %d step %s: %d ns long from %d to %d, its categories sum to %d",
					r.Number, quote.String(st.Name), st.TotalNs, st.StartNs, st.EndNs, sum)
			}
		}
	}
	return nil
}
