// Package openreg is OpenReg, orprof's simulated accelerator and reference backend: a runtime
// with a configurable number of devices whose streams are worker goroutines draining FIFO
// queues, events stamped when a stream reaches them, device memory with byte accounting,
// kernels that really compute on host memory, and activity tracing of every kernel and copy.
//
// On top of the runtime sit the profiler stubs registered as "openreg" (stubs.go), a small op
// library that records ATen-style operators with a minimal autograd (Tensor, Mm, Linear, …) and
// the built-in workloads of `orprof run` (Workloads).
//
// Go has no thread-local storage, so the per-thread state of OpenReg — the current device and
// the current stream of each device — travels in a context.Context (WithDevice, WithStream).
// A context that carries none has device 0 current and every device's default stream.
package openreg
