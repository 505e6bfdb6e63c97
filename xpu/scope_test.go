package xpu

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeSource reports fixed kernels with the metrics of fakeMetrics.
type fakeSource struct {
	kernels []KernelMetrics
	started bool
	stopErr error
}

var fakeMetrics = []MetricInfo{
	{Name: "Time", Unit: "ns", Type: Uint64, Aggregate: Sum},
	{Name: "Busy", Unit: "%", Type: Float64, Aggregate: Mean},
	{Name: "Peak", Type: Float64, Aggregate: Max},
	{Name: "Spilled", Type: Bool, Aggregate: Sum},
}

func (f *fakeSource) Metrics() []MetricInfo { return fakeMetrics }
func (f *fakeSource) Start() error          { f.started = true; return nil }
func (f *fakeSource) Stop() ([]KernelMetrics, error) {
	return append([]KernelMetrics(nil), f.kernels...), f.stopErr
}

// registerFake registers src under a device name unique to the test.
func registerFake(t *testing.T, src *fakeSource) string {
	t.Helper()
	dev := "fake-" + strings.ReplaceAll(t.Name(), "/", "-")
	RegisterSource(dev, func() MetricSource { return src })
	t.Cleanup(func() { RegisterSource(dev, nil) })
	return dev
}

func kernel(id int64, name string, stream, start, end, corr int64, vals ...float64) KernelMetrics {
	return KernelMetrics{KernelID: id, Name: name, Stream: stream, StartNs: start, EndNs: end, Correlation: corr, Values: vals}
}

// run drives a scope profiler session over src with config text, as orprof's session does,
// and returns the trace (starting from base) and the error of ProcessTrace.
func run(t *testing.T, src *fakeSource, cfgText string, base *trace.Trace) (*trace.Trace, *ScopeProfiler, error) {
	t.Helper()
	cfg, err := kineto.ParseConfig(cfgText)
	require.NoError(t, err)
	p := NewScopeProfiler(registerFake(t, src))
	sess, err := p.Configure(cfg.Activities, cfg)
	require.NoError(t, err)
	require.NotNil(t, sess)
	require.NoError(t, sess.Start())
	assert.True(t, src.started)
	sess.PushCorrelationID(1)
	sess.PopCorrelationID()
	require.Equal(t, src.stopErr, sess.Stop())
	tr := base
	if tr == nil {
		tr = &trace.Trace{}
	}
	err = sess.ProcessTrace(tr)
	assert.Equal(t, p.LastScopes(), sess.(ScopeSource).Scopes())
	return tr, p, err
}

