package pprof_test

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/analysis/pprof"
	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace/tracefile"
)

type figures struct {
	cpuNs, devNs float64
	calls        int64
	samples      int64 // kernel launches counted into an op's device time
}

// TestProfileTotalsEqualTable writes the profile of real traces (CUDA and ROCm kernels linked to
// ops, orprof's own traces in kernel and fallback mode), parses it back with the profile
// package, and checks that every op's flat CPU time and calls, and its device time (its own plus
// that of the kernel frames under it, annotation spans aside), every kernel's flat device time,
// and the device time total equal the table's rows and footer, within the whole-nanosecond
// rounding of each sample.
func TestProfileTotalsEqualTable(t *testing.T) {
	files := []string{
		"../../testdata/kineto/cuda_alexnet.json.gz",
		"../../testdata/kineto/rocm_mi250_train.json.gz",
		"../../testdata/kineto/cpu_only.json.gz",
		"../../trace/tracefile/testdata/reader/orprof_kernels.json",
		"../../trace/tracefile/testdata/reader/orprof_fallback.json",
	}
	if !testing.Short() {
		files = append(files, "../../testdata/kineto/cuda_train_step.json.gz", "../../testdata/kineto/cuda_ns_resolution.json.gz")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := tracefile.Open(file, tracefile.Options{})
			require.NoError(t, err)
			l := events.NewList(data.Events, events.ListOptions{UseDevice: data.DeviceName})
			var buf bytes.Buffer
			require.NoError(t, pprof.FromList(l).Write(&buf))
			p, err := profile.Parse(&buf)
			require.NoError(t, err)
			require.NoError(t, p.CheckValid())
			require.Equal(t, []string{"cpu_time", "device_time", "calls"}, []string{p.SampleType[0].Type, p.SampleType[1].Type, p.SampleType[2].Type})

			ops, kernels := map[string]*figures{}, map[string]*figures{}
			var devTotal, samples float64
			get := func(m map[string]*figures, k string) *figures {
				if m[k] == nil {
					m[k] = &figures{}
				}
				return m[k]
			}
			for _, s := range p.Sample {
				devTotal += float64(s.Value[pprof.DeviceTime])
				samples++
				name, kernel := pprof.FrameName(s.Location[0])
				if !kernel {
					f := get(ops, name)
					f.cpuNs += float64(s.Value[pprof.CPUTime])
					f.devNs += float64(s.Value[pprof.DeviceTime])
					f.calls += s.Value[pprof.Calls]
					continue
				}
				require.Zero(t, s.Value[pprof.CPUTime], "a kernel frame has no CPU time")
				k := get(kernels, name)
				k.devNs += float64(s.Value[pprof.DeviceTime])
				k.calls += s.Value[pprof.Calls]
				if len(s.Location) > 1 {
					parent, pk := pprof.FrameName(s.Location[1])
					require.False(t, pk, "a kernel's parent frame is an op")
					get(ops, parent).devNs += float64(s.Value[pprof.DeviceTime])
					get(ops, parent).samples += s.Value[pprof.Calls]
				}
			}
			// The annotation spans PyTorch attached to ops as kernels, which pprof leaves out.
			annotations := map[string]bool{}
			for i := 0; i < l.Len(); i++ {
				if e := l.Event(i); e.DeviceType != devices.CPU && e.IsUserAnnotation {
					annotations[e.Name] = true
				}
			}
			annotated := map[string]float64{}
			for i := 0; i < l.Len(); i++ {
				if e := l.Event(i); e.DeviceType == devices.CPU && !e.IsLegacy {
					for _, k := range e.Kernels {
						if annotations[k.Name] {
							annotated[e.Name] += k.DurationUs * 1000
						}
					}
				}
			}

			wantOps, wantKernels := map[string]*figures{}, map[string]*figures{}
			rows := l.KeyAverages(events.AverageOptions{})
			footer := optable.TableTotals(rows).SelfDevice * 1000
			assert.InDelta(t, footer, devTotal, samples+1e-9*footer, "device_time total = the table's Self <device> time total")
			for _, r := range rows {
				if r.DeviceType == devices.CPU {
					f := get(wantOps, r.Key)
					f.cpuNs += r.SelfCPUTimeTotal * 1000
					f.devNs += r.SelfDeviceTimeTotal * 1000
					f.calls += r.Count
				} else if !r.IsUserAnnotation {
					f := get(wantKernels, r.Key)
					f.devNs += r.SelfDeviceTimeTotal * 1000
					f.calls += r.Count
				}
			}
			near := func(what, name string, want, got float64, calls int64) {
				// Each sample is rounded to whole ns; a frame sums at most calls samples.
				tol := float64(calls) + 1e-9*math.Abs(want)
				assert.InDelta(t, want, got, tol, "%s of %q", what, name)
			}
			require.Equal(t, len(wantOps), len(ops), "one op frame per CPU row name")
			for name, w := range wantOps {
				g := ops[name]
				require.NotNil(t, g, name)
				assert.Equal(t, w.calls, g.calls, "calls of %q", name)
				near("cpu_time", name, w.cpuNs, g.cpuNs, w.calls)
				near("device_time", name, w.devNs-annotated[name], g.devNs, w.calls+g.samples)
			}
			require.Equal(t, len(wantKernels), len(kernels), "one kernel frame per device row name")
			for name, w := range wantKernels {
				g := kernels[name]
				require.NotNil(t, g, name)
				assert.Equal(t, w.calls, g.calls, "calls of %q", name)
				near("device_time", name, w.devNs, g.devNs, w.calls)
			}
		})
	}
}

// TestProfileStacks: an op's stack is its chain of parents on its thread; kernels are leaves
// under the op that launched them; a kernel linked to no op is a root frame.
func TestProfileStacks(t *testing.T) {
	op := func(id int64, name string, thread int64, s, e float64) events.FunctionEvent {
		return events.NewFunctionEvent(id, name, thread, s, e)
	}
	mm := op(2, "aten::mm", 1, 10, 40)
	mm.Kernels = []events.Kernel{{Name: "gemm", DurationUs: 20}}
	k1 := op(10, "gemm", 7, 50, 70)
	k1.DeviceType = devices.CUDA
	k2 := op(11, "gemm", 7, 80, 83)
	k2.DeviceType = devices.CUDA
	fb := op(5, "aten::add", 2, 0, 10)
	fb.IsLegacy, fb.Kernels = true, []events.Kernel{{Name: "aten::add", DurationUs: 4}}
	evs := []events.FunctionEvent{op(1, "step", 1, 0, 100), mm, op(3, "aten::mm", 2, 20, 30), k1, k2, fb}
	p := pprof.FromList(events.NewList(evs, events.ListOptions{UseDevice: "cuda"}))
	got := map[string][]int64{}
	for _, s := range p.Sample {
		key := ""
		for i := len(s.Location) - 1; i >= 0; i-- {
			name, kernel := pprof.FrameName(s.Location[i])
			if kernel {
				name = "[" + name + "]"
			}
			key += "/" + name
		}
		got[key] = s.Value
	}
	assert.Equal(t, map[string][]int64{
		"/step":                 {70000, 0, 1},
		"/step/aten::mm":        {30000, 0, 1},
		"/step/aten::mm/[gemm]": {0, 20000, 1},
		"/aten::mm":             {10000, 0, 1},
		"/aten::add":            {10000, 4000, 1}, // fallback mode: device time on the op itself
		"/[gemm]":               {0, 3000, 1},     // 23 µs of gemm ran, 20 µs of it linked
	}, got)
	assert.Equal(t, "device_time", p.DefaultSampleType)
}
