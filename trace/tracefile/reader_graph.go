package tracefile

// Rule 0 of LinkRule (ByGraphScope): the kernels of a CUDA-graph replay charged to the scope
// that PyTorch's CUDA-graph annotations name for them.
//
// What the producer writes (PyTorch's Python trace exporter, torch/profiler's
// _chrome_trace_export.py, pytorch/pytorch#194854; earlier, the offline joiner
// torch/cuda/_annotate_cuda_graph_trace.py, which merged the same fields): a kernel,
// gpu_memcpy or gpu_memset event replayed from a CUDA graph carries Kineto's "graph node id"
// in its args (CUPTI's tools node id; kineto's output_json writes it for CUDA ≥ 12); when
// torch.cuda's mark_kernels recorded an annotation for that node, the annotation's fields are
// spliced into the same args as strings — "name" the scope (mark_kernels("x") records
// {"name": "x"}), any other key beside it — and the trace's top level has
// "cudaGraphInlineAnnotated": true. A node without an annotation keeps its args as Kineto
// wrote them.
//
// What the reader does with it: a device record with a non-zero "graph node id" and a string
// "name" argument names a scope. For each replay (the runtime call, cudaGraphLaunch, whose
// "correlation" the record carries) and each scope it names, the read adds one host
// operator of the scope's name — a cpu_op where the trace has a cpu_op of that name (the
// table keeps user annotations and ops of one name apart), else a user annotation — on the
// launch's thread at the launch's
// start, lasting 0 ns (no CPU runs it: the device replays it), and the scope's records are
// linked to it. The table therefore has a row of that name (merged with any operator of the
// trace that has it: rows are by name), kernels --by-op and every consumer see it as an
// operator, and PyTorch's tree puts it under the launch, so its module and phase are the
// replaying op's. A record of a replay without a scope, or whose launch is not in the trace,
// goes by the other rules (the launch's op, rule 2). LinkExternalID reads no scope.

// The args a graph annotation is read from.
const (
	argGraphNodeID = "graph node id"
	argGraphScope  = "name"
)

// graphScopeKey is the key of a scope's name in decoder.stacks, which holds the scopes of
// device records (a one-entry list) beside the host ops' call stacks: a parallel read
// renumbers both alike.
const graphScopeKey = "\x00graph scope\x00"

// graphScopeOf returns the index in d.stacks of the scope a device event's args name, −1
// when they name none.
func (d *decoder) graphScopeOf(ev *evFields) int32 {
	if ev.graphNode == 0 || !ev.hasGScope || len(ev.gScope) == 0 {
		return -1
	}
	d.graphScoped++
	key := graphScopeKey + string(ev.gScope)
	if id, ok := d.stackIdx[key]; ok {
		return id
	}
	if d.stackIdx == nil {
		d.stackIdx = map[string]int32{}
	}
	id := int32(len(d.stacks))
	d.stacks = append(d.stacks, []string{string(ev.gScope)})
	d.stackIdx[key] = id
	return id
}

// graphScopes are the host operators the read added for the scopes of CUDA-graph replays.
type graphScopes struct {
	ops   map[graphScopeRef]opRef
	rt    map[int64]int32  // the runtime calls by correlation: the first of each
	names map[int32]uint32 // a device record's scope (its stack id) → the scope's name id
}

// graphScopeRef is one scope of one replay: the raw index of its launch, the scope's name
// (the parts of a parallel read may give one scope several stack ids).
type graphScopeRef struct {
	launch int32
	name   uint32
}

// addGraphScopes adds, after the records, one host operator per scope of each replay (the
// file's comment says where), and returns them; nil when the trace names no scope or the
// read applies rule 1 alone.
func (d *decoder) addGraphScopes() *graphScopes {
	if d.graphScoped == 0 || d.format != Kineto || d.opts.Link != LinkAll {
		return nil
	}
	g := &graphScopes{ops: map[graphScopeRef]opRef{}, rt: map[int64]int32{}, names: map[int32]uint32{}}
	nEv := int32(0)
	for i, r := range d.raws.all() {
		if r.kind != rawMemory && r.kind != rawOOM {
			nEv++
		}
		if r.kind == rawRuntime && r.corr > 0 {
			if _, dup := g.rt[r.corr]; !dup {
				g.rt[r.corr] = int32(i)
			}
		}
	}
	// A scope takes the category of the trace's first host op of its name, so that the
	// table, which keeps user annotations and ops apart, has one row of that name.
	names := g.names
	cats := map[uint32]uint8{}
	for _, r := range d.raws.all() {
		if r.kind == rawDevice && r.stack >= 0 {
			if _, ok := names[r.stack]; !ok {
				n := d.internString(d.stacks[r.stack][0])
				names[r.stack], cats[n] = n, catUserAnnotation
			}
		}
	}
	seen := map[uint32]bool{}
	for _, r := range d.raws.all() {
		if r.kind == rawHostOp && !seen[r.name] {
			if _, ok := cats[r.name]; ok {
				seen[r.name] = true
				if r.cat == catCPUOp {
					cats[r.name] = catCPUOp
				}
			}
		}
	}
	var add []rawEvent
	for _, r := range d.raws.all() {
		if r.kind != rawDevice || r.stack < 0 || r.corr <= 0 {
			continue
		}
		rt, ok := g.rt[r.corr]
		if !ok {
			continue
		}
		name := names[r.stack]
		ref := graphScopeRef{launch: rt, name: name}
		if _, ok := g.ops[ref]; ok {
			continue
		}
		launch := d.raws.at(int(rt))
		g.ops[ref] = opRef{ev: nEv + int32(len(add)), raw: int32(d.raws.n + len(add))}
		add = append(add, rawEvent{ts: launch.ts, pid: launch.pid, tid: launch.tid, seq: -1,
			name: name, shapes: -1, stack: -1, node: -1, kind: rawHostOp, cat: cats[name], scope: -1})
	}
	if len(add) == 0 {
		return nil
	}
	for _, r := range add {
		d.raws.add(r)
	}
	d.catSeen[catUserAnnotation] = true
	return g
}

// find returns the operator added for device record r's scope and the raw index of its
// launch.
func (g *graphScopes) find(r *rawEvent) (opRef, int32, bool) {
	if g == nil || r.stack < 0 || r.corr <= 0 {
		return opRef{}, 0, false
	}
	rt, ok := g.rt[r.corr]
	if !ok {
		return opRef{}, 0, false
	}
	op, ok := g.ops[graphScopeRef{launch: rt, name: g.names[r.stack]}]
	return op, rt, ok
}
