package opencl

import (
	"context"
	"testing"

	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/kineto/profilertest"
)

// TestActivityProfilerConformance: OpenCL's profiler passes the kit for Go activity profilers.
func TestActivityProfilerConformance(t *testing.T) {
	rt := needOpenCL(t)
	profilertest.Run(t, profilertest.Target{
		New: func() kineto.ActivityProfiler { return &ActivityProfiler{} },
		Work: func() error {
			_, err := Uniform(context.Background(), rt, 0, -1, 1, 7, 8, 8)
			if err != nil {
				return err
			}
			return rt.Synchronize()
		},
	})
}
