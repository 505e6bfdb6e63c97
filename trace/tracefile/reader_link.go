package tracefile

import (
	"cmp"
	"math"
	"slices"

	"github.com/orprof/orprof/devices"
)

// Rules 2–4 of LinkRule: the device events that rule 1 (the External id) leaves unlinked are
// charged by where their launch, their place in the launch order, or their start lies among
// the host operators. All of it is worked out from the records, in one sort of the host
// operators and one stack sweep per host thread.

// laterLinks are the device events rule 1 left to rules 2–4.
type laterLinks struct {
	launch  []laterDev // rule 2: a runtime call with the same correlation exists
	ranged  []laterDev // rule 3: range-profiler kernels without a correlation
	enclose []laterDev // rule 4: uncorrelated work on a device PyTorch does not attach
}

// laterDev is a device record waiting for a rule: its raw and event indexes, and for rule 2
// the raw index of its runtime call.
type laterDev struct {
	raw, ev, rt int32
	rule        LinkRule
}

func (x *laterLinks) n() int { return len(x.launch) + len(x.ranged) + len(x.enclose) }

// add files device record r (raw index raw, event ev) under the rule that may link it.
func (x *laterLinks) add(d *decoder, l *linker, r *rawEvent, raw, ev int32, trace devices.Type) {
	switch {
	case r.corr > 0:
		if rt, ok := l.runtimeIndex(r.corr); ok {
			x.launch = append(x.launch, laterDev{raw: raw, ev: ev, rt: rt, rule: ByLaunch})
		}
	case r.extID > 0:
		// An External id that names no operator, and nothing else to follow.
	case r.rangeKernel():
		x.ranged = append(x.ranged, laterDev{raw: raw, ev: ev, rt: -1, rule: ByOrder})
	case !attachable(deviceEventType(r.cat, trace)):
		x.enclose = append(x.enclose, laterDev{raw: raw, ev: ev, rt: -1, rule: ByEnclosing})
	}
}

// kernelLaunches are the runtime calls that launch one kernel each, which rule 3 pairs with
// range-profiler kernels in order.
var kernelLaunches = map[string]bool{
	"cudaLaunchKernel": true, "cudaLaunchKernelExC": true, "cuLaunchKernel": true, "cuLaunchKernelEx": true,
	"cudaLaunchCooperativeKernel": true, "hipLaunchKernel": true, "hipExtModuleLaunchKernel": true,
}

// hostIv is a host operator's (or runtime call's) interval on its thread.
type hostIv struct {
	tid     int64
	ts, end int64
	ev, raw int32
	// child is, in PyTorch's tree of the thread's events, the index (in the sorted slice) of
	// the only child, −1 for none, −2 for several.
	child int32
	rt    bool // a runtime call: part of the tree, never the operator a rule picks
}

// ivQuery asks for the innermost host operator holding [ts, end] (on tid, for rule 2).
type ivQuery struct {
	tid     int64
	ts, end int64
	at      int // index into the waiting device events
}

