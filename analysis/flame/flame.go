// Package flame is the op call tree of a profile as a summary an icicle (flame) graph draws:
// one node per distinct call path of operators (and kernels under the operator that launched
// them), with the path's CPU and device time, self and total, and its calls. A Builder makes
// it from the events of PyTorch's tree handed over in list order (a List's walk, or the
// table's Averager while a trace streams). Its figures are those of `orprof pprof` and of the
// table: a test folds pprof's profile of the same events (FromProfile) and holds the two
// trees equal node for node.
//
// A Tree merges (Merge) as the profiles of several ranks would: nodes with the same path add.
// Nothing here draws; report/html renders a Tree.
package flame

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/google/pprof/profile"

	"github.com/orprof/orprof/analysis/pprof"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/quote"
)

// Node is one call path. Times are nanoseconds.
type Node struct {
	Name string `json:"name"`
	// Kernel marks device work (a kernel, memcpy, … frame) rather than an operator.
	Kernel bool `json:"kernel,omitempty"`
	// SelfCPU, SelfDevice and Calls are the path's own sample; CPU and Device add its
	// children's totals.
	SelfCPU    int64   `json:"self_cpu_ns"`
	SelfDevice int64   `json:"self_device_ns"`
	CPU        int64   `json:"cpu_ns"`
	Device     int64   `json:"device_ns"`
	Calls      int64   `json:"calls"`
	Children   []*Node `json:"children,omitempty"`
}

// Tree is the call tree of one profile (or of merged ones): Root is a nameless node whose
// children are the top-level operators and the device work linked to none.
type Tree struct {
	Root *Node `json:"root"`
	// Nodes counts the nodes under Root.
	Nodes int `json:"nodes"`
}

// FromList is the call tree of l's operators, as `orprof pprof` writes it: the tree a Builder
// makes of l's walk (events.List.WalkTree).
func FromList(l *events.List) *Tree {
	b := NewBuilder()
	l.WalkTree(b.Add)
	return b.Tree()
}

// FromProfile folds the samples of a profile pprof.FromList made into the tree of their stacks.
// Children are in the order their path first occurs among the samples.
func FromProfile(p *profile.Profile) *Tree {
	t := &Tree{Root: &Node{}}
	type key struct {
		parent *Node
		name   string
		kernel bool
	}
	idx := map[key]*Node{}
	for _, s := range p.Sample {
		n := t.Root
		for i := len(s.Location) - 1; i >= 0; i-- {
			name, kernel := pprof.FrameName(s.Location[i])
			k := key{n, name, kernel}
			c, ok := idx[k]
			if !ok {
				c = &Node{Name: name, Kernel: kernel}
				idx[k] = c
				n.Children = append(n.Children, c)
				t.Nodes++
			}
			n = c
		}
		n.SelfCPU += s.Value[pprof.CPUTime]
		n.SelfDevice += s.Value[pprof.DeviceTime]
		n.Calls += s.Value[pprof.Calls]
	}
	t.Root.total()
	return t
}

// total sets n's totals from its own figures and its children's, depth first.
func (n *Node) total() {
	n.CPU, n.Device = n.SelfCPU, n.SelfDevice
	for _, c := range n.Children {
		c.total()
		n.CPU += c.CPU
		n.Device += c.Device
	}
}

// Merge adds the trees in order into a new one: nodes with the same path (names and kinds
// from the root) add their figures; a path's children are in the order they first occur.
// The inputs are not modified.
func Merge(trees ...*Tree) *Tree {
	out := &Tree{Root: &Node{}}
	for _, t := range trees {
		out.Nodes += mergeInto(out.Root, t.Root)
	}
	out.Root.total()
	return out
}

// mergeInto adds src's own figures and children into dst; it returns the nodes it created.
func mergeInto(dst, src *Node) int {
	dst.SelfCPU += src.SelfCPU
	dst.SelfDevice += src.SelfDevice
	dst.Calls += src.Calls
	made := 0
	for _, sc := range src.Children {
		var dc *Node
		for _, c := range dst.Children {
			if c.Name == sc.Name && c.Kernel == sc.Kernel {
				dc = c
				break
			}
		}
		if dc == nil {
			dc = &Node{Name: sc.Name, Kernel: sc.Kernel}
			dst.Children = append(dst.Children, dc)
			made++
		}
		made += mergeInto(dc, sc)
	}
	return made
}

