package events

import (
	"github.com/orprof/orprof/internal/reserve"

	"github.com/orprof/orprof/devices"
)

// TreeEvent is one event of PyTorch's tree as a consumer of the whole tree (the op call tree
// of analysis/flame) takes it: handed over in list order, after the same-name collapse, by
// List.WalkTree and by an Averager (WalkTree), which keeps none of them. The two hand over
// the same events with the same figures, bit for bit (tests hold them to it on every trace
// in testdata).
type TreeEvent struct {
	// ID is the event's number within the walk (0 ≤ ID < Events, the number of events the
	// list or the Averager was made from; not dense); Parent is the ID of its CPU parent, −1
	// for none. A parent is handed over before its children.
	ID, Parent, Events int
	// Name, DeviceType and the flags are the FunctionEvent's.
	Name             string
	DeviceType       devices.Type
	IsAsync          bool
	IsLegacy         bool
	IsUserAnnotation bool
	StartUs, EndUs   float64
	// SelfCPUUs and SelfDeviceUs are List.SelfCPUTimeTotal and SelfDeviceTimeTotal.
	SelfCPUUs, SelfDeviceUs float64
	// Kernels are the event's kernels after the collapse (List.Event(i).Kernels). The slice
	// is valid during the call only.
	Kernels []Kernel
}

// WalkTree calls f with every event of l, in list order.
func (l *List) WalkTree(f func(*TreeEvent)) {
	var te TreeEvent
	for i := range l.nodes {
		nd := &l.nodes[i]
		e := &l.src[nd.src]
		te = TreeEvent{ID: i, Parent: int(nd.parent), Events: len(l.nodes), Name: e.Name, DeviceType: e.DeviceType, IsAsync: e.IsAsync,
			IsLegacy: e.IsLegacy, IsUserAnnotation: e.IsUserAnnotation, StartUs: e.StartUs, EndUs: e.EndUs,
			SelfCPUUs: nd.selfCPU, SelfDeviceUs: nd.selfDevice, Kernels: l.src[nd.kern].Kernels}
		f(&te)
	}
}

// treeLink is what an Averager that walks its tree keeps per event: its CPU parent (before
// the collapse; resolved when walked) and the event whose kernels it carries after it.
type treeLink struct{ parent, kern int32 }

// treeKernel is a kernel of event op, kept for the walk.
type treeKernel struct {
	op int32
	k  Kernel
}

// WalkTree makes Averages call f with every event, in list order, as List.WalkTree does for
// the list of the same events: the op tree of a trace streamed through the Averager (the
// events are not kept; the Averager keeps 8 bytes per event more, and each kernel's name).
// Call it before the first event is set; kernels added by AddKernel must then carry their
// names (AddNamedKernel).
func (a *Averager) WalkTree(f func(*TreeEvent)) {
	a.walk = f
	a.links = make([]treeLink, a.recs.n)
	for i := range a.links {
		a.links[i] = treeLink{parent: -1, kern: int32(i)}
	}
}

// WalksTree reports whether WalkTree was called.
func (a *Averager) WalksTree() bool { return a.walk != nil }

// GrowNamedKernels makes room for n kernels more to be added by AddNamedKernel (grown by
// append, the list of a large trace's kernels took several times its size).
func (a *Averager) GrowNamedKernels(n int) {
	if a.walk != nil {
		a.kerns = reserve.Room(a.kerns, n)
	}
}

// AddNamedKernel is AddKernel of k, whose name the tree walk hands over.
func (a *Averager) AddNamedKernel(i int, k Kernel) {
	a.recs.set(i).dev += k.DurationUs
	if a.walk != nil {
		a.kerns = append(a.kerns, treeKernel{int32(i), k})
	}
}

// kernelIndex lays the kept kernels out per event: event i's are all[at[i]:at[i+1]], those set
// with it first, then those added, each in the order given.
func (a *Averager) kernelIndex() (at []int32, all []Kernel) {
	n := a.recs.n
	total := len(a.kerns)
	for _, p := range a.parts {
		total += len(p.kerns)
	}
	if total == 0 {
		return nil, nil
	}
	at = make([]int32, n+1)
	count := func(ks []treeKernel) {
		for _, k := range ks {
			at[k.op+1]++
		}
	}
	for _, p := range a.parts {
		count(p.kerns)
	}
	count(a.kerns)
	for i := 1; i <= n; i++ {
		at[i] += at[i-1]
	}
	all = make([]Kernel, total)
	next := make([]int32, n)
	copy(next, at[:n])
	place := func(ks []treeKernel) {
		for _, k := range ks {
			all[next[k.op]] = k.k
			next[k.op]++
		}
	}
	// An event's own kernels were set by one part, before any was added to it.
	for _, p := range a.parts {
		place(p.kerns)
		p.kerns = nil
	}
	place(a.kerns)
	a.kerns = nil
	return at, all
}
