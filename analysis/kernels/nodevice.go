package kernels

import "strings"

// NoDeviceError is the error of reading a trace that holds no device activity: no kernel,
// copy, fill or other device event. It is an empty or CPU-only trace, or one of orprof run's
// default fallback mode, whose device rows draw each op's measured interval (the time between
// two events recorded on its stream, waits included) rather than its kernels: not device busy
// time, so neither the kernel view nor the timeline counts it.
type NoDeviceError struct {
	// Name is the trace's name; Device its device (tracefile.Data.DeviceName, "" for CPU).
	Name, Device string
}

func (e *NoDeviceError) Error() string {
	return e.Name + ": no device activity: " + NoDeviceWhy(e.Device)
}

// orprofDevices are the devices orprof run profiles, whose traces say how to record kernels
// with it rather than with torch.profiler.
var orprofDevices = map[string]bool{"openreg": true, "opencl": true}

// NoDeviceWhy says why a trace of device ("" for CPU) has no device activity and how to record
// some: one clause, for a message or a report's note.
func NoDeviceWhy(device string) string {
	const orprofKernels = "orprof run --activities cpu_op,kernel,gpu_memcpy,privateuse1_runtime"
	switch {
	case device == "":
		return "an empty or CPU-only trace; profile the device too (torch.profiler's ProfilerActivity.CUDA, or " + orprofKernels + ")"
	case orprofDevices[device]:
		return "no " + strings.ToUpper(device) + " kernels, copies or fills (orprof run's default fallback mode times each op, not its kernels); record them with " + orprofKernels
	}
	return "no " + strings.ToUpper(device) + " kernels, copies or fills; profile them too (torch.profiler's activities, ProfilerActivity.CUDA for CUDA and ROCm)"
}
