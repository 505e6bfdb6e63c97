package events

import (
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/orprof/orprof/devices"
)

// RecordKind says what a raw Record is.
type RecordKind uint8

// The raw record kinds a session collects.
const (
	RangeRecord  RecordKind = iota // an operator or user range with its start and end
	MemoryRecord                   // an allocation (positive bytes) or free (negative)
	MarkRecord                     // an instant marker
)

// Record is what a session collected for one range, allocation or marker, before any tree is
// built. Device time has already been measured: DeviceElapsedUs is the backend's Elapsed between
// the events recorded around the range, or negative when there were none.
type Record struct {
	Kind      RecordKind
	Name      string
	Handle    int64
	Thread    int64 // logical thread the range started on
	EndThread int64 // logical thread it ended on
	StartNs   int64
	EndNs     int64
	// Shapes are the input shapes when shapes were recorded; nil otherwise.
	Shapes     [][]int64
	SequenceNr int64
	FwdThread  int64
	Scope      int
	Async      bool
	Stack      []string
	// DeviceElapsedUs is the fallback device time of a range; < 0 when not measured.
	DeviceElapsedUs float64
	DeviceIndex     int
	// Bytes and MemoryDevice describe a MemoryRecord.
	Bytes        int64
	MemoryDevice devices.Type
}

// IsAsync reports whether the range is async: flagged so, or ended on another thread than the
// one it began on. Async ranges take no part in the tree and get no device time.
func (r *Record) IsAsync() bool { return r.Async || r.Thread != r.EndThread }

