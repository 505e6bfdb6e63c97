package code

import (
	"cmp"
	"slices"
	"strings"
)

// By is what a row stands for.
type By uint8

const (
	// ByModule: the innermost nn.Module call, as a path of instance names (Net_0/Heavy_0).
	ByModule By = iota
	// ByLine: the innermost Python function outside torch's own files ("file.py(12): forward").
	ByLine
	// ByPhase: the outermost user annotation that names a phase (record_function("decode"),
	// "forward", "optimizer", …; doc.go says which) holding the op on its thread.
	ByPhase
)

// ParseBy reads a --by value: "module", "line" or "phase".
func ParseBy(s string) (By, bool) {
	switch s {
	case "module", "":
		return ByModule, true
	case "line":
		return ByLine, true
	case "phase":
		return ByPhase, true
	}
	return 0, false
}

// String returns "module", "line" or "phase".
func (b By) String() string {
	switch b {
	case ByLine:
		return "line"
	case ByPhase:
		return "phase"
	}
	return "module"
}

// byName is the By of a summary's "by".
func byName(s string) By {
	b, _ := ParseBy(s)
	return b
}

// None is the key of the row of what no module (or no source line) holds.
func (b By) None() string {
	switch b {
	case ByLine:
		return "(no source)"
	case ByPhase:
		return "(no phase)"
	}
	return "(no module)"
}

// Span is a Python call of the trace (a python_function event) on thread Tid.
type Span struct {
	Name           string
	Tid            int64
	StartNs, EndNs int64
}

// Op is a host operator or user annotation of the trace.
type Op struct {
	Name           string
	Tid            int64
	StartNs, EndNs int64
	// Seq and FwdThread are its "Sequence number" (−1: none) and "Fwd thread id" (0: none).
	Seq, FwdThread int64
	// Annotation is set for a user annotation (record_function, cat user_annotation).
	Annotation bool
}

// Kernel is device work: Op is the index in Input.Ops of the operator the reader linked it
// to, −1 when it reached none.
type Kernel struct {
	Name  string
	Op    int
	DurNs int64
}

// Flow is one end of a fwdbwd flow: Start for the forward end.
type Flow struct {
	ID    int64
	Start bool
	Tid   int64
	AtNs  int64
}

// Input is what attribution needs of one trace: nothing here depends on how it was read.
//
// Spans need hold only the calls that can name a row (nn.Module calls, functions of the
// user's code: Keyed): the others are transparent, as a call nests in its caller on its
// thread. Python is then how many python_function events the trace had (0: len(Spans)).
type Input struct {
	Spans   []Span
	Ops     []Op
	Kernels []Kernel
	Flows   []Flow
	Python  int
}

// Keyed reports whether a python_function event named name can name a row by module or by
// line: an nn.Module call or a function of the user's code.
func Keyed(name string) bool {
	return strings.HasPrefix(name, modulePrefix) || userFrame(name)
}

// Reasons for the time of the none row, and for device time left out.
const (
	ReasonOutside      = "forward ops outside any %s"
	ReasonOutsidePhase = "ops outside any %s"
	ReasonBwdNoForward = "backward ops whose forward op is not in the trace"
	ReasonBwdOutside   = "backward ops whose forward op is outside any %s"
	ReasonNoPhase      = "autograd ops of the backward pass that name no forward op (AccumulateGrad and the like)"
	ReasonUnlinked     = "device time linked to no operator by the reader"
)

// opInfo is what the passes learn of one op.
type opInfo struct {
	selfNs int64
	key    int32 // index into keys; −1: none
	bwd    bool
	reason uint8 // why key is −1 (reason* below)
	root   int32 // the innermost op at or above it with a FwdThread (a backward root); −1: none
}

const (
	reasonNone uint8 = iota
	reasonOutside
	reasonBwdNoForward
	reasonBwdOutside
	reasonNoPhase
)

