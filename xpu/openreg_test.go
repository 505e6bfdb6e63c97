package xpu_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/openreg"
	"github.com/orprof/orprof/openreg/ops"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/xpu"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Sessions are process-wide: the tests in this file do not run in parallel.

// perKernelConfig asks for Kineto's single "xpu" counter track, which these tests check
// against Kineto's own form; TestCounterTracksPerMetric checks the default.
const perKernelConfig = "ACTIVITY_TYPES = xpu_scope_profiler, kernel\n" +
	"XPUPTI_PROFILER_METRICS = GpuTime, GpuCoreClocks, XVE_ACTIVE\n" +
	"XPUPTI_PROFILER_ENABLE_PER_KERNEL = true\n" +
	"ORPROF_XPU_COUNTER_TRACKS = single"

// profile runs fn under an "openreg" session configured by cfgText with a scope profiler, on a
// fresh default runtime made with rtOpts, and returns the result and the profiler.
func profile(t *testing.T, cfgText string, rtOpts openreg.Options, clock devices.Clock,
	fn func(ctx context.Context, rt *openreg.Runtime) error) (*orprof.Result, *xpu.ScopeProfiler) {
	t.Helper()
	cfg, err := kineto.ParseConfig(cfgText)
	require.NoError(t, err)
	rt, err := openreg.New(rtOpts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	prev := openreg.SetDefault(rt)
	t.Cleanup(func() { openreg.SetDefault(prev) })
	sp := xpu.NewScopeProfiler("openreg")
	sess, err := orprof.Start(orprof.Options{Device: "openreg", Activities: cfg.Activities, Config: cfg,
		Profilers: []kineto.ActivityProfiler{sp}, Clock: clock})
	require.NoError(t, err)
	runErr := fn(orprof.WithThread(context.Background(), orprof.MainThread()), rt)
	res, err := sess.Stop()
	require.NoError(t, runErr)
	require.NoError(t, err)
	return res, sp
}

// checkTrace writes the trace and runs trace.Check on it.
func checkTrace(t *testing.T, tr *trace.Trace) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, trace.Write(&buf, tr))
	require.NoError(t, trace.Check(buf.Bytes()))
}

func arg(e *trace.Event, key string) (string, bool) {
	for _, a := range e.Args {
		if a.Key == key {
			return a.JSON(), true
		}
	}
	return "", false
}

func numArg(t *testing.T, e *trace.Event, key string) float64 {
	t.Helper()
	v, ok := arg(e, key)
	require.True(t, ok, "%s %q has no arg %q (args %v)", string(e.Ph), e.Name, key, e.Args)
	f, err := strconv.ParseFloat(v, 64)
	require.NoError(t, err)
	return f
}

// split sorts the trace's device events: OpenReg's kernels, the metrics slices and the counters.
func split(tr *trace.Trace) (kernels, slices, counters []*trace.Event) {
	for i := range tr.Events {
		e := &tr.Events[i]
		switch {
		case e.Ph == 'X' && e.Cat == "kernel" && strings.HasPrefix(e.Name, xpu.SlicePrefix):
			slices = append(slices, e)
		case e.Ph == 'X' && e.Cat == "kernel":
			kernels = append(kernels, e)
		case e.Ph == 'C' && e.Cat == xpu.CounterCat:
			counters = append(counters, e)
		}
	}
	return
}

// counterAt finds the counter event on slice's row at ts.
func counterAt(counters []*trace.Event, pid, tid, ts int64, zero bool) *trace.Event {
	for _, c := range counters {
		if c.Pid != pid || c.Tid != tid || c.TsNs != ts || c.Name != xpu.CounterName {
			continue
		}
		allZero := true
		for _, a := range c.Args {
			allZero = allZero && a.JSON() == "0"
		}
		if allZero == zero {
			return c
		}
	}
	return nil
}

