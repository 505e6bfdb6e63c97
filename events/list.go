package events

import (
	"github.com/orprof/orprof/devices"
)

// ListOptions say how a list was recorded; they travel to the table.
type ListOptions struct {
	// UseDevice is the lower-case name of the accelerator whose time the events carry
	// ("openreg", "cuda"); empty for a CPU-only profile.
	UseDevice     string
	ProfileMemory bool
	WithFlops     bool
}

// List is an immutable list of FunctionEvents with PyTorch's tree built: sorted by
// (start, −end), CPU parents and children linked per (thread, node id), same-name single
// children collapsed into their parent, and backward ops given the stack of their forward op.
// The derived times of every event (self CPU, device totals, self memory) are computed once.
type List struct {
	opts  ListOptions
	evs   []FunctionEvent // Kernels are those after the same-name collapse
	nodes []node
	// kids holds every child list back to back: node i's children are
	// kids[nodes[i].kidsOff : nodes[i].kidsOff+nodes[i].nKids], in start order.
	kids   []int32
	hasAny bool
}

// node is the tree and the derived figures of one event.
type node struct {
	parent                  int32    // −1 for none
	kidsOff, nKids          int32    // the children, a range of List.kids
	stack                   []string // after backward stack propagation
	cpuTotal, selfCPU       float64
	deviceTotal, selfDevice float64
	selfCPUMem, selfDevMem  int64
}

// NewList copies evs, sorts the copy and builds the tree. evs is not modified.
func NewList(evs []FunctionEvent, opts ListOptions) *List {
	cp := make([]FunctionEvent, len(evs))
	copy(cp, evs)
	SortEvents(cp)
	l := &List{opts: opts}
	l.build(cp)
	return l
}

// NewListOwned is NewList for a slice the caller hands over: it is sorted and used in place,
// saving a copy of a large list. The caller must not use evs afterwards.
func NewListOwned(evs []FunctionEvent, opts ListOptions) *List {
	SortEvents(evs)
	l := &List{opts: opts}
	l.build(evs)
	return l
}

// Options returns the options the list was made with.
func (l *List) Options() ListOptions { return l.opts }

// Len is the number of events (after the same-name collapse).
func (l *List) Len() int { return len(l.evs) }

// Event returns event i. The returned value is a copy; its Kernels and Stack are those after
// tree building.
func (l *List) Event(i int) FunctionEvent {
	e := l.evs[i]
	e.Stack = l.nodes[i].stack
	return e
}

// Events returns a copy of all events, in list order.
func (l *List) Events() []FunctionEvent {
	out := make([]FunctionEvent, len(l.evs))
	for i := range out {
		out[i] = l.Event(i)
	}
	return out
}

// Parent returns the index of event i's CPU parent, or −1.
func (l *List) Parent(i int) int { return int(l.nodes[i].parent) }

// children returns event i's direct CPU children (a view into l.kids).
func (l *List) children(i int) []int32 {
	nd := &l.nodes[i]
	return l.kids[nd.kidsOff : nd.kidsOff+nd.nKids]
}

// Children returns the indexes of event i's direct CPU children, in start order.
func (l *List) Children(i int) []int {
	c := l.children(i)
	out := make([]int, len(c))
	for k, v := range c {
		out[k] = int(v)
	}
	return out
}

// SelfCPUTimeTotal is event i's CPU time minus its direct children's; 0 for async and device
// events. It can be negative when children overlap badly, as in PyTorch.
func (l *List) SelfCPUTimeTotal(i int) float64 { return l.nodes[i].selfCPU }

// DeviceTimeTotal is event i's device time: its kernels plus its children's (not for legacy
// events, whose one fake kernel already covers them); a device event's own duration.
func (l *List) DeviceTimeTotal(i int) float64 { return l.nodes[i].deviceTotal }

// SelfDeviceTimeTotal is DeviceTimeTotal minus the children's device totals.
func (l *List) SelfDeviceTimeTotal(i int) float64 { return l.nodes[i].selfDevice }

// TotalSelfCPUTime is the sum of every event's self CPU time (EventList.self_cpu_time_total).
func (l *List) TotalSelfCPUTime() float64 {
	var s float64
	for i := range l.nodes {
		s += l.nodes[i].selfCPU
	}
	return s
}