// linkLater applies rules 3, 2 and 4 to the device events rule 1 left, adding their pairs to
// lk (not in file order: linkRaws sorts them).
func (d *decoder) linkLater(lk *links, x *laterLinks, times func(*rawEvent) (float64, float64)) {
	l := lk.l
	// Rule 3 first: it finds each range kernel's launch, which then goes as rule 2's do.
	if len(x.ranged) > 0 {
		var launches []int32
		for i, r := range d.raws.all() {
			if r.kind == rawRuntime && kernelLaunches[d.nameStrs[r.name]] {
				launches = append(launches, int32(i))
			}
		}
		if len(launches) == len(x.ranged) {
			byTime := func(a, b int32) int {
				return cmp.Or(cmp.Compare(d.raws.at(int(a)).ts, d.raws.at(int(b)).ts), cmp.Compare(a, b))
			}
			slices.SortFunc(launches, byTime)
			slices.SortFunc(x.ranged, func(a, b laterDev) int { return byTime(a.raw, b.raw) })
			for j := range x.ranged {
				w := x.ranged[j]
				w.rt = launches[j]
				rt := d.raws.at(int(w.rt))
				if op, ok := l.ops.get(l.runtimeLink(rt)); ok {
					dev := d.raws.at(int(w.raw))
					lk.pairs = append(lk.pairs, d.pair(dev, int(w.ev), op, w.rt+1, ByOrder, times))
					continue
				}
				x.launch = append(x.launch, w)
			}
		}
	}
	if len(x.launch) == 0 && len(x.enclose) == 0 {
		return
	}
	ops := d.hostIntervals()
	found := func(w laterDev, op *hostIv) {
		// PyTorch's tree collapses a same-name only child into its parent, which then carries
		// the child's kernels instead of its own: charged to the parent, the time would be
		// lost from the table, so it goes to the child that survives in the parent's place.
		for op.child >= 0 && d.raws.at(int(ops[op.child].raw)).name == d.raws.at(int(op.raw)).name {
			op = &ops[op.child]
		}
		dev := d.raws.at(int(w.raw))
		lk.pairs = append(lk.pairs, d.pair(dev, int(w.ev), opRef{ev: op.ev, raw: op.raw}, w.rt+1, w.rule, times))
	}
	// Rule 2: the innermost operator holding the launch on the launch's thread.
	if len(x.launch) > 0 {
		qs := make([]ivQuery, len(x.launch))
		for i, w := range x.launch {
			rt := d.raws.at(int(w.rt))
			qs[i] = ivQuery{tid: rt.tid, ts: rt.ts, end: rt.ts + rt.dur, at: i}
		}
		slices.SortFunc(qs, func(a, b ivQuery) int {
			return cmp.Or(cmp.Compare(a.tid, b.tid), cmp.Compare(a.ts, b.ts), cmp.Compare(a.at, b.at))
		})
		var stack []*hostIv
		for lo := 0; lo < len(qs); {
			hi := lo + 1
			for hi < len(qs) && qs[hi].tid == qs[lo].tid {
				hi++
			}
			tOps := threadOps(ops, qs[lo].tid)
			stack = innermost(tOps, qs[lo:hi], stack, func(q *ivQuery, op *hostIv) {
				found(x.launch[q.at], op)
			})
			lo = hi
		}
	}
	// Rule 4: the innermost operator holding the start, on the thread where it is shortest.
	if len(x.enclose) > 0 {
		qs := make([]ivQuery, len(x.enclose))
		for i, w := range x.enclose {
			r := d.raws.at(int(w.raw))
			qs[i] = ivQuery{ts: r.ts, end: r.ts, at: i}
		}
		slices.SortFunc(qs, func(a, b ivQuery) int { return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(a.at, b.at)) })
		best := make([]*hostIv, len(x.enclose))
		var stack []*hostIv
		for lo := 0; lo < len(ops); {
			hi := lo + 1
			for hi < len(ops) && ops[hi].tid == ops[lo].tid {
				hi++
			}
			stack = innermost(ops[lo:hi], qs, stack, func(q *ivQuery, op *hostIv) {
				if b := best[q.at]; b == nil || op.end-op.ts < b.end-b.ts {
					best[q.at] = op
				}
			})
			lo = hi
		}
		for i, op := range best {
			if op != nil {
				found(x.enclose[i], op)
			}
		}
	}
}

// hostIntervals are the host operators that can launch work (not async) and the runtime
// calls, sorted by thread, then start, then longest first (so an operator comes before those
// it holds), with each one's only child in PyTorch's tree of the thread's events.
func (d *decoder) hostIntervals() []hostIv {
	n := 0
	for _, r := range d.raws.all() {
		if r.kind == rawHostOp && !r.async() || r.kind == rawRuntime {
			n++
		}
	}
	// Grouped by thread in file order (a counting sort: threads are few), then each thread's
	// events sorted by start, longest first, where the file has them out of that order (a
	// thread's events mostly come in it).
	threads := map[int64]int32{}
	var counts []int32
	lastTid, lastT := int64(math.MinInt64), int32(-1)
	for _, r := range d.raws.all() {
		if r.kind == rawHostOp && !r.async() || r.kind == rawRuntime {
			if r.tid != lastTid {
				t, ok := threads[r.tid]
				if !ok {
					t = int32(len(counts))
					threads[r.tid] = t
					counts = append(counts, 0)
				}
				lastTid, lastT = r.tid, t
			}
			counts[lastT]++
		}
	}
	// Threads in tid order, as threadOps searches them.
	tids := make([]int64, 0, len(threads))
	for tid := range threads {
		tids = append(tids, tid)
	}
	slices.Sort(tids)
	at := make([]int32, len(counts))
	var off int32
	for _, tid := range tids {
		t := threads[tid]
		at[t] = off
		off += counts[t]
	}
	ops := make([]hostIv, n)
	k := int32(-1)
	lastTid = math.MinInt64
	for i, r := range d.raws.all() {
		if r.kind == rawMemory || r.kind == rawOOM {
			continue
		}
		k++
		if r.kind == rawHostOp && !r.async() || r.kind == rawRuntime {
			if r.tid != lastTid {
				lastTid, lastT = r.tid, threads[r.tid]
			}
			ops[at[lastT]] = hostIv{tid: r.tid, ts: r.ts, end: r.ts + r.dur, ev: k, raw: int32(i), child: -1,
				rt: r.kind == rawRuntime}
			at[lastT]++
		}
	}
	byStart := func(a, b hostIv) int {
		switch {
		case a.ts != b.ts:
			if a.ts < b.ts {
				return -1
			}
			return 1
		case a.end != b.end:
			if a.end > b.end {
				return -1
			}
			return 1
		}
		return int(a.raw - b.raw)
	}
	for lo := 0; lo < len(ops); {
		hi := lo + 1
		sorted := true
		for hi < len(ops) && ops[hi].tid == ops[lo].tid {
			if sorted && byStart(ops[hi-1], ops[hi]) > 0 {
				sorted = false
			}
			hi++
		}
		if !sorted {
			sortByStart(ops[lo:hi], byStart)
		}
		lo = hi
	}
	// The tree as events.NewList builds it: an event's parent is the innermost open one that
	// it starts before the end of and does not outlast.
	var st []int32
	for i := range ops {
		o := &ops[i]
		if i > 0 && ops[i-1].tid != o.tid {
			st = st[:0]
		}
		for len(st) > 0 {
			top := &ops[st[len(st)-1]]
			if o.ts >= top.end || o.end > top.end {
				st = st[:len(st)-1]
				continue
			}
			break
		}
		if len(st) > 0 {
			p := &ops[st[len(st)-1]]
			if p.child == -1 {
				p.child = int32(i)
			} else {
				p.child = -2
			}
		}
		st = append(st, int32(i))
	}
	return ops
}

