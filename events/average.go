package events

import (
	"hash/maphash"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/orprof/orprof/devices"
)

// AverageOptions select the grouping of KeyAverages.
type AverageOptions struct {
	// GroupByInputShape adds the input shapes to the key (key_averages(group_by_input_shape=True)).
	GroupByInputShape bool
	// GroupByStackN adds the first N stack frames to the key.
	GroupByStackN int
	// GroupByOverloadName adds the overload name to the key.
	GroupByOverloadName bool
}

// Avg is one row of KeyAverages: the sums over every event with the same key, PyTorch's
// FunctionEventAvg. Times are µs, memory bytes.
type Avg struct {
	Key              string
	NodeID           int
	IsAsync          bool
	IsRemote         bool
	IsLegacy         bool
	IsUserAnnotation bool
	DeviceType       devices.Type
	Scope            int
	// InputShapes is set only when grouping by input shape ("" = None).
	InputShapes string
	// Stack is the first GroupByStackN frames of the first event.
	Stack        []string
	OverloadName string
	// HasParent is whether the first event had a CPU parent (top_level_events_only).
	HasParent bool

	Count                 int64
	CPUTimeTotal          float64
	SelfCPUTimeTotal      float64
	DeviceTimeTotal       float64
	SelfDeviceTimeTotal   float64
	CPUMemoryUsage        int64
	SelfCPUMemoryUsage    int64
	DeviceMemoryUsage     int64
	SelfDeviceMemoryUsage int64
	Flops                 int64
}

// CPUTime is the average CPU time per call (0 when Count is 0).
func (a *Avg) CPUTime() float64 {
	if a.Count == 0 {
		return 0
	}
	return a.CPUTimeTotal / float64(a.Count)
}

// DeviceTime is the average device time per call (0 when Count is 0).
func (a *Avg) DeviceTime() float64 {
	if a.Count == 0 {
		return 0
	}
	return a.DeviceTimeTotal / float64(a.Count)
}

// KeyAverages groups the events by PyTorch's key — name, node id, device type, legacy flag,
// user-annotation flag, plus the overload name, input shapes or first stack frames when asked —
// and sums each group. Rows come in the order their key first occurs in the list. The list is
// not modified; calling it twice gives the same result.
//
// A large list is grouped by several goroutines, each over a contiguous part: each finds the
// row of its events and sums the integer figures; the parts' rows are then merged in order, so
// a row keeps its first event's attributes, and the times are summed in one pass in list
// order, so every float sum is exactly the sequential one.
func (l *List) KeyAverages(o AverageOptions) []Avg {
	n := len(l.nodes)
	parts := 1
	if n >= 1<<16 {
		parts = min(runtime.GOMAXPROCS(0), 4)
	}
	ids := make([]int32, n)
	gs := make([]*grouper, parts)
	var wg sync.WaitGroup
	for p := range parts {
		gs[p] = newGrouper(o)
		lo, hi := n*p/parts, n*(p+1)/parts
		if p == parts-1 {
			l.groupPart(gs[p], ids, lo, hi) // the last part on this goroutine
			break
		}
		wg.Go(func() { l.groupPart(gs[p], ids, lo, hi) })
	}
	wg.Wait()
	// Merge the parts' rows in order and renumber each event's row.
	all := gs[0]
	for p := 1; p < parts; p++ {
		remap := all.merge(gs[p])
		for i := n * p / parts; i < n*(p+1)/parts; i++ {
			ids[i] = remap[ids[i]]
		}
	}
	rows := all.rows
	for i := range l.nodes {
		nd := &l.nodes[i]
		a := &rows[ids[i]]
		a.CPUTimeTotal += nd.cpuTotal
		a.DeviceTimeTotal += nd.deviceTotal
		a.SelfCPUTimeTotal += nd.selfCPU
		a.SelfDeviceTimeTotal += nd.selfDevice
	}
	return rows
}

