package xpu_test

import (
	"context"
	"fmt"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/openreg"
	"github.com/orprof/orprof/openreg/ops"
	"github.com/orprof/orprof/xpu"
)

// A profile with per-kernel hardware metrics on OpenReg: the Kineto config selects the scope
// profiler and its metrics, the session gets the profiler through Options.Profilers, and after
// Stop the trace holds a "metrics: <kernel>" slice per kernel and a pulse on each metric's
// counter track ("xpu GpuTime (ns)"), while
// LastScopes feeds the metrics table (xpu.WriteMetricsTable, printed after the op table).
func ExampleNewScopeProfiler() {
	cfg, err := kineto.ParseConfig(`
ACTIVITY_TYPES = xpu_scope_profiler, kernel
XPUPTI_PROFILER_METRICS = GpuTime, GpuCoreClocks, XVE_ACTIVE
XPUPTI_PROFILER_ENABLE_PER_KERNEL = true`)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := xpu.CheckConfig(cfg, "openreg"); err != nil { // bad metric names, before starting
		fmt.Println(err)
		return
	}
	scopes := xpu.NewScopeProfiler("openreg")
	sess, err := orprof.Start(orprof.Options{Device: "openreg", Activities: cfg.Activities, Config: cfg,
		Profilers: []kineto.ActivityProfiler{scopes}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	rt := openreg.Default()
	a, _ := ops.Uniform(ctx, rt, 0, -1, 1, 42, 64, 64)
	c, _ := ops.Mm(ctx, a, a)
	_, _ = c.ToHost(ctx) // a copy, not a kernel: no scope
	res, err := sess.Stop()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range scopes.LastScopes() {
		gpuTime, _ := s.Value("GpuTime")
		clocks, _ := s.Value("GpuCoreClocks")
		fmt.Printf("%s: measured %v, clocks follow %v\n", s.Name, gpuTime > 0, clocks >= gpuTime)
	}
	pulses := 0
	for _, e := range res.Trace().Events {
		if e.Ph == 'C' && e.Name == "xpu GpuTime (ns)" {
			pulses++
		}
	}
	fmt.Println(pulses/2, "pulses on the GpuTime track")
	// Output:
	// openreg::uniform_kernel: measured true, clocks follow true
	// openreg::gemm_f32: measured true, clocks follow true
	// 2 pulses on the GpuTime track
}
