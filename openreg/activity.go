package openreg

import (
	"context"
	"sort"
	"sync"

	"github.com/orprof/orprof/kineto"
)

// KernelWork is what a kernel computes, as a hardware counter would count it. Kernels report it
// at launch; it is summed in the device Counters and copied into the kernel's Activity, from
// which a scope profiler derives metrics (FLOP/s, bandwidth).
type KernelWork struct {
	Flops        int64
	BytesRead    int64
	BytesWritten int64
}

// ActivityKind says what an Activity records. It is the Kineto activity type itself, so the
// kind is the trace category (its String: "kernel", "gpu_memcpy", "gpu_memset",
// "privateuse1_runtime", "privateuse1_driver") and what a session's activity set selects, with no table between.
type ActivityKind = kineto.ActivityType

// The kinds of device work OpenReg traces.
const (
	ActivityKernel = kineto.ConcurrentKernel
	ActivityMemcpy = kineto.GPUMemcpy
	ActivityMemset = kineto.GPUMemset
	// ActivityRuntime is the host side of a launch: the runtime call on the launching thread
	// (StartNs/EndNs on the host), linked to its device work by ID.
	ActivityRuntime = kineto.PrivateUse1Runtime
	// ActivityDriver is OpenReg's driver layer under a launch: the hand-off of the work to the
	// stream's queue (orStreamEnqueue), on the launching thread, inside its ActivityRuntime
	// record and with the same ID.
	ActivityDriver = kineto.PrivateUse1Driver
)

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
//
// It is one consumer of the tracing; subscriptions (Subscribe) are others, and neither sees the
// other's start or stop.
func (rt *Runtime) EnableActivityTracing() {
	rt.actMu.Lock()
	rt.actOn = true
	rt.acts, rt.launches = nil, nil
	rt.tracing.Store(true)
	rt.actMu.Unlock()
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
// of every launch (an ActivityRuntime record, the runtime call on the launching thread, and an
// ActivityDriver record, the queue hand-off inside it, both with the same ID as the work they
// enqueued), ordered the same way.
func (rt *Runtime) DisableActivityTracingWithLaunches() (work, launches []Activity) {
	rt.actMu.Lock()
	work, launches = rt.acts, rt.launches
	rt.acts, rt.launches = nil, nil
	rt.actOn = false
	rt.tracing.Store(len(subscribers(rt)) > 0)
	rt.actMu.Unlock()
	sortActivities(work)
	sortActivities(launches)
	return work, launches
}

// sortActivities orders by start time, then launch id.
func sortActivities(out []Activity) {
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].StartNs != out[j].StartNs {
			return out[i].StartNs < out[j].StartNs
		}
		return out[i].ID < out[j].ID
	})
}

// ActivitySubscription is one consumer's view of the runtime's activity tracing: from
// Subscribe to Close it collects every activity into a buffer of its own. Any number of
// subscriptions and the EnableActivityTracing/DisableActivityTracing pair may be active at once
// without disturbing each other, so OpenReg's activity profiler and its metric source can both
// trace one profile.
type ActivitySubscription struct {
	rt *Runtime
	// Guarded by rt.actMu.
	work, launches []Activity
	closed         bool
}

// subs maps a *Runtime to its open subscriptions ([]*ActivitySubscription); an entry is
// read and written only with that runtime's actMu held, and removed when its last subscription
// closes.
var subs sync.Map

// subscribers is rt's open subscriptions; rt.actMu is held.
func subscribers(rt *Runtime) []*ActivitySubscription {
	if v, ok := subs.Load(rt); ok {
		return v.([]*ActivitySubscription)
	}
	return nil
}

// Subscribe starts a subscription: every kernel, copy, set and launch that completes from now on
// until Close is recorded for it. It never blocks on device work; safe for concurrent use.
func (rt *Runtime) Subscribe() *ActivitySubscription {
	sub := &ActivitySubscription{rt: rt}
	rt.actMu.Lock()
	list := subscribers(rt)
	subs.Store(rt, append(list[:len(list):len(list)], sub))
	rt.tracing.Store(true)
	rt.actMu.Unlock()
	return sub
}

// Len is how many activities (work and launches) the subscription holds so far; 0 once closed.
// Safe for concurrent use.
func (sub *ActivitySubscription) Len() int {
	sub.rt.actMu.Lock()
	defer sub.rt.actMu.Unlock()
	return len(sub.work) + len(sub.launches)
}

// Close ends the subscription and returns what it recorded, as DisableActivityTracingWithLaunches
// does: the device work and the host side of every launch, each ordered by start time (then
// launch id). The caller owns the slices. A second Close returns nil slices. Tracing stays on
// while another consumer needs it.
func (sub *ActivitySubscription) Close() (work, launches []Activity) {
	rt := sub.rt
	rt.actMu.Lock()
	if sub.closed {
		rt.actMu.Unlock()
		return nil, nil
	}
	sub.closed = true
	work, launches = sub.work, sub.launches
	sub.work, sub.launches = nil, nil
	var rest []*ActivitySubscription
	for _, o := range subscribers(rt) {
		if o != sub {
			rest = append(rest, o)
		}
	}
	if len(rest) == 0 {
		subs.Delete(rt)
	} else {
		subs.Store(rt, rest)
	}
	rt.tracing.Store(rt.actOn || len(rest) > 0)
	rt.actMu.Unlock()
	sortActivities(work)
	sortActivities(launches)
	return work, launches
}

// ActivityTracing reports whether activity tracing is on for any consumer
// (EnableActivityTracing or an open subscription).
func (rt *Runtime) ActivityTracing() bool { return rt.tracing.Load() }

// addActivity runs on stream workers.
func (rt *Runtime) addActivity(a Activity) {
	host := a.Kind == ActivityRuntime || a.Kind == ActivityDriver
	rt.actMu.Lock()
	if rt.actOn {
		if host {
			rt.launches = append(rt.launches, a)
		} else {
			rt.acts = append(rt.acts, a)
		}
	}
	for _, sub := range subscribers(rt) {
		if host {
			sub.launches = append(sub.launches, a)
		} else {
			sub.work = append(sub.work, a)
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