// fakeConfig asks for Kineto's single counter track; TestPerMetricCounterEvents checks the
// default.
const fakeConfig = "ACTIVITY_TYPES = xpu_scope_profiler, kernel\nXPUPTI_PROFILER_METRICS = Time, Busy, Peak, Spilled\n" +
	"ORPROF_XPU_COUNTER_TRACKS = single\n"

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Config
	}{
		{"defaults per kernel", "ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = A, B, A",
			Config{Enabled: true, Metrics: []string{"A", "B"}, PerKernel: true, MaxScopes: 1500}},
		{"per range default cap", "ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = A\nXPUPTI_PROFILER_ENABLE_PER_KERNEL = no",
			Config{Enabled: true, Metrics: []string{"A"}, PerKernel: false, MaxScopes: 10}},
		{"explicit cap", "ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = A\nXPUPTI_PROFILER_ENABLE_PER_KERNEL = T\nXPUPTI_PROFILER_MAX_SCOPES = 7",
			Config{Enabled: true, Metrics: []string{"A"}, PerKernel: true, MaxScopes: 7}},
		{"activity off, no metrics", "ACTIVITY_TYPES = kernel",
			Config{PerKernel: true, MaxScopes: 1500}},
		// 0 means the default, as in Kineto.
		{"zero cap is the default", "ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = A\nXPUPTI_PROFILER_MAX_SCOPES = 0",
			Config{Enabled: true, Metrics: []string{"A"}, PerKernel: true, MaxScopes: 1500}},
		{"zero cap per range", "ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = A\nXPUPTI_PROFILER_ENABLE_PER_KERNEL = 0\nXPUPTI_PROFILER_MAX_SCOPES = 0",
			Config{Enabled: true, Metrics: []string{"A"}, PerKernel: false, MaxScopes: 10}},
		{"Kineto's single counter", "ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = A\nORPROF_XPU_COUNTER_TRACKS = single",
			Config{Enabled: true, Metrics: []string{"A"}, PerKernel: true, MaxScopes: 1500, SingleCounter: true}},
		{"per-metric counters", "ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = A\nORPROF_XPU_COUNTER_TRACKS = per_metric",
			Config{Enabled: true, Metrics: []string{"A"}, PerKernel: true, MaxScopes: 1500}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := kineto.ParseConfig(tc.text)
			require.NoError(t, err)
			got, err := ParseConfig(cfg)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	c, err := ParseConfig(nil)
	require.NoError(t, err)
	assert.Equal(t, Config{PerKernel: true, MaxScopes: 1500}, c)

	bad := []struct{ key, val, want string }{
		{KeyPerKernel, "sometimes", `xpu: XPUPTI_PROFILER_ENABLE_PER_KERNEL: "sometimes" is not a bool`},
		{KeyMaxScopes, "-3", `xpu: XPUPTI_PROFILER_MAX_SCOPES: "-3" is not an integer in [0, 2147483647] (0: the default)`},
		{KeyMaxScopes, "many", `xpu: XPUPTI_PROFILER_MAX_SCOPES: "many" is not an integer in [0, 2147483647]`},
		{KeyCounterTracks, "per-metric", `xpu: ORPROF_XPU_COUNTER_TRACKS: "per-metric" is not per_metric or single`},
		{KeyMetrics, " , ", "xpu: XPUPTI_PROFILER_METRICS: no metrics given"},
	}
	for _, b := range bad {
		cfg := kineto.NewConfig()
		cfg.Activities = kineto.NewActivitySet(kineto.XPUScopeProfiler)
		cfg.Options[KeyMetrics] = "A"
		cfg.Options[b.key] = b.val
		_, err := ParseConfig(cfg)
		require.Error(t, err, b.key)
		assert.True(t, strings.HasPrefix(err.Error(), b.want), err.Error())
	}

	err = Config{Metrics: []string{"Time", "Nope"}}.Validate(fakeMetrics)
	require.EqualError(t, err, `xpu: XPUPTI_PROFILER_METRICS: unknown metric "Nope" (available: Time, Busy, Peak, Spilled)`)
}

func TestFormatDouble(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {2048, "2048"}, {0.5, "0.5"}, {-3.25, "-3.25"}, {1e15, "1000000000000000"},
		{1e16, "1e+16"}, {1.25e-5, "1.25e-05"}, {0.0001, "0.0001"}, {1597.283213872357, "1597.283213872357"},
		{math.NaN(), "0"}, {math.Inf(1), "0"}, {float64(float32(0.1)), "0.10000000149011612"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, formatDouble(tc.in), "%v", tc.in)
	}
	assert.Equal(t, "12", formatValue(11.6, Uint64))
	assert.Equal(t, "true", formatValue(1, Bool))
	assert.Equal(t, "false", formatValue(0, Bool))
}

