package kineto

import (
	"fmt"
	"log/slog"
	"sync"
)

// The PrivateUse1 profiler registry: the Go form of PyTorch's REGISTER_PRIVATEUSE1_PROFILER
// (PrivateUse1ProfilerRegistry). A backend registers one factory; the profiler it makes is
// configured by every session with activities, first among RegisteredProfilers.
var pu1 struct {
	mu      sync.Mutex
	factory func() ActivityProfiler
	made    bool
	inst    ActivityProfiler
}

// RegisterPrivateUse1Profiler registers the factory of the PrivateUse1 backend's activity
// profiler, typically from the backend package's init. There is one such profiler per
// process, and it is fixed once made, as in PyTorch, whose registry hands the factory to
// Kineto once: before the profiler is first made (PrivateUse1Profiler or RegisteredProfilers,
// which every session with activities calls) a later registration replaces the earlier one
// with a warning through log/slog; after it, a registration (nil included) is refused with a
// warning and changes nothing, so sessions never see the profiler change under them. A nil
// factory before first use removes the registration. RegisterPrivateUse1Profiler reports
// whether the registration took effect. The factory is called once, on first use, with the
// registry's lock held: it must not call back into this registry. Safe for concurrent use.
func RegisterPrivateUse1Profiler(factory func() ActivityProfiler) bool {
	pu1.mu.Lock()
	defer pu1.mu.Unlock()
	if pu1.made {
		slog.Warn("kineto: the PrivateUse1 profiler is already in use; a later registration does not reach it (as in PyTorch, the factory is used once)")
		return false
	}
	if pu1.factory != nil && factory != nil {
		slog.Warn("kineto: a PrivateUse1 profiler is already registered; overwriting it")
	}
	pu1.factory, pu1.inst = factory, nil
	return true
}

// PrivateUse1Profiler returns the PrivateUse1 profiler, made by the registered factory on the
// first call after registration and kept; nil when none is registered or the factory returned
// nil or panicked (logged through log/slog). Safe for concurrent use.
func PrivateUse1Profiler() ActivityProfiler {
	pu1.mu.Lock()
	defer pu1.mu.Unlock()
	if pu1.factory == nil {
		return nil
	}
	if !pu1.made {
		pu1.made = true
		pu1.inst = makePrivateUse1(pu1.factory)
	}
	return pu1.inst
}

func makePrivateUse1(factory func() ActivityProfiler) (p ActivityProfiler) {
	defer func() {
		if r := recover(); r != nil {
			slog.Warn(fmt.Sprintf("kineto: the PrivateUse1 profiler factory panicked: %v", r))
			p = nil
		}
	}()
	p = factory()
	if p == nil {
		slog.Warn("kineto: the PrivateUse1 profiler factory returned nil")
	}
	return p
}
