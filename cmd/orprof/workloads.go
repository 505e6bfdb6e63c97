package main

import (
	"context"
	"strings"

	"github.com/orprof/orprof/devices/opencl"
	"github.com/orprof/orprof/openreg"
	"github.com/orprof/orprof/openreg/ops"
)

// deviceWorkload finds the built-in workload called name for device: OpenCL's own workloads
// for --device opencl, OpenReg's otherwise. have lists the names the device offers. prepare is
// the workload's setup, which a run calls before its session starts (nil when there is none):
// an OpenCL workload compiles its kernels there, or its trace would start with an empty
// stretch of setup.
func deviceWorkload(name, device string) (run, prepare func(ctx context.Context) error, have string, ok bool) {
	if strings.EqualFold(device, "opencl") {
		var names []string
		for _, w := range opencl.Workloads() {
			names = append(names, w.Name)
		}
		w, ok := opencl.LookupWorkload(name)
		return w.Run, w.Prepare, strings.Join(names, ", "), ok
	}
	w, ok := ops.LookupWorkload(name)
	return func(ctx context.Context) error { return w.Run(ctx, openreg.Default()) }, nil, workloadNames(), ok
}
