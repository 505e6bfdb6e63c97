package export

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/trace/tracefile"
)

// The one place the export meets the reader's consumer contract (tracefile.Consumer): what it
// keeps of each event for the kernels and memory tables. Everything else is made from the
// analyses' summaries.

// devRec is what the kernels table keeps of one device event until the read ends, when its
// step is known (its launch, or its step's range, may come later in the file).
type devRec struct {
	name, op                  string
	start, dur                int64
	device, stream, corr, lch int64
	kind                      tracefile.Kind
	rule                      tracefile.LinkRule
	comm                      int32 // index into rows.comms, −1: none
}

type stepRange struct{ n, start, end int64 }

// devChunk is the device events a chunk of rows.devs holds: the records are made as the read
// hands the events over rather than reserved for all of them at Begin, when the reader's own
// records are all still held and the read's memory peaks.
const devChunk = 4096

// rows is the consumer that gathers one trace's device events and memory records.
type rows struct {
	rules    *kernels.Rules
	devs     [][]devRec // in chunks of devChunk, made as the events come
	comms    []tracefile.Collective
	commIdx  map[tracefile.Collective]int32
	launches map[int64]int64 // a runtime call's start by correlation (the first)
	steps    []stepRange
	mem      []MemoryRow
	rank     int64 // the trace's, as Begin was told it
}

func newRows(rules *kernels.Rules) *rows {
	return &rows{rules: rules, commIdx: map[tracefile.Collective]int32{}, launches: map[int64]int64{}}
}

// Needs asks for the device events' links and the memory records.
func (r *rows) Needs() tracefile.Needs { return tracefile.NeedLinks | tracefile.NeedMemory }

// Begin keeps the trace's rank and sizes the lists.
func (r *rows) Begin(info *tracefile.Info) {
	r.rank = info.Rank.Number
	r.mem = slices.Grow(r.mem, info.Counts.Memory)
}

// Finish ends the read: the rows are made when the tables are written.
func (r *rows) Finish() {}

// Event keeps a device event, a launch's start and a ProfilerStep's range.
func (r *rows) Event(ev *tracefile.Event) {
	switch {
	case ev.Kind == tracefile.KindMemory:
		r.memory(ev)
	case ev.Kind.Device():
		d := devRec{name: ev.Name, op: ev.Op, start: ev.StartNs, dur: ev.EndNs - ev.StartNs, device: ev.Pid,
			stream: ev.Stream, corr: ev.Correlation, lch: ev.Launch, kind: ev.Kind, rule: ev.Rule, comm: -1}
		if ev.Comm != nil {
			i, ok := r.commIdx[*ev.Comm]
			if !ok {
				i = int32(len(r.comms))
				r.comms = append(r.comms, *ev.Comm)
				r.commIdx[*ev.Comm] = i
			}
			d.comm = i
		}
		k := len(r.devs) - 1
		if k < 0 || len(r.devs[k]) == cap(r.devs[k]) {
			r.devs = append(r.devs, make([]devRec, 0, devChunk))
			k++
		}
		r.devs[k] = append(r.devs[k], d)
	case ev.Kind == tracefile.KindRuntime:
		if ev.Correlation != 0 {
			if _, dup := r.launches[ev.Correlation]; !dup {
				r.launches[ev.Correlation] = ev.StartNs
			}
		}
	case ev.Kind.Host():
		if s, ok := strings.CutPrefix(ev.Name, "ProfilerStep#"); ok {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				r.steps = append(r.steps, stepRange{n, ev.StartNs, ev.EndNs})
			}
		}
	}
}

// memory keeps a "[memory]" record.
func (r *rows) memory(ev *tracefile.Event) {
	m := &ev.Memory
	row := MemoryRow{TimeNs: ev.StartNs, DeviceType: m.DeviceType, DeviceID: m.DeviceID, Bytes: m.Bytes, Pid: ev.Pid, Tid: ev.Tid}
	if m.TotalAllocated >= 0 {
		row.TotalAllocated = ptr(m.TotalAllocated)
	}
	if m.TotalReserved >= 0 {
		row.TotalReserved = ptr(m.TotalReserved)
	}
	r.mem = append(r.mem, row)
}

// kernelRows hands the kernels table's rows of rank to emit in batches of at most n, in file
// order, each with its step: the ProfilerStep (one range per number: the hull of its ranges on
// every thread) whose host range holds its launch's start, or its own start when it has no
// launch (the timeline's rule).
func (r *rows) kernelRows(rank int64, n int, emit func([]KernelRow) error) error {
	slices.SortFunc(r.steps, func(a, b stepRange) int { return cmp.Compare(a.n, b.n) })
	steps := r.steps[:0]
	for _, s := range r.steps {
		if k := len(steps) - 1; k >= 0 && steps[k].n == s.n {
			steps[k].start, steps[k].end = min(steps[k].start, s.start), max(steps[k].end, s.end)
			continue
		}
		steps = append(steps, s)
	}
	slices.SortStableFunc(steps, func(a, b stepRange) int { return cmp.Compare(a.start, b.start) })
	type catKey struct {
		name string
		kind tracefile.Kind
	}
	cats := map[catKey]string{}
	batch := make([]KernelRow, 0, n)
	// Step numbers and collective figures are pointed to from the batch: one backing slice
	// each per batch.
	for _, ch := range r.devs {
		for i := range ch {
			d := &ch[i]
			row := KernelRow{Rank: rank, Device: d.device, Stream: d.stream, StartNs: d.start, DurNs: d.dur, Name: d.name,
				Kind: d.kind.String(), DeviceTime: d.kind.DeviceTime(), Op: d.op, LinkRule: d.rule.String(),
				Correlation: d.corr, Launch: d.lch}
			if d.kind.DeviceTime() {
				k := catKey{d.name, d.kind}
				c, ok := cats[k]
				if !ok {
					kr := kernels.Kernel{Name: d.name, Kind: d.kind}
					c = kr.Category(r.rules).String()
					cats[k] = c
				}
				row.Category = c
			}
			t := d.start
			if d.corr != 0 {
				if l, ok := r.launches[d.corr]; ok {
					t = l
				}
			}
			k, _ := slices.BinarySearchFunc(steps, t, func(s stepRange, t int64) int {
				if s.start <= t {
					return -1
				}
				return 1
			})
			if k > 0 && t < steps[k-1].end {
				row.Step = ptr(steps[k-1].n)
			}
			if d.comm >= 0 {
				c := &r.comms[d.comm]
				row.Collective, row.Group, row.GroupDesc, row.GroupRanks, row.Dtype = c.Name, c.Group, c.GroupDesc, c.Ranks, c.Dtype
				row.GroupSize, row.Seq, row.Src, row.Dst, row.InNelems = opt(c.GroupSize), opt(c.Seq), opt(c.Src), opt(c.Dst), opt(c.InNelems)
				row.OutNelems, row.CommsID = opt(c.OutNelems), c.CommsID
				if b, ok := c.Bytes(); ok {
					row.Bytes = ptr(b)
				}
			}
			batch = append(batch, row)
			if len(batch) == n {
				if err := emit(batch); err != nil {
					return err
				}
				batch = batch[:0]
			}
		}
	}
	r.devs = nil
	if len(batch) > 0 {
		return emit(batch)
	}
	return nil
}

func ptr(v int64) *int64 { return &v }

// opt is v, or nil for the reader's −1 (absent).
func opt(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return ptr(v)
}
