package opencl

import (
	"fmt"
	"strconv"
	"unsafe"
)

// lib holds the OpenCL entry points of the loaded ICD loader. Handles (platforms, devices,
// contexts, queues, events, buffers, programs, kernels) are opaque pointers kept as uintptr.
type lib struct {
	handle uintptr
	path   string

	getPlatformIDs, getPlatformInfo, getDeviceIDs, getDeviceInfo                                 uintptr
	createContext, releaseContext                                                                uintptr
	createQueueWithProperties, createQueue, releaseQueue, flush, finish                          uintptr
	enqueueMarker, waitForEvents, releaseEvent, retainEvent, getEventProfilingInfo, getEventInfo uintptr
	createBuffer, releaseMem, enqueueWrite, enqueueRead, enqueueFill                             uintptr
	createProgram, buildProgram, getBuildInfo, releaseProgram                                    uintptr
	createKernel, releaseKernel, setKernelArg, enqueueNDRange                                    uintptr
	createUserEvent, setUserEventStatus                                                          uintptr // optional (OpenCL 1.1)
}

type symbol struct {
	name     string
	fn       *uintptr
	optional bool
}

func (l *lib) symbols() []symbol {
	return []symbol{
		{"clGetPlatformIDs", &l.getPlatformIDs, false},
		{"clGetPlatformInfo", &l.getPlatformInfo, false},
		{"clGetDeviceIDs", &l.getDeviceIDs, false},
		{"clGetDeviceInfo", &l.getDeviceInfo, false},
		{"clCreateContext", &l.createContext, false},
		{"clReleaseContext", &l.releaseContext, false},
		{"clCreateCommandQueueWithProperties", &l.createQueueWithProperties, true},
		{"clCreateCommandQueue", &l.createQueue, true},
		{"clReleaseCommandQueue", &l.releaseQueue, false},
		{"clCreateUserEvent", &l.createUserEvent, true},
		{"clSetUserEventStatus", &l.setUserEventStatus, true},
		{"clFlush", &l.flush, false},
		{"clFinish", &l.finish, false},
		{"clEnqueueMarkerWithWaitList", &l.enqueueMarker, false},
		{"clWaitForEvents", &l.waitForEvents, false},
		{"clReleaseEvent", &l.releaseEvent, false},
		{"clRetainEvent", &l.retainEvent, false},
		{"clGetEventProfilingInfo", &l.getEventProfilingInfo, false},
		{"clGetEventInfo", &l.getEventInfo, false},
		{"clCreateBuffer", &l.createBuffer, false},
		{"clReleaseMemObject", &l.releaseMem, false},
		{"clEnqueueWriteBuffer", &l.enqueueWrite, false},
		{"clEnqueueReadBuffer", &l.enqueueRead, false},
		{"clEnqueueFillBuffer", &l.enqueueFill, false},
		{"clCreateProgramWithSource", &l.createProgram, false},
		{"clBuildProgram", &l.buildProgram, false},
		{"clGetProgramBuildInfo", &l.getBuildInfo, false},
		{"clReleaseProgram", &l.releaseProgram, false},
		{"clCreateKernel", &l.createKernel, false},
		{"clReleaseKernel", &l.releaseKernel, false},
		{"clSetKernelArg", &l.setKernelArg, false},
		{"clEnqueueNDRangeKernel", &l.enqueueNDRange, false},
	}
}

// OpenCL constants (Khronos CL/cl.h).
const (
	clPlatformVersion      = 0x0901
	clPlatformName         = 0x0902
	clPlatformVendor       = 0x0903
	clPlatformICDSuffixKHR = 0x0920 // cl_khr_icd: "POCL", "NV", …

	clDeviceTypeDefault     = 1 << 0
	clDeviceTypeCPU         = 1 << 1
	clDeviceTypeGPU         = 1 << 2
	clDeviceTypeAccelerator = 1 << 3
	clDeviceTypeCustom      = 1 << 4
	clDeviceTypeAll         = 0xFFFFFFFF

	clDeviceType                     = 0x1000
	clDeviceProfilingTimerResolution = 0x1025
	clDeviceName                     = 0x102B
	clDeviceVersion                  = 0x102F

	clContextPlatform      = 0x1084
	clQueueProperties      = 0x1093
	clQueueProfilingEnable = 1 << 1
	clMemReadWrite         = 1 << 0
	clProgramBuildLog      = 0x1183

	clEventCommandExecutionStatus = 0x11D3

	clProfilingCommandQueued = 0x1280
	clProfilingCommandSubmit = 0x1281
	clProfilingCommandStart  = 0x1282
	clProfilingCommandEnd    = 0x1283

	clSuccess             = 0
	clDeviceNotFound      = -1
	clPlatformNotFoundKHR = -1001
)

