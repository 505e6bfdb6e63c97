package xpu

import (
	"sort"
	"strings"
	"sync"
)

// ValueType is the type a metric's values have at the source, as PTI reports them: it decides
// how a value is printed in a slice's args (an integer, a double, true/false). Counters always
// carry doubles.
type ValueType uint8

// The metric value types.
const (
	// Uint64 values are whole, non-negative counts (PTI's uint32/uint64).
	Uint64 ValueType = iota
	// Float64 values are doubles (PTI's float32/float64).
	Float64
	// Bool values are 0 (false) or 1 (true) (PTI's bool8).
	Bool
)

// String is "uint64", "float64" or "bool".
func (t ValueType) String() string {
	switch t {
	case Uint64:
		return "uint64"
	case Float64:
		return "float64"
	case Bool:
		return "bool"
	}
	return "unknown"
}

// Aggregate says how a metric combines over the kernels of a per-range scope. Bool metrics are
// always combined with Max (whether any kernel was true); Uint64 results are rounded.
type Aggregate uint8

// The ways to aggregate.
const (
	// Sum adds the kernels' values: counts, times, cycles, bytes, FLOPs.
	Sum Aggregate = iota
	// Mean is the average weighted by each kernel's duration: frequencies, percentages, rates.
	// When every kernel lasted 0 ns it is the plain average.
	Mean
	// Max is the largest value; for Bool metrics, whether any kernel was true.
	Max
)

// String is "sum", "mean" or "max".
func (a Aggregate) String() string {
	switch a {
	case Sum:
		return "sum"
	case Mean:
		return "mean"
	case Max:
		return "max"
	}
	return "unknown"
}

// MetricInfo describes one metric a source reports.
type MetricInfo struct {
	// Name is the metric's name in configs, args and counter series (PTI's name, e.g. GpuTime).
	Name string
	// Unit is appended to the slice arg key as "Name::Unit"; empty for none.
	Unit string
	// Type is how values are printed in slice args.
	Type ValueType
	// Aggregate combines the metric over a range's kernels.
	Aggregate Aggregate
	// Description is a one-line explanation, for help output.
	Description string
}

// KernelMetrics is one kernel a source observed and its metric values.
type KernelMetrics struct {
	// KernelID is the kernel's launch id in the runtime (Kineto's kernel_id), unique per source.
	KernelID int64
	// Name is the kernel's name.
	Name string
	// Device is the device ordinal (the trace pid) and Stream the stream id (the trace tid).
	Device int
	Stream int64
	// StartNs and EndNs are absolute ns on the session's clock, as the kernel's own trace slice.
	StartNs, EndNs int64
	// Correlation is the correlation id (the "External id") of the host op that launched the
	// kernel; 0 when none.
	Correlation int64
	// Values holds one value per metric, aligned with the source's Metrics(); Bool metrics are
	// 0 or 1. Non-finite values are written as 0.
	Values []float64
}

// MetricSource is what a backend implements to feed the scope profiler: the metrics it can
// report, and the kernels that ran between Start and Stop with their values. A source is made
// per profile (the registered factory is called by Configure) and used by one goroutine:
// Metrics may be called at any time and must not block; Start is called once, then Stop once.
type MetricSource interface {
	// Metrics lists the metrics the source reports, in a fixed order; the slice is read-only.
	Metrics() []MetricInfo
	// Start begins observing kernels. It may block briefly.
	Start() error
	// Stop ends observing and returns every kernel that completed since Start, with values
	// aligned with Metrics. It may wait for queued device work. The caller owns the slice.
	Stop() ([]KernelMetrics, error)
}

var sources struct {
	mu  sync.Mutex
	new map[string]func() MetricSource
}

// RegisterSource registers the factory of device's metric source, typically from the backend
// package's init (database/sql style). device is matched case-insensitively; a later
// registration replaces an earlier one and a nil factory removes it. Safe for concurrent use.
func RegisterSource(device string, newSource func() MetricSource) {
	key := strings.ToLower(device)
	sources.mu.Lock()
	defer sources.mu.Unlock()
	if sources.new == nil {
		sources.new = map[string]func() MetricSource{}
	}
	if newSource == nil {
		delete(sources.new, key)
		return
	}
	sources.new[key] = newSource
}

// Source makes a new metric source for device with its registered factory; ok is false when
// none is registered (or the factory returned nil). Safe for concurrent use.
func Source(device string) (src MetricSource, ok bool) {
	sources.mu.Lock()
	f := sources.new[strings.ToLower(device)]
	sources.mu.Unlock()
	if f == nil {
		return nil, false
	}
	src = f()
	return src, src != nil
}

// Sources lists the devices with a registered metric source, sorted.
func Sources() []string {
	sources.mu.Lock()
	defer sources.mu.Unlock()
	out := make([]string, 0, len(sources.new))
	for k := range sources.new {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