// Attribute charges the ops of in, and the device time linked to them, to rows (doc.go says
// how). The result has every row, the none row among them when it has any time.
func Attribute(in *Input, by By) *Summary {
	ops := in.Ops
	info := make([]opInfo, len(ops))
	keys := []string{}
	keyIdx := map[string]int32{}
	intern := func(s string) int32 {
		if k, ok := keyIdx[s]; ok {
			return k
		}
		k := int32(len(keys))
		keys = append(keys, s)
		keyIdx[s] = k
		return k
	}
	calls := map[int32]int64{}

	// Per thread: the ops and spans in start order (longest first at equal starts).
	byTid := map[int64]*thread{}
	th := func(tid int64) *thread {
		t := byTid[tid]
		if t == nil {
			t = &thread{}
			byTid[tid] = t
		}
		return t
	}
	// Each thread's lists are cut from two shared ones, sized by a first count: appended to
	// one by one they would cost about twice their size in fresh memory.
	for i := range ops {
		th(ops[i].Tid).nOps++
	}
	for i := range in.Spans {
		th(in.Spans[i].Tid).nSpans++
	}
	allOps, allSpans := make([]int32, len(ops)), make([]int32, len(in.Spans))
	for _, t := range byTid {
		t.ops, allOps = allOps[:0:t.nOps], allOps[t.nOps:]
		t.spans, allSpans = allSpans[:0:t.nSpans], allSpans[t.nSpans:]
	}
	for i := range ops {
		t := byTid[ops[i].Tid]
		t.ops = append(t.ops, int32(i))
	}
	for i := range in.Spans {
		t := byTid[in.Spans[i].Tid]
		t.spans = append(t.spans, int32(i))
	}
	tids := make([]int64, 0, len(byTid))
	for tid := range byTid {
		tids = append(tids, tid)
	}
	slices.Sort(tids)

	// Pass 1, per thread: the op tree (self times, backward roots) and each op's innermost
	// span's key.
	for _, tid := range tids {
		t := byTid[tid]
		// (A thread's events mostly come in this order already: checked before sorting.)
		byOp := func(a, b int32) int {
			return cmp.Or(cmp.Compare(ops[a].StartNs, ops[b].StartNs), cmp.Compare(ops[b].EndNs, ops[a].EndNs))
		}
		if !slices.IsSortedFunc(t.ops, byOp) {
			slices.SortStableFunc(t.ops, byOp)
		}
		bySpan := func(a, b int32) int {
			sa, sb := &in.Spans[a], &in.Spans[b]
			return cmp.Or(cmp.Compare(sa.StartNs, sb.StartNs), cmp.Compare(sb.EndNs, sa.EndNs))
		}
		if !slices.IsSortedFunc(t.spans, bySpan) {
			slices.SortStableFunc(t.spans, bySpan)
		}
		// The op tree, by PyTorch's rule: a later op is a child of the top of the stack
		// when it starts before the top ends and does not end after it.
		var stack []int32
		for _, i := range t.ops {
			o := &ops[i]
			for len(stack) > 0 {
				p := &ops[stack[len(stack)-1]]
				if o.StartNs >= p.EndNs || o.EndNs > p.EndNs {
					stack = stack[:len(stack)-1]
					continue
				}
				break
			}
			info[i].selfNs += o.EndNs - o.StartNs
			info[i].root = -1
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				info[parent].selfNs -= o.EndNs - o.StartNs
				info[i].root = info[parent].root
			}
			if o.FwdThread > 0 {
				info[i].root = i
			}
			stack = append(stack, i)
		}
		// The spans: a stack of the calls open at each op's start, each with the key of the
		// innermost module (or user function) at or above it.
		type open struct {
			end int64
			key int32
		}
		if by == ByPhase {
			// The phases: a stack of the annotations open at each op's start, each with the
			// key of the outermost phase at or below it.
			var pst []open
			for _, i := range t.ops {
				o := &ops[i]
				for len(pst) > 0 && pst[len(pst)-1].end <= o.StartNs {
					pst = pst[:len(pst)-1]
				}
				key := int32(-1)
				if len(pst) > 0 {
					key = pst[len(pst)-1].key
				}
				if isPhase(o) {
					if key < 0 {
						key = intern(o.Name)
						calls[key]++
					}
					pst = append(pst, open{o.EndNs, key})
				}
				info[i].key = key
			}
			continue
		}
		var sst []open
		push := func(s *Span) {
			for len(sst) > 0 && sst[len(sst)-1].end <= s.StartNs {
				sst = sst[:len(sst)-1]
			}
			key := int32(-1)
			if len(sst) > 0 {
				key = sst[len(sst)-1].key
			}
			switch by {
			case ByModule:
				if m, ok := strings.CutPrefix(s.Name, modulePrefix); ok {
					if key >= 0 {
						m = keys[key] + "/" + m
					}
					key = intern(m)
					calls[key]++
				}
			case ByLine:
				if userFrame(s.Name) {
					key = intern(s.Name)
					calls[key]++
				}
			}
			sst = append(sst, open{s.EndNs, key})
		}
		next := 0
		for _, i := range t.ops {
			at := ops[i].StartNs
			for next < len(t.spans) && in.Spans[t.spans[next]].StartNs <= at {
				push(&in.Spans[t.spans[next]])
				next++
			}
			for len(sst) > 0 && sst[len(sst)-1].end <= at {
				sst = sst[:len(sst)-1]
			}
			info[i].key = -1
			if len(sst) > 0 {
				info[i].key = sst[len(sst)-1].key
			}
		}
		for ; next < len(t.spans); next++ { // the calls after the last op
			push(&in.Spans[t.spans[next]])
		}
	}

	// Pass 2: each backward root's forward op, by its fwdbwd flow, else by its sequence
	// number and forward thread.
	var fwdOf []int32
	if by != ByPhase {
		fwdOf = pairBackward(in, info, byTid, tids)
	}

	// Pass 3: the rows.
	r := &Summary{By: by.String()}
	rows := make([]*Row, len(keys)+1) // by key + 1 (0: the none row)
	row := func(k int32) *Row {
		x := rows[k+1]
		if x == nil {
			x = &Row{Kernels: map[string]int64{}}
			if k >= 0 {
				x.Key, x.Calls = keys[k], calls[k]
			} else {
				x.Key = by.None()
			}
			rows[k+1] = x
		}
		return x
	}
	for i := range ops {
		f := &info[i]
		switch {
		case f.root >= 0 && by == ByPhase:
			// A phase is where the op ran, backward too (a "backward" annotation around
			// loss.backward() holds the backward pass on its thread).
			f.bwd = true
			if f.key < 0 {
				f.reason = reasonOutside
			}
		case f.root >= 0:
			f.bwd = true
			fw := fwdOf[f.root]
			switch {
			case fw < 0 && ops[f.root].Seq < 0:
				f.key, f.reason = -1, reasonNoPhase
			case fw < 0:
				f.key, f.reason = -1, reasonBwdNoForward
			case info[fw].key < 0:
				f.key, f.reason = -1, reasonBwdOutside
			default:
				f.key = info[fw].key
			}
		case f.key < 0:
			f.reason = reasonOutside
		}
		x := row(f.key)
		if f.bwd {
			x.BwdCPUNs += f.selfNs
		} else {
			x.FwdCPUNs += f.selfNs
		}
		r.CPUNs += f.selfNs
		if f.key < 0 {
			r.addReason(f.reason, by, f.selfNs, 0)
		}
	}
	for _, k := range in.Kernels {
		if k.Op < 0 || k.Op >= len(ops) {
			r.UnlinkedDevNs += k.DurNs
			continue
		}
		f := &info[k.Op]
		x := row(f.key)
		if f.bwd {
			x.BwdDevNs += k.DurNs
		} else {
			x.FwdDevNs += k.DurNs
		}
		x.Kernels[k.Name] += k.DurNs
		r.DevNs += k.DurNs
		if f.key < 0 {
			r.addReason(f.reason, by, 0, k.DurNs)
		}
	}
	// Modules and functions that ran no op still have their calls.
	for k := range calls {
		row(k)
	}
	for _, x := range rows {
		if x != nil {
			r.Rows = append(r.Rows, *x)
		}
	}
	slices.SortFunc(r.Rows, func(a, b Row) int { return cmp.Compare(a.Key, b.Key) })
	return r
}