func TestPerKernelScopesOnOpenReg(t *testing.T) {
	w, ok := ops.LookupWorkload("mlp")
	require.True(t, ok)
	res, sp := profile(t, perKernelConfig, openreg.Options{}, nil, w.Run)
	assert.Empty(t, res.Warnings)
	kernels, slices, counters := split(res.Trace())
	require.NotEmpty(t, kernels)
	assert.Len(t, slices, len(kernels))
	assert.Len(t, counters, 2*len(kernels))
	assert.Len(t, sp.LastScopes(), len(kernels))

	byID := map[string]*trace.Event{}
	for _, s := range slices {
		id, ok := arg(s, "kernel_id")
		require.True(t, ok)
		byID[id] = s
	}
	for _, k := range kernels {
		id, _ := arg(k, "correlation")
		s := byID[id]
		require.NotNil(t, s, "kernel %s (id %s) has no metrics slice", k.Name, id)
		assert.Equal(t, xpu.SlicePrefix+k.Name, s.Name)
		assert.Equal(t, [2]int64{k.Pid, k.Tid}, [2]int64{s.Pid, s.Tid})
		assert.Contains(t, []int64{0, 1}, k.TsNs-s.TsNs, "slice starts 1 ns (at most) before the kernel")
		assert.Contains(t, []int64{0, 1}, s.TsNs+s.DurNs-(k.TsNs+k.DurNs), "slice ends 1 ns (at most) after the kernel")
		q, _ := arg(s, "queue")
		assert.Equal(t, strconv.Quote(strconv.FormatInt(k.Tid, 10)), q)

		gpuTime := numArg(t, s, "GpuTime::ns")
		clocks := numArg(t, s, "GpuCoreClocks::cycles")
		active := numArg(t, s, "XVE_ACTIVE::%")
		assert.Equal(t, float64(k.DurNs), gpuTime, "GpuTime is the kernel's duration")
		if gpuTime >= 1000 {
			mhz := clocks / gpuTime * 1000
			assert.InDelta(t, openreg.NominalClockMHz, mhz, 6, "clocks ≈ GpuTime × MHz / 1000")
		}
		assert.True(t, active >= 0 && active <= 100, "XVE_ACTIVE %v", active)

		on := counterAt(counters, s.Pid, s.Tid, s.TsNs, false)
		off := counterAt(counters, s.Pid, s.Tid, s.TsNs+s.DurNs, true)
		require.NotNil(t, on, "counter with values at the slice start")
		require.NotNil(t, off, "counter of zeros at the slice end")
		assert.Equal(t, gpuTime, numArg(t, on, "GpuTime"))
		assert.Equal(t, clocks, numArg(t, on, "GpuCoreClocks"))
		assert.Equal(t, active, numArg(t, on, "XVE_ACTIVE"))
		assert.Len(t, on.Args, 3)
		assert.Len(t, off.Args, 3)
	}
	checkTrace(t, res.Trace())
}