// groupPart finds the row of events lo..hi in g (ids[i]) and sums their integer figures.
func (l *List) groupPart(g *grouper, ids []int32, lo, hi int) {
	o := g.o
	for i := lo; i < hi; i++ {
		nd := &l.nodes[i]
		e := &l.src[nd.src]
		var st []string
		if o.GroupByStackN > 0 {
			st = l.stackOf(i)
			if len(st) > o.GroupByStackN {
				st = st[:o.GroupByStackN]
			}
		}
		k := g.find(e.Name, e.NodeID, e.DeviceType, e.IsLegacy, e.IsUserAnnotation, e.OverloadName,
			e.InputShapes, st)
		if k < 0 {
			a := Avg{Key: e.Name, NodeID: e.NodeID, IsAsync: e.IsAsync, IsRemote: e.IsRemote,
				IsLegacy: e.IsLegacy, IsUserAnnotation: e.IsUserAnnotation, DeviceType: e.DeviceType,
				Scope: e.Scope, HasParent: nd.parent >= 0}
			if o.GroupByInputShape {
				a.InputShapes = e.InputShapes
			}
			if o.GroupByOverloadName {
				a.OverloadName = e.OverloadName
			}
			if o.GroupByStackN > 0 {
				a.Stack = append([]string(nil), st...)
			}
			k = g.add(a)
		}
		ids[i] = int32(k)
		a := &g.rows[k]
		a.Count++
		a.CPUMemoryUsage += e.CPUMemoryUsage
		a.DeviceMemoryUsage += e.DeviceMemoryUsage
		a.SelfCPUMemoryUsage += nd.selfCPUMem
		a.SelfDeviceMemoryUsage += nd.selfDevMem
		a.Flops += e.Flops
	}
}

// grouper finds the row of a key: an open-addressing hash table of row indexes whose keys are
// compared field by field against the rows themselves, so a lookup costs one hash of the name
// (and of the optional key strings) and no key string built or allocated.
type grouper struct {
	o     AverageOptions
	seed  maphash.Seed
	rows  []Avg
	hash  []uint64 // hash of each row's key
	slots []int32  // row index + 1; 0 is empty. len is a power of two
	h     uint64   // hash of the key last looked up, for add
	// recent is the row (+ 1) last found for a name, by where the name's bytes are: a
	// trace's names are interned, so most lookups end here without hashing the name
	// (BenchmarkGroupRecent). recentAt is the entry of the key last looked up, for add.
	recent   [1024]int32
	recentAt int
}

var groupSeed = maphash.MakeSeed()

func newGrouper(o AverageOptions) *grouper {
	return &grouper{o: o, seed: groupSeed, rows: make([]Avg, 0, 64), slots: make([]int32, 256)}
}

// shapesKey is the input shapes as the key spells them: "" (None) is "None".
func shapesKey(s string) string {
	if s == "" {
		return "None"
	}
	return s
}

// find returns the row of a key (st: the first GroupByStackN frames; fields the options leave
// out of the key are ignored), or −1 after remembering the key's hash for add.
func (g *grouper) find(name string, nodeID int, dev devices.Type, legacy, userAnnotation bool,
	overload, shapes string, st []string) int {
	at := int((uintptr(unsafe.Pointer(unsafe.StringData(name)))>>3 ^ uintptr(len(name))) & uintptr(len(g.recent)-1))
	g.recentAt = at
	if r := g.recent[at] - 1; r >= 0 && g.matches(&g.rows[r], name, nodeID, dev, legacy, userAnnotation, overload, shapes, st) {
		return int(r)
	}
	h := maphash.String(g.seed, name)
	h ^= (uint64(uint32(nodeID))<<24 | uint64(dev)<<8 | uint64(boolByte(legacy))<<1 |
		uint64(boolByte(userAnnotation))) * 0x9e3779b97f4a7c15
	if g.o.GroupByOverloadName {
		h = h*31 ^ maphash.String(g.seed, overload)
	}
	if g.o.GroupByInputShape {
		h = h*31 ^ maphash.String(g.seed, shapesKey(shapes))
	}
	for _, f := range st {
		h = h*31 ^ maphash.String(g.seed, f)
	}
	h ^= uint64(len(st))
	g.h = h
	mask := uint64(len(g.slots) - 1)
	for s := h & mask; ; s = (s + 1) & mask {
		r := g.slots[s] - 1
		if r < 0 {
			return -1
		}
		if g.hash[r] == h && g.matches(&g.rows[r], name, nodeID, dev, legacy, userAnnotation, overload, shapes, st) {
			g.recent[at] = r + 1
			return int(r)
		}
	}
}

// matches reports whether row a has the key (fields the options leave out of the key are
// ignored).
func (g *grouper) matches(a *Avg, name string, nodeID int, dev devices.Type, legacy, userAnnotation bool,
	overload, shapes string, st []string) bool {
	return a.Key == name && a.NodeID == nodeID && a.DeviceType == dev && a.IsLegacy == legacy &&
		a.IsUserAnnotation == userAnnotation &&
		(!g.o.GroupByOverloadName || a.OverloadName == overload) &&
		(!g.o.GroupByInputShape || shapesKey(a.InputShapes) == shapesKey(shapes)) &&
		slices.Equal(a.Stack, st)
}

