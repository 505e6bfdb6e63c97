package openreg_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/kineto/profilertest"
	"github.com/orprof/orprof/openreg"
	"github.com/orprof/orprof/trace"
)

// useRuntime makes a fresh runtime the default for the test.
func useRuntime(t *testing.T) *openreg.Runtime {
	t.Helper()
	rt, err := openreg.New(openreg.Options{Devices: 1})
	require.NoError(t, err)
	prev := openreg.SetDefault(rt)
	t.Cleanup(func() {
		openreg.SetDefault(prev)
		_ = rt.Close()
	})
	return rt
}

// TestActivityProfilerActivities: the five activities of PyTorch's OpenReg reference profiler,
// and configure({}) returns a session (recording all five); a disjoint set returns none.
func TestActivityProfilerActivities(t *testing.T) {
	p := &openreg.ActivityProfiler{}
	assert.Equal(t, kineto.NewActivitySet(kineto.ConcurrentKernel, kineto.GPUMemcpy, kineto.GPUMemset,
		kineto.PrivateUse1Runtime, kineto.PrivateUse1Driver), p.AvailableActivities())

	useRuntime(t)
	s, err := p.Configure(0, kineto.NewConfig())
	require.NoError(t, err)
	require.NotNil(t, s, "configure({}) returns a session, as PyTorch's OpenReg profiler does")
	require.NoError(t, s.Start())
	require.NoError(t, s.Stop())
	require.NoError(t, s.ProcessTrace(&trace.Trace{}))

	s, err = p.Configure(kineto.NewActivitySet(kineto.CPUOp, kineto.CUDARuntime), kineto.NewConfig())
	require.NoError(t, err)
	assert.Nil(t, s, "a set with none of the five")
}

// TestActivityProfilerDriver: each launch records its driver-layer hand-off, inside the runtime
// call, with the launch's id and correlation, on the same thread; only when asked for.
func TestActivityProfilerDriver(t *testing.T) {
	rt := useRuntime(t)
	p := &openreg.ActivityProfiler{}
	for _, tc := range []struct {
		name         string
		want         kineto.ActivitySet
		runtime, drv bool
	}{
		{"runtime and driver", kineto.NewActivitySet(kineto.ConcurrentKernel, kineto.PrivateUse1Runtime, kineto.PrivateUse1Driver), true, true},
		{"driver only", kineto.NewActivitySet(kineto.PrivateUse1Driver), false, true},
		{"generic driver", kineto.NewActivitySet(kineto.Driver), false, true},
		{"runtime only", kineto.NewActivitySet(kineto.PrivateUse1Runtime), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := p.Configure(tc.want, kineto.NewConfig())
			require.NoError(t, err)
			require.NotNil(t, s)
			require.NoError(t, s.Start())
			st, err := rt.DefaultStream(0)
			require.NoError(t, err)
			require.NoError(t, st.LaunchKernel(context.Background(), "k", openreg.KernelWork{Flops: 1}, func() {}))
			require.NoError(t, s.Stop())
			tr := &trace.Trace{}
			require.NoError(t, s.ProcessTrace(tr))

			var rtEv, drvEv *trace.Event
			for i := range tr.Events {
				switch e := &tr.Events[i]; e.Cat {
				case "privateuse1_runtime":
					rtEv = e
				case "privateuse1_driver":
					drvEv = e
				}
			}
			assert.Equal(t, tc.runtime, rtEv != nil, "runtime event")
			require.Equal(t, tc.drv, drvEv != nil, "driver event")
			if drvEv == nil {
				return
			}
			assert.Equal(t, "orStreamEnqueue", drvEv.Name)
			if rtEv != nil {
				assert.Equal(t, rtEv.Tid, drvEv.Tid, "same thread")
				assert.GreaterOrEqual(t, drvEv.TsNs, rtEv.TsNs, "the driver call starts inside the runtime call")
				assert.LessOrEqual(t, drvEv.TsNs+drvEv.DurNs, rtEv.TsNs+rtEv.DurNs, "and ends inside it")
				assert.Equal(t, rtEv.Args, drvEv.Args, "same correlation")
			}
			var driverActs int
			for _, a := range s.(kineto.DeviceActivitySource).DeviceActivities() {
				if a.Type == kineto.PrivateUse1Driver {
					driverActs++
					assert.True(t, a.IsHost())
				}
			}
			assert.Equal(t, 1, driverActs)
		})
	}
}

// TestActivityProfilerConformance: OpenReg's profiler passes the kit for Go activity profilers.
func TestActivityProfilerConformance(t *testing.T) {
	rt := useRuntime(t)
	profilertest.Run(t, profilertest.Target{
		New: func() kineto.ActivityProfiler { return &openreg.ActivityProfiler{} },
		Work: func() error {
			st, err := rt.DefaultStream(0)
			if err != nil {
				return err
			}
			if err := st.LaunchKernel(context.Background(), "k", openreg.KernelWork{Flops: 1}, func() {}); err != nil {
				return err
			}
			return st.Synchronize()
		},
	})
}

// TestActivityProfilerRecords: a session says how many activities it holds while it records
// (kineto.RecordCounter, what a bounded capture counts): none before Start, the work and the
// launches as they complete, none once Stop took them.
func TestActivityProfilerRecords(t *testing.T) {
	rt := useRuntime(t)
	s, err := (&openreg.ActivityProfiler{}).Configure(0, kineto.NewConfig())
	require.NoError(t, err)
	rc, ok := s.(kineto.RecordCounter)
	require.True(t, ok, "OpenReg's session counts its records")
	assert.Zero(t, rc.Records(), "before Start")
	require.NoError(t, s.Start())
	st, err := rt.DefaultStream(0)
	require.NoError(t, err)
	const kernels = 5
	for range kernels {
		require.NoError(t, st.LaunchKernel(context.Background(), "k", openreg.KernelWork{Flops: 1}, func() {}))
	}
	require.NoError(t, rt.Synchronize())
	// Each launch: the kernel, its runtime call and its driver hand-off.
	assert.Equal(t, 3*kernels, rc.Records())
	require.NoError(t, s.Stop())
	assert.Zero(t, rc.Records(), "Stop took them")
	require.NoError(t, s.ProcessTrace(&trace.Trace{}))
}
