package events

import (
	"sync"
	"unsafe"

	"github.com/orprof/orprof/devices"
)

// Averager computes KeyAverages of events handed to it one at a time, without keeping them:
// the rows are those NewList(evs, …).KeyAverages(o) gives for the same events, to the last
// bit of every sum, at 64 bytes per event (plus 40 when the events carry memory or flops)
// instead of a FunctionEvent and a tree node (about 300). It is for callers that want the
// table and nothing else from a large trace, such as `orprof table`.
//
// The tree is PyTorch's, built as NewList builds it, but in one pass over each thread's
// events in (start, −end) order with a stack of the open ones: an event is finished when it
// is closed, by which time its children are, so its self times, its device total and the
// same-name collapse are worked out on the spot. The sums into rows are then made in list
// order, as KeyAverages makes them, so every float sum is the same.
//
// Grouping by stack is not supported (a backward op's stack is known only once every
// forward op is): NewAverager reports false for it, and the caller builds a List.
type Averager struct {
	o       AverageOptions
	recs    avgRecs
	parts   []*AveragerPart
	partsMu sync.Mutex
	// mem holds every event's memory and flops, allocated when the first event that has any
	// is set.
	memOnce sync.Once
	mem     []avgMem
	done    bool
	// walk, links and kerns serve WalkTree (tree.go); nil unless it was called.
	walk  func(*TreeEvent)
	links []treeLink
	kerns []treeKernel
}

// AveragerPart sets events of an Averager from one goroutine; several parts may set events
// (each a different one) at the same time.
type AveragerPart struct {
	a      *Averager
	g      *grouper
	id     uint8
	memory bool
	kerns  []treeKernel // the events' own kernels, when the Averager walks its tree
}

// avgRec is one event: its times, its row and its flags, then its derived figures.
type avgRec struct {
	start, end float64
	// dev is the sum of the event's kernels until the tree pass, its device total after.
	dev     float64
	selfCPU float64
	selfDev float64
	thread  int64
	row     int32 // in its part's rows until Averages merges them, then in the merged rows
	node    int32 // NodeID, which the tree groups by with the thread (trace node ids are int32)
	scope   int32
	part    uint8
	flags   uint8
}

// The record's size is the Averager's memory per event.
var _ [64 - unsafe.Sizeof(avgRec{})]struct{}

// avgMem is one event's memory figures and flops.
type avgMem struct {
	cpu, dev         int64
	selfCPU, selfDev int64
	flops            int64
}

const (
	recDevice      = 1 << iota // DeviceType is not CPU
	recAsync                   // IsAsync
	recRemote                  // IsRemote
	recLegacy                  // IsLegacy
	recEmptyShapes             // InputShapes is ""
	recHasParent               // has a CPU parent in the tree
	recDeleted                 // collapsed into its same-name parent
)

// maxParts is how many AveragerParts an Averager can have.
const maxParts = 255

// NewAverager returns an Averager for n events grouped by o, or false when o groups by stack.
func NewAverager(n int, o AverageOptions) (*Averager, bool) {
	if o.GroupByStackN > 0 {
		return nil, false
	}
	return &Averager{o: o, recs: newAvgRecs(n)}, true
}

// Len is the number of events the Averager was made for.
func (a *Averager) Len() int { return a.recs.n }

// Part returns a new part to set events from one goroutine; an Averager has at most 255.
// Part may be called from several goroutines at once.
func (a *Averager) Part() *AveragerPart {
	a.partsMu.Lock()
	defer a.partsMu.Unlock()
	if len(a.parts) == maxParts {
		panic("events: Averager.Part: more than 255 parts")
	}
	p := &AveragerPart{a: a, g: newGrouper(a.o), id: uint8(len(a.parts))}
	a.parts = append(a.parts, p)
	return p
}

// Set sets event i (0 ≤ i < Len) from e, on the Averager's first part: for use from one
// goroutine. e is read, not kept.
func (a *Averager) Set(i int, e *FunctionEvent) {
	if len(a.parts) == 0 {
		a.Part()
	}
	a.parts[0].Set(i, e)
}