func TestPerKernelEvents(t *testing.T) {
	src := &fakeSource{kernels: []KernelMetrics{
		kernel(8, "gemm", 3, 5000, 6000, 0, 1000, 42.5, 7, 0),
		kernel(7, "relu", 3, 1000, 1500, 0, 500.4, math.NaN(), 2, 3),
	}}
	tr, p, err := run(t, src, fakeConfig, nil)
	require.NoError(t, err)
	require.Len(t, p.LastScopes(), 2)
	assert.Equal(t, "relu", p.LastScopes()[0].Name, "scopes in start order")

	want := []trace.Event{
		{Ph: 'X', Cat: "kernel", Name: "metrics: relu", Pid: 0, Tid: 3, TsNs: 999, DurNs: 502, Args: []trace.Arg{
			trace.Int("kernel_id", 7), trace.Str("queue", "3"), trace.Raw("Time::ns", "500"),
			trace.Raw("Busy::%", "0"), trace.Raw("Peak", "2"), trace.Raw("Spilled", "true")}},
		{Ph: 'C', Cat: "xpu_scope_profiler", Name: "xpu", Pid: 0, Tid: 3, TsNs: 999, Args: []trace.Arg{
			trace.Raw("Time", "500"), trace.Raw("Busy", "0"), trace.Raw("Peak", "2"), trace.Raw("Spilled", "1")}},
		{Ph: 'C', Cat: "xpu_scope_profiler", Name: "xpu", Pid: 0, Tid: 3, TsNs: 1501, Args: []trace.Arg{
			trace.Raw("Time", "0"), trace.Raw("Busy", "0"), trace.Raw("Peak", "0"), trace.Raw("Spilled", "0")}},
		{Ph: 'X', Cat: "kernel", Name: "metrics: gemm", Pid: 0, Tid: 3, TsNs: 4999, DurNs: 1002, Args: []trace.Arg{
			trace.Int("kernel_id", 8), trace.Str("queue", "3"), trace.Raw("Time::ns", "1000"),
			trace.Raw("Busy::%", "42.5"), trace.Raw("Peak", "7"), trace.Raw("Spilled", "false")}},
	}
	require.Len(t, tr.Events, 6)
	assert.Equal(t, want, tr.Events[:4])
	assert.Equal(t, []trace.Process{{Pid: 0, Name: "FAKE-TESTPERKERNELEVENTS 0", Label: "FAKE-TESTPERKERNELEVENTS 0", SortIndex: 5000000}}, tr.Processes)
	assert.Equal(t, []trace.Thread{{Pid: 0, Tid: 3, Name: "stream 3 ", SortIndex: 3}}, tr.Threads)

	var buf bytes.Buffer
	require.NoError(t, trace.Write(&buf, tr))
	require.NoError(t, trace.Check(buf.Bytes()))
}

// TestPerMetricCounterEvents: by default each metric has its own counter track, its unit in
// the track's name, so a viewer draws every series on its own scale (Kineto's one "xpu" track
// stacks ns, cycles and % together).
func TestPerMetricCounterEvents(t *testing.T) {
	src := &fakeSource{kernels: []KernelMetrics{kernel(7, "relu", 3, 1000, 1500, 0, 500.4, math.NaN(), 2, 3)}}
	cfg := strings.Replace(fakeConfig, "ORPROF_XPU_COUNTER_TRACKS = single\n", "", 1)
	tr, _, err := run(t, src, cfg, nil)
	require.NoError(t, err)
	var got []trace.Event
	for _, e := range tr.Events {
		if e.Ph == 'C' {
			got = append(got, e)
		}
	}
	c := func(name string, ts int64, key, val string) trace.Event {
		return trace.Event{Ph: 'C', Cat: "xpu_scope_profiler", Name: name, Pid: 0, Tid: 3, TsNs: ts, Args: []trace.Arg{trace.Raw(key, val)}}
	}
	assert.Equal(t, []trace.Event{
		c("xpu Time (ns)", 999, "Time", "500"), c("xpu Time (ns)", 1501, "Time", "0"),
		c("xpu Busy (%)", 999, "Busy", "0"), c("xpu Busy (%)", 1501, "Busy", "0"),
		c("xpu Peak", 999, "Peak", "2"), c("xpu Peak", 1501, "Peak", "0"),
		c("xpu Spilled", 999, "Spilled", "1"), c("xpu Spilled", 1501, "Spilled", "0"),
	}, got)
	var buf bytes.Buffer
	require.NoError(t, trace.Write(&buf, tr))
	require.NoError(t, trace.Check(buf.Bytes()))
}

