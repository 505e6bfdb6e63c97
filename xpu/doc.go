// Package xpu is orprof's scope profiler, the Go form of Kineto's XPU scope profiler (kineto
// #1174): hardware metrics per kernel or per record_function range from a backend's MetricSource,
// configured by Kineto's XPUPTI_PROFILER_* keys. It writes them into the trace as Kineto does (a
// "metrics: <name>" slice over each kernel and a counter pulse on the device's "xpu" track) and
// summarises them in a metrics table; unlike Kineto, whose user-range mode throws, both modes work.
package xpu