// Set sets event i (0 ≤ i < Len) from e. Every event is set once, before Averages; e is read,
// not kept. Of its kernels only the durations count.
func (p *AveragerPart) Set(i int, e *FunctionEvent) {
	a := p.a
	r := a.recs.set(i)
	var kern float64
	for k := range e.Kernels {
		kern += e.Kernels[k].DurationUs
	}
	*r = avgRec{start: e.StartUs, end: e.EndUs, dev: kern, thread: e.Thread, node: int32(e.NodeID),
		scope: int32(e.Scope), part: p.id}
	if e.DeviceType != devices.CPU {
		r.flags |= recDevice
	}
	if e.IsAsync {
		r.flags |= recAsync
	}
	if e.IsRemote {
		r.flags |= recRemote
	}
	if e.IsLegacy {
		r.flags |= recLegacy
	}
	if e.InputShapes == "" {
		r.flags |= recEmptyShapes
	}
	g := p.g
	k := g.find(e.Name, e.NodeID, e.DeviceType, e.IsLegacy, e.IsUserAnnotation, e.OverloadName,
		e.InputShapes, nil)
	if k < 0 {
		row := Avg{Key: e.Name, NodeID: e.NodeID, IsLegacy: e.IsLegacy,
			IsUserAnnotation: e.IsUserAnnotation, DeviceType: e.DeviceType}
		if a.o.GroupByInputShape {
			row.InputShapes = e.InputShapes
		}
		if a.o.GroupByOverloadName {
			row.OverloadName = e.OverloadName
		}
		k = g.add(row)
	}
	r.row = int32(k)
	if a.walk != nil {
		for _, kn := range e.Kernels {
			p.kerns = append(p.kerns, treeKernel{int32(i), kn})
		}
	}
	if e.CPUMemoryUsage != 0 || e.DeviceMemoryUsage != 0 || e.Flops != 0 {
		a.memOnce.Do(func() { a.mem = make([]avgMem, a.recs.n) })
		a.mem[i] = avgMem{cpu: e.CPUMemoryUsage, dev: e.DeviceMemoryUsage, flops: e.Flops}
		p.memory = p.memory || e.CPUMemoryUsage != 0 || e.DeviceMemoryUsage != 0
	}
}

// SetThread moves event i to thread tid (a runtime call that takes its operator's thread).
// Call it after event i is set, from one goroutine.
func (a *Averager) SetThread(i int, tid int64) { a.recs.set(i).thread = tid }

// AddKernel adds a kernel of durUs to event i, after those it has: NewList would see it
// appended to the event's Kernels. Call it after event i is set, from one goroutine.
func (a *Averager) AddKernel(i int, durUs float64) { a.recs.set(i).dev += durUs }

// HasMemory reports whether any event carries memory figures (the trace recorded memory).
func (a *Averager) HasMemory() bool {
	for _, p := range a.parts {
		if p.memory {
			return true
		}
	}
	return false
}

// Averages builds the tree and returns the rows, in the order their key first occurs in the
// list, as KeyAverages would. It may be called once, after every event is set; the Averager's
// memory can be freed as soon as it returns.
func (a *Averager) Averages() []Avg {
	if a.done {
		panic("events: Averager.Averages called twice")
	}
	a.done = true
	if len(a.parts) == 0 {
		return nil
	}
	a.recs.fill()
	// The parts' rows, merged in part order, and every event's row renumbered.
	all := a.parts[0].g
	remaps := make([][]int32, len(a.parts))
	for k := 1; k < len(a.parts); k++ {
		remaps[k] = all.merge(a.parts[k].g)
	}
	if len(a.parts) > 1 {
		for k := range a.recs.blocks {
			b := a.recs.block(k)
			for i := range b {
				if r := &b[i]; r.part > 0 {
					r.row = remaps[r.part][r.row]
				}
			}
		}
	}
	rows := all.rows
	// The walk's kernel index is made beside the list order and the tree, which read none of
	// what it reads (the kernels kept for the walk, the number of events).
	var kernAt []int32
	var kernAll []Kernel
	var indexed chan struct{}
	if a.walk != nil {
		indexed = make(chan struct{})
		go func() {
			defer close(indexed)
			kernAt, kernAll = a.kernelIndex()
		}()
	}
	order := a.listOrder()
	a.tree(order, rows)
	if indexed != nil {
		<-indexed
	}
	return a.sum(order, rows, kernAt, kernAll)
}

