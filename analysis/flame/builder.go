package flame

import (
	"math"

	"github.com/orprof/orprof/internal/reserve"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
)

// Builder makes the call tree of a profile from its events handed over one at a time in list
// order (events.TreeEvent: from a List's walk, or from an events.Averager's while a trace is
// streamed, no event kept), without the pprof profile in between: the tree is the one
// FromProfile folds from pprof.FromList's profile of the same events, node for node and
// nanosecond for nanosecond (tests hold the two to it on every trace in testdata). It keeps a
// node per call path, the node of every event (8 bytes each) and a few figures per
// device event name.
//
// What goes where, as package pprof states it: an operator adds its self CPU time (rounded to
// whole ns) and one call to the node of its path (its name under its CPU parent's node); each
// of its kernels (not a fallback-mode op's, whose device time is its own) is a kernel node
// under it with the kernel's time and one call, and what its self device time leaves after
// its kernels goes to its own node; device work linked to no operator is a kernel node under
// the root per name; device-side user annotations and scope-profiler metrics slices are not
// device work, and a kernel named like an annotation is left out.
type Builder struct {
	t   *Tree
	idx map[nodeKey]*Node
	// node[id] is the node of the operator event id (nil: none). It is made once, at the
	// walk's size (TreeEvent.Events).
	node []*Node
	// kernels are the kernel nodes, each once, in creation order, to drop those under
	// operators named like a device-side annotation at the end (known only then).
	kernels []kernelNode
	annot   map[string]bool
	// Device work by name, in list order: its total and calls, and what of it went to ops.
	dev      map[string]*devSum
	devNames []string
}

type nodeKey struct {
	parent *Node
	name   string
	kernel bool
}

type kernelNode struct{ parent, n *Node }

type devSum struct {
	total, linked float64
	count, linkN  int64
	seen          bool // a device event of the name was added (devNames has it)
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{t: &Tree{Root: &Node{}}, idx: map[nodeKey]*Node{}, annot: map[string]bool{}, dev: map[string]*devSum{}}
}

// scanChildren is the number of children up to which child looks a name up among the
// parent's children rather than in idx: most nodes have a few, and the reader's names are
// interned (one pointer per name, so an equal name compares without reading its bytes),
// where the map hashed the whole name on every event (32 M instructions of orprof report on
// the MTIA trace).
const scanChildren = 8

func (b *Builder) child(parent *Node, name string, kernel bool) *Node {
	if len(parent.Children) <= scanChildren {
		for _, c := range parent.Children {
			if c.Kernel == kernel && c.Name == name {
				return c
			}
		}
		return b.newChild(parent, name, kernel)
	}
	k := nodeKey{parent, name, kernel}
	c, ok := b.idx[k]
	if !ok {
		c = b.newChild(parent, name, kernel)
	}
	return c
}

// newChild adds the node of name under parent, which has none (idx has every node, so that
// child finds it once parent has more children than it scans).
func (b *Builder) newChild(parent *Node, name string, kernel bool) *Node {
	c := &Node{Name: name, Kernel: kernel}
	if kernel {
		b.kernels = append(b.kernels, kernelNode{parent: parent, n: c})
	}
	b.idx[nodeKey{parent, name, kernel}] = c
	parent.Children = append(parent.Children, c)
	b.t.Nodes++
	return c
}

func (b *Builder) devSum(name string) *devSum {
	d := b.dev[name]
	if d == nil {
		d = &devSum{}
		b.dev[name] = d
	}
	return d
}

// Add takes the next event in list order (events.List.WalkTree, events.Averager.WalkTree).
func (b *Builder) Add(e *events.TreeEvent) {
	if e.DeviceType != devices.CPU {
		if e.IsUserAnnotation {
			b.annot[e.Name] = true
			return
		}
		if events.IsScopeMetrics(e.Name, e.DeviceType) {
			return
		}
		d := b.devSum(e.Name)
		if !d.seen {
			d.seen = true
			b.devNames = append(b.devNames, e.Name)
		}
		d.total += e.EndUs - e.StartUs
		d.count++
		return
	}
	parent := b.t.Root
	if e.Parent >= 0 && e.Parent < len(b.node) && b.node[e.Parent] != nil {
		parent = b.node[e.Parent]
	}
	n := b.child(parent, e.Name, false)
	if e.ID >= len(b.node) {
		b.node = reserve.Room(b.node, max(e.Events, e.ID+1)-len(b.node))
		b.node = b.node[:cap(b.node)]
	}
	b.node[e.ID] = n
	n.SelfCPU += ns(e.SelfCPUUs)
	n.Calls++
	selfDev := e.SelfDeviceUs
	if !e.IsLegacy {
		for _, k := range e.Kernels {
			selfDev -= k.DurationUs
			kn := b.child(n, k.Name, true)
			kn.SelfDevice += ns(k.DurationUs)
			kn.Calls++
			d := b.devSum(k.Name)
			d.linked += k.DurationUs
			d.linkN++
		}
	}
	if d := ns(selfDev); d != 0 {
		n.SelfDevice += d
	}
}

// Tree finishes the tree: the kernels named like device-side annotations left out, the
// device work no operator took under the root, the totals summed. The Builder is done.
func (b *Builder) Tree() *Tree {
	if len(b.annot) > 0 {
		drop := map[*Node]bool{}
		for _, k := range b.kernels {
			if b.annot[k.n.Name] {
				drop[k.n] = true
			}
		}
		for _, k := range b.kernels {
			if !drop[k.n] {
				continue
			}
			kept := k.parent.Children[:0]
			for _, c := range k.parent.Children {
				if !drop[c] {
					kept = append(kept, c)
				} else {
					b.t.Nodes--
					delete(drop, c)
				}
			}
			k.parent.Children = kept
		}
	}
	for _, name := range b.devNames {
		d := b.dev[name]
		linked, linkN := d.linked, d.linkN
		if b.annot[name] {
			linked, linkN = 0, 0
		}
		rest := ns(d.total - linked)
		calls := d.count - linkN
		if rest <= 0 && calls <= 0 {
			continue
		}
		n := b.child(b.t.Root, name, true)
		n.SelfDevice += max(rest, 0)
		n.Calls += max(calls, 0)
	}
	b.t.Root.total()
	t := b.t
	*b = Builder{}
	return t
}

func ns(us float64) int64 { return int64(math.Round(us * 1000)) }