// errorNames are the cl_int error codes of Khronos CL/cl.h (1.0 to 3.0) and the ICD loader's
// CL_PLATFORM_NOT_FOUND_KHR.
var errorNames = map[int32]string{
	0: "CL_SUCCESS", -1: "CL_DEVICE_NOT_FOUND", -2: "CL_DEVICE_NOT_AVAILABLE",
	-3: "CL_COMPILER_NOT_AVAILABLE", -4: "CL_MEM_OBJECT_ALLOCATION_FAILURE", -5: "CL_OUT_OF_RESOURCES",
	-6: "CL_OUT_OF_HOST_MEMORY", -7: "CL_PROFILING_INFO_NOT_AVAILABLE", -8: "CL_MEM_COPY_OVERLAP",
	-9: "CL_IMAGE_FORMAT_MISMATCH", -10: "CL_IMAGE_FORMAT_NOT_SUPPORTED", -11: "CL_BUILD_PROGRAM_FAILURE",
	-12: "CL_MAP_FAILURE", -13: "CL_MISALIGNED_SUB_BUFFER_OFFSET",
	-14: "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST", -15: "CL_COMPILE_PROGRAM_FAILURE",
	-16: "CL_LINKER_NOT_AVAILABLE", -17: "CL_LINK_PROGRAM_FAILURE", -18: "CL_DEVICE_PARTITION_FAILED",
	-19: "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
	-30: "CL_INVALID_VALUE", -31: "CL_INVALID_DEVICE_TYPE", -32: "CL_INVALID_PLATFORM",
	-33: "CL_INVALID_DEVICE", -34: "CL_INVALID_CONTEXT", -35: "CL_INVALID_QUEUE_PROPERTIES",
	-36: "CL_INVALID_COMMAND_QUEUE", -37: "CL_INVALID_HOST_PTR", -38: "CL_INVALID_MEM_OBJECT",
	-39: "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR", -40: "CL_INVALID_IMAGE_SIZE", -41: "CL_INVALID_SAMPLER",
	-42: "CL_INVALID_BINARY", -43: "CL_INVALID_BUILD_OPTIONS", -44: "CL_INVALID_PROGRAM",
	-45: "CL_INVALID_PROGRAM_EXECUTABLE", -46: "CL_INVALID_KERNEL_NAME", -47: "CL_INVALID_KERNEL_DEFINITION",
	-48: "CL_INVALID_KERNEL", -49: "CL_INVALID_ARG_INDEX", -50: "CL_INVALID_ARG_VALUE",
	-51: "CL_INVALID_ARG_SIZE", -52: "CL_INVALID_KERNEL_ARGS", -53: "CL_INVALID_WORK_DIMENSION",
	-54: "CL_INVALID_WORK_GROUP_SIZE", -55: "CL_INVALID_WORK_ITEM_SIZE", -56: "CL_INVALID_GLOBAL_OFFSET",
	-57: "CL_INVALID_EVENT_WAIT_LIST", -58: "CL_INVALID_EVENT", -59: "CL_INVALID_OPERATION",
	-60: "CL_INVALID_GL_OBJECT", -61: "CL_INVALID_BUFFER_SIZE", -62: "CL_INVALID_MIP_LEVEL",
	-63: "CL_INVALID_GLOBAL_WORK_SIZE", -64: "CL_INVALID_PROPERTY", -65: "CL_INVALID_IMAGE_DESCRIPTOR",
	-66: "CL_INVALID_COMPILER_OPTIONS", -67: "CL_INVALID_LINKER_OPTIONS",
	-68: "CL_INVALID_DEVICE_PARTITION_COUNT", -69: "CL_INVALID_PIPE_SIZE", -70: "CL_INVALID_DEVICE_QUEUE",
	-71: "CL_INVALID_SPEC_ID", -72: "CL_MAX_SIZE_RESTRICTION_EXCEEDED",
	-1001: "CL_PLATFORM_NOT_FOUND_KHR",
}