// listOrder returns the events' list order, or nil when it is their own: NewList's test of
// the input order, then the same sort. One pass over the records finds whether they are in
// order, where their ascending runs start (the sort merges them) and whether a time is NaN:
// each pass streams all of them from memory (1.7 ms for the MTIA trace's 138k).
func (a *Averager) listOrder() []int32 {
	recs := &a.recs
	runs := []int{0}
	nan := false
	var y *avgRec
	for k := range recs.blocks {
		b := recs.block(k)
		for j := range b {
			x := &b[j]
			nan = nan || x.start != x.start || x.end != x.end
			if y != nil && (x.start < y.start || x.start == y.start && x.end > y.end) {
				runs = append(runs, k<<recBlockShift+j)
			}
			y = x
		}
	}
	switch {
	case len(runs) == 1:
		return nil
	case nan:
		// NaN breaks the ordering: orderOfKeys keeps the stable sort's answer for it.
		keys := make([]sortKey, recs.n)
		for j := range keys {
			r := recs.at(int32(j))
			keys[j] = sortKey{r.start, r.end, int32(j)}
		}
		return orderOfKeys(keys)
	case len(runs) > recs.n/minRunAvg:
		runs = nil // short runs: sorted from scratch
	}
	return orderOfRecs(recs, runs)
}

// orderOfRecs returns the order orderOfKeys gives events with the times of recs, none NaN,
// whose ascending runs start at runs (nil: not known). It sorts indexes (4 bytes per event)
// comparing the records in place, not a copy of their keys (24 bytes per event, and as much
// again for the merge): on a large trace this is where the table's memory peaks.
func orderOfRecs(recs *avgRecs, runs []int) []int32 {
	order := make([]int32, recs.n)
	for i := range order {
		order[i] = int32(i)
	}
	sortKeysRuns(order, runs, func(i, j int32) int {
		x, y := recs.at(i), recs.at(j)
		return compareTimes(x.start, x.end, i, y.start, y.end, j)
	})
	return order
}

// avgOpen is an event of the tree whose children are not all known yet: what they add up to,
// and what its first child brought apart from its children, which the event takes over if that
// child turns out to be its only one with its own name.
type avgOpen struct {
	i        int32
	end      float64
	children int32
	sum      childSums
	only     int32 // the first child
	onlyKern float64
	onlySum  childSums // the first child's own children's sums
}

// childSums is what an event's children add up to, summed in their order.
type childSums struct {
	cpu, dev       float64
	cpuMem, devMem int64
}

// tree links each thread's events (and node id's) in list order with a stack of open events,
// and works out every event's derived figures when it is closed.
func (a *Averager) tree(order []int32, rows []Avg) {
	type group struct {
		thread int64
		node   int32
	}
	stacks := map[group]*[]avgOpen{}
	var lastG group
	var last *[]avgOpen
	for k := range a.recs.n {
		i := int32(k)
		if order != nil {
			i = order[k]
		}
		r := a.recs.at(i)
		if r.flags&(recDevice|recAsync) != 0 {
			if r.flags&recAsync == 0 {
				r.dev = r.end - r.start
				r.selfDev = r.dev
			} else {
				r.dev = 0
			}
			continue
		}
		g := group{r.thread, r.node}
		if last == nil || g != lastG {
			last = stacks[g]
			if last == nil {
				last = new([]avgOpen)
				stacks[g] = last
			}
			lastG = g
		}
		st := *last
		for len(st) > 0 {
			top := &st[len(st)-1]
			if r.start >= top.end || r.end > top.end {
				st = a.close(st, rows)
				continue
			}
			break
		}
		if len(st) > 0 {
			r.flags |= recHasParent
			if a.links != nil {
				a.links[i].parent = st[len(st)-1].i
			}
		}
		*last = append(st, avgOpen{i: i, end: r.end, only: -1})
	}
	for _, st := range stacks {
		s := *st
		for len(s) > 0 {
			s = a.close(s, rows)
		}
	}
}

