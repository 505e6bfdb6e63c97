package flame_test

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/orprof/orprof/analysis/flame"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace/tracefile"
)

func listOf(t *testing.T, path string) *events.List {
	t.Helper()
	data, err := tracefile.Open(path, tracefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return events.NewListOwned(data.Events, events.ListOptions{UseDevice: data.DeviceName})
}

// The tree's figures are the table's: per operator name, the self CPU of its nodes adds up to
// the table's Self CPU and their calls to its # of Calls; the root's CPU total is the table's
// Self CPU time total — up to pprof's rounding of each sample to whole nanoseconds.
func TestTreeMatchesTable(t *testing.T) {
	for _, name := range []string{"kineto/rocm_mi250_train.json.gz", "kineto/cuda_ns_resolution.json.gz", "kineto/cpu_only.json.gz"} {
		t.Run(name, func(t *testing.T) {
			l := listOf(t, filepath.Join("..", "..", "testdata", name))
			tree := flame.FromList(l)
			selfCPU, calls := map[string]int64{}, map[string]int64{}
			nodes := 0
			var walk func(n *flame.Node)
			walk = func(n *flame.Node) {
				for _, c := range n.Children {
					nodes++
					if !c.Kernel {
						selfCPU[c.Name] += c.SelfCPU
						calls[c.Name] += c.Calls
					}
					walk(c)
				}
			}
			walk(tree.Root)
			if nodes != tree.Nodes || nodes == 0 {
				t.Fatalf("Nodes = %d, the tree has %d", tree.Nodes, nodes)
			}
			rowsCPU, rowsCalls := map[string]float64{}, map[string]int64{}
			total := 0.0
			for _, r := range l.KeyAverages(events.AverageOptions{}) {
				if r.DeviceType != 0 {
					continue // device rows are kernel frames
				}
				rowsCPU[r.Key] += r.SelfCPUTimeTotal
				rowsCalls[r.Key] += r.Count
				total += r.SelfCPUTimeTotal
			}
			for k, us := range rowsCPU {
				if d := math.Abs(float64(selfCPU[k]) - us*1000); d > float64(rowsCalls[k])+1 {
					t.Errorf("%s: self CPU %d ns in the tree, %.3f µs in the table", k, selfCPU[k], us)
				}
				if calls[k] != rowsCalls[k] {
					t.Errorf("%s: %d calls in the tree, %d in the table", k, calls[k], rowsCalls[k])
				}
			}
			if d := math.Abs(float64(tree.Root.CPU) - total*1000); d > float64(nodes)+1 {
				t.Errorf("root CPU %d ns, table total %.3f µs", tree.Root.CPU, total)
			}
		})
	}
}

// Merging doubles every figure of a tree merged with itself and adds no node; pruning keeps
// the root's totals and at most the nodes asked for.
func TestMergePrune(t *testing.T) {
	tree := flame.FromList(listOf(t, filepath.Join("..", "..", "testdata", "kineto", "rocm_mi250_train.json.gz")))
	m := flame.Merge(tree, tree)
	if m.Nodes != tree.Nodes || m.Root.CPU != 2*tree.Root.CPU || m.Root.Device != 2*tree.Root.Device {
		t.Errorf("merged with itself: %d nodes, CPU %d, device %d; want %d, %d, %d", m.Nodes, m.Root.CPU, m.Root.Device,
			tree.Nodes, 2*tree.Root.CPU, 2*tree.Root.Device)
	}
	for _, c := range []struct {
		frac float64
		max  int
	}{{0, 0}, {0.01, 0}, {0, 10}, {0.001, 25}} {
		p := tree.Prune(c.frac, c.max)
		if p.Root.CPU != tree.Root.CPU || p.Root.Device != tree.Root.Device {
			t.Errorf("Prune(%v, %d) changed the totals", c.frac, c.max)
		}
		var count func(n *flame.Node) (int, int64, int64)
		count = func(n *flame.Node) (int, int64, int64) {
			k, cpu, dev := 0, n.SelfCPU, n.SelfDevice
			for _, ch := range n.Children {
				a, b, d := count(ch)
				k, cpu, dev = k+1+a, cpu+b, dev+d
			}
			if cpu != n.CPU || dev != n.Device {
				t.Errorf("Prune(%v, %d): %s totals %d/%d, its parts add to %d/%d", c.frac, c.max, n.Name, n.CPU, n.Device, cpu, dev)
			}
			return k, n.CPU, n.Device
		}
		n, _, _ := count(p.Root)
		if n != p.Nodes {
			t.Errorf("Prune(%v, %d): Nodes %d, the tree has %d", c.frac, c.max, p.Nodes, n)
		}
		if c.max > 0 && p.Nodes > 2*c.max {
			t.Errorf("Prune(%v, %d) kept %d nodes", c.frac, c.max, p.Nodes)
		}
		if c.frac == 0 && c.max == 0 && p.Nodes != tree.Nodes {
			t.Errorf("Prune(0, 0) dropped nodes: %d of %d", p.Nodes, tree.Nodes)
		}
	}
}

func ExampleFromList() {
	step := events.NewFunctionEvent(1, "step", 1, 0, 100)
	mm := events.NewFunctionEvent(2, "aten::mm", 1, 10, 70)
	add := events.NewFunctionEvent(3, "aten::add", 1, 75, 95)
	tree := flame.FromList(events.NewList([]events.FunctionEvent{step, mm, add}, events.ListOptions{}))
	var show func(n *flame.Node, indent string)
	show = func(n *flame.Node, indent string) {
		for _, c := range n.Children {
			fmt.Printf("%s%s: CPU %d ns (self %d), %d call\n", indent, c.Name, c.CPU, c.SelfCPU, c.Calls)
			show(c, indent+"  ")
		}
	}
	show(tree.Root, "")
	// Output:
	// step: CPU 100000 ns (self 20000), 1 call
	//   aten::mm: CPU 60000 ns (self 60000), 1 call
	//   aten::add: CPU 20000 ns (self 20000), 1 call
}
