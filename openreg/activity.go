package openreg

import (
	"context"
	"sort"
)

// KernelWork is what a kernel computes, as a hardware counter would count it. Kernels report it
// at launch; it is summed in the device Counters and copied into the kernel's Activity, from
// which a scope profiler derives metrics (FLOP/s, bandwidth).
type KernelWork struct {
	Flops        int64
	BytesRead    int64
	BytesWritten int64
}

// ActivityKind says what device work an Activity records.
type ActivityKind uint8

// The kinds of device work OpenReg traces.
const (
	ActivityKernel ActivityKind = iota
	ActivityMemcpy
	ActivityMemset
	// ActivityRuntime is the host side of a launch: the runtime call on the launching thread
	// (StartNs/EndNs on the host), linked to its device work by ID.
	ActivityRuntime
)

// String is the Kineto trace category of the kind: "kernel", "gpu_memcpy", "gpu_memset".
func (k ActivityKind) String() string {
	switch k {
	case ActivityKernel:
		return "kernel"
	case ActivityMemcpy:
		return "gpu_memcpy"
	case ActivityMemset:
		return "gpu_memset"
	case ActivityRuntime:
		return "privateuse1_runtime"
	}
	return "unknown"
}

// Activity is one completed kernel, copy or set, recorded by the stream worker that ran it while
// activity tracing is on (OpenReg's orActivity records, CUPTI's activity records).
type Activity struct {
	Kind   ActivityKind
	Name   string
	Device int
	// Stream is the id of the stream that ran the work.
	Stream int64
	// StartNs and EndNs are the runtime clock around the work, on the worker.
	StartNs, EndNs int64
	// Correlation is orprof.CorrelationID of the launching context: the handle of the innermost
	// op open when the work was enqueued, 0 when none.
	Correlation int64
	// ID numbers launches in the runtime, from 1 (Kineto's kernel_id).
	ID int64
	// Thread is the logical thread (orprof.Thread id) of the launching context.
	Thread int64
	// Flops, BytesRead and BytesWritten are the work's KernelWork (for copies and sets the
	// bytes moved).
	Flops, BytesRead, BytesWritten int64
}

// DurationNs is EndNs − StartNs.
func (a Activity) DurationNs() int64 { return a.EndNs - a.StartNs }

// EnableActivityTracing starts recording an Activity for every kernel, copy and set that
// completes from now on, and drops anything recorded before (orActivityEnableTracing). It never
// blocks on device work.
func (rt *Runtime) EnableActivityTracing() {
	rt.actMu.Lock()
	rt.actOn = true
	rt.acts, rt.launches = nil, nil
	rt.actMu.Unlock()
	rt.tracing.Store(true)
}

// DisableActivityTracing stops recording and returns the activities recorded since
// EnableActivityTracing, ordered by start time (then launch id). The caller owns the slice.
// Work that completed before the call — for instance everything queued before a Synchronize
// that returned — is in it; nothing is lost to concurrency. It does not wait for queued work.
func (rt *Runtime) DisableActivityTracing() []Activity {
	work, _ := rt.DisableActivityTracingWithLaunches()
	return work
}

// DisableActivityTracingWithLaunches is DisableActivityTracing that also returns the host side
// of every launch (ActivityRuntime records: the runtime call on the launching thread, with the
// same ID as the work it enqueued), ordered the same way.
func (rt *Runtime) DisableActivityTracingWithLaunches() (work, launches []Activity) {
	rt.tracing.Store(false)
	rt.actMu.Lock()
	work, launches = rt.acts, rt.launches
	rt.acts, rt.launches = nil, nil
	rt.actOn = false
	rt.actMu.Unlock()
	for _, out := range [][]Activity{work, launches} {
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].StartNs != out[j].StartNs {
				return out[i].StartNs < out[j].StartNs
			}
			return out[i].ID < out[j].ID
		})
	}
	return work, launches
}

// ActivityTracing reports whether activity tracing is on.
func (rt *Runtime) ActivityTracing() bool { return rt.tracing.Load() }

// addActivity runs on stream workers.
func (rt *Runtime) addActivity(a Activity) {
	rt.actMu.Lock()
	if rt.actOn {
		if a.Kind == ActivityRuntime {
			rt.launches = append(rt.launches, a)
		} else {
			rt.acts = append(rt.acts, a)
		}
	}
	rt.actMu.Unlock()
}

// LaunchKernel enqueues fn as a kernel on ctx's current stream (see Stream.LaunchKernel). It
// never blocks.
func (rt *Runtime) LaunchKernel(ctx context.Context, name string, work KernelWork, fn func()) error {
	s, err := rt.CurrentStream(ctx)
	if err != nil {
		return err
	}
	return s.LaunchKernel(ctx, name, work, fn)
}
