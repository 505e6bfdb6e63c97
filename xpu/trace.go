package xpu

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/orprof/orprof/trace"
)

// Trace categories and names of the scope profiler's events, as Kineto writes them.
const (
	// SliceCat is the category of the "metrics: <name>" slices (Kineto's CONCURRENT_KERNEL).
	SliceCat = "kernel"
	// SlicePrefix starts the name of every metrics slice.
	SlicePrefix = "metrics: "
	// CounterCat is the category of the counter events (XPU_SCOPE_PROFILER).
	CounterCat = "xpu_scope_profiler"
	// CounterName is the name of Kineto's single counter track, and the first word of every
	// per-metric track's name (CounterTrack).
	CounterName = "xpu"
)

// row is a device row of the trace: pid = device, tid = stream.
type row struct{ pid, tid int64 }

// span is a closed interval on a row.
type span struct{ start, end int64 }

// pads returns, per scope, how far its slice extends before its start and after its end:
// Kineto's 1 ns, but at most half the gap to the nearest slice entirely before (after) it on
// the same row, so that metrics slices of back-to-back kernels do not overlap each other or a
// neighbouring kernel or copy, never out of a slice that contains the scope and shares an
// end with it, and never before the trace's time base. Slices inside a scope's interval do not
// count.
func pads(t *trace.Trace, scopes []Scope, ks []KernelMetrics) (pre, post []int64) {
	rows := map[row][]span{}
	for i := range scopes {
		rows[row{int64(scopes[i].Device), scopes[i].Stream}] = nil
	}
	add := func(r row, s span) {
		if list, ok := rows[r]; ok {
			rows[r] = append(list, s)
		}
	}
	for i := range t.Events {
		e := &t.Events[i]
		if e.Ph == 'X' && e.PidStr == "" && e.TidStr == "" {
			add(row{e.Pid, e.Tid}, span{e.TsNs, e.TsNs + max(0, e.DurNs)})
		}
	}
	for i := range ks {
		add(row{int64(ks[i].Device), ks[i].Stream}, span{ks[i].StartNs, max(ks[i].StartNs, ks[i].EndNs)})
	}
	for i := range scopes {
		add(row{int64(scopes[i].Device), scopes[i].Stream}, span{scopes[i].StartNs, scopes[i].EndNs})
	}
	byEnd := map[row][]span{}
	for r, list := range rows {
		byStart := list
		sort.Slice(byStart, func(a, b int) bool { return byStart[a].start < byStart[b].start })
		e := append([]span(nil), list...)
		sort.Slice(e, func(a, b int) bool { return e[a].end < e[b].end })
		byEnd[r] = e
	}
	pre = make([]int64, len(scopes))
	post = make([]int64, len(scopes))
	for i := range scopes {
		s := &scopes[i]
		r := row{int64(s.Device), s.Stream}
		pre[i], post[i] = 1, 1
		// The latest end ≤ start among slices that start before the scope.
		e, b := byEnd[r], rows[r]
		for j := sort.Search(len(e), func(j int) bool { return e[j].end > s.StartNs }) - 1; j >= 0; j-- {
			if e[j].start < s.StartNs {
				pre[i] = min(1, (s.StartNs-e[j].end)/2)
				break
			}
		}
		// The earliest start ≥ end among slices that end after the scope.
		for j := sort.Search(len(b), func(j int) bool { return b[j].start >= s.EndNs }); j < len(b); j++ {
			if b[j].end > s.EndNs {
				post[i] = min(1, (b[j].start-s.EndNs)/2)
				break
			}
		}
		// Never out of a slice that contains the scope and shares its start or its end (a
		// fallback op interval, say).
		if s.StartNs < s.EndNs {
			for j := sort.Search(len(b), func(j int) bool { return b[j].start >= s.StartNs }); j < len(b) && b[j].start == s.StartNs; j++ {
				if b[j].end > s.EndNs {
					pre[i] = 0
				}
			}
			for j := sort.Search(len(e), func(j int) bool { return e[j].end >= s.EndNs }); j < len(e) && e[j].end == s.EndNs; j++ {
				if e[j].start < s.StartNs {
					post[i] = 0
				}
			}
		}
		// Never before the trace's time base, where the writer would clamp the start.
		pre[i] = max(0, min(pre[i], s.StartNs-t.BaseTimeNs))
	}
	return pre, post
}

// CounterTrack is the name of a metric's own counter track: "xpu <name> (<unit>)", or
// "xpu <name>" for a metric without a unit.
func CounterTrack(m MetricInfo) string {
	if m.Unit == "" {
		return CounterName + " " + m.Name
	}
	return CounterName + " " + m.Name + " (" + m.Unit + ")"
}

