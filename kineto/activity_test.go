package kineto

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseActivityType(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ActivityType
	}{
		{"cpu_op", CPUOp}, {"CPU_OP", CPUOp}, {"  Kernel ", ConcurrentKernel}, {"concurrent_kernel", ConcurrentKernel},
		{"cuda_runtime", CUDARuntime}, {"runtime", Runtime}, {"RUNTIME", Runtime}, {"driver", Driver},
		{"gpu_pm_counter", GPUPMCounter}, {"mtia_counters", MTIACounters}, {"xpu_scope_profiler", XPUScopeProfiler},
		{"hardware_counters", HardwareCounters}, {"privateuse1_driver", PrivateUse1Driver},
	} {
		got, err := ParseActivityType(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	_, err := ParseActivityType("cuda")
	assert.EqualError(t, err, `unknown activity type "cuda"`)
}

func TestActivityNamesRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range allActivityTypes() {
		name := a.String()
		assert.False(t, seen[name], "duplicate name %q", name)
		seen[name] = true
		back, err := ParseActivityType(name)
		require.NoError(t, err)
		assert.Equal(t, a, back)
	}
	assert.Len(t, seen, 32)
	assert.Equal(t, "activity(200)", ActivityType(200).String())
}

func TestActivityAliases(t *testing.T) {
	set, err := ParseActivities("runtime, driver, kernel")
	require.NoError(t, err)
	assert.Equal(t, NewActivitySet(Runtime, Driver, ConcurrentKernel), set)
	// PR #1212's ConfigTest: the generic set also has the device-specific types.
	for _, a := range []ActivityType{CUDARuntime, MTIARuntime, XPURuntime, HPUOp, GlowRuntime, PrivateUse1Runtime,
		CUDADriver, XPUDriver, PrivateUse1Driver, MTIACCPEvents} {
		assert.True(t, set.Has(a), a.String())
	}
	assert.False(t, set.Has(GPUMemcpy))
	assert.False(t, set.Has(GPUPMCounter))

	cuda := NewActivitySet(CUDARuntime)
	assert.True(t, cuda.Has(Runtime), "runtime ↔ cuda_runtime")
	assert.False(t, cuda.Has(XPURuntime), "two device-specific names are not aliases")
	// What a set containing cuda_runtime contains (orprof keeps main's device types apart;
	// in PR #1212 they are one value): itself and the generic runtime, no other device's.
	for _, a := range []ActivityType{CUDARuntime, Runtime} {
		assert.True(t, cuda.Has(a), a.String())
	}
	for _, a := range []ActivityType{XPURuntime, MTIARuntime, GlowRuntime, HPUOp, PrivateUse1Runtime, CUDADriver, Driver} {
		assert.False(t, cuda.Has(a), a.String())
	}
	assert.False(t, NewActivitySet(MTIACounters).Has(GPUPMCounter), "PR #1212 declares no mtia_counters alias")
	assert.False(t, NewActivitySet(GPUPMCounter).Has(MTIACounters))
	assert.False(t, cuda.Has(ActivityType(99)))

	assert.Equal(t, NewActivitySet(CUDARuntime, ConcurrentKernel),
		NewActivitySet(CUDARuntime, ConcurrentKernel, GPUMemcpy).Intersect(NewActivitySet(Runtime, ConcurrentKernel)))
}

func TestParseActivities(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ActivitySet
		err  string
	}{
		{in: "", want: DefaultActivities()},
		{in: " , ", want: DefaultActivities()},
		{in: "cpu_op,kernel", want: NewActivitySet(CPUOp, ConcurrentKernel)},
		{in: "CPU_OP , Kernel,", want: NewActivitySet(CPUOp, ConcurrentKernel)},
		{in: "cpu_op,bogus,kernel", err: `activity list "cpu_op,bogus,kernel": entry 2: unknown activity type "bogus"`},
		{in: "cuda", err: `activity list "cuda": entry 1: unknown activity type "cuda"`},
	} {
		got, err := ParseActivities(tc.in)
		if tc.err != "" {
			assert.EqualError(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestDefaultActivities(t *testing.T) {
	d := DefaultActivities()
	assert.Equal(t, 18, d.Len(), "Kineto main's defaults: every type before glow_runtime")
	assert.Equal(t, "cpu_instant_event,cpu_op,cuda_driver,cuda_event,cuda_runtime,cuda_sync,external_correlation,"+
		"gpu_memcpy,gpu_memset,gpu_user_annotation,kernel,mtia_ccp_events,mtia_counters,mtia_insight,mtia_runtime,"+
		"overhead,python_function,user_annotation", d.String())
	for _, a := range []ActivityType{Runtime, Driver} {
		assert.True(t, d.Has(a), "PR #1212 default %s through its alias", a)
	}
	// PR #1212's default list has no GPU_PM_COUNTER (nor COLLECTIVE_COMM, CUDA_PROFILER_RANGE).
	for _, a := range []ActivityType{GPUPMCounter, CollectiveComm, CUDAProfilerRange, XPUScopeProfiler, HardwareCounters} {
		assert.False(t, d.Has(a), a.String())
	}
}

func TestActivityJSON(t *testing.T) {
	b, err := json.Marshal(struct {
		T ActivityType
		S ActivitySet
	}{ConcurrentKernel, NewActivitySet(CPUOp, CUDARuntime)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"T":"kernel","S":"cpu_op,cuda_runtime"}`, string(b), "names, never the C++ integer")
	var back struct {
		T ActivityType
		S ActivitySet
	}
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, ConcurrentKernel, back.T)
	assert.Equal(t, NewActivitySet(CPUOp, CUDARuntime), back.S)
	assert.Error(t, json.Unmarshal([]byte(`{"T":"nope"}`), &back))
}

func FuzzParseActivities(f *testing.F) {
	for _, s := range []string{"", "cpu_op", "runtime,driver,kernel", "x,,y", "CPU_OP , KERNEL"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		set, err := ParseActivities(s)
		if err != nil {
			return
		}
		again, err := ParseActivities(set.String())
		if err != nil || again != set {
			t.Fatalf("%q: String %q does not parse back: %v", s, set.String(), err)
		}
	})
}

func ExampleParseActivities() {
	set, _ := ParseActivities("cuda_runtime, KERNEL")
	fmt.Println(set)
	fmt.Println(set.Has(Runtime), set.Has(XPURuntime))
	_, err := ParseActivities("cpu_op,gpu")
	fmt.Println(err)
	// Output:
	// cuda_runtime,kernel
	// true false
	// activity list "cpu_op,gpu": entry 2: unknown activity type "gpu"
}