type thread struct {
	ops, spans   []int32
	nOps, nSpans int
}

// modulePrefix starts the name of the python_function event of an nn.Module's call.
const modulePrefix = "nn.Module: "

// userFrame reports whether a python_function event's name is a Python function of the
// user's code: "file.py(12): func" whose file is not in torch's own package (a path that
// starts with "torch/" or holds "/torch/"), nor Python's own threading bootstrap. C
// functions ("<built-in method …>") and module calls are not source lines.
func userFrame(name string) bool {
	if strings.HasPrefix(name, "<built-in") || strings.HasPrefix(name, modulePrefix) ||
		strings.HasPrefix(name, "nn.Optimizer: ") {
		return false
	}
	file, rest, ok := strings.Cut(name, "(")
	if !ok || !strings.Contains(rest, "): ") {
		return false
	}
	file = strings.ReplaceAll(file, "\\", "/")
	return !strings.HasPrefix(file, "torch/") && !strings.Contains(file, "/torch/") &&
		file != "threading.py" && !strings.HasSuffix(file, "/threading.py")
}

// pairBackward returns, for each op that is a backward root, the index of its forward op
// (−1: not found); −1 for the other ops.
func pairBackward(in *Input, info []opInfo, byTid map[int64]*thread, tids []int64) []int32 {
	ops := in.Ops
	fwdOf := make([]int32, len(ops))
	for i := range fwdOf {
		fwdOf[i] = -1
	}
	// The flows: each end binds to the innermost op on its thread that holds its time.
	if len(in.Flows) > 0 {
		starts := map[int64]int32{}
		var ends []Flow
		for _, f := range in.Flows {
			if f.Start {
				if op := opAt(ops, byTid[f.Tid], f.AtNs); op >= 0 {
					starts[f.ID] = op
				}
			} else {
				ends = append(ends, f)
			}
		}
		for _, f := range ends {
			op := opAt(ops, byTid[f.Tid], f.AtNs)
			fw, ok := starts[f.ID]
			if op < 0 || !ok || info[op].root < 0 || info[fw].root >= 0 {
				continue
			}
			if root := info[op].root; fwdOf[root] < 0 {
				fwdOf[root] = fw
			}
		}
	}
	// The sequence numbers: the last forward op (not in a backward pass) of each sequence
	// number on each thread. Every op records the number the next autograd node of its
	// thread will take; the op that makes the node is the last to record it.
	type tk struct{ tid, seq int64 }
	first := map[tk]int32{}
	bySeq := map[int64][]int64{} // seq → the threads that have a forward op of it
	for _, tid := range tids {
		for _, i := range byTid[tid].ops {
			o := &ops[i]
			if o.Seq < 0 || info[i].root >= 0 {
				continue
			}
			k := tk{tid, o.Seq}
			if _, ok := first[k]; !ok {
				bySeq[o.Seq] = append(bySeq[o.Seq], tid)
			}
			first[k] = i
		}
	}
	// A forward thread number names one trace thread: learnt from the sequence numbers that
	// only one thread has, then used where several do.
	votes := map[int64]map[int64]int{}
	var ambiguous []int32
	for i := range ops {
		o := &ops[i]
		if info[i].root != int32(i) || fwdOf[i] >= 0 || o.Seq < 0 {
			continue
		}
		switch ts := bySeq[o.Seq]; len(ts) {
		case 0:
		case 1:
			fwdOf[i] = first[tk{ts[0], o.Seq}]
			if votes[o.FwdThread] == nil {
				votes[o.FwdThread] = map[int64]int{}
			}
			votes[o.FwdThread][ts[0]]++
		default:
			ambiguous = append(ambiguous, int32(i))
		}
	}
	for _, i := range ambiguous {
		o := &ops[i]
		best, bestN := int64(0), 0
		for tid, n := range votes[o.FwdThread] {
			if n > bestN || n == bestN && tid < best {
				best, bestN = tid, n
			}
		}
		if bestN > 0 {
			if fw, ok := first[tk{best, o.Seq}]; ok {
				fwdOf[i] = fw
			}
		}
	}
	return fwdOf
}

