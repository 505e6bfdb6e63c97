package events

import (
	"strconv"
	"strings"

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
func (l *List) KeyAverages(o AverageOptions) []Avg {
	idx := make(map[string]int, 64)
	out := make([]Avg, 0, 64)
	var kb []byte
	for i := range l.nodes {
		nd := &l.nodes[i]
		e := &l.src[nd.src]
		kb = append(kb[:0], e.Name...)
		kb = append(kb, 0)
		kb = strconv.AppendInt(kb, int64(e.NodeID), 10)
		kb = append(kb, 0, byte(e.DeviceType), boolByte(e.IsLegacy), boolByte(e.IsUserAnnotation))
		if o.GroupByOverloadName {
			kb = append(kb, 0)
			kb = append(kb, e.OverloadName...)
		}
		if o.GroupByInputShape {
			kb = append(kb, 0)
			if e.InputShapes == "" {
				kb = append(kb, "None"...)
			} else {
				kb = append(kb, e.InputShapes...)
			}
		}
		if o.GroupByStackN > 0 {
			st := l.stackOf(i)
			if len(st) > o.GroupByStackN {
				st = st[:o.GroupByStackN]
			}
			for _, f := range st {
				kb = append(kb, 0)
				kb = append(kb, f...)
			}
		}
		k, ok := idx[string(kb)]
		if !ok {
			k = len(out)
			idx[string(kb)] = k
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
				st := l.stackOf(i)
				if len(st) > o.GroupByStackN {
					st = st[:o.GroupByStackN]
				}
				a.Stack = append([]string(nil), st...)
			}
			out = append(out, a)
		}
		a := &out[k]
		a.Count++
		a.CPUTimeTotal += nd.cpuTotal
		a.DeviceTimeTotal += nd.deviceTotal
		a.SelfCPUTimeTotal += nd.selfCPU
		a.SelfDeviceTimeTotal += nd.selfDevice
		a.CPUMemoryUsage += e.CPUMemoryUsage
		a.DeviceMemoryUsage += e.DeviceMemoryUsage
		a.SelfCPUMemoryUsage += nd.selfCPUMem
		a.SelfDeviceMemoryUsage += nd.selfDevMem
		a.Flops += e.Flops
	}
	return out
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
