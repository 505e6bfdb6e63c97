package pprof_test

import (
	"fmt"

	"github.com/orprof/orprof/analysis/pprof"
	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
)

// An op that launched a kernel: the kernel is a leaf frame under it, with the device time.
func ExampleFromList() {
	mm := events.NewFunctionEvent(1, "aten::mm", 1, 0, 40)
	mm.Kernels = []events.Kernel{{Name: "gemm", DurationUs: 25}}
	gemm := events.NewFunctionEvent(2, "gemm", 7, 10, 35)
	gemm.DeviceType = devices.CUDA
	p := pprof.FromList(events.NewList([]events.FunctionEvent{mm, gemm}, events.ListOptions{UseDevice: "cuda"}))
	for _, s := range p.Sample {
		leaf, _ := pprof.FrameName(s.Location[0])
		fmt.Printf("%s (depth %d): cpu_time %d ns, device_time %d ns, calls %d\n",
			leaf, len(s.Location), s.Value[pprof.CPUTime], s.Value[pprof.DeviceTime], s.Value[pprof.Calls])
	}
	// p.Write(f) writes the gzipped profile.proto that `go tool pprof` reads.

	// Output:
	// aten::mm (depth 1): cpu_time 40000 ns, device_time 0 ns, calls 1
	// gemm (depth 2): cpu_time 0 ns, device_time 25000 ns, calls 1
}