// opAt returns the innermost op of t that holds time at (start ≤ at < end, or an op of no
// length starting at at), −1 if none.
func opAt(ops []Op, t *thread, at int64) int32 {
	if t == nil {
		return -1
	}
	// The ops are in start order: the candidates start at or before at.
	n, _ := slices.BinarySearchFunc(t.ops, at, func(i int32, at int64) int {
		if ops[i].StartNs <= at {
			return -1
		}
		return 1
	})
	best := int32(-1)
	for j := n - 1; j >= 0; j-- {
		o := &ops[t.ops[j]]
		if o.StartNs <= at && (at < o.EndNs || o.StartNs == o.EndNs && o.StartNs == at) {
			// The latest-starting op that holds at is the innermost.
			best = t.ops[j]
			break
		}
		if n-j > maxOpScan {
			break
		}
	}
	return best
}

// maxOpScan bounds how many ops opAt looks back over for one holding a flow's time (a flow
// binds to an op starting at its time: the first one looked at, in a trace PyTorch wrote).
const maxOpScan = 4096

// isPhase reports whether op o is a user annotation that names a phase: not a profiler step
// ("ProfilerStep#N", which every view has apart), and lasting some time (the CUDA-graph
// scopes the reader adds last 0 ns: they are the replay's, inside its phase).
func isPhase(o *Op) bool { return namesPhase(o.Annotation, o.Name, o.StartNs, o.EndNs) }

// namesPhase is isPhase of an event: a user annotation (annotation) named name.
func namesPhase(annotation bool, name string, startNs, endNs int64) bool {
	return annotation && endNs > startNs && !strings.HasPrefix(name, "ProfilerStep#")
}