// FormatShapes renders shapes as Python's str() of a list of lists: "[[64, 64], []]".
func FormatShapes(shapes [][]int64) string {
	if len(shapes) == 0 {
		return "[]"
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range shapes {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('[')
		for j, d := range s {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatInt(d, 10))
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.String()
}

// FromRecords turns a session's raw range records into FunctionEvents the way PyTorch's
// fallback parser does: times relative to baseNs in µs, the ProfilerStep* wildcard, filtered
// names dropped, async when flagged or when the range ended on another thread, device time
// truncated to whole µs and appended as one fake kernel (marking the event legacy) when ≥ 1 µs.
// Memory and mark records are left for AttachMemory, which runs once every host event is
// known. The result is sorted by (start, −end). Records are not modified.
func FromRecords(recs []Record, baseNs int64) []FunctionEvent {
	out := make([]FunctionEvent, 0, len(recs))
	for i := range recs {
		if fe, ok := recs[i].Event(baseNs); ok {
			out = append(out, fe)
		}
	}
	SortEvents(out)
	return out
}

// Event is the FunctionEvent FromRecords makes of r; false for the records it leaves out
// (memory, marks, filtered names).
func (r *Record) Event(baseNs int64) (FunctionEvent, bool) {
	if r.Kind != RangeRecord || FilterName(r.Name) {
		return FunctionEvent{}, false
	}
	fe := NewFunctionEvent(r.Handle, r.Name, r.Thread,
		float64(r.StartNs-baseNs)/1000.0, float64(r.EndNs-baseNs)/1000.0)
	fe.InputShapes = FormatShapes(r.Shapes)
	fe.SequenceNr = r.SequenceNr
	fe.FwdThread = r.FwdThread
	fe.Scope = r.Scope
	fe.Stack = r.Stack
	fe.IsAsync = r.IsAsync()
	fe.DeviceIndex = r.DeviceIndex
	if !fe.IsAsync && r.DeviceElapsedUs >= 0 {
		if us := int64(r.DeviceElapsedUs); us > 0 {
			fe.Kernels = []Kernel{{Name: fe.Name, Device: r.DeviceIndex, DurationUs: float64(us)}}
			fe.IsLegacy = true
		}
	}
	return fe, true
}

// AttachMemory adds the memory records among recs to evs: to every host event that contains
// them (any thread, as PyTorch's Kineto-path parser does), the rest as top-level "[memory]"
// events. Call it once evs holds every host event, a child profiler's runtime calls included.
// evs is modified in place and returned, possibly grown, sorted by (start, −end).
func AttachMemory(evs []FunctionEvent, recs []Record, baseNs int64) []FunctionEvent {
	var mems []int
	for i := range recs {
		if recs[i].Kind == MemoryRecord {
			mems = append(mems, i)
		}
	}
	if len(mems) == 0 {
		return evs
	}
	evs = attributeMemory(evs, recs, mems, baseNs)
	SortEvents(evs)
	return evs
}

// attributeMemory adds each memory record to every host event, on any thread, whose closed
// interval [start, end] contains it, as PyTorch's Kineto-path parser does; records inside none
// become top-level "[memory]" events at their own time on their own thread, numbered after the
// largest id.
func attributeMemory(evs []FunctionEvent, recs []Record, mems []int, baseNs int64) []FunctionEvent {
	idx := make([]int, 0, len(evs))
	var maxID int64
	for i := range evs {
		if evs[i].DeviceType == devices.CPU {
			idx = append(idx, i)
		}
		maxID = max(maxID, evs[i].ID)
	}
	sort.SliceStable(idx, func(a, b int) bool { return evs[idx[a]].StartUs < evs[idx[b]].StartUs })
	// Sweep the records in time order, keeping the events open at that time: each record costs
	// the number of events open around it, not the number of events.
	order := make([]int, len(mems))
	ts := make([]float64, len(mems))
	for k, mi := range mems {
		order[k] = k
		ts[k] = float64(recs[mi].StartNs-baseNs) / 1000.0
	}
	sort.SliceStable(order, func(a, b int) bool { return ts[order[a]] < ts[order[b]] })
	covered := make([]bool, len(mems))
	var open []int
	next := 0
	for _, k := range order {
		m := &recs[mems[k]]
		t := ts[k]
		for next < len(idx) && evs[idx[next]].StartUs <= t {
			open = append(open, idx[next])
			next++
		}
		kept := open[:0]
		for _, j := range open {
			if evs[j].EndUs >= t {
				kept = append(kept, j)
			}
		}
		open = kept
		for _, j := range open {
			covered[k] = true
			if m.MemoryDevice == devices.CPU {
				evs[j].CPUMemoryUsage += m.Bytes
			} else {
				evs[j].DeviceMemoryUsage += m.Bytes
			}
		}
	}
	for k, mi := range mems {
		if covered[k] {
			continue
		}
		m := &recs[mi]
		maxID++
		fe := FunctionEvent{ID: maxID, Name: "[memory]", Thread: m.Thread, NodeID: -1, StartUs: ts[k], EndUs: ts[k],
			FwdThread: m.Thread, InputShapes: "[]", SequenceNr: -1}
		if m.MemoryDevice == devices.CPU {
			fe.CPUMemoryUsage = m.Bytes
		} else {
			fe.DeviceMemoryUsage = m.Bytes
		}
		evs = append(evs, fe)
	}
	return evs
}

// parallelSortMin is the smallest slice sortKeys sorts on two goroutines: below it the
// goroutine and the merge cost more than they save.
const parallelSortMin = 1 << 15

// minRunAvg is the average length of the ascending runs from which sortKeys merges the runs
// rather than sorting from scratch.
const minRunAvg = 32

// sortKeys sorts keys by cmp, a total order (no two keys compare equal, so every sort gives
// the same result). Keys that come in long ascending runs, as a trace's events come in file
// order (the MTIA trace's 138k in 1,037 runs), are sorted by merging the runs pairwise, pass
// after pass (ten there), instead of from scratch. A large slice is sorted in two halves on
// two goroutines, which are then merged.
func sortKeys[K any](keys []K, cmp func(a, b K) int) {
	sortKeysRuns(keys, ascendingRuns(keys, cmp, len(keys)/minRunAvg), cmp)
}

// sortKeysRuns is sortKeys of keys whose ascending runs start at runs (0 first), as
// ascendingRuns finds them; nil sorts from scratch.
func sortKeysRuns[K any](keys []K, runs []int, cmp func(a, b K) int) {
	n := len(keys)
	sort := func(lo, hi int) {
		if runs == nil {
			slices.SortFunc(keys[lo:hi], cmp)
			return
		}
		// The runs inside [lo, hi), from lo: a run cut by lo or hi is still ascending.
		i, _ := slices.BinarySearch(runs, lo+1)
		starts := []int{0}
		for ; i < len(runs) && runs[i] < hi; i++ {
			starts = append(starts, runs[i]-lo)
		}
		mergeRuns(keys[lo:hi], starts, cmp)
	}
	if n < parallelSortMin || runtime.GOMAXPROCS(0) < 2 {
		sort(0, n)
		return
	}
	h := n / 2
	done := make(chan struct{})
	go func() {
		sort(0, h)
		close(done)
	}()
	sort(h, n)
	<-done
	a := slices.Clone(keys[:h]) // the merge writes over the first half
	merge(keys, a, keys[h:], cmp)
}

// ascendingRuns returns where each ascending run of keys starts (0 first), or nil when there
// are more than most of them.
func ascendingRuns[K any](keys []K, cmp func(a, b K) int, most int) []int {
	if len(keys) == 0 || most < 1 {
		return nil
	}
	runs := []int{0}
	for i := 1; i < len(keys); i++ {
		if cmp(keys[i], keys[i-1]) < 0 {
			if len(runs) == most {
				return nil
			}
			runs = append(runs, i)
		}
	}
	return runs
}

// mergeRuns sorts keys, whose ascending runs start at starts (0 first), by merging neighbouring
// runs until one is left. starts is used up.
func mergeRuns[K any](keys []K, starts []int, cmp func(a, b K) int) {
	if len(starts) < 2 {
		return
	}
	src, dst := keys, make([]K, len(keys))
	b := append(starts, len(keys)) // run k is [b[k], b[k+1])
	for len(b) > 2 {
		m := 0
		for k := 0; k+1 < len(b); k += 2 {
			lo := b[k]
			if k+2 < len(b) {
				merge(dst[lo:b[k+2]], src[lo:b[k+1]], src[b[k+1]:b[k+2]], cmp)
			} else {
				copy(dst[lo:], src[lo:b[k+1]])
			}
			b[m] = lo // k/2 ≤ k: no bound yet to be read is overwritten
			m++
		}
		b[m] = len(keys)
		b = b[:m+1]
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// merge merges the ascending a and b into out (len(a)+len(b) long), taking from a on ties. out
// may be the memory of b when a is not: the merge writes out[i] after it reads b up to i.
func merge[K any](out, a, b []K, cmp func(a, b K) int) {
	i := 0
	for len(a) > 0 && len(b) > 0 {
		if cmp(b[0], a[0]) < 0 {
			out[i], b = b[0], b[1:]
		} else {
			out[i], a = a[0], a[1:]
		}
		i++
	}
	i += copy(out[i:], a)
	copy(out[i:], b)
}

// SortEvents sorts events by start time, the longer first on equal starts, keeping the input
// order of exact ties (PyTorch sorts by (start, −end) with Python's stable sort). Lists that are
// already in order (traces usually are) cost one pass; others are sorted as a compact array of
// keys, whose permutation is then applied in place, so the large event structs move once.
func SortEvents(evs []FunctionEvent) {
	less := func(a, b *FunctionEvent) bool {
		if a.StartUs != b.StartUs {
			return a.StartUs < b.StartUs
		}
		return a.EndUs > b.EndUs
	}
	sorted := true
	for i := 1; i < len(evs); i++ {
		if less(&evs[i], &evs[i-1]) {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	perm := orderByKeys(evs, make([]sortKey, len(evs)))
	// Apply the permutation in place: position i takes the event at perm[i], cycle by cycle.
	for i := range perm {
		if perm[i] < 0 || int(perm[i]) == i {
			continue
		}
		tmp := evs[i]
		j := i
		for {
			k := int(perm[j])
			perm[j] = -1
			if k == i {
				evs[j] = tmp
				break
			}
			evs[j] = evs[k]
			j = k
		}
	}
}

// orderByKeys is the one event order: by start time, the longer first on equal starts, input
// order on exact ties (PyTorch's stable sort by (start, −end)). It fills keys (len(evs) long)
// and sorts them, on two goroutines when the list is large, and returns the permutation.
func orderByKeys(evs []FunctionEvent, keys []sortKey) []int32 {
	for i := range evs {
		e := &evs[i]
		keys[i] = sortKey{e.StartUs, e.EndUs, int32(i)}
	}
	return orderOfKeys(keys)
}

// compareTimes is the event order for finite times: by start, the longer (later end) first
// on equal starts, then by index.
func compareTimes(aStart, aEnd float64, ai int32, bStart, bEnd float64, bi int32) int {
	switch {
	case aStart < bStart:
		return -1
	case aStart > bStart:
		return 1
	case aEnd > bEnd:
		return -1
	case aEnd < bEnd:
		return 1
	}
	return int(ai - bi)
}

// orderOfKeys sorts keys (key i holding index i) as orderByKeys says and returns the indexes
// in their sorted order.
func orderOfKeys(keys []sortKey) []int32 {
	nan := false
	for i := range keys {
		nan = nan || keys[i].start != keys[i].start || keys[i].end != keys[i].end
	}
	if nan {
		// NaN breaks the ordering: keep exactly the stable sort's answer.
		slices.SortStableFunc(keys, func(a, b sortKey) int {
			switch {
			case a.start != b.start && a.start < b.start, a.start == b.start && a.end > b.end:
				return -1
			case a.start != b.start && b.start < a.start, a.start == b.start && b.end > a.end:
				return 1
			}
			return 0
		})
	} else {
		// Finite keys with the index as the last tie-break: any sort gives the stable order.
		sortKeys(keys, func(a, b sortKey) int { return compareTimes(a.start, a.end, a.i, b.start, b.end, b.i) })
	}
	order := make([]int32, len(keys))
	for i := range keys {
		order[i] = keys[i].i
	}
	return order
}