// build links the tree of evs (sorted, owned by the list) and computes the derived figures.
// Everything is done in place: the same-name collapse compacts evs and the nodes without
// copying them, and the child lists share one array, so a large list costs no more than its
// events, one node each and one child index each.
func (l *List) build(evs []FunctionEvent) {
	n := len(evs)
	nodes := make([]node, n)
	// 1. parents per (thread, node id), events in (start, −end) order.
	type group struct {
		thread int64
		nodeID int
	}
	type openStack struct{ st []int32 }
	stacks := map[group]*openStack{}
	var lastG group
	var last *openStack
	nKids := 0
	for i := 0; i < n; i++ {
		nodes[i].parent = -1
		e := &evs[i]
		if e.IsAsync || e.DeviceType != devices.CPU {
			continue
		}
		g := group{e.Thread, e.NodeID}
		if last == nil || g != lastG {
			last = stacks[g]
			if last == nil {
				last = &openStack{}
				stacks[g] = last
			}
			lastG = g
		}
		st := last.st
		for len(st) > 0 {
			top := &evs[st[len(st)-1]]
			if e.StartUs >= top.EndUs || e.EndUs > top.EndUs {
				st = st[:len(st)-1]
				continue
			}
			break
		}
		if len(st) > 0 {
			p := st[len(st)-1]
			nodes[p].nKids++
			nodes[i].parent = p
			nKids++
		}
		last.st = append(st, int32(i))
	}
	// The child lists, back to back: children come after their parent and in start order, so
	// filling them in index order keeps each list sorted.
	kids := make([]int32, nKids)
	off := int32(0)
	for i := range nodes {
		nodes[i].kidsOff = off
		off += nodes[i].nKids
		nodes[i].nKids = 0
	}
	for i := range nodes {
		if p := nodes[i].parent; p >= 0 {
			kids[nodes[p].kidsOff+nodes[p].nKids] = int32(i)
			nodes[p].nKids++
		}
	}
	// 2. collapse a same-name only child into its parent, to a fixpoint. One pass in index
	// order reaches it: parents come before their children, so by the time an event is looked
	// at its parent is final, and a parent's child list only changes while it has one child —
	// an event that is not collapsed when looked at never becomes collapsible later.
	var deleted []bool
	for i := 0; i < n; i++ {
		p := nodes[i].parent
		if p < 0 || nodes[p].nKids != 1 || evs[p].Name != evs[i].Name {
			continue
		}
		if deleted == nil {
			deleted = make([]bool, n)
		}
		nodes[p].kidsOff, nodes[p].nKids = nodes[i].kidsOff, nodes[i].nKids
		evs[p].Kernels = evs[i].Kernels
		for _, c := range kids[nodes[i].kidsOff : nodes[i].kidsOff+nodes[i].nKids] {
			nodes[c].parent = p
		}
		deleted[i] = true
	}
	if deleted != nil {
		evs, nodes = compact(evs, nodes, kids, deleted)
		n = len(evs)
	}
	// 3. backward ops take the stack of their forward op.
	for i := range nodes {
		nodes[i].stack = evs[i].Stack
	}
	setBackwardStacks(evs, nodes)
	// 4. derived figures, children before parents (children always follow their parent).
	for i := n - 1; i >= 0; i-- {
		e := &evs[i]
		nd := &nodes[i]
		nd.cpuTotal = e.CPUTimeTotal()
		if e.IsAsync {
			continue
		}
		if e.DeviceType == devices.CPU {
			var childCPU, childDev float64
			var childCPUMem, childDevMem int64
			for _, c := range kids[nd.kidsOff : nd.kidsOff+nd.nKids] {
				childCPU += nodes[c].cpuTotal
				childDev += nodes[c].deviceTotal
				childCPUMem += evs[c].CPUMemoryUsage
				childDevMem += evs[c].DeviceMemoryUsage
			}
			nd.selfCPU = nd.cpuTotal - childCPU
			var k float64
			for _, kk := range e.Kernels {
				k += kk.DurationUs
			}
			if e.IsLegacy {
				nd.deviceTotal = k
			} else {
				nd.deviceTotal = k + childDev
			}
			nd.selfDevice = nd.deviceTotal - childDev
			nd.selfCPUMem = e.CPUMemoryUsage - childCPUMem
			nd.selfDevMem = e.DeviceMemoryUsage - childDevMem
		} else {
			nd.deviceTotal = e.ElapsedUs()
			nd.selfDevice = nd.deviceTotal
		}
	}
	l.evs, l.nodes, l.kids = evs, nodes, kids
}

// compact drops deleted events in place and renumbers the tree links (parents, and every
// entry of kids; entries of lists no node uses any more may become −1). The freed tail of evs
// is cleared so that it keeps nothing alive.
func compact(evs []FunctionEvent, nodes []node, kids []int32, deleted []bool) ([]FunctionEvent, []node) {
	remap := make([]int32, len(evs))
	j := int32(0)
	for i := range evs {
		if deleted[i] {
			remap[i] = -1
			continue
		}
		remap[i] = j
		if int(j) != i {
			evs[j] = evs[i]
			nodes[j] = nodes[i]
		}
		if p := nodes[j].parent; p >= 0 {
			nodes[j].parent = remap[p] // p < i: already renumbered
		}
		j++
	}
	for k, c := range kids {
		if c >= 0 {
			kids[k] = remap[c]
		}
	}
	clear(evs[j:])
	clear(nodes[j:])
	return evs[:j], nodes[:j]
}

func setBackwardStacks(evs []FunctionEvent, nodes []node) {
	// Without backward ops nothing changes; without any stack every stack stays nil.
	hasBackward, hasStack := false, false
	for i := range evs {
		hasBackward = hasBackward || evs[i].Scope == ScopeBackwardFunction
		hasStack = hasStack || evs[i].Stack != nil
	}
	if !hasBackward || !hasStack {
		return
	}
	// bw[i] is the nearest ancestor-or-self of i with the backward scope, −1 for none. Parents
	// come before their children in the list, so one pass fills it.
	bw := make([]int32, len(evs))
	for i := range evs {
		switch {
		case evs[i].Scope == ScopeBackwardFunction:
			bw[i] = int32(i)
		case nodes[i].parent >= 0:
			bw[i] = bw[nodes[i].parent]
		default:
			bw[i] = -1
		}
	}
	bwParent := func(i int32) int32 { return bw[i] }
	type key struct{ seq, thread int64 }
	fwd := map[key][]string{}
	for i := range evs {
		if bwParent(int32(i)) < 0 {
			k := key{evs[i].SequenceNr, evs[i].Thread}
			if _, ok := fwd[k]; !ok {
				fwd[k] = evs[i].Stack
			}
		}
	}
	for i := range evs {
		if p := bwParent(int32(i)); p >= 0 {
			nodes[i].stack = fwd[key{evs[p].SequenceNr, evs[p].FwdThread}]
		}
	}
}
