package xpu

import (
	"math"
	"sort"

	"github.com/orprof/orprof/trace"
)

// Scope is one measured scope: a kernel (per-kernel mode) or a record_function range with the
// kernels it launched (per-range mode), and its metric values.
type Scope struct {
	// Name is the kernel's or the range's name; the trace slice is "metrics: " + Name.
	Name string
	// Range is true for a per-range scope.
	Range bool
	// ID is the kernel id (per kernel) or the range's correlation id, its "External id" (per
	// range).
	ID int64
	// Device and Stream place the scope: the kernel's, or the first kernel's of the range.
	Device int
	Stream int64
	// StartNs and EndNs are the kernel's interval, or the extent of the range's kernels
	// (absolute ns); the trace slice adds up to 1 ns on each side.
	StartNs, EndNs int64
	// Kernels is the number of kernels measured (1 per kernel).
	Kernels int
	// Metrics describes Values; it is shared by the scopes of a profile and read-only.
	Metrics []MetricInfo
	// Values are the metric values (aggregated over the kernels of a range), aligned with
	// Metrics, finite; Bool metrics are 0 or 1.
	Values []float64
}

// Value returns the value of the metric called name, and whether the scope has it.
func (s *Scope) Value(name string) (float64, bool) {
	for i, m := range s.Metrics {
		if m.Name == name {
			return s.Values[i], true
		}
	}
	return 0, false
}

// selectMetrics maps the configured names onto the source's metrics: their infos and their
// indices in the source's value slices. The names were validated.
func selectMetrics(names []string, available []MetricInfo) ([]MetricInfo, []int) {
	infos := make([]MetricInfo, 0, len(names))
	idx := make([]int, 0, len(names))
	for _, n := range names {
		for i, m := range available {
			if m.Name == n {
				infos = append(infos, m)
				idx = append(idx, i)
				break
			}
		}
	}
	return infos, idx
}

// clean makes v a value of the metric's type: finite, whole and ≥ 0 for Uint64, 0/1 for Bool.
func clean(v float64, t ValueType) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	switch t {
	case Uint64:
		return math.Max(0, math.Round(v))
	case Bool:
		if v != 0 {
			return 1
		}
		return 0
	}
	return v
}

// pick is a kernel's values of the selected metrics; a missing value is 0.
func pick(k *KernelMetrics, infos []MetricInfo, idx []int) []float64 {
	out := make([]float64, len(idx))
	for j, i := range idx {
		if i < len(k.Values) {
			out[j] = clean(k.Values[i], infos[j].Type)
		}
	}
	return out
}

// sortKernels orders kernels by start, then id.
func sortKernels(ks []KernelMetrics) {
	sort.SliceStable(ks, func(i, j int) bool {
		if ks[i].StartNs != ks[j].StartNs {
			return ks[i].StartNs < ks[j].StartNs
		}
		return ks[i].KernelID < ks[j].KernelID
	})
}

// kernelScopes makes one scope per kernel, in start order. ks is sorted.
func kernelScopes(ks []KernelMetrics, infos []MetricInfo, idx []int) []Scope {
	out := make([]Scope, 0, len(ks))
	for i := range ks {
		k := &ks[i]
		out = append(out, Scope{Name: k.Name, ID: k.KernelID, Device: k.Device, Stream: k.Stream,
			StartNs: k.StartNs, EndNs: max(k.EndNs, k.StartNs), Kernels: 1, Metrics: infos, Values: pick(k, infos, idx)})
	}
	return out
}

// hostRow is a host thread row of the trace.
type hostRow struct{ pid, tid int64 }