func TestPads(t *testing.T) {
	tests := []struct {
		name      string
		base      int64
		kernels   [][2]int64 // start, end on stream 0, one scope each
		others    [][2]int64 // other slices on the row (copies)
		pre, post []int64
	}{
		{"apart", 0, [][2]int64{{100, 200}, {300, 400}}, nil, []int64{1, 1}, []int64{1, 1}},
		{"back to back", 0, [][2]int64{{100, 200}, {200, 300}}, nil, []int64{1, 0}, []int64{0, 1}},
		{"1 ns apart", 0, [][2]int64{{100, 200}, {201, 300}}, nil, []int64{1, 0}, []int64{0, 1}},
		{"2 ns apart", 0, [][2]int64{{100, 200}, {202, 300}}, nil, []int64{1, 1}, []int64{1, 1}},
		{"copy right after", 0, [][2]int64{{100, 200}}, [][2]int64{{200, 250}, {50, 99}}, []int64{0}, []int64{0}},
		{"copy inside", 0, [][2]int64{{100, 200}}, [][2]int64{{100, 100}, {200, 200}, {150, 160}}, []int64{1}, []int64{1}},
		{"at the time base", 100, [][2]int64{{100, 200}}, nil, []int64{0}, []int64{1}},
		{"op interval sharing the start", 0, [][2]int64{{100, 200}}, [][2]int64{{100, 300}}, []int64{0}, []int64{1}},
		{"op interval sharing the end", 0, [][2]int64{{100, 200}}, [][2]int64{{50, 200}}, []int64{1}, []int64{0}},
		{"op interval sharing the end, kernel after", 0, [][2]int64{{100, 200}}, [][2]int64{{50, 200}, {210, 220}}, []int64{1}, []int64{0}},
		{"op interval sharing the start, kernel before", 0, [][2]int64{{100, 200}}, [][2]int64{{100, 300}, {10, 20}}, []int64{0}, []int64{1}},
		{"op interval around", 0, [][2]int64{{100, 200}}, [][2]int64{{99, 201}}, []int64{1}, []int64{1}},
		{"zero length", 0, [][2]int64{{100, 100}, {100, 100}}, nil, []int64{1, 1}, []int64{1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &trace.Trace{BaseTimeNs: tc.base}
			var ks []KernelMetrics
			var scopes []Scope
			for i, k := range tc.kernels {
				ks = append(ks, kernel(int64(i), "k", 0, k[0], k[1], 0))
				scopes = append(scopes, Scope{Name: "k", StartNs: k[0], EndNs: k[1]})
				tr.Events = append(tr.Events, trace.Event{Ph: 'X', Cat: "kernel", Name: "k", TsNs: k[0], DurNs: k[1] - k[0]})
			}
			for _, o := range tc.others {
				tr.Events = append(tr.Events, trace.Event{Ph: 'X', Cat: "gpu_memcpy", Name: "copy", TsNs: o[0], DurNs: o[1] - o[0]})
			}
			tr.Events = append(tr.Events, trace.Event{Ph: 'X', Cat: "kernel", Name: "other stream", Tid: 9, TsNs: 199, DurNs: 3})
			pre, post := pads(tr, scopes, ks)
			assert.Equal(t, tc.pre, pre, "pre")
			assert.Equal(t, tc.post, post, "post")
		})
	}
}

