// Package openreg is OpenReg, orprof's simulated accelerator and reference backend: a runtime whose
// devices have streams (worker goroutines draining FIFO queues), events, accounted memory,
// kernels that really compute on host memory and activity tracing of every kernel and copy, with
// the profiler stubs registered as "openreg". Go has no thread-local storage, so the current
// device and each device's current stream travel in a context.Context (WithDevice, WithStream);
// the tensor and op library built on it is package openreg/ops.
package openreg
