package tracefile_test

import (
	"fmt"
	"strings"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace/tracefile"
)

// ExampleRead reads a small Kineto trace: one operator, the runtime call it made and the
// kernel that call launched. The kernel's time is attached to the operator.
func ExampleRead() {
	const trace = `{"traceEvents": [
	  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100.000, "dur": 20.000,
	   "args": {"External id": 7, "Input Dims": [[64, 64], [64, 64]]}},
	  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 105.000, "dur": 4.000,
	   "args": {"External id": 7, "correlation": 40}},
	  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 110.000, "dur": 12.500,
	   "args": {"External id": 7, "correlation": 40}}
	]}`
	td, err := tracefile.Read(strings.NewReader(trace), "example.json", tracefile.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(td.Form, td.DeviceName)
	for _, e := range td.Events {
		fmt.Printf("%-16s %-4s %5.1f..%5.1f shapes=%s kernels=%v\n", e.Name, e.DeviceType, e.StartUs, e.EndUs, e.InputShapes, e.Kernels)
	}
	// Output:
	// kineto cuda
	// aten::mm         cpu    0.0.. 20.0 shapes=[[64, 64], [64, 64]] kernels=[{gemm 0 12.5}]
	// cudaLaunchKernel cpu    5.0..  9.0 shapes=[] kernels=[]
	// gemm             cuda  10.0.. 22.5 shapes=[] kernels=[]
}

// ExampleReadAverages reads the same trace for its table alone: the rows key_averages() gives,
// without the events.
func ExampleReadAverages() {
	const trace = `{"traceEvents": [
	  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100.000, "dur": 20.000,
	   "args": {"External id": 7}},
	  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 105.000, "dur": 4.000,
	   "args": {"External id": 7, "correlation": 40}},
	  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 110.000, "dur": 12.500,
	   "args": {"External id": 7, "correlation": 40}}
	]}`
	av, err := tracefile.ReadAverages(strings.NewReader(trace), "example.json", tracefile.Options{}, events.AverageOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(av.Data.DeviceName, av.Data.Events == nil)
	for _, row := range av.Rows {
		fmt.Printf("%-16s self CPU %4.1f us, device total %4.1f us\n", row.Key, row.SelfCPUTimeTotal, row.DeviceTimeTotal)
	}
	// Output:
	// cuda true
	// aten::mm         self CPU 16.0 us, device total 12.5 us
	// cudaLaunchKernel self CPU  4.0 us, device total  0.0 us
	// gemm             self CPU  0.0 us, device total 12.5 us
}

// ExampleRead_error shows the error for a bad value: the file, the byte offset, the
// problem.
func ExampleRead_error() {
	_, err := tracefile.Read(strings.NewReader(`[{"name": "a", "ph": "X", "ts": 1, "dur": NaN}]`), "trace.json", tracefile.Options{})
	fmt.Println(err)
	td, err := tracefile.Read(strings.NewReader(`[{"name": "a", "ph": "X", "ts": 1, "dur": -5}]`), "trace.json", tracefile.Options{})
	fmt.Println(err, td.Warnings("trace.json"))
	// Output:
	// trace.json: byte 42: NaN is not JSON (JSON has no NaN or Infinity; Python's json.dump writes them unless allow_nan=False)
	// <nil> [trace.json: skipped 1 malformed or unknown trace event (it is at byte 42: "dur" is negative (-5))]
}