// hostTrace is a trace with host ops on two threads: ranges "step" ⊃ "inner" on thread 1
// (and an op between them), "other" on thread 2.
func hostTrace() *trace.Trace {
	x := func(cat, name string, tid, ts, dur, id int64) trace.Event {
		return trace.Event{Ph: 'X', Cat: cat, Name: name, Pid: 77, Tid: tid, TsNs: ts, DurNs: dur,
			Args: []trace.Arg{trace.Int(trace.ArgExternalID, id)}}
	}
	return &trace.Trace{Events: []trace.Event{
		x("user_annotation", "step", 1, 100, 900, 1),
		x("cpu_op", "aten::mm", 1, 150, 50, 2),
		x("user_annotation", "inner", 1, 300, 200, 3),
		x("cpu_op", "aten::relu", 1, 350, 50, 4),
		x("cpu_op", "aten::add", 1, 600, 50, 5),
		x("user_annotation", "other", 2, 100, 900, 6),
		x("cpu_op", "aten::mul", 2, 120, 10, 7),
		x("cpu_op", "aten::outside", 1, 2000, 10, 8),
		x("gpu_user_annotation", "step", 0, 100, 900, 1), // a device row: not a host range
	}}
}

func TestPerRangeScopes(t *testing.T) {
	src := &fakeSource{kernels: []KernelMetrics{
		kernel(1, "mm", 0, 1000, 1100, 2, 100, 50, 1, 0),   // step (via aten::mm)
		kernel(2, "relu", 0, 1200, 1500, 4, 300, 10, 5, 1), // inner, the innermost range
		kernel(3, "add", 1, 1600, 1700, 5, 100, 90, 3, 0),  // step, on another stream
		kernel(4, "direct", 0, 1800, 1800, 3, 0, 70, 2, 0), // launched directly in inner
		kernel(5, "mul", 2, 900, 1000, 7, 100, 20, 4, 0),   // other (thread 2)
		kernel(6, "late", 0, 3000, 3100, 8, 100, 20, 4, 0), // op outside every range: dropped
		kernel(7, "nolink", 0, 3200, 3300, 0, 100, 20, 4, 0),
		kernel(8, "unknown", 0, 3400, 3500, 99, 100, 20, 4, 0),
	}}
	tr, p, err := run(t, src, fakeConfig+"XPUPTI_PROFILER_ENABLE_PER_KERNEL = false", hostTrace())
	require.NoError(t, err)
	scopes := p.LastScopes()
	require.Len(t, scopes, 3)

	names := []string{scopes[0].Name, scopes[1].Name, scopes[2].Name}
	assert.Equal(t, []string{"step", "other", "inner"}, names, "in range start order (then trace order)")
	step, other, inner := scopes[0], scopes[1], scopes[2]

	assert.Equal(t, Scope{Name: "step", Range: true, ID: 1, Device: 0, Stream: 0, StartNs: 1000, EndNs: 1700, Kernels: 2,
		Metrics: fakeMetrics, Values: []float64{200, 70, 3, 0}}, step, "sum, time-weighted mean (50·100+90·100)/200, max, any")
	assert.Equal(t, Scope{Name: "inner", Range: true, ID: 3, Device: 0, Stream: 0, StartNs: 1200, EndNs: 1800, Kernels: 2,
		Metrics: fakeMetrics, Values: []float64{300, 10, 5, 1}}, inner, "a 0 ns kernel has no weight")
	assert.Equal(t, Scope{Name: "other", Range: true, ID: 6, Device: 0, Stream: 2, StartNs: 900, EndNs: 1000, Kernels: 1,
		Metrics: fakeMetrics, Values: []float64{100, 20, 4, 0}}, other)

	var slices []trace.Event
	for _, e := range tr.Events {
		if e.Ph == 'X' && strings.HasPrefix(e.Name, SlicePrefix) {
			slices = append(slices, e)
		}
	}
	require.Len(t, slices, 3)
	assert.Equal(t, trace.Event{Ph: 'X', Cat: "kernel", Name: "metrics: step", Pid: 0, Tid: 0, TsNs: 999, DurNs: 702,
		Args: []trace.Arg{trace.Int("range_id", 1), trace.Int("kernels", 2), trace.Str("queue", "0"),
			trace.Raw("Time::ns", "200"), trace.Raw("Busy::%", "70"), trace.Raw("Peak", "3"), trace.Raw("Spilled", "false")}},
		slices[0])
}