func TestTwiceLongerKernelTwiceTheCounts(t *testing.T) {
	clock := devices.NewFakeClock(time.Now().UnixNano())
	cfg := "ACTIVITY_TYPES = xpu_scope_profiler, kernel\n" +
		"XPUPTI_PROFILER_METRICS = GpuTime, GpuCoreClocks, AvgGpuCoreFrequencyMHz, XVE_ACTIVE, XVE_STALL, " +
		"XVE_INST_EXECUTED_ALU0_ALL_UTILIZATION, GPU_MEMORY_BYTE_READ, GPU_MEMORY_BYTE_WRITE, GPU_MEMORY_BANDWIDTH, XVE_FLOPS"
	durs := []time.Duration{time.Millisecond, 2 * time.Millisecond, 2 * time.Millisecond, time.Millisecond}
	works := []openreg.KernelWork{
		{Flops: 1 << 20, BytesRead: 1 << 16, BytesWritten: 1 << 14}, // compute-bound
		{Flops: 2 << 20, BytesRead: 2 << 16, BytesWritten: 2 << 14}, // the same, twice as long
		{Flops: 1 << 10, BytesRead: 1 << 22, BytesWritten: 1 << 22}, // memory-bound
		{}, // no work reported
	}
	res, sp := profile(t, cfg, openreg.Options{Clock: clock}, clock, func(ctx context.Context, rt *openreg.Runtime) error {
		r := orprof.Begin(ctx, orprof.Op{Name: "custom_op"})
		defer r.End()
		for i, d := range durs {
			if err := rt.LaunchKernel(ctx, "k"+strconv.Itoa(i), works[i], func() { clock.Advance(d) }); err != nil {
				return err
			}
		}
		return rt.Synchronize()
	})
	scopes := sp.LastScopes()
	require.Len(t, scopes, 4)
	v := func(i int, name string) float64 {
		f, ok := scopes[i].Value(name)
		require.True(t, ok, name)
		return f
	}
	for i, d := range durs {
		assert.Equal(t, "k"+strconv.Itoa(i), scopes[i].Name)
		assert.Equal(t, float64(d.Nanoseconds()), v(i, "GpuTime"))
		assert.InDelta(t, v(i, "GpuTime")*v(i, "AvgGpuCoreFrequencyMHz")/1000, v(i, "GpuCoreClocks"), 0.5)
		assert.InDelta(t, openreg.NominalClockMHz, v(i, "AvgGpuCoreFrequencyMHz"), 5)
		assert.LessOrEqual(t, v(i, "XVE_ACTIVE")+v(i, "XVE_STALL"), 100.0)
		assert.LessOrEqual(t, v(i, "XVE_INST_EXECUTED_ALU0_ALL_UTILIZATION"), v(i, "XVE_ACTIVE"))
		assert.Equal(t, float64(works[i].BytesRead), v(i, "GPU_MEMORY_BYTE_READ"))
		assert.Equal(t, float64(works[i].BytesWritten), v(i, "GPU_MEMORY_BYTE_WRITE"))
		assert.Equal(t, float64(works[i].Flops), v(i, "XVE_FLOPS"))
		assert.InDelta(t, float64(works[i].BytesRead+works[i].BytesWritten)/float64(d.Nanoseconds()), v(i, "GPU_MEMORY_BANDWIDTH"), 1e-9)
	}
	assert.InEpsilon(t, 2, v(1, "GpuTime")/v(0, "GpuTime"), 1e-9)
	assert.InEpsilon(t, 2, v(1, "GpuCoreClocks")/v(0, "GpuCoreClocks"), 0.01)
	assert.InDelta(t, v(0, "XVE_STALL"), v(1, "XVE_STALL"), 0.5, "same kind of work, same stall")
	assert.Greater(t, v(2, "XVE_STALL"), 2*v(0, "XVE_STALL"), "memory-bound kernels stall more")
	assert.Less(t, v(2, "XVE_ACTIVE"), v(0, "XVE_ACTIVE"))

	// Back-to-back kernels on one stream (the fake clock leaves no gap): the metrics slices
	// lose their 1 ns padding instead of overlapping, and the trace stays valid.
	_, slices, _ := split(res.Trace())
	require.Len(t, slices, 4)
	kernels, _, _ := split(res.Trace())
	require.Len(t, kernels, 4)
	assert.Equal(t, kernels[0].TsNs, slices[0].TsNs, "no padding before the trace's time base")
	for i, s := range slices {
		post := int64(0)
		if i == len(slices)-1 {
			post = 1 // nothing follows the last kernel
		}
		assert.Equal(t, kernels[i].TsNs, s.TsNs, "slice %d", i)
		assert.Equal(t, durs[i].Nanoseconds()+post, s.DurNs, "slice %d", i)
	}
	checkTrace(t, res.Trace())
}

// rangeKernels returns, for the user range r of tr, the kernels launched by the ops it
// contains on its thread (not counting ops inside the nested ranges skip).
func rangeKernels(tr *trace.Trace, r *trace.Event, skip ...*trace.Event) []*trace.Event {
	ids := map[string]bool{}
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Ph != 'X' || e.Cat != "cpu_op" || e.Pid != r.Pid || e.Tid != r.Tid || e.TsNs < r.TsNs || e.TsNs > r.TsNs+r.DurNs {
			continue
		}
		inner := false
		for _, s := range skip {
			inner = inner || (e.TsNs >= s.TsNs && e.TsNs <= s.TsNs+s.DurNs)
		}
		if !inner {
			id, _ := arg(e, "External id")
			ids[id] = true
		}
	}
	var out []*trace.Event
	kernels, _, _ := split(tr)
	for _, k := range kernels {
		if id, _ := arg(k, "External id"); ids[id] {
			out = append(out, k)
		}
	}
	return out
}

