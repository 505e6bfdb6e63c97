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
	opts   ListOptions
	evs    []FunctionEvent
	nodes  []node
	hasAny bool
}

// node is the tree and the derived figures of one event.
type node struct {
	parent   int32 // −1 for none
	children []int32
	stack    []string // after backward stack propagation
	kernels  []Kernel // after same-name collapse

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
	e.Kernels = l.nodes[i].kernels
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

// Children returns the indexes of event i's direct CPU children, in start order.
func (l *List) Children(i int) []int {
	c := l.nodes[i].children
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

func (l *List) build(evs []FunctionEvent) {
	n := len(evs)
	nodes := make([]node, n)
	for i := range nodes {
		nodes[i].parent = -1
		nodes[i].kernels = evs[i].Kernels
	}
	// 1. parents and children per (thread, node id), events in (start, −end) order.
	type group struct {
		thread int64
		nodeID int
	}
	stacks := map[group][]int32{}
	for i := 0; i < n; i++ {
		e := &evs[i]
		if e.IsAsync || e.DeviceType != devices.CPU {
			continue
		}
		g := group{e.Thread, e.NodeID}
		st := stacks[g]
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
			nodes[p].children = append(nodes[p].children, int32(i))
			nodes[i].parent = p
		}
		stacks[g] = append(st, int32(i))
	}
	// 2. collapse a same-name only child into its parent, to a fixpoint.
	for {
		deleted := make([]bool, n)
		any := false
		for i := 0; i < n; i++ {
			p := nodes[i].parent
			if p < 0 || evs[p].Name != evs[i].Name || len(nodes[p].children) != 1 {
				continue
			}
			nodes[p].children = nodes[i].children
			nodes[p].kernels = nodes[i].kernels
			for _, c := range nodes[i].children {
				nodes[c].parent = p
			}
			deleted[i] = true
			any = true
		}
		if !any {
			break
		}
		evs, nodes = compact(evs, nodes, deleted)
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
			for _, c := range nd.children {
				childCPU += nodes[c].cpuTotal
				childDev += nodes[c].deviceTotal
				childCPUMem += evs[c].CPUMemoryUsage
				childDevMem += evs[c].DeviceMemoryUsage
			}
			nd.selfCPU = nd.cpuTotal - childCPU
			var k float64
			for _, kk := range nd.kernels {
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
	l.evs, l.nodes = evs, nodes
}

// compact drops deleted events and renumbers the tree links.
func compact(evs []FunctionEvent, nodes []node, deleted []bool) ([]FunctionEvent, []node) {
	remap := make([]int32, len(evs))
	j := int32(0)
	for i := range evs {
		if deleted[i] {
			remap[i] = -1
			continue
		}
		remap[i] = j
		j++
	}
	ne := make([]FunctionEvent, 0, j)
	nn := make([]node, 0, j)
	for i := range evs {
		if deleted[i] {
			continue
		}
		nd := nodes[i]
		if nd.parent >= 0 {
			nd.parent = remap[nd.parent]
		}
		ch := make([]int32, len(nd.children))
		for k, c := range nd.children {
			ch[k] = remap[c]
		}
		nd.children = ch
		ne = append(ne, evs[i])
		nn = append(nn, nd)
	}
	return ne, nn
}

func setBackwardStacks(evs []FunctionEvent, nodes []node) {
	hasBackward := false
	for i := range evs {
		if evs[i].Scope == ScopeBackwardFunction {
			hasBackward = true
			break
		}
	}
	if !hasBackward {
		return
	}
	bwParent := func(i int32) int32 {
		for i >= 0 {
			if evs[i].Scope == ScopeBackwardFunction {
				return i
			}
			i = nodes[i].parent
		}
		return -1
	}
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
