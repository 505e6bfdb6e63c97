package report_test

import (
	"fmt"
	"strings"

	"github.com/orprof/orprof/report"
)

// ExampleReadTrace reads a small Kineto trace: one operator, the runtime call it made and the
// kernel that call launched. The kernel's time is attached to the operator.
func ExampleReadTrace() {
	const trace = `{"traceEvents": [
	  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100.000, "dur": 20.000,
	   "args": {"External id": 7, "Input Dims": [[64, 64], [64, 64]]}},
	  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 105.000, "dur": 4.000,
	   "args": {"External id": 7, "correlation": 40}},
	  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 110.000, "dur": 12.500,
	   "args": {"External id": 7, "correlation": 40}}
	]}`
	td, err := report.ReadTrace(strings.NewReader(trace), "example.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(td.Format, td.DeviceName)
	for _, e := range td.Events {
		fmt.Printf("%-16s %-4s %5.1f..%5.1f shapes=%s kernels=%v\n", e.Name, e.DeviceType, e.StartUs, e.EndUs, e.InputShapes, e.Kernels)
	}
	// Output:
	// kineto cuda
	// aten::mm         cpu    0.0.. 20.0 shapes=[[64, 64], [64, 64]] kernels=[{gemm 0 12.5}]
	// cudaLaunchKernel cpu    5.0..  9.0 shapes=[] kernels=[]
	// gemm             cuda  10.0.. 22.5 shapes=[] kernels=[]
}

// ExampleReadTrace_error shows the error for a bad value: the file, the byte offset, the
// problem.
func ExampleReadTrace_error() {
	_, err := report.ReadTrace(strings.NewReader(`[{"name": "a", "ph": "X", "ts": 1, "dur": -5}]`), "trace.json")
	fmt.Println(err)
	// Output:
	// trace.json: byte 42: "dur" is negative (-5)
}
