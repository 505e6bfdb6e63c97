package trace_test

import (
	"os"

	"github.com/orprof/orprof/trace"
)

// ExampleWrite writes a one-operator trace. Args are built with the typed constructors; the
// writer encodes their values, and every time is relative to BaseTimeNs.
func ExampleWrite() {
	const base = 1_700_000_000_000_000_000
	t := &trace.Trace{BaseTimeNs: base, StartNs: base, EndNs: base + 5_000, TraceName: "example",
		Events: []trace.Event{{Ph: 'X', Cat: "cpu_op", Name: "aten::mm", Pid: 1, Tid: 1, TsNs: base + 1_000,
			DurNs: 2_500, Args: []trace.Arg{trace.Int(trace.ArgExternalID, 7), trace.Raw(trace.ArgInputDims, "[[2, 3], [3, 4]]"),
				trace.Str(trace.ArgCallStack, "model.py(3): forward")}}}}
	if err := trace.Write(os.Stdout, t); err != nil {
		panic(err)
	}
	// Output:
	// {
	//   "schemaVersion": 1,
	//   "deviceProperties": [],
	//   "distributedInfo": {"rank": 0},
	//   "displayTimeUnit": "ms",
	//   "baseTimeNanoseconds": 1700000000000000000,
	//   "traceEvents": [
	//   {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1.000, "dur": 2.500,
	//     "args": {"External id": 7, "Input Dims": [[2, 3], [3, 4]], "Call stack": "model.py(3): forward"}},
	//   {"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 5.000}
	//   ],
	//   "traceName": "example"
	// }
}