func TestPerRangeScopesOnOpenReg(t *testing.T) {
	cfg := "ACTIVITY_TYPES = xpu_scope_profiler, kernel\n" +
		"XPUPTI_PROFILER_METRICS = GpuTime, XVE_ACTIVE, GPU_MEMORY_BYTE_READ\n" +
		"XPUPTI_PROFILER_ENABLE_PER_KERNEL = false"
	const n = 64
	res, sp := profile(t, cfg, openreg.Options{}, nil, func(ctx context.Context, rt *openreg.Runtime) error {
		a, err := ops.Uniform(ctx, rt, 0, -1, 1, 1, n, n) // outside every range: not measured
		if err != nil {
			return err
		}
		mm := func(name string, times int) error {
			r := orprof.RecordFunction(ctx, name)
			defer r.End()
			for range times {
				if _, err := ops.Mm(ctx, a, a); err != nil {
					return err
				}
			}
			return nil
		}
		if err := mm("range_a", 1); err != nil {
			return err
		}
		if err := mm("range_b", 2); err != nil {
			return err
		}
		outer := orprof.RecordFunction(ctx, "outer")
		if err := mm("inner", 3); err != nil {
			return err
		}
		if _, err := ops.Mm(ctx, a, a); err != nil {
			return err
		}
		outer.End()
		return rt.Synchronize()
	})
	assert.Empty(t, res.Warnings)
	scopes := sp.LastScopes()
	var names []string
	for _, s := range scopes {
		names = append(names, s.Name)
		assert.True(t, s.Range)
	}
	assert.Equal(t, []string{"range_a", "range_b", "outer", "inner"}, names, "one scope per range, in start order")

	ranges := map[string]*trace.Event{}
	for i := range res.Trace().Events {
		if e := &res.Trace().Events[i]; e.Cat == "user_annotation" {
			ranges[e.Name] = e
		}
	}
	want := map[string][]*trace.Event{
		"range_a": rangeKernels(res.Trace(), ranges["range_a"]),
		"range_b": rangeKernels(res.Trace(), ranges["range_b"]),
		"outer":   rangeKernels(res.Trace(), ranges["outer"], ranges["inner"]),
		"inner":   rangeKernels(res.Trace(), ranges["inner"]),
	}
	wantCount := map[string]int{"range_a": 1, "range_b": 2, "outer": 1, "inner": 3}
	_, slices, _ := split(res.Trace())
	require.Len(t, slices, 4)
	for i, s := range scopes {
		ks := want[s.Name]
		require.Len(t, ks, wantCount[s.Name], s.Name)
		assert.Equal(t, len(ks), s.Kernels, s.Name)
		var sum float64
		start, end := int64(math.MaxInt64), int64(0)
		for _, k := range ks {
			sum += float64(k.DurNs)
			start, end = min(start, k.TsNs), max(end, k.TsNs+k.DurNs)
		}
		gt, _ := s.Value("GpuTime")
		rd, _ := s.Value("GPU_MEMORY_BYTE_READ")
		act, _ := s.Value("XVE_ACTIVE")
		assert.Equal(t, sum, gt, "%s: GpuTime sums its kernels", s.Name)
		assert.Equal(t, float64(len(ks)*4*2*n*n), rd, "%s: bytes read sum", s.Name)
		assert.True(t, act > 0 && act <= 100, "%s: XVE_ACTIVE %v is a time-weighted mean", s.Name, act)
		assert.Equal(t, [2]int64{start, end}, [2]int64{s.StartNs, s.EndNs}, "%s: the extent of its kernels", s.Name)

		sl := slices[i]
		assert.Equal(t, xpu.SlicePrefix+s.Name, sl.Name)
		assert.Contains(t, []int64{0, 1}, start-sl.TsNs)
		assert.Equal(t, strconv.Itoa(len(ks)), mustArg(t, sl, "kernels"))
		id, _ := arg(ranges[s.Name], "External id")
		assert.Equal(t, id, mustArg(t, sl, "range_id"))
		assert.Equal(t, gt, numArg(t, sl, "GpuTime::ns"))
	}
	checkTrace(t, res.Trace())
}

func mustArg(t *testing.T, e *trace.Event, key string) string {
	t.Helper()
	v, ok := arg(e, key)
	require.True(t, ok, key)
	return v
}