// Prune returns a copy of t without the nodes whose CPU and device totals are both below
// frac of the root's (frac 0.001: nodes narrower than a thousandth of the graph, which an
// icicle draws under a pixel), keeping at most maxNodes nodes (the widest first; 0: no cap).
// What a dropped node took is kept in its parent as a child named "(other)" with the summed
// figures, so every total is unchanged.
func (t *Tree) Prune(frac float64, maxNodes int) *Tree {
	r := t.Root
	minCPU, minDev := int64(float64(r.CPU)*frac), int64(float64(r.Device)*frac)
	keep := func(n *Node) bool { return n.CPU > minCPU || n.Device > minDev }
	if maxNodes > 0 && t.Nodes > maxNodes {
		// Raise the thresholds until at most maxNodes nodes pass: the widest by the larger of
		// their two shares.
		var shares []float64
		var walk func(n *Node)
		walk = func(n *Node) {
			for _, c := range n.Children {
				shares = append(shares, share(c, r))
				walk(c)
			}
		}
		walk(r)
		slices.SortFunc(shares, func(a, b float64) int { return cmp.Compare(b, a) })
		if cut := shares[maxNodes-1]; cut > 0 {
			old := keep
			keep = func(n *Node) bool { return old(n) && share(n, r) >= cut }
		}
	}
	out := &Tree{}
	var cp func(n *Node) *Node
	cp = func(n *Node) *Node {
		c := *n
		c.Children = nil
		var other *Node
		for _, ch := range n.Children {
			if keep(ch) {
				c.Children = append(c.Children, cp(ch))
				out.Nodes++
				continue
			}
			if other == nil {
				other = &Node{Name: "(other)"}
			}
			other.CPU += ch.CPU
			other.Device += ch.Device
			other.SelfCPU += ch.CPU
			other.SelfDevice += ch.Device
			other.Calls += ch.Calls
		}
		if other != nil {
			c.Children = append(c.Children, other)
			out.Nodes++
		}
		return &c
	}
	out.Root = cp(r)
	return out
}

// share is the larger of n's CPU and device shares of the root's totals.
func share(n, root *Node) float64 {
	s := 0.0
	if root.CPU > 0 {
		s = float64(n.CPU) / float64(root.CPU)
	}
	if root.Device > 0 {
		s = max(s, float64(n.Device)/float64(root.Device))
	}
	return s
}

// Check reports the first figure of t that no Builder or Merge could have made (a tree read
// back from a file): no root, a named root, a node without a name or with negative calls, a
// total that is not its self figure plus its children's, a node count that is not the tree's.
func (t *Tree) Check() error {
	if t.Root == nil {
		return fmt.Errorf("no root")
	}
	if t.Root.Name != "" || t.Root.Kernel {
		return fmt.Errorf("the root has a name (%s)", quote.String(t.Root.Name))
	}
	n := 0
	var check func(nd *Node, path string) error
	check = func(nd *Node, path string) error {
		cpu, dev := nd.SelfCPU, nd.SelfDevice
		for _, c := range nd.Children {
			if c == nil || c.Name == "" {
				return fmt.Errorf("node under %s: no name", quote.String(path))
			}
			n++
			p := path + ";" + c.Name
			if c.Calls < 0 {
				return fmt.Errorf("node %s: %d calls", quote.String(p), c.Calls)
			}
			if err := check(c, p); err != nil {
				return err
			}
			cpu += c.CPU
			dev += c.Device
		}
		if cpu != nd.CPU || dev != nd.Device {
			return fmt.Errorf("node %s: totals %d and %d ns are not its own and its children's (%d, %d)",
				quote.String(path), nd.CPU, nd.Device, cpu, dev)
		}
		return nil
	}
	if err := check(t.Root, ""); err != nil {
		return err
	}
	if n != t.Nodes {
		return fmt.Errorf("nodes %d, the tree has %d", t.Nodes, n)
	}
	return nil
}
