// Package xpu is orprof's scope profiler, the Go form of Kineto's XPU scope profiler (kineto
// #1174): hardware metrics per kernel (or per record_function range), written into the trace
// the way Kineto writes them — a "metrics: <name>" slice over each kernel and a counter pulse
// on the device's "xpu" track — and summarised in a metrics table.
//
// It owns the metric configuration (XPUPTI_PROFILER_* keys), the MetricSource interface a
// backend implements to report metrics (OpenReg registers one as "openreg"), and the scopes.
// Unlike Kineto, whose user-range mode throws, both modes work here.
package xpu