func TestMaxScopesWarnsOnceAndKeepsFirst(t *testing.T) {
	cfg := perKernelConfig + "\nXPUPTI_PROFILER_MAX_SCOPES = 3"
	res, sp := profile(t, cfg, openreg.Options{}, nil, func(ctx context.Context, rt *openreg.Runtime) error {
		a, err := ops.Uniform(ctx, rt, 0, -1, 1, 1, 32, 32)
		if err != nil {
			return err
		}
		for range 6 {
			if _, err := ops.Mm(ctx, a, a); err != nil {
				return err
			}
		}
		return rt.Synchronize()
	})
	var warns []string
	for _, w := range res.Warnings {
		if strings.Contains(w, xpu.KeyMaxScopes) {
			warns = append(warns, w)
		}
	}
	require.Len(t, warns, 1, "one warning: %v", res.Warnings)
	assert.Contains(t, warns[0], "7 kernel scopes exceed XPUPTI_PROFILER_MAX_SCOPES = 3")
	assert.NotContains(t, warns[0], "\n")
	scopes := sp.LastScopes()
	require.Len(t, scopes, 3)
	kernels, slices, counters := split(res.Trace())
	require.Len(t, kernels, 7)
	assert.Len(t, slices, 3)
	assert.Len(t, counters, 6)
	assert.Equal(t, "openreg::uniform_kernel", scopes[0].Name, "the first scopes are kept")
	for i, s := range scopes {
		id, _ := arg(kernels[i], "correlation")
		assert.Equal(t, id, strconv.FormatInt(s.ID, 10))
	}
	checkTrace(t, res.Trace())
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  func() *kineto.Config
		want []string
	}{
		{"unknown metric", func() *kineto.Config {
			c, _ := kineto.ParseConfig("ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = GpuTime, Bogus, XVE_NOPE")
			return c
		}, []string{"XPUPTI_PROFILER_METRICS", `unknown metrics "Bogus", "XVE_NOPE"`, "available: GpuTime, GpuCoreClocks, AvgGpuCoreFrequencyMHz"}},
		{"empty metric list", func() *kineto.Config {
			c, _ := kineto.ParseConfig("ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = ,")
			return c
		}, []string{"XPUPTI_PROFILER_METRICS", "no metrics given"}},
		{"no metric key", func() *kineto.Config {
			c, _ := kineto.ParseConfig("ACTIVITY_TYPES = xpu_scope_profiler")
			return c
		}, []string{"XPUPTI_PROFILER_METRICS", "no metrics given"}},
		{"bad boolean", func() *kineto.Config {
			c := kineto.NewConfig()
			c.Activities = kineto.NewActivitySet(kineto.XPUScopeProfiler)
			c.Options[xpu.KeyMetrics] = "GpuTime"
			c.Options[xpu.KeyPerKernel] = "perhaps"
			return c
		}, []string{"XPUPTI_PROFILER_ENABLE_PER_KERNEL", `"perhaps" is not a bool`}},
		{"bad scope cap", func() *kineto.Config {
			c, _ := kineto.ParseConfig("ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = GpuTime")
			c.Options[xpu.KeyMaxScopes] = "-1" // kineto.ParseConfig refuses it; a hand-built config may not
			return c
		}, []string{"XPUPTI_PROFILER_MAX_SCOPES", `"-1" is not an integer in [0, 2147483647]`}},
		{"bad counter tracks", func() *kineto.Config {
			c, _ := kineto.ParseConfig("ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = GpuTime\nORPROF_XPU_COUNTER_TRACKS = both")
			return c
		}, []string{"ORPROF_XPU_COUNTER_TRACKS", `"both" is not per_metric or single`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg()
			require.NotNil(t, cfg)
			sess, err := xpu.NewScopeProfiler("openreg").Configure(cfg.Activities, cfg)
			require.Error(t, err)
			assert.Nil(t, sess)
			assert.NotContains(t, err.Error(), "\n")
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Equal(t, err.Error(), xpu.CheckConfig(cfg, "openreg").Error(), "CheckConfig says the same")
		})
	}

	t.Run("kineto refuses a bad boolean first", func(t *testing.T) {
		_, err := kineto.ParseConfig("XPUPTI_PROFILER_ENABLE_PER_KERNEL = maybe")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "XPUPTI_PROFILER_ENABLE_PER_KERNEL")
	})
	t.Run("no source for the device", func(t *testing.T) {
		cfg, err := kineto.ParseConfig("ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = GpuTime")
		require.NoError(t, err)
		_, err = xpu.NewScopeProfiler("nodevice").Configure(cfg.Activities, cfg)
		require.Error(t, err)
		assert.Contains(t, err.Error(), `device "nodevice" has no metric source (registered: `)
		assert.Contains(t, err.Error(), "openreg")
	})
	t.Run("not selected", func(t *testing.T) {
		cfg, err := kineto.ParseConfig("ACTIVITY_TYPES = kernel\nXPUPTI_PROFILER_METRICS = Bogus")
		require.NoError(t, err)
		sess, err := xpu.NewScopeProfiler("openreg").Configure(cfg.Activities, cfg)
		assert.NoError(t, err)
		assert.Nil(t, sess)
		assert.NoError(t, xpu.CheckConfig(cfg, "openreg"))
	})
	t.Run("session reports it as a warning", func(t *testing.T) {
		res, sp := profile(t, "ACTIVITY_TYPES = xpu_scope_profiler, kernel\nXPUPTI_PROFILER_METRICS = Bogus",
			openreg.Options{}, nil, func(ctx context.Context, rt *openreg.Runtime) error { return nil })
		require.Len(t, res.Warnings, 1)
		assert.True(t, strings.HasPrefix(res.Warnings[0], "profiler xpu_scope_profiler: configure: xpu: XPUPTI_PROFILER_METRICS: unknown metric \"Bogus\""), res.Warnings[0])
		assert.Nil(t, sp.LastScopes())
	})
}

