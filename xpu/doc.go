// Package xpu is orprof's scope profiler, the Go form of Kineto's XPU scope profiler (kineto
// #1174): hardware metrics per kernel or per record_function range from a backend's MetricSource,
// configured by Kineto's XPUPTI_PROFILER_* keys. It writes them into the trace as Kineto does (a
// "metrics: <name>" slice over each kernel, cat "kernel", with the values as args) plus counter
// pulses, and summarises them in a metrics table. The slices are also the session's device
// activities, so the operator table has PyTorch's "metrics: <name>" rows (key_averages() has
// them; test_xpu_scope_profiler looks for them); their time is their kernel's, so no total
// counts them (events.IsScopeMetrics), and a trace reader may leave them out
// (tracefile.Options.SkipScopeMetrics; `orprof table --no-scope-metrics`).
//
// # Differences from Kineto and PyTorch
//
//	| where | Kineto / PyTorch | orprof | why | test |
//	|---|---|---|---|---|
//	| user-range scopes (XPUPTI_PROFILER_ENABLE_PER_KERNEL = false) | Kineto throws: only per-kernel scopes work | one scope per record_function range, with the kernels it contains | the mode is in the config; refusing it helps no one | TestPerRangeScopes |
//	| counter tracks | one "xpu" counter per device row carrying every metric as a series, without units | by default one track per metric, named "xpu <metric> (<unit>)" ("xpu GpuTime (ns)"); ORPROF_XPU_COUNTER_TRACKS = single gives Kineto's form | in catapult's viewer the series of one counter stack, so the small % series vanish under ns and cycles; DevTools and speedscope drop multi-series counters; one track per metric draws everywhere, each on its own scale, and says its unit | TestPerMetricCounterEvents, TestPerKernelEvents |
//	| "metrics: …" rows in totals | PyTorch's table footer sums every device row, so each kernel's time would be counted twice (kernel + metrics slice) | the rows are in the table, their time is in no total | a total counts device work once | TestKeyAveragesHaveMetricsRows, tracefile.TestReadScopeMetricsSlices |
//	| metrics slice padding | 1 ns before and after the kernel | 1 ns, but at most half the gap to a neighbouring slice on the row, never out of a slice that shares the kernel's start or end | back-to-back kernels' slices must not overlap (viewers mis-nest overlapping slices) | TestPads |
//
// As in Kineto (TestParseConfig): XPUPTI_PROFILER_MAX_SCOPES = 0 means the default cap (1500
// per kernel, 10 per range); a negative or non-integer value is refused.
package xpu
