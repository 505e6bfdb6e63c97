package events

import (
	"unsafe"

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
//
// The list reads the events it was made from in place and never writes them: what the tree
// changes (order, collapsed events, kernels, stacks) lives in its own pointer-free nodes, so a
// large list costs one small node per event on top of the events themselves.
type List struct {
	opts  ListOptions
	src   []FunctionEvent // the caller's events, never written
	nodes []node          // in list order
}

// node is one event of the list: where it is in src, its tree links and its derived figures.
// It holds no pointers, so the garbage collector never scans the nodes.
type node struct {
	src         int32 // the event, an index into List.src
	parent      int32 // −1 for none
	first, last int32 // the first and last child, −1 for none; children are in start order
	next        int32 // the next sibling, −1 for none
	kern        int32 // the src event whose Kernels this event carries after the collapse
	stack       int32 // the src event whose Stack this event carries; −1 for none
	tree        bool  // a CPU event that is not async: it has a place in the tree
	legacy      bool  // IsLegacy
	cpuTotal    float64
	selfCPU     float64
	deviceTotal float64
	selfDevice  float64
	selfCPUMem  int64
	selfDevMem  int64
}

// sortOrder lays its keys out in the nodes' memory.
var _ [unsafe.Sizeof(node{}) - unsafe.Sizeof(sortKey{})]struct{}
var _ [unsafe.Alignof(node{}) - unsafe.Alignof(sortKey{})]struct{}

// NewList builds the list of evs. evs is neither copied nor modified: the list reads it for as
// long as it is used, so the caller must not change evs afterwards.
func NewList(evs []FunctionEvent, opts ListOptions) *List {
	l := &List{opts: opts, src: evs}
	l.build()
	return l
}

// NewListOwned is NewList for a slice the caller hands over; the two are the same since
// NewList stopped copying its input. The caller must not modify evs afterwards.
func NewListOwned(evs []FunctionEvent, opts ListOptions) *List { return NewList(evs, opts) }

// Options returns the options the list was made with.
func (l *List) Options() ListOptions { return l.opts }

// Len is the number of events (after the same-name collapse).
func (l *List) Len() int { return len(l.nodes) }

// stackOf is event i's stack after backward stack propagation.
func (l *List) stackOf(i int) []string {
	if s := l.nodes[i].stack; s >= 0 {
		return l.src[s].Stack
	}
	return nil
}

// Event returns event i. The returned value is a copy; its Kernels and Stack are those after
// tree building.
func (l *List) Event(i int) FunctionEvent {
	nd := &l.nodes[i]
	e := l.src[nd.src]
	e.Kernels = l.src[nd.kern].Kernels
	e.Stack = l.stackOf(i)
	return e
}

// Events returns a copy of all events, in list order.
func (l *List) Events() []FunctionEvent {
	out := make([]FunctionEvent, len(l.nodes))
	for i := range out {
		out[i] = l.Event(i)
	}
	return out
}

// Parent returns the index of event i's CPU parent, or −1.
func (l *List) Parent(i int) int { return int(l.nodes[i].parent) }

// Children returns the indexes of event i's direct CPU children, in start order.
func (l *List) Children(i int) []int {
	var out []int
	for c := l.nodes[i].first; c >= 0; c = l.nodes[c].next {
		out = append(out, int(c))
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

// build sorts the events, links the tree and computes the derived figures. The events are read
// once; everything after that pass is done on the nodes, whose child lists are linked through
// the nodes themselves (first child, next sibling), and the same-name collapse compacts them in
// place.
func (l *List) build() {
	evs := l.src
	n := len(evs)
	nodes := make([]node, n)
	// 1. parents per (thread, node id), events in (start, −end) order. The events are taken to
	// be in order (traces usually are) and checked on the way; if they are not, the pass
	// restarts over the sorted order.
	type group struct {
		thread int64
		nodeID int
	}
	type open struct {
		i   int32
		end float64
	}
	type openStack struct{ st []open }
	var order []int32
	var hasBackward, hasStack bool
link:
	stacks := map[group]*openStack{}
	var lastG group
	var last *openStack
	hasBackward, hasStack = false, false
	for i := 0; i < n; i++ {
		s := int32(i)
		if order != nil {
			s = order[i]
		} else if i > 0 {
			a, b := &evs[i], &evs[i-1]
			if a.StartUs < b.StartUs || a.StartUs == b.StartUs && a.EndUs > b.EndUs {
				order = sortOrder(evs, nodes)
				clear(nodes)
				goto link
			}
		}
		nd := &nodes[i]
		nd.src, nd.parent, nd.kern, nd.stack = s, -1, s, s
		nd.first, nd.last, nd.next = -1, -1, -1
		e := &evs[s]
		hasBackward = hasBackward || e.Scope == ScopeBackwardFunction
		hasStack = hasStack || e.Stack != nil
		// The event's own figures, read here once; step 4 finishes them from the nodes alone.
		if e.DeviceType == devices.CPU {
			nd.cpuTotal = e.ElapsedUs()
		}
		if e.IsAsync {
			continue
		}
		if e.DeviceType != devices.CPU {
			nd.deviceTotal = e.ElapsedUs()
			nd.selfDevice = nd.deviceTotal
			continue
		}
		nd.tree = true
		nd.legacy = e.IsLegacy
		nd.selfCPUMem, nd.selfDevMem = e.CPUMemoryUsage, e.DeviceMemoryUsage
		for _, k := range e.Kernels {
			nd.deviceTotal += k.DurationUs // the kernels' sum until step 4
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
			top := st[len(st)-1]
			if e.StartUs >= top.end || e.EndUs > top.end {
				st = st[:len(st)-1]
				continue
			}
			break
		}
		if len(st) > 0 {
			p := st[len(st)-1].i
			pn := &nodes[p]
			if pn.last < 0 {
				pn.first = int32(i)
			} else {
				nodes[pn.last].next = int32(i)
			}
			pn.last = int32(i)
			nd.parent = p
		}
		last.st = append(st, open{int32(i), e.EndUs})
	}
	// 2. collapse a same-name only child into its parent, to a fixpoint. One pass in index
	// order reaches it: parents come before their children, so by the time an event is looked
	// at its parent is final, and a parent's child list only changes while it has one child —
	// an event that is not collapsed when looked at never becomes collapsible later.
	var deleted []bool
	for i := 0; i < n; i++ {
		p := nodes[i].parent
		if p < 0 || nodes[p].first < 0 || nodes[p].first != nodes[p].last || evs[nodes[p].src].Name != evs[nodes[i].src].Name {
			continue
		}
		if deleted == nil {
			deleted = make([]bool, n)
		}
		nodes[p].first, nodes[p].last = nodes[i].first, nodes[i].last
		nodes[p].kern = nodes[i].kern
		nodes[p].deviceTotal = nodes[i].deviceTotal // the kernels' sum
		for c := nodes[i].first; c >= 0; c = nodes[c].next {
			nodes[c].parent = p
		}
		deleted[i] = true
	}
	if deleted != nil {
		nodes = compact(nodes, deleted)
		n = len(nodes)
	}
	// 3. backward ops take the stack of their forward op.
	if hasBackward && hasStack {
		setBackwardStacks(evs, nodes)
	}
	// 4. derived figures. Self memory is the total minus the children's totals: parents come
	// before their children, so in index order a child still holds its total when it is
	// subtracted from its parent's. Times go children before parents, each sum as PyTorch
	// adds it: the children's times first, then subtracted from the event's.
	for i := range nodes {
		if p := nodes[i].parent; p >= 0 {
			nodes[p].selfCPUMem -= nodes[i].selfCPUMem
			nodes[p].selfDevMem -= nodes[i].selfDevMem
		}
	}
	for i := n - 1; i >= 0; i-- {
		nd := &nodes[i]
		if !nd.tree {
			continue
		}
		var childCPU, childDev float64
		for c := nd.first; c >= 0; c = nodes[c].next {
			childCPU += nodes[c].cpuTotal
			childDev += nodes[c].deviceTotal
		}
		nd.selfCPU = nd.cpuTotal - childCPU
		if !nd.legacy {
			nd.deviceTotal += childDev
		}
		nd.selfDevice = nd.deviceTotal - childDev
	}
	l.nodes = nodes
}

// sortKey is what orderByKeys sorts: an event's times and its index.
type sortKey struct {
	start, end float64
	i          int32
}

// sortOrder returns the order of evs by start time, the longer first on equal starts, keeping
// the input order of exact ties (PyTorch sorts by (start, −end) with Python's stable sort). It
// sorts a compact array of keys, which it lays out in scratch's memory (one node per event, not
// yet in use: the keys are smaller), so that a large list does not take fresh memory for them
// on top of the nodes; scratch's content is garbage afterwards. evs is not modified.
func sortOrder(evs []FunctionEvent, scratch []node) []int32 {
	var keys []sortKey
	if len(evs) > 0 && len(scratch) >= len(evs) {
		// Both types hold no pointers, and a node is larger than a key and at least as aligned.
		keys = unsafe.Slice((*sortKey)(unsafe.Pointer(&scratch[0])), len(evs))
	} else {
		keys = make([]sortKey, len(evs))
	}
	return orderByKeys(evs, keys)
}

// compact drops deleted nodes in place and renumbers the tree links. A deleted node was the
// only child of its parent, which took over its children, so no link of a kept node points to
// a deleted one.
func compact(nodes []node, deleted []bool) []node {
	remap := make([]int32, len(nodes))
	j := int32(0)
	for i := range nodes {
		remap[i] = -1
		if !deleted[i] {
			remap[i] = j
			j++
		}
	}
	re := func(k int32) int32 {
		if k < 0 {
			return k
		}
		return remap[k]
	}
	j = 0
	for i := range nodes {
		if deleted[i] {
			continue
		}
		nd := nodes[i]
		nd.parent, nd.first, nd.last, nd.next = re(nd.parent), re(nd.first), re(nd.last), re(nd.next)
		nodes[j] = nd
		j++
	}
	return nodes[:j]
}

// setBackwardStacks gives every op under a backward op the stack of the first forward op with
// the backward op's sequence number and forward thread (none when there is no such op).
func setBackwardStacks(evs []FunctionEvent, nodes []node) {
	// bw[i] is the nearest ancestor-or-self of i with the backward scope, −1 for none. Parents
	// come before their children in the list, so one pass fills it.
	bw := make([]int32, len(nodes))
	for i := range nodes {
		switch {
		case evs[nodes[i].src].Scope == ScopeBackwardFunction:
			bw[i] = int32(i)
		case nodes[i].parent >= 0:
			bw[i] = bw[nodes[i].parent]
		default:
			bw[i] = -1
		}
	}
	type key struct{ seq, thread int64 }
	fwd := map[key]int32{}
	for i := range nodes {
		if bw[i] < 0 {
			e := &evs[nodes[i].src]
			k := key{e.SequenceNr, e.Thread}
			if _, ok := fwd[k]; !ok {
				fwd[k] = nodes[i].src
			}
		}
	}
	for i := range nodes {
		if p := bw[i]; p >= 0 {
			e := &evs[nodes[p].src]
			s, ok := fwd[key{e.SequenceNr, e.FwdThread}]
			if !ok {
				s = -1
			}
			nodes[i].stack = s
		}
	}
}