func TestAggregateZeroDurations(t *testing.T) {
	got := aggregate(fakeMetrics, [][]float64{{1, 10, 1, 0}, {2, 30, 5, 0}}, []float64{0, 0})
	assert.Equal(t, []float64{3, 20, 5, 0}, got, "plain mean when no kernel took time")
}

func TestMaxScopesPerRange(t *testing.T) {
	var ks []KernelMetrics
	tr := &trace.Trace{}
	for i := range int64(12) {
		tr.Events = append(tr.Events, trace.Event{Ph: 'X', Cat: "user_annotation", Name: "r" + strconv.FormatInt(i, 10),
			Tid: 1, TsNs: i * 100, DurNs: 50, Args: []trace.Arg{trace.Int(trace.ArgExternalID, i+1)}})
		ks = append(ks, kernel(i, "k", 0, 10000+i*100, 10050+i*100, i+1, 50, 1, 1, 0))
	}
	_, p, err := run(t, &fakeSource{kernels: ks}, fakeConfig+"XPUPTI_PROFILER_ENABLE_PER_KERNEL = 0", tr)
	require.EqualError(t, err, "xpu: 12 range scopes exceed XPUPTI_PROFILER_MAX_SCOPES = 10; the first 10 are kept, 2 dropped")
	scopes := p.LastScopes()
	require.Len(t, scopes, 10)
	assert.Equal(t, "r0", scopes[0].Name)
	assert.Equal(t, "r9", scopes[9].Name)
}

func TestStopErrorAndNoKernels(t *testing.T) {
	src := &fakeSource{stopErr: errors.New("device lost")}
	tr, p, err := run(t, src, fakeConfig, nil)
	require.NoError(t, err)
	assert.Empty(t, tr.Events)
	assert.Empty(t, p.LastScopes())
}

func TestRegistry(t *testing.T) {
	src := &fakeSource{}
	dev := registerFake(t, src)
	got, ok := Source(strings.ToUpper(dev))
	require.True(t, ok, "device names are case-insensitive")
	assert.Same(t, src, got)
	assert.Contains(t, Sources(), strings.ToLower(dev))
	_, ok = Source("no-such-device")
	assert.False(t, ok)
	RegisterSource("nil-factory", func() MetricSource { return nil })
	defer RegisterSource("nil-factory", nil)
	_, ok = Source("nil-factory")
	assert.False(t, ok)

	p := NewScopeProfiler(dev)
	assert.Equal(t, "xpu_scope_profiler", p.Name())
	assert.True(t, p.AvailableActivities().Has(kineto.XPUScopeProfiler))
	assert.Nil(t, p.LastScopes())
}

func TestWithMetrics(t *testing.T) {
	base, err := kineto.ParseConfig("ACTIVITY_TYPES = cpu_op\nXPUPTI_PROFILER_ENABLE_PER_KERNEL = false\nFOO = 1")
	require.NoError(t, err)
	c := WithMetrics(base, []string{"Time", "Busy"})
	assert.True(t, c.Activities.Has(kineto.XPUScopeProfiler))
	assert.True(t, c.Activities.Has(kineto.ConcurrentKernel))
	assert.True(t, c.Activities.Has(kineto.CPUOp))
	assert.False(t, base.Activities.Has(kineto.XPUScopeProfiler), "cfg is not modified")
	_, set := base.Get(KeyMetrics)
	assert.False(t, set)
	got, err := ParseConfig(c)
	require.NoError(t, err)
	assert.Equal(t, Config{Enabled: true, Metrics: []string{"Time", "Busy"}, PerKernel: false, MaxScopes: 10}, got)
	c = WithMetrics(nil, nil)
	_, err = ParseConfig(c)
	require.EqualError(t, err, "xpu: XPUPTI_PROFILER_METRICS: no metrics given, but ACTIVITY_TYPES selects xpu_scope_profiler (list metric names, e.g. GpuTime, GpuCoreClocks)")
}
