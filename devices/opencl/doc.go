// Package opencl is a real device backend: orprof's stubs, a small op library with an MLP
// workload, and a Kineto-style activity profiler over the system's OpenCL (the ICD loader
// libOpenCL.so.1, called through purego: no cgo). It registers the stubs as "opencl" and its
// activity profiler for sessions on that device; without OpenCL every entry point fails with a
// *MissingError saying how to install pocl.
package opencl