// OpenReg's activity profiler, the scope profiler's metric source and a program's own
// EnableActivityTracing all trace the same kernels without disturbing each other.
func TestActivityConsumersDoNotInterfere(t *testing.T) {
	var own []openreg.Activity
	res, sp := profile(t, perKernelConfig, openreg.Options{}, nil, func(ctx context.Context, rt *openreg.Runtime) error {
		a, err := ops.Uniform(ctx, rt, 0, -1, 1, 1, 16, 16)
		if err != nil {
			return err
		}
		if err := rt.Synchronize(); err != nil {
			return err
		}
		rt.EnableActivityTracing()
		if _, err := ops.Mm(ctx, a, a); err != nil {
			return err
		}
		if err := rt.Synchronize(); err != nil {
			return err
		}
		own = rt.DisableActivityTracing()
		require.True(t, rt.ActivityTracing(), "the sessions' subscriptions keep tracing on")
		_, err = ops.Mm(ctx, a, a)
		return err
	})
	require.Len(t, own, 1)
	assert.Equal(t, "openreg::gemm_f32", own[0].Name)
	kernels, slices, _ := split(res.Trace())
	assert.Len(t, kernels, 3)
	assert.Len(t, slices, 3)
	assert.Len(t, sp.LastScopes(), 3)
	assert.False(t, openreg.Default().ActivityTracing(), "tracing is off once every consumer left")
}

func TestSubscriptions(t *testing.T) {
	rt, err := openreg.New(openreg.Options{})
	require.NoError(t, err)
	defer rt.Close()
	ctx := context.Background()
	launch := func(name string) {
		require.NoError(t, rt.LaunchKernel(ctx, name, openreg.KernelWork{}, func() {}))
		require.NoError(t, rt.Synchronize())
	}
	names := func(as []openreg.Activity) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.Name)
		}
		return out
	}
	launch("before")
	s1 := rt.Subscribe()
	launch("one")
	s2 := rt.Subscribe()
	rt.EnableActivityTracing()
	launch("two")
	w1, l1 := s1.Close()
	assert.Equal(t, []string{"one", "two"}, names(w1))
	assert.Equal(t, []string{"orLaunchKernel", "orStreamEnqueue", "orLaunchKernel", "orStreamEnqueue"}, names(l1), "each launch: the runtime call, then the driver hand-off inside it")
	w, l := s1.Close()
	assert.Nil(t, w)
	assert.Nil(t, l)
	launch("three")
	assert.Equal(t, []string{"two", "three"}, names(rt.DisableActivityTracing()))
	assert.True(t, rt.ActivityTracing())
	launch("four")
	w2, _ := s2.Close()
	assert.Equal(t, []string{"two", "three", "four"}, names(w2))
	assert.False(t, rt.ActivityTracing())
}

