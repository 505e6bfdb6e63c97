package openreg

import (
	"sync"

	"github.com/orprof/orprof/xpu"
)

func init() {
	xpu.RegisterSource("openreg", func() xpu.MetricSource { return NewMetricSource(Default()) })
}

// The simulated hardware behind OpenReg's metrics. A kernel's counters follow from the work it
// reported (KernelWork) and the time its stream worker measured, nothing else.
const (
	// NominalClockMHz is the core clock; each kernel runs within ±5 MHz of it (a deterministic
	// function of its kernel id), as real GPUs drift around their nominal clock.
	NominalClockMHz = 1600
	// peakFlopsPerCycle and peakBytesPerCycle make the roofline: kernels whose FLOPs per byte
	// are below their ratio (4) are memory-bound.
	peakFlopsPerCycle = 256
	peakBytesPerCycle = 64
	// rampNs is the time the vector engines take to fill and drain: a kernel of d ns keeps them
	// busy d/(d+rampNs) of its time.
	rampNs = 500
)

// metricInfos are OpenReg's metrics, named after Intel PTI's where one exists;
// kernelMetricValues computes them in this order.
var metricInfos = []xpu.MetricInfo{
	{Name: "GpuTime", Unit: "ns", Type: xpu.Uint64, Aggregate: xpu.Sum, Description: "kernel duration measured by the stream"},
	{Name: "GpuCoreClocks", Unit: "cycles", Type: xpu.Uint64, Aggregate: xpu.Sum, Description: "core cycles: GpuTime × frequency"},
	{Name: "AvgGpuCoreFrequencyMHz", Unit: "MHz", Type: xpu.Float64, Aggregate: xpu.Mean, Description: "average core clock"},
	{Name: "XVE_ACTIVE", Unit: "%", Type: xpu.Float64, Aggregate: xpu.Mean, Description: "time the vector engines executed instructions"},
	{Name: "XVE_STALL", Unit: "%", Type: xpu.Float64, Aggregate: xpu.Mean, Description: "time the vector engines waited, mostly on memory"},
	{Name: "XVE_INST_EXECUTED_ALU0_ALL_UTILIZATION", Unit: "%", Type: xpu.Float64, Aggregate: xpu.Mean, Description: "time the FP ALU did arithmetic"},
	{Name: "GPU_MEMORY_BYTE_READ", Unit: "bytes", Type: xpu.Uint64, Aggregate: xpu.Sum, Description: "bytes read from device memory"},
	{Name: "GPU_MEMORY_BYTE_WRITE", Unit: "bytes", Type: xpu.Uint64, Aggregate: xpu.Sum, Description: "bytes written to device memory"},
	{Name: "GPU_MEMORY_BANDWIDTH", Unit: "GB/s", Type: xpu.Float64, Aggregate: xpu.Mean, Description: "bytes moved per ns"},
	{Name: "XVE_FLOPS", Unit: "flops", Type: xpu.Uint64, Aggregate: xpu.Sum, Description: "floating-point operations"},
}

// MetricSource is OpenReg's xpu.MetricSource, registered for the device "openreg": it
// subscribes to a runtime's activity tracing from Start to Stop, beside (never instead of)
// OpenReg's activity profiler, and derives each kernel's hardware counters from its measured
// time and its KernelWork. Copies and sets are not kernels and get no metrics.
type MetricSource struct {
	rt *Runtime

	mu  sync.Mutex
	sub *ActivitySubscription
}

// NewMetricSource returns a metric source for rt's kernels.
func NewMetricSource(rt *Runtime) *MetricSource { return &MetricSource{rt: rt} }

// Metrics lists OpenReg's metrics: GpuTime, GpuCoreClocks, AvgGpuCoreFrequencyMHz, XVE_ACTIVE,
// XVE_STALL, XVE_INST_EXECUTED_ALU0_ALL_UTILIZATION, GPU_MEMORY_BYTE_READ,
// GPU_MEMORY_BYTE_WRITE, GPU_MEMORY_BANDWIDTH and XVE_FLOPS. The slice is shared: read-only.
func (*MetricSource) Metrics() []xpu.MetricInfo { return metricInfos }

// Start subscribes to the runtime's activity tracing. It never blocks on device work; a
// second Start without Stop restarts the observation.
func (m *MetricSource) Start() error {
	sub := m.rt.Subscribe()
	m.mu.Lock()
	old := m.sub
	m.sub = sub
	m.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

// Stop waits for the work already queued, ends the subscription and returns every kernel that
// completed since Start with its metric values. A device error is not reported here: the
// profiling session and the activity profiler report it.
func (m *MetricSource) Stop() ([]xpu.KernelMetrics, error) {
	m.mu.Lock()
	sub := m.sub
	m.sub = nil
	m.mu.Unlock()
	if sub == nil {
		return nil, nil
	}
	_ = m.rt.Synchronize()
	work, _ := sub.Close()
	out := make([]xpu.KernelMetrics, 0, len(work))
	for i := range work {
		a := &work[i]
		if a.Kind != ActivityKernel {
			continue
		}
		out = append(out, xpu.KernelMetrics{KernelID: a.ID, Name: a.Name, Device: a.Device, Stream: a.Stream,
			StartNs: a.StartNs, EndNs: a.EndNs, Correlation: a.Correlation, Values: kernelMetricValues(*a)})
	}
	return out, nil
}

// kernelMetricValues computes a kernel's metrics, aligned with (*MetricSource).Metrics:
//   - GpuTime is the measured duration d (ns); the core frequency f is NominalClockMHz plus a
//     deterministic offset in [−5, +5] MHz from the kernel id; GpuCoreClocks = round(d·f/1000).
//   - The engines are busy d/(d+500 ns) of the time. Of the busy time a share
//     0.05 + 0.85·m stalls, where m = 1/(1 + I/4) is how memory-bound the kernel is for its
//     FLOPs per byte I (the roofline ridge of 256 FLOP and 64 bytes per cycle); the rest is
//     XVE_ACTIVE. So XVE_ACTIVE + XVE_STALL ≤ 100 and memory-bound kernels stall more.
//   - The ALU utilization is XVE_ACTIVE × (1 − m); bandwidth is bytes moved per ns (GB/s).
//   - Bytes and FLOPs are the kernel's KernelWork.
func kernelMetricValues(a Activity) []float64 {
	d := max(0, a.EndNs-a.StartNs)
	freq := float64(NominalClockMHz) + float64((a.ID*7919%11+11)%11) - 5
	bytes := a.BytesRead + a.BytesWritten
	m := 0.5 // no work reported: neither bound
	switch {
	case bytes > 0:
		intensity := float64(a.Flops) / float64(bytes)
		m = 1 / (1 + intensity/(peakFlopsPerCycle/peakBytesPerCycle))
	case a.Flops > 0:
		m = 0
	}
	busy := 100 * float64(d) / float64(d+rampNs)
	stall := busy * (0.05 + 0.85*m)
	active := busy - stall
	bw := 0.0
	if d > 0 {
		bw = float64(bytes) / float64(d)
	}
	return []float64{
		float64(d),
		float64(int64(float64(d)*freq/1000 + 0.5)),
		freq,
		active,
		stall,
		active * (1 - m),
		float64(a.BytesRead),
		float64(a.BytesWritten),
		bw,
		float64(a.Flops),
	}
}