// threadOps is the part of ops (sorted by hostIntervals) on thread tid.
func threadOps(ops []hostIv, tid int64) []hostIv {
	lo, _ := slices.BinarySearchFunc(ops, tid, func(o hostIv, t int64) int { return cmp.Compare(o.tid, t) })
	hi := lo
	for hi < len(ops) && ops[hi].tid == tid {
		hi++
	}
	return ops[lo:hi]
}

// innermost sweeps the operators of one thread (sorted by start, longest first) and the
// queries (sorted by start) together, keeping the operators that hold each other on a stack,
// and calls pick with the innermost operator that holds each query's [ts, end], if any. It
// returns the stack for reuse.
func innermost(ops []hostIv, qs []ivQuery, stack []*hostIv, pick func(*ivQuery, *hostIv)) []*hostIv {
	stack = stack[:0]
	i := 0
	for qi := range qs {
		q := &qs[qi]
		for i < len(ops) && ops[i].ts <= q.ts {
			o := &ops[i]
			for len(stack) > 0 {
				top := stack[len(stack)-1]
				if top.ts <= o.ts && o.end <= top.end {
					break
				}
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, o)
			i++
		}
		for len(stack) > 0 && stack[len(stack)-1].end < q.ts {
			stack = stack[:len(stack)-1]
		}
		for j := len(stack) - 1; j >= 0; j-- {
			if o := stack[j]; !o.rt && o.ts <= q.ts && q.end <= o.end {
				pick(q, o)
				break
			}
		}
	}
	return stack
}

// sortByStart sorts one thread's intervals by byStart. Where the starts span less than 2^43 ns
// (2.4 hours) and there are fewer than 2^20 intervals, it sorts packed (start, position) keys,
// which needs no comparison function (a third of the time on the MTIA trace), then puts equal
// starts longest first.
func sortByStart(ops []hostIv, byStart func(a, b hostIv) int) {
	lo, hi := ops[0].ts, ops[0].ts
	for i := range ops {
		lo, hi = min(lo, ops[i].ts), max(hi, ops[i].ts)
	}
	const posBits = 20
	if len(ops) >= 1<<posBits || uint64(hi-lo) >= 1<<(63-posBits) {
		slices.SortFunc(ops, byStart)
		return
	}
	keys := make([]uint64, len(ops))
	for i := range ops {
		keys[i] = uint64(ops[i].ts-lo)<<posBits | uint64(i)
	}
	slices.Sort(keys)
	// Permute in place, cycle by cycle (position i takes the interval at keys[i]'s position),
	// without a sorted copy: the read's memory peaks about here.
	const done = 1 << 63
	for i := range keys {
		if keys[i]&done != 0 {
			continue
		}
		tmp := ops[i]
		j := i
		for {
			src := int(keys[j] & (1<<posBits - 1))
			keys[j] |= done
			if src == i {
				ops[j] = tmp
				break
			}
			ops[j] = ops[src]
			j = src
		}
	}
	for i := 0; i < len(ops); {
		j := i + 1
		for j < len(ops) && ops[j].ts == ops[i].ts {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(ops[i:j], byStart)
		}
		i = j
	}
}