// The trace a scope profile writes is valid JSON whose counters carry numbers only.
func TestCountersAreNumbers(t *testing.T) {
	res, _ := profile(t, perKernelConfig, openreg.Options{}, nil, func(ctx context.Context, rt *openreg.Runtime) error {
		_, err := ops.Uniform(ctx, rt, 0, -1, 1, 1, 8, 8)
		return err
	})
	var buf bytes.Buffer
	require.NoError(t, trace.Write(&buf, res.Trace()))
	var top struct {
		TraceEvents []map[string]json.RawMessage `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &top))
	n := 0
	for _, e := range top.TraceEvents {
		if string(e["ph"]) == `"C"` && string(e["cat"]) == strconv.Quote(xpu.CounterCat) {
			n++
			var args map[string]float64
			require.NoError(t, json.Unmarshal(e["args"], &args), "counter args are numbers: %s", e["args"])
			assert.Len(t, args, 3)
		}
	}
	assert.Equal(t, 2, n)
}

// With xpu_scope_profiler but not kernel, the session measures device time with fallback
// events (gpu_user_annotation slices at estimated times on the device rows); every kernel still
// gets its scope, with one warning that the slices may not nest with the estimates.
func TestScopesWithoutKernelActivity(t *testing.T) {
	cfg := "ACTIVITY_TYPES = xpu_scope_profiler\nXPUPTI_PROFILER_METRICS = GpuTime\nXPUPTI_PROFILER_MAX_SCOPES = 5"
	w, ok := ops.LookupWorkload("mlp")
	require.True(t, ok)
	res, sp := profile(t, cfg, openreg.Options{}, nil, w.Run)
	require.Len(t, res.Warnings, 1)
	assert.Regexp(t, `^profiler xpu_scope_profiler: process trace: xpu: \d+ kernel scopes exceed XPUPTI_PROFILER_MAX_SCOPES = 5; `+
		`the first 5 are kept, \d+ dropped; ACTIVITY_TYPES has xpu_scope_profiler but not kernel: `, res.Warnings[0])
	kernels, slices, counters := split(res.Trace())
	assert.Empty(t, kernels, "no kernel activity selected")
	require.NotEmpty(t, slices)
	assert.Len(t, sp.LastScopes(), len(slices))
	assert.Len(t, counters, 2*len(slices))
	fallback := 0
	for _, e := range res.Trace().Events {
		if e.Cat == "gpu_user_annotation" {
			fallback++
		}
	}
	assert.Positive(t, fallback)
}

// TestKeyAveragesHaveMetricsRows: as PyTorch's test_xpu_scope_profiler asserts, the operator
// table of a scope profile has rows keyed "metrics: <kernel>"; their time is their kernels',
// so the device total is the same as without them.
func TestKeyAveragesHaveMetricsRows(t *testing.T) {
	res, _ := profile(t, perKernelConfig, openreg.Options{}, nil, func(ctx context.Context, rt *openreg.Runtime) error {
		a, err := ops.Uniform(ctx, rt, 0, -1, 1, 1, 32, 32)
		if err != nil {
			return err
		}
		_, err = ops.Mm(ctx, a, a)
		return err
	})
	rows := res.Events.KeyAverages(events.AverageOptions{})
	var metrics, others []events.Avg
	for _, r := range rows {
		if strings.HasPrefix(r.Key, "metrics: ") {
			metrics = append(metrics, r)
		} else {
			others = append(others, r)
		}
	}
	require.Len(t, metrics, 2, "one row per kernel name: uniform and gemm")
	for _, r := range metrics {
		assert.Positive(t, r.SelfDeviceTimeTotal, r.Key)
	}
	assert.Equal(t, optable.TableTotals(others).SelfDevice, optable.TableTotals(rows).SelfDevice,
		"the metrics rows add nothing to the device total")
	assert.Positive(t, optable.TableTotals(rows).SelfDevice)
}