// close finishes the event on top of st and hands its figures to its parent, the event below
// it; it returns st without it.
func (a *Averager) close(st []avgOpen, rows []Avg) []avgOpen {
	x := &st[len(st)-1]
	r := a.recs.at(x.i)
	kern, sum := r.dev, x.sum
	if x.children == 1 && rows[r.row].Key == rows[a.recs.at(x.only).row].Key {
		// A same-name only child is collapsed into this event, which takes its kernels and
		// its children.
		a.recs.at(x.only).flags |= recDeleted
		kern, sum = x.onlyKern, x.onlySum
		if a.links != nil {
			a.links[x.i].kern = a.links[x.only].kern
		}
	}
	cpu := r.end - r.start
	r.selfCPU = cpu - sum.cpu
	r.dev = kern
	if r.flags&recLegacy == 0 {
		r.dev += sum.dev
	}
	r.selfDev = r.dev - sum.dev
	var m *avgMem
	if a.mem != nil {
		m = &a.mem[x.i]
		m.selfCPU, m.selfDev = m.cpu-sum.cpuMem, m.dev-sum.devMem
	}
	st = st[:len(st)-1]
	if len(st) == 0 {
		return st
	}
	p := &st[len(st)-1]
	p.children++
	p.sum.cpu += cpu
	p.sum.dev += r.dev
	if m != nil {
		p.sum.cpuMem += m.cpu
		p.sum.devMem += m.dev
	}
	if p.children == 1 {
		p.only, p.onlyKern, p.onlySum = x.i, kern, sum
	}
	return st
}

// sum adds every event that is left into its row, in list order, and returns the rows that
// have events in the order of their first, with that event's attributes; the walk, if any,
// gets each event with its kernels (kernelIndex's kernAt and kernAll).
func (a *Averager) sum(order []int32, rows []Avg, kernAt []int32, kernAll []Kernel) []Avg {
	at := make([]int32, len(rows)) // row → index in out + 1
	var out []Avg
	var te TreeEvent
	for k := range a.recs.n {
		i := int32(k)
		if order != nil {
			i = order[k]
		}
		r := a.recs.at(i)
		if a.walk != nil {
			// A parent comes before its children: a collapsed one's parent is final, and
			// its children take it.
			lk := &a.links[i]
			if p := lk.parent; p >= 0 && a.recs.at(p).flags&recDeleted != 0 {
				lk.parent = a.links[p].parent
			}
			if r.flags&recDeleted == 0 {
				row := &rows[r.row]
				te = TreeEvent{ID: int(i), Parent: int(lk.parent), Events: a.recs.n, Name: row.Key, DeviceType: row.DeviceType,
					IsAsync: r.flags&recAsync != 0, IsLegacy: r.flags&recLegacy != 0, IsUserAnnotation: row.IsUserAnnotation,
					StartUs: r.start, EndUs: r.end, SelfCPUUs: r.selfCPU, SelfDeviceUs: r.selfDev}
				if kernAt != nil {
					te.Kernels = kernAll[kernAt[lk.kern]:kernAt[lk.kern+1]:kernAt[lk.kern+1]]
				}
				a.walk(&te)
			}
		}
		if r.flags&recDeleted != 0 {
			continue
		}
		if at[r.row] == 0 {
			row := rows[r.row]
			row.IsAsync, row.IsRemote = r.flags&recAsync != 0, r.flags&recRemote != 0
			row.Scope, row.HasParent = int(r.scope), r.flags&recHasParent != 0
			if a.o.GroupByInputShape && shapesKey(row.InputShapes) == "None" {
				// "" (None) and "None" share a key: the row spells it as its first event does.
				row.InputShapes = "None"
				if r.flags&recEmptyShapes != 0 {
					row.InputShapes = ""
				}
			}
			out = append(out, row)
			at[r.row] = int32(len(out))
		}
		o := &out[at[r.row]-1]
		o.Count++
		if a.mem != nil {
			m := &a.mem[i]
			o.CPUMemoryUsage += m.cpu
			o.DeviceMemoryUsage += m.dev
			o.SelfCPUMemoryUsage += m.selfCPU
			o.SelfDeviceMemoryUsage += m.selfDev
			o.Flops += m.flops
		}
		if r.flags&recDevice == 0 {
			o.CPUTimeTotal += r.end - r.start
		}
		o.DeviceTimeTotal += r.dev
		o.SelfCPUTimeTotal += r.selfCPU
		o.SelfDeviceTimeTotal += r.selfDev
	}
	return out
}