// appendScopes adds every scope's "metrics: <name>" slice and its counter pulses to t, and the
// device and stream rows it lacks. device names the device rows ("OPENREG 0"). The pulses are
// one per metric on its own track (CounterTrack), or with single one on Kineto's "xpu" track
// carrying every metric.
func appendScopes(t *trace.Trace, scopes []Scope, ks []KernelMetrics, device string, single bool) {
	pre, post := pads(t, scopes, ks)
	addRows(t, scopes, device)
	for i := range scopes {
		s := &scopes[i]
		start, end := s.StartNs-pre[i], s.EndNs+post[i]
		pid, tid := int64(s.Device), s.Stream
		args := make([]trace.Arg, 0, len(s.Values)+3)
		if s.Range {
			args = append(args, trace.Int("range_id", s.ID),
				trace.Int("kernels", int64(s.Kernels)))
		} else {
			args = append(args, trace.Int("kernel_id", s.ID))
		}
		args = append(args, trace.Str("queue", strconv.FormatInt(s.Stream, 10)))
		on := make([]trace.Arg, len(s.Values))
		off := make([]trace.Arg, len(s.Values))
		for m, v := range s.Values {
			info := s.Metrics[m]
			key := info.Name
			if info.Unit != "" {
				key += "::" + info.Unit
			}
			args = append(args, trace.Raw(key, formatValue(v, info.Type)))
			on[m] = trace.Raw(info.Name, formatDouble(v))
			off[m] = trace.Raw(info.Name, "0")
		}
		t.Events = append(t.Events,
			trace.Event{Ph: 'X', Cat: SliceCat, Name: SlicePrefix + s.Name, Pid: pid, Tid: tid,
				TsNs: start, DurNs: end - start, Args: args})
		if single {
			t.Events = append(t.Events,
				trace.Event{Ph: 'C', Cat: CounterCat, Name: CounterName, Pid: pid, Tid: tid, TsNs: start, Args: on},
				trace.Event{Ph: 'C', Cat: CounterCat, Name: CounterName, Pid: pid, Tid: tid, TsNs: end, Args: off})
			continue
		}
		for m := range s.Values {
			name := CounterTrack(s.Metrics[m])
			t.Events = append(t.Events,
				trace.Event{Ph: 'C', Cat: CounterCat, Name: name, Pid: pid, Tid: tid, TsNs: start, Args: on[m : m+1]},
				trace.Event{Ph: 'C', Cat: CounterCat, Name: name, Pid: pid, Tid: tid, TsNs: end, Args: off[m : m+1]})
		}
	}
}

// addRows adds the process row of every device and the thread row of every stream the scopes
// use, unless the trace has them (OpenReg's activity profiler adds them when it records kernels).
func addRows(t *trace.Trace, scopes []Scope, device string) {
	procs := map[int64]bool{}
	for _, p := range t.Processes {
		procs[p.Pid] = true
	}
	threads := map[row]bool{}
	for _, th := range t.Threads {
		threads[row{th.Pid, th.Tid}] = true
	}
	label := strings.ToUpper(device)
	for i := range scopes {
		s := &scopes[i]
		pid := int64(s.Device)
		if !procs[pid] {
			procs[pid] = true
			n := label + " " + strconv.Itoa(s.Device)
			t.Processes = append(t.Processes, trace.Process{Pid: pid, Name: n, Label: n, SortIndex: pid + 5000000})
		}
		if r := (row{pid, s.Stream}); !threads[r] {
			threads[r] = true
			t.Threads = append(t.Threads, trace.Thread{Pid: pid, Tid: s.Stream,
				Name: "stream " + strconv.FormatInt(s.Stream, 10) + " ", SortIndex: s.Stream})
		}
	}
}

// formatValue prints a slice arg as Kineto does for the metric's type: an integer, a double
// (formatDouble) or true/false.
func formatValue(v float64, t ValueType) string {
	switch t {
	case Uint64:
		return strconv.FormatFloat(math.Max(0, math.Round(v)), 'f', 0, 64)
	case Bool:
		if v != 0 {
			return "true"
		}
		return "false"
	}
	return formatDouble(v)
}

// formatDouble prints v as Kineto prints doubles (libfmt's "{}"): the shortest digits that
// read back as v, in fixed notation when the decimal exponent is in [-4, 16) and in exponent
// notation otherwise ("2048", "0.5", "1e+16", "1.25e-05"). Non-finite values, which a
// trace cannot hold, print as 0.
func formatDouble(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		return "0"
	}
	e := strconv.FormatFloat(v, 'e', -1, 64)
	exp, err := strconv.Atoi(e[strings.LastIndexByte(e, 'e')+1:])
	if err == nil && exp >= -4 && exp < 16 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return e
}
