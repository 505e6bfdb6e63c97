package tracefile

import (
	"math"

	"github.com/orprof/orprof/internal/jsonscan"
)

// What a scanned trace event contributes: the choice of events, the deferred problems of used
// events, and the record kept for each.

// keep decides what a scanned event contributes and records it.
func (d *decoder) keep(ev *evFields) error {
	switch ev.ph {
	case 'X':
	case 'i', 'I':
		return d.keepInstant(ev)
	case 'M':
		if ev.hasName && ev.hasLabels && d.nameFlags[ev.name]&nameProcessLabels != 0 {
			d.labelHintFrom(ev.labels)
		}
		return nil
	case 0:
		d.skipEvent(d.s.ErrAt(ev.at, "trace event has no \"ph\" (a one-letter string)"))
		return nil
	case 's', 'f':
		if d.python && ev.hasCat && ev.cat == catFwdBwd {
			d.keepPython(ev)
		}
		return nil
	case 'C':
		d.keepCounter(ev) // counters are series of their own, never FunctionEvents
		return nil
	default:
		return nil // flows, async and B/E events are not FunctionEvents
	}
	cat := ev.cat
	if !ev.hasCat {
		cat = catNone
	}
	if cat == catPython {
		if d.python {
			d.keepPython(ev)
		}
		return nil
	}
	var kind rawKind
	switch cat {
	case catNone, catCPUOp, catUserAnnotation:
		kind = rawHostOp
	case catRuntimeCUDA, catRuntimeXPU, catRuntimeMTIA, catRuntimePU1, catRuntimeOther:
		kind = rawRuntime
	case catDevGeneric, catDevUserAnnotation, catDevMTIA, catDevHPU:
		kind = rawDevice
	case catDevEvent:
		if ev.hasTS && ev.tsErr == nil && ev.tsNs == 0 {
			// Before CUDA 12.8 CUPTI gives the record no device time; Kineto writes 0.
			return nil
		}
		kind = rawDevice
	case catTrace:
		if d.format == Kineto && ev.hasName && ev.hasTS && ev.tsErr == nil &&
			d.nameFlags[ev.name]&nameProfilerSpan != 0 && (!d.hasSpan || ev.tsNs < d.spanNs) {
			d.spanNs, d.hasSpan = ev.tsNs, true
		}
		return nil
	default:
		return nil
	}
	if err := d.checkTimes(ev, true); err != nil {
		d.skipEvent(err)
		return nil
	}
	if d.nameFlags[ev.name]&nameFiltered != 0 || (kind == rawDevice && ev.fallback) {
		return nil
	}
	if kind == rawDevice && d.nameFlags[ev.name]&nameScopeMetrics != 0 && cat == catDevGeneric {
		// Kineto's XPU scope profiler writes each kernel's metrics as a "kernel" slice named
		// "metrics: <kernel>" around the kernel. PyTorch's key_averages() has a row for it
		// (test_xpu_scope_profiler checks so), but its time is its kernel's: it is linked to
		// no op and not counted as device time (events.IsScopeMetrics).
		if d.skipScopeMetrics {
			return nil
		}
		cat = catDevScopeMetrics
	}
	d.catSeen[cat] = true
	if d.format == Kineto {
		if kind != rawDevice && (!d.hasHost || ev.tsNs < d.minHost) {
			d.minHost, d.hasHost = ev.tsNs, true
		}
		if !d.hasAny || ev.tsNs < d.minAny {
			d.minAny, d.hasAny = ev.tsNs, true
		}
	}
	d.raws.add(d.raw(ev, kind, cat))
	return nil
}

// keepInstant records "[memory]" and "[OutOfMemory]" instants (Kineto form only).
func (d *decoder) keepInstant(ev *evFields) error {
	if d.format != Kineto || !ev.hasName || ev.nameErr != nil {
		return nil
	}
	f := d.nameFlags[ev.name]
	if f&(nameMemory|nameOOM) == 0 {
		return nil
	}
	if err := d.checkTimes(ev, false); err != nil {
		d.skipEvent(err)
		return nil
	}
	kind := rawMemory
	if f&nameOOM != 0 {
		kind = rawOOM
	}
	d.raws.add(d.raw(ev, kind, catInstant))
	return nil
}

// checkTimes reports the deferred problems of an event that is used.
func (d *decoder) checkTimes(ev *evFields, needDur bool) error {
	switch {
	case ev.nameErr != nil:
		return ev.nameErr
	case !ev.hasName && ev.nameErr == nil:
		return d.s.ErrAt(ev.at, "trace event has no \"name\"")
	case ev.tsErr != nil:
		return ev.tsErr
	case !ev.hasTS:
		return d.s.ErrAt(ev.at, "trace event %s has no \"ts\"", jsonscan.Clip(d.nameStrs[ev.name]))
	case needDur && ev.durErr != nil:
		return ev.durErr
	case needDur && !ev.hasDur:
		return d.s.ErrAt(ev.at, "complete (\"X\") event %s has no \"dur\"", jsonscan.Clip(d.nameStrs[ev.name]))
	}
	if d.format == Kineto && ev.tsNs > math.MaxInt64-ev.durNs {
		return d.s.ErrAt(ev.at, "trace event %s ends beyond the representable time range", jsonscan.Clip(d.nameStrs[ev.name]))
	}
	return nil
}

func (d *decoder) raw(ev *evFields, kind rawKind, cat uint8) rawEvent {
	r := rawEvent{
		ts: ev.tsNs, dur: ev.durNs, pid: ev.pid, tid: ev.tid, extID: ev.extID, corr: ev.corr,
		seq: ev.seq, fwd: ev.fwd, name: ev.name, shapes: ev.shapes, stack: ev.stack,
		node: ev.node, kind: kind, cat: cat, scope: -1,
	}
	if ev.remote {
		r.flags |= rawRemote
	}
	if ev.async {
		r.flags |= rawAsync
	}
	if ev.comm != 0 && !ev.remote {
		r.node, r.flags = ev.comm-1, r.flags|rawComm
	}
	if ev.scope >= 0 && ev.scope <= 127 {
		r.scope = int8(ev.scope)
	}
	if ev.devUs > 0 {
		r.devUs = ev.devUs
		if ev.devIdx >= 0 && ev.devIdx <= math.MaxInt32 {
			r.devIdx = int32(ev.devIdx)
		}
	}
	if d.format == Legacy {
		r.ts, r.dur = int64(math.Float64bits(ev.tsUs)), int64(math.Float64bits(ev.durUs))
	}
	switch kind {
	case rawMemory, rawOOM:
		r.extID, r.corr = ev.bytes, ev.memDev
		// The fields no memory record uses hold the allocator's totals and the device index.
		r.seq, r.fwd = ev.memAlloc, ev.memRes
		if ev.memDevID >= math.MinInt32 && ev.memDevID <= math.MaxInt32 {
			r.devIdx = int32(ev.memDevID)
		}
		r.devUs = ev.memAddr // unused by memory records otherwise
	case rawDevice:
		r.fwd, r.scope, r.seq = ev.tid, int8(ev.devKind), 0
		r.devUs = packKernelArgs(ev.blocksSM, ev.occPct) // unused by device records otherwise
		if ev.rangeProf {
			r.seq = 1
		}
		if ev.hasStream {
			r.fwd = ev.stream
		}
		r.stack = d.graphScopeOf(ev)
	}
	return r
}