// ErrorName is the Khronos name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or
// "CL error <code>" for a code no header names (a vendor extension's).
func ErrorName(code int32) string {
	if n, ok := errorNames[code]; ok {
		return n
	}
	return "CL error " + strconv.Itoa(int(code))
}

// Error is a failed OpenCL call: the entry point and its error code, printed by name
// ("clEnqueueMarkerWithWaitList: CL_OUT_OF_RESOURCES").
type Error struct {
	Call string
	Code int32
}

func (e *Error) Error() string { return e.Call + ": " + ErrorName(e.Code) }

// MissingError says OpenCL is not usable on this machine: no ICD loader, no platform, or no
// device of the selected type. Its message names what is missing and how to install it.
type MissingError struct {
	What string
	// Hint replaces InstallHint when set.
	Hint string
}

// InstallHint is how to get an OpenCL platform that runs on any CPU.
const InstallHint = "install pocl-opencl-icd ocl-icd-libopencl1 (Debian/Ubuntu: apt-get install -y pocl-opencl-icd ocl-icd-libopencl1) or a GPU vendor's OpenCL driver"

func (e *MissingError) Error() string {
	if e.Hint != "" {
		return "opencl: " + e.What + "; " + e.Hint
	}
	return "opencl: " + e.What + "; " + InstallHint
}

// check turns a call's cl_int result register into an error naming call.
func check(call string, code uintptr) error { return checkCode(call, int32(code)) }

// checkCode turns a cl_int (a result or an errcode_ret) into an error naming call.
func checkCode(call string, code int32) error {
	if code != clSuccess {
		return &Error{Call: call, Code: code}
	}
	return nil
}

// infoString reads a string-valued info query (clGetPlatformInfo, clGetDeviceInfo).
func (l *lib) infoString(fn uintptr, call string, obj uintptr, param uint32) (string, error) {
	var size uintptr
	if err := check(call, l.call(fn, obj, uintptr(param), 0, 0, uintptr(unsafe.Pointer(&size)))); err != nil {
		return "", err
	}
	if size == 0 {
		return "", nil
	}
	buf := make([]byte, size)
	if err := check(call, l.call(fn, obj, uintptr(param), size, uintptr(unsafe.Pointer(&buf[0])), 0)); err != nil {
		return "", err
	}
	for len(buf) > 0 && buf[len(buf)-1] == 0 {
		buf = buf[:len(buf)-1]
	}
	return string(buf), nil
}

// infoUint64 reads a cl_ulong / cl_bitfield info value.
func (l *lib) infoUint64(fn uintptr, call string, obj uintptr, param uint32) (uint64, error) {
	var v uint64
	err := check(call, l.call(fn, obj, uintptr(param), 8, uintptr(unsafe.Pointer(&v)), 0))
	return v, err
}

// profilingNs reads one CL_PROFILING_COMMAND_* timestamp of an event, in device nanoseconds.
func (l *lib) profilingNs(ev uintptr, param uint32) (int64, error) {
	var v uint64
	if err := check("clGetEventProfilingInfo", l.call(l.getEventProfilingInfo, ev, uintptr(param), 8, uintptr(unsafe.Pointer(&v)), 0)); err != nil {
		return 0, err
	}
	return int64(v), nil
}

// wait blocks until ev has completed. An event whose command failed reports its status as
// the error.
func (l *lib) wait(ev uintptr) error {
	if err := check("clWaitForEvents", l.call(l.waitForEvents, 1, uintptr(unsafe.Pointer(&ev)))); err != nil {
		var status int32
		if l.call(l.getEventInfo, ev, clEventCommandExecutionStatus, 4, uintptr(unsafe.Pointer(&status)), 0) == 0 && status < 0 {
			return fmt.Errorf("%w (command status %s)", err, ErrorName(status))
		}
		return err
	}
	return nil
}

// pollComplete spins until ev's command has completed (CL_COMPLETE), checking its status with
// clGetEventInfo: a tighter bound on the completion instant than clWaitForEvents, whose
// wake-up can take tens of microseconds. A failed command's status is the error.
func (l *lib) pollComplete(ev uintptr) error {
	for {
		var status int32
		if err := check("clGetEventInfo", l.call(l.getEventInfo, ev, clEventCommandExecutionStatus, 4, uintptr(unsafe.Pointer(&status)), 0)); err != nil {
			return err
		}
		switch {
		case status == 0: // CL_COMPLETE
			return nil
		case status < 0:
			return &Error{Call: "clGetEventInfo (command status)", Code: status}
		}
	}
}