// rangeScopes makes one scope per record_function range (a "user_annotation" slice of t) that
// launched kernels, in the ranges' start order. A kernel belongs to the innermost range on the
// launching op's thread that contains the op's start: the op is the "cpu_op" or
// "user_annotation" slice whose "External id" is the kernel's Correlation (a kernel launched
// directly inside a range is linked to the range itself). Kernels outside every range, or
// whose op is not in t, are not measured. ks is sorted.
func rangeScopes(t *trace.Trace, ks []KernelMetrics, infos []MetricInfo, idx []int) []Scope {
	byExt := map[int64]int{}
	ranges := map[hostRow][]int{}
	for i := range t.Events {
		e := &t.Events[i]
		if e.Ph != 'X' || e.PidStr != "" || e.TidStr != "" || (e.Cat != "cpu_op" && e.Cat != "user_annotation") {
			continue
		}
		if id := externalID(e); id > 0 {
			if _, dup := byExt[id]; !dup {
				byExt[id] = i
			}
		}
		if e.Cat == "user_annotation" {
			r := hostRow{e.Pid, e.Tid}
			ranges[r] = append(ranges[r], i)
		}
	}
	for _, list := range ranges {
		sort.SliceStable(list, func(a, b int) bool {
			ea, eb := &t.Events[list[a]], &t.Events[list[b]]
			if ea.TsNs != eb.TsNs {
				return ea.TsNs < eb.TsNs
			}
			return ea.DurNs > eb.DurNs // the outer of two ranges starting together first
		})
	}
	// innermost is the range of the op at event index op, or -1.
	innermost := func(op int) int {
		o := &t.Events[op]
		list := ranges[hostRow{o.Pid, o.Tid}]
		n := sort.Search(len(list), func(i int) bool { return t.Events[list[i]].TsNs > o.TsNs })
		for i := n - 1; i >= 0; i-- {
			r := &t.Events[list[i]]
			if o.TsNs <= r.TsNs+r.DurNs {
				return list[i]
			}
		}
		return -1
	}
	rangeOf := map[int64]int{} // correlation → range event, memoized
	members := map[int][]int{} // range event → kernels
	for i := range ks {
		c := ks[i].Correlation
		if c <= 0 {
			continue
		}
		r, seen := rangeOf[c]
		if !seen {
			r = -1
			if op, ok := byExt[c]; ok {
				r = innermost(op)
			}
			rangeOf[c] = r
		}
		if r >= 0 {
			members[r] = append(members[r], i)
		}
	}
	order := make([]int, 0, len(members))
	for r := range members {
		order = append(order, r)
	}
	sort.Slice(order, func(a, b int) bool {
		ea, eb := &t.Events[order[a]], &t.Events[order[b]]
		if ea.TsNs != eb.TsNs {
			return ea.TsNs < eb.TsNs
		}
		return order[a] < order[b]
	})
	out := make([]Scope, 0, len(order))
	for _, r := range order {
		e := &t.Events[r]
		kk := members[r]
		first := &ks[kk[0]]
		s := Scope{Name: e.Name, Range: true, ID: externalID(e), Device: first.Device, Stream: first.Stream,
			StartNs: first.StartNs, EndNs: first.EndNs, Kernels: len(kk), Metrics: infos}
		vals := make([][]float64, len(kk))
		durs := make([]float64, len(kk))
		for j, ki := range kk {
			k := &ks[ki]
			s.StartNs = min(s.StartNs, k.StartNs)
			s.EndNs = max(s.EndNs, k.EndNs, k.StartNs)
			vals[j] = pick(k, infos, idx)
			durs[j] = float64(max(0, k.EndNs-k.StartNs))
		}
		s.Values = aggregate(infos, vals, durs)
		out = append(out, s)
	}
	return out
}

// aggregate combines per-kernel values (vals[k][m]) metric by metric, weighting Mean metrics by
// the kernels' durations.
func aggregate(infos []MetricInfo, vals [][]float64, durs []float64) []float64 {
	out := make([]float64, len(infos))
	var total float64
	for _, d := range durs {
		total += d
	}
	for m, info := range infos {
		agg := info.Aggregate
		if info.Type == Bool {
			agg = Max // whether any kernel was true
		}
		var v float64
		switch agg {
		case Sum:
			for k := range vals {
				v += vals[k][m]
			}
		case Max:
			for k := range vals {
				if k == 0 || vals[k][m] > v {
					v = vals[k][m]
				}
			}
		default: // Mean
			if total > 0 {
				for k := range vals {
					v += vals[k][m] * durs[k]
				}
				v /= total
			} else if len(vals) > 0 {
				for k := range vals {
					v += vals[k][m]
				}
				v /= float64(len(vals))
			}
		}
		out[m] = clean(v, info.Type)
	}
	return out
}

// externalID is an event's "External id" arg, 0 when absent or not an integer.
func externalID(e *trace.Event) int64 {
	for _, a := range e.Args {
		if a.Key == trace.ArgExternalID {
			n, _ := a.Int()
			return n
		}
	}
	return 0
}