// merge adds the rows of o to g, summing the integer figures of rows whose key g has, and
// returns the index in g of each row of o. Rows new to g keep o's order and attributes.
func (g *grouper) merge(o *grouper) []int32 {
	remap := make([]int32, len(o.rows))
	for r := range o.rows {
		a := &o.rows[r]
		k := g.find(a.Key, a.NodeID, a.DeviceType, a.IsLegacy, a.IsUserAnnotation,
			a.OverloadName, a.InputShapes, a.Stack)
		if k < 0 {
			k = g.add(*a)
		} else {
			b := &g.rows[k]
			b.Count += a.Count
			b.CPUMemoryUsage += a.CPUMemoryUsage
			b.DeviceMemoryUsage += a.DeviceMemoryUsage
			b.SelfCPUMemoryUsage += a.SelfCPUMemoryUsage
			b.SelfDeviceMemoryUsage += a.SelfDeviceMemoryUsage
			b.Flops += a.Flops
		}
		remap[r] = int32(k)
	}
	return remap
}

// add appends a row for the key find last looked up and returns its index.
func (g *grouper) add(a Avg) int {
	g.rows = append(g.rows, a)
	g.hash = append(g.hash, g.h)
	g.recent[g.recentAt] = int32(len(g.rows))
	if 2*len(g.rows) > len(g.slots) {
		g.slots = make([]int32, 2*len(g.slots))
		for r, h := range g.hash {
			g.insert(h, int32(r))
		}
	} else {
		g.insert(g.h, int32(len(g.rows)-1))
	}
	return len(g.rows) - 1
}

func (g *grouper) insert(h uint64, r int32) {
	mask := uint64(len(g.slots) - 1)
	s := h & mask
	for g.slots[s] != 0 {
		s = (s + 1) & mask
	}
	g.slots[s] = r + 1
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// TotalAverage sums every row into one named "Total" (EventList.total_average()).
func TotalAverage(avgs []Avg) Avg {
	t := Avg{Key: "Total", NodeID: -1}
	for i := range avgs {
		a := &avgs[i]
		t.Count += a.Count
		t.CPUTimeTotal += a.CPUTimeTotal
		t.DeviceTimeTotal += a.DeviceTimeTotal
		t.SelfCPUTimeTotal += a.SelfCPUTimeTotal
		t.SelfDeviceTimeTotal += a.SelfDeviceTimeTotal
		t.CPUMemoryUsage += a.CPUMemoryUsage
		t.DeviceMemoryUsage += a.DeviceMemoryUsage
		t.SelfCPUMemoryUsage += a.SelfCPUMemoryUsage
		t.SelfDeviceMemoryUsage += a.SelfDeviceMemoryUsage
		t.Flops += a.Flops
	}
	return t
}

// SortKey resolves a PyTorch sort_by attribute name to a value of a row. The cuda, xpu,
// privateuse1 and device-name spellings are aliases of the device ones
// (self_cuda_time_total = self_device_time_total). It returns false for an unknown name.
func SortKey(name, deviceName string) (func(a *Avg) float64, bool) {
	n := strings.ToLower(name)
	for _, alias := range []string{"cuda", "xpu", "privateuse1", "privateuseone", "mtia", "hpu", deviceName} {
		if alias == "" {
			continue
		}
		n = strings.ReplaceAll(n, alias+"_", "device_")
	}
	switch n {
	case "cpu_time_total":
		return func(a *Avg) float64 { return a.CPUTimeTotal }, true
	case "self_cpu_time_total":
		return func(a *Avg) float64 { return a.SelfCPUTimeTotal }, true
	case "cpu_time":
		return func(a *Avg) float64 { return a.CPUTime() }, true
	case "device_time_total":
		return func(a *Avg) float64 { return a.DeviceTimeTotal }, true
	case "self_device_time_total":
		return func(a *Avg) float64 { return a.SelfDeviceTimeTotal }, true
	case "device_time":
		return func(a *Avg) float64 { return a.DeviceTime() }, true
	case "cpu_memory_usage":
		return func(a *Avg) float64 { return float64(a.CPUMemoryUsage) }, true
	case "self_cpu_memory_usage":
		return func(a *Avg) float64 { return float64(a.SelfCPUMemoryUsage) }, true
	case "device_memory_usage":
		return func(a *Avg) float64 { return float64(a.DeviceMemoryUsage) }, true
	case "self_device_memory_usage":
		return func(a *Avg) float64 { return float64(a.SelfDeviceMemoryUsage) }, true
	case "count":
		return func(a *Avg) float64 { return float64(a.Count) }, true
	case "flops":
		return func(a *Avg) float64 { return float64(a.Flops) }, true
	case "node_id":
		return func(a *Avg) float64 { return float64(a.NodeID) }, true
	}
	return nil, false
}
