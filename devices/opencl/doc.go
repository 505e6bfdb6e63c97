// Package opencl is a real device backend: orprof's stubs, a small op library with an MLP
// workload, and a Kineto-style activity profiler over the system's OpenCL (the ICD loader
// libOpenCL.so.1, called through purego: no cgo). It registers the stubs as "opencl" and its
// activity profiler for sessions on that device.
//
// Devices are every device of every platform, platforms in the ICD loader's order and devices
// in clGetDeviceIDs order; ORPROF_OPENCL_PLATFORM and ORPROF_OPENCL_DEVICE_TYPE narrow them.
// Each device has a profiling-enabled in-order queue per stream. Device timestamps are on the
// device's own clock; the activity profiler maps them to the host clock by calibration
// (Calibration) and reports the residual.
//
// On a machine without OpenCL every entry point fails with a *MissingError that says what is
// missing and how to install pocl, an OpenCL implementation for CPUs.
package opencl
