package tracefile

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/jsonscan"
)

// sharedTestdata is the repository's top-level testdata, relative to this package's directory.
const sharedTestdata = "../../testdata"

// readerTestdata holds the reader's own hand-written traces.
const readerTestdata = "testdata/reader"

func requireShared(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join(sharedTestdata, sub)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("testdata %s missing: %v", dir, err)
	}
	return dir
}

func openTestTrace(t *testing.T, name string) *Data {
	t.Helper()
	td, err := Open(filepath.Join(readerTestdata, name), Options{})
	require.NoError(t, err)
	return td
}

// traceSummary is what the shared-trace tests pin per file.
type traceSummary struct {
	host, device, kernels int
	kernelUs              float64
}

func summarize(td *Data) traceSummary {
	var s traceSummary
	for i := range td.Events {
		e := &td.Events[i]
		if e.DeviceType == devices.CPU {
			s.host++
		} else {
			s.device++
		}
		for _, k := range e.Kernels {
			s.kernels++
			s.kernelUs += k.DurationUs
		}
	}
	return s
}

// TestReaderSharedKineto loads every real Kineto trace and pins what it yields, with every
// linking rule (want) and with the External id alone (strict, --link external-id). The strict
// numbers were cross-checked with an independent Python implementation of the same rules over
// json.load. Three CUDA traces (alexnet, cupti_range_profiler, train_step) come from Kineto
// versions that wrote an unlinked activity's own correlation as its "External id", so strictly
// their kernels are attached to no op; MTIA activity PyTorch attaches to none.
func TestReaderSharedKineto(t *testing.T) {
	dir := requireShared(t, "kineto")
	tests := []struct {
		file         string
		device       devices.Type
		deviceName   string
		want, strict traceSummary
	}{
		{"cpu_only.json.gz", devices.CPU, "", traceSummary{15, 0, 0, 0}, traceSummary{15, 0, 0, 0}},
		{"cuda_alexnet.json.gz", devices.CUDA, "cuda", traceSummary{728, 139, 138, 67671}, traceSummary{728, 139, 0, 0}},
		{"cuda_cupti_range_profiler.json.gz", devices.CUDA, "cuda", traceSummary{2245, 77, 77, 9350187}, traceSummary{2245, 77, 0, 0}},
		{"cuda_ns_resolution.json.gz", devices.CUDA, "cuda", traceSummary{39309, 6110, 6110, 632503.778}, traceSummary{39309, 6110, 6110, 632503.778}},
		{"cuda_train_step.json.gz", devices.CUDA, "cuda", traceSummary{65486, 9450, 9450, 501567}, traceSummary{65486, 9450, 0, 0}},
		{"mtia_rank0.json.gz", devices.MTIA, "mtia", traceSummary{112556, 25814, 25812, 7734462.896}, traceSummary{112556, 25814, 0, 0}},
		{"rocm_mi250_train.json.gz", devices.CUDA, "cuda", traceSummary{94, 18, 18, 1188.893}, traceSummary{94, 18, 18, 1188.893}},
	}
	for _, tt := range tests {
		for _, o := range []Options{{}, {Link: LinkExternalID}} {
			if o.Link == LinkExternalID {
				tt.want = tt.strict
			}
			t.Run(tt.file+"/"+o.Link.String(), func(t *testing.T) {
				if testing.Short() && strings.HasPrefix(tt.file, "mtia") {
					t.Skip("large trace skipped in -short mode")
				}
				td, err := Open(filepath.Join(dir, tt.file), o)
				require.NoError(t, err)
				assert.Equal(t, Kineto, td.Form)
				assert.Equal(t, tt.device, td.Device)
				assert.Equal(t, tt.deviceName, td.DeviceName)
				got := summarize(td)
				assert.Equal(t, tt.want.host, got.host, "host events")
				assert.Equal(t, tt.want.device, got.device, "device events")
				assert.Equal(t, tt.want.kernels, got.kernels, "kernels attached")
				assert.InDelta(t, tt.want.kernelUs, got.kernelUs, 1e-3, "total kernel µs attached")
				for i := range td.Events {
					e := &td.Events[i]
					require.GreaterOrEqual(t, e.EndUs, e.StartUs, "event %d %q", i, e.Name)
					require.False(t, events.FilterName(e.Name) && e.TraceName != "", "filtered name %q kept", e.Name)
				}
			})
		}
	}
}

// TestReaderSharedKinetoFields spot-checks fields of real traces against values read from the
// files by hand.
func TestReaderSharedKinetoFields(t *testing.T) {
	dir := requireShared(t, "kineto")
	td, err := Open(filepath.Join(dir, "rocm_mi250_train.json.gz"), Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(1735632360000000000), td.BaseTimeNs)
	var withShapes, bwd, withKernels int
	for _, e := range td.Events {
		if e.InputShapes != "[]" {
			withShapes++
		}
		if e.Scope == events.ScopeBackwardFunction {
			bwd++
			assert.NotZero(t, e.FwdThread)
			assert.GreaterOrEqual(t, e.SequenceNr, int64(0))
		}
		if len(e.Kernels) > 0 {
			withKernels++
			assert.Equal(t, devices.CPU, e.DeviceType)
		}
	}
	assert.Positive(t, withShapes)
	assert.Positive(t, bwd)
	assert.Positive(t, withKernels)
}

// TestReaderLegacy113 reads PyTorch 1.13's legacy traces: every "X" event is a CPU event, ids
// count from 1, and every key PyTorch averaged is among the names read.
func TestReaderLegacy113(t *testing.T) {
	dir := requireShared(t, "pytorch-1.13")
	for _, tt := range []struct {
		workload string
		events   int
	}{{"mlp", 517}, {"nested", 1170}} {
		t.Run(tt.workload, func(t *testing.T) {
			td, err := Open(filepath.Join(dir, tt.workload, "trace.json"), Options{})
			require.NoError(t, err)
			assert.Equal(t, Legacy, td.Form)
			assert.Equal(t, devices.CPU, td.Device)
			assert.Equal(t, "", td.DeviceName)
			require.Len(t, td.Events, tt.events)
			names := map[string]bool{}
			for i, e := range td.Events {
				assert.Equal(t, int64(i+1), e.ID)
				assert.True(t, e.IsLegacy)
				assert.Equal(t, int64(1), e.Thread)
				assert.Equal(t, -1, e.NodeID)
				names[e.Name] = true
			}
			raw, err := os.ReadFile(filepath.Join(dir, tt.workload, "key_averages.json"))
			require.NoError(t, err)
			var ka struct {
				KeyAverages []struct{ Key string } `json:"key_averages"`
			}
			require.NoError(t, json.Unmarshal(raw, &ka))
			require.NotEmpty(t, ka.KeyAverages)
			for _, a := range ka.KeyAverages {
				assert.True(t, names[a.Key], "key %q not read", a.Key)
			}
		})
	}
}

// TestReaderLinking checks device-time attribution on link.json: kernels reach their op by
// "External id" or through the runtime's correlation, an "External id" equal to the event's own
// correlation is no link, the first op with a duplicated id gets the kernels, runtime events
// move to their op's thread, and ProfilerStep#N is keyed ProfilerStep*.
func TestReaderLinking(t *testing.T) {
	td := openTestTrace(t, "link.json")
	assert.Equal(t, Kineto, td.Form)
	assert.Equal(t, devices.CUDA, td.Device)
	assert.Equal(t, "cuda", td.DeviceName)
	assert.Equal(t, int64(0), td.BaseTimeNs)

	byName := map[string][]events.FunctionEvent{}
	var order []string
	for _, e := range td.Events {
		byName[e.TraceName] = append(byName[e.TraceName], e)
		order = append(order, e.TraceName)
	}
	assert.Equal(t, []string{"aten::mm", "cudaLaunchKernel", "gemm", "gemm_tail", "aten::add",
		"cudaLaunchKernel", "add_kernel", "ProfilerStep#3", "ProfilerStep#3", "aten::dup",
		"dup_kernel", "gemm_late", "orphan"}, order, "file order; python_function, spans, flows, metadata dropped")

	mm := byName["aten::mm"][0]
	// The profile starts at the "PyTorch Profiler (0)" span (ts 800).
	assert.Equal(t, 200.0, mm.StartUs)
	assert.Equal(t, 250.0, mm.EndUs)
	assert.Equal(t, int64(7), mm.ID)
	assert.Equal(t, "[[64, 64], [64, 64]]", mm.InputShapes)
	assert.Equal(t, int64(3), mm.SequenceNr)
	assert.Equal(t, []events.Kernel{{Name: "gemm", Device: 0, DurationUs: 12.5},
		{Name: "gemm_tail", Device: 1, DurationUs: 2.25}, {Name: "gemm_late", Device: 0, DurationUs: 0.5}}, mm.Kernels)

	rt := byName["cudaLaunchKernel"]
	assert.Equal(t, int64(1), rt[0].Thread, "linked runtime event takes its op's thread")
	assert.Equal(t, int64(100), rt[0].ID)
	assert.Equal(t, devices.CPU, rt[0].DeviceType)
	assert.Equal(t, int64(98), rt[1].Thread, "External id == correlation is not a link")

	gemm := byName["gemm"][0]
	assert.Equal(t, devices.CUDA, gemm.DeviceType)
	assert.Equal(t, 0, gemm.DeviceIndex)
	assert.Equal(t, int64(7), gemm.Thread)
	assert.Equal(t, int64(100), gemm.ID)
	assert.Empty(t, gemm.Kernels)
	assert.Equal(t, 1, byName["gemm_tail"][0].DeviceIndex)

	add := byName["aten::add"][0]
	assert.Equal(t, []events.Kernel{{Name: "dup_kernel", Device: 0, DurationUs: 4}}, add.Kernels,
		"the first op with id 8 gets the kernel; add_kernel is unlinked")
	assert.Empty(t, byName["aten::dup"][0].Kernels)

	steps := byName["ProfilerStep#3"]
	require.Len(t, steps, 2)
	host, dev := steps[0], steps[1]
	assert.Equal(t, "ProfilerStep*", host.Name)
	assert.Equal(t, events.ScopeUserScope, host.Scope)
	assert.True(t, host.IsUserAnnotation)
	assert.Equal(t, devices.CPU, host.DeviceType)
	assert.Equal(t, []events.Kernel{{Name: "ProfilerStep*", Device: 0, DurationUs: 21}}, host.Kernels)
	assert.Equal(t, devices.CUDA, dev.DeviceType)
	assert.True(t, dev.IsUserAnnotation)
	assert.Equal(t, 219.5, dev.StartUs)

	for _, e := range td.Events {
		assert.Equal(t, -1, e.NodeID)
		assert.False(t, e.IsAsync)
		assert.False(t, e.IsLegacy)
		if e.Kernels != nil {
			assert.Equal(t, len(e.Kernels), cap(e.Kernels), "kernel lists are capped so appends copy")
		}
	}
}

// TestReaderMemory checks memory attribution: every host event whose [start, end] contains an
// allocation gets its bytes (nested ones too, other threads too, the end inclusive), device
// types split the bytes, and the rest become top-level "[memory]" events after the others.
func TestReaderMemory(t *testing.T) {
	td := openTestTrace(t, "memory.json")
	require.Len(t, td.Events, 7)
	get := func(name string) events.FunctionEvent {
		for _, e := range td.Events {
			if e.Name == name {
				return e
			}
		}
		t.Fatalf("no event %q", name)
		return events.FunctionEvent{}
	}
	a, b, c, k := get("A"), get("B"), get("C"), get("k")
	assert.Equal(t, 0.0, a.StartUs, "no span: the earliest host event starts the profile")
	assert.Equal(t, int64(16+1000-1000), a.CPUMemoryUsage)
	assert.Equal(t, int64(64), a.DeviceMemoryUsage)
	assert.Equal(t, int64(1000), b.CPUMemoryUsage)
	assert.Equal(t, int64(64), b.DeviceMemoryUsage)
	assert.Equal(t, int64(0), c.CPUMemoryUsage)
	assert.Equal(t, int64(64), c.DeviceMemoryUsage, "memory on another thread counts, as in PyTorch")
	assert.Zero(t, k.CPUMemoryUsage+k.DeviceMemoryUsage, "device events get no memory")

	mem := td.Events[4:]
	want := []events.FunctionEvent{
		{ID: 51, Name: "[memory]", Thread: 5, FwdThread: 5, NodeID: -1, StartUs: 200, EndUs: 200,
			InputShapes: "[]", SequenceNr: -1, CPUMemoryUsage: 4096},
		{ID: 52, Name: "[memory]", Thread: 5, FwdThread: 5, NodeID: -1, StartUs: 210, EndUs: 210,
			InputShapes: "[]", SequenceNr: -1},
		{ID: 53, Name: "[OutOfMemory]", Thread: 6, FwdThread: 6, NodeID: -1, StartUs: 50, EndUs: 50,
			InputShapes: "[]", SequenceNr: -1, DeviceMemoryUsage: 1 << 40},
	}
	assert.Equal(t, want, mem)
}

// TestReaderFields checks argument decoding: keys in any order, Python rendering of shapes
// (TensorLists as []), stack splitting and filtering, backward scope, filtered and ignored
// events, string escapes, and arbitrary top-level metadata.
func TestReaderFields(t *testing.T) {
	td := openTestTrace(t, "fields.json")
	assert.Equal(t, int64(1700000000000000000), td.BaseTimeNs)
	assert.Equal(t, devices.CPU, td.Device)
	require.Len(t, td.Events, 4)
	cat, bwd, step, weird := td.Events[0], td.Events[1], td.Events[2], td.Events[3]

	assert.Equal(t, "aten::cat", cat.Name)
	assert.Equal(t, int64(0), cat.ID, "no External id")
	assert.Equal(t, int64(3), cat.Thread)
	assert.Equal(t, 0.0, cat.StartUs)
	assert.Equal(t, 10.0, cat.EndUs)
	assert.Equal(t, "[[2, 3], [], [], [7]]", cat.InputShapes)
	assert.Equal(t, []string{"a.py(1): f", "b.py(2): g"}, cat.Stack)
	assert.Equal(t, int64(12), cat.SequenceNr)
	assert.Equal(t, 0, cat.Scope)

	assert.Equal(t, "MulBackward0", bwd.Name)
	assert.Equal(t, events.ScopeBackwardFunction, bwd.Scope)
	assert.Equal(t, int64(3), bwd.FwdThread)
	assert.Equal(t, "[]", bwd.InputShapes)
	assert.Nil(t, bwd.Stack)

	assert.Equal(t, "ProfilerStep*", step.Name)
	assert.Equal(t, "ProfilerStep#12", step.TraceName)
	assert.Equal(t, "[]", step.InputShapes)

	assert.Equal(t, "weird\"name\\é😀", weird.Name)
	assert.Equal(t, 45.5, weird.StartUs)
	assert.Equal(t, 45.75, weird.EndUs)
	assert.Equal(t, `[[1.5, -0.0], [True, None, "x'y"]]`, weird.InputShapes)
}

// TestReaderLegacyForm checks the legacy array: float text kept exactly, remote thread ids,
// flows ignored, filtered names dropped, ids numbered in file order.
func TestReaderLegacyForm(t *testing.T) {
	td := openTestTrace(t, "legacy.json")
	assert.Equal(t, Legacy, td.Form)
	require.Len(t, td.Events, 3)
	step, add, rpc := td.Events[0], td.Events[1], td.Events[2]
	assert.Equal(t, events.FunctionEvent{ID: 1, Name: "ProfilerStep*", TraceName: "ProfilerStep#4", Thread: 1,
		NodeID: -1, StartUs: 0, EndUs: 200, InputShapes: "[]", SequenceNr: -1, IsLegacy: true}, step)
	assert.Equal(t, int64(2), add.ID)
	assert.Equal(t, 12.5, add.StartUs)
	assert.Equal(t, 12.5+45.98599999999999, add.EndUs)
	assert.Equal(t, int64(3), rpc.ID)
	assert.Equal(t, int64(7), rpc.Thread)
	assert.Equal(t, 2, rpc.NodeID)
	assert.True(t, rpc.IsRemote)
}

// TestReaderPrivateUse1 checks a PrivateUse1 trace named by "deviceName": every device activity
// is PrivateUse1 and is attached to its op.
func TestReaderPrivateUse1(t *testing.T) {
	td := openTestTrace(t, "openreg.json")
	assert.Equal(t, devices.PrivateUse1, td.Device)
	assert.Equal(t, "openreg", td.DeviceName)
	require.Len(t, td.Events, 4)
	assert.Equal(t, []events.Kernel{{Name: "add_kernel", Device: 0, DurationUs: 3},
		{Name: "dma", Device: 1, DurationUs: 2}}, td.Events[0].Kernels)
	assert.Equal(t, devices.PrivateUse1, td.Events[2].DeviceType)
	assert.Equal(t, devices.PrivateUse1, td.Events[3].DeviceType)
}

// TestReaderDevice is the accelerator decision, table-driven.
func TestReaderDevice(t *testing.T) {
	x := func(cat string, args string) string {
		return `{"ph": "X", "cat": "` + cat + `", "name": "n", "pid": 0, "tid": 1, "ts": 1, "dur": 1, "args": {` + args + `}}`
	}
	label := func(l string) string {
		return `{"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "` + l + `"}}`
	}
	tests := []struct {
		name     string
		trace    string
		dev      devices.Type
		devName  string
		attached int
	}{
		{"empty object", `{"traceEvents": []}`, devices.CPU, "", 0},
		{"cpu only", `{"traceEvents": [` + x("cpu_op", `"External id": 1`) + `]}`, devices.CPU, "", 0},
		{"cuda kernel", `{"traceEvents": [` + x("cpu_op", `"External id": 1`) + `, ` + x("kernel", `"External id": 1`) + `]}`,
			devices.CUDA, "cuda", 1},
		{"mtia by category, attached (PyTorch does not: --link external-id)", `{"traceEvents": [` + x("cpu_op", `"External id": 1`) + `, ` +
			x("mtia_ccp_events", `"External id": 1`) + `]}`, devices.MTIA, "mtia", 1},
		{"mtia by label", `{"traceEvents": [` + label("MTIA 3") + `]}`, devices.MTIA, "mtia", 0},
		{"xpu runtime makes kernels XPU", `{"traceEvents": [` + x("cpu_op", `"External id": 1`) + `, ` +
			x("xpu_runtime", `"External id": 1, "correlation": 4`) + `, ` + x("kernel", `"correlation": 4`) + `]}`,
			devices.XPU, "xpu", 1},
		{"hpu", `{"traceEvents": [` + x("hpu_op", ``) + `]}`, devices.HPU, "hpu", 0},
		{"privateuse1 runtime", `{"traceEvents": [` + x("cpu_op", `"External id": 1`) + `, ` +
			x("privateuse1_runtime", `"External id": 1, "correlation": 4`) + `, ` + x("kernel", `"correlation": 4`) + `]}`,
			devices.PrivateUse1, devices.PrivateUse1BackendName(), 1},
		{"backend label", `{"traceEvents": [` + label("OPENREG 0") + `, ` + label("GPU 1") + `]}`,
			devices.PrivateUse1, "openreg", 0},
		{"gpu label alone says nothing", `{"traceEvents": [` + label("GPU 0") + `, ` + label("CPU") + `]}`, devices.CPU, "", 0},
		{"deviceName cuda", `{"deviceName": "CUDA", "traceEvents": []}`, devices.CUDA, "cuda", 0},
		{"deviceName cpu", `{"deviceName": "cpu", "traceEvents": [` + x("kernel", ``) + `]}`, devices.CPU, "", 0},
		{"deviceName wins over categories", `{"traceEvents": [` + x("mtia_runtime", ``) + `], "deviceName": "npu"}`,
			devices.PrivateUse1, "npu", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			td, err := Read(strings.NewReader(tt.trace), "t.json", Options{})
			require.NoError(t, err)
			assert.Equal(t, tt.dev, td.Device)
			assert.Equal(t, tt.devName, td.DeviceName)
			assert.Equal(t, tt.attached, summarize(td).kernels)
		})
	}
}

// TestReaderEmpty: an empty array or an empty traceEvents is a trace with no events.
func TestReaderEmpty(t *testing.T) {
	for _, in := range []string{`[]`, ` [ ] `, `{"traceEvents": []}`, "{\"schemaVersion\": 1,\n\"traceEvents\": [\n]}\n"} {
		td, err := Read(strings.NewReader(in), "e.json", Options{})
		require.NoError(t, err, in)
		assert.Empty(t, td.Events)
		assert.Equal(t, int64(len(in)), td.Bytes)
	}
}

// TestReaderChunking reads every test trace through readers that return one byte, half the
// request, or data with the final error, and requires the same result as a plain read: tokens
// split across buffer refills must not change anything.
func TestReaderChunking(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(readerTestdata, "*.json"))
	require.NotEmpty(t, files)
	if !testing.Short() {
		dir := requireShared(t, "kineto")
		for _, f := range []string{"cpu_only.json.gz", "rocm_mi250_train.json.gz", "cuda_alexnet.json.gz"} {
			files = append(files, filepath.Join(dir, f))
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		if strings.HasSuffix(f, ".gz") {
			gz, err := gzip.NewReader(bytes.NewReader(data))
			require.NoError(t, err)
			data, err = io.ReadAll(gz)
			require.NoError(t, err)
		}
		want, err := Read(bytes.NewReader(data), f, Options{})
		require.NoError(t, err)
		for name, r := range map[string]io.Reader{
			"one byte": iotest.OneByteReader(bytes.NewReader(data)),
			"half":     iotest.HalfReader(bytes.NewReader(data)),
			"data+err": iotest.DataErrReader(bytes.NewReader(data)),
		} {
			got, err := Read(r, f, Options{})
			require.NoError(t, err, "%s %s", f, name)
			require.Equal(t, want, got, "%s %s", f, name)
		}
	}
}

// TestReaderGzip reads gzip input by its magic bytes, whatever the file is called, and reports
// uncompressed byte counts to Progress.
func TestReaderGzip(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join(readerTestdata, "link.json"))
	require.NoError(t, err)
	var zbuf bytes.Buffer
	zw := gzip.NewWriter(&zbuf)
	_, err = zw.Write(plain)
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	want, err := Read(bytes.NewReader(plain), "link.json", Options{})
	require.NoError(t, err)

	var last int64
	calls := 0
	got, err := Read(bytes.NewReader(zbuf.Bytes()), "link.bin",
		Options{Progress: func(n int64) { calls++; assert.GreaterOrEqual(t, n, last); last = n }})
	require.NoError(t, err)
	assert.Equal(t, want.Events, got.Events)
	assert.Equal(t, int64(len(plain)), got.Bytes)
	assert.Equal(t, int64(len(plain)), last)
	assert.Positive(t, calls)

	path := filepath.Join(t.TempDir(), "link.json.gz")
	require.NoError(t, os.WriteFile(path, zbuf.Bytes(), 0o644))
	got, err = Open(path, Options{})
	require.NoError(t, err)
	assert.Equal(t, want.Events, got.Events)

	// A truncated gzip stream is a read error naming the file.
	_, err = Read(bytes.NewReader(zbuf.Bytes()[:zbuf.Len()/2]), "cut.json.gz", Options{})
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "cut.json.gz", te.File)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)

	_, err = Read(bytes.NewReader([]byte{0x1f, 0x8b, 1, 2, 3}), "bad.gz", Options{})
	require.ErrorAs(t, err, &te)
	assert.Contains(t, err.Error(), "bad.gz")
}

func TestOpenMissing(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "nope.json"), Options{})
	require.Error(t, err)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestReaderErrors: every class of bad input gives a Error naming the file and the byte
// offset of the problem, never a panic.
func TestReaderErrors(t *testing.T) {
	ev := func(fields string) string { return `{"traceEvents": [{"ph": "X", "cat": "cpu_op", ` + fields + `}]}` }
	tests := []struct {
		name   string
		in     string
		msg    string
		offset int64
	}{
		{"empty", ``, "empty input", 0},
		{"blank", "  \n ", "empty input", 0},
		{"not json", `abc`, "not a trace: expected '[' or '{', found 'a'", 0},
		{"scalar", `42`, "not a trace", 0},
		{"no traceEvents", `{"schemaVersion": 1}`, `no "traceEvents" array`, 0},
		{"traceEvents not array", `{"traceEvents": {}}`, `"traceEvents" is an object, not an array`, 16},
		{"truncated array", `[{"name": "a", "ph": "X", "ts": 1, "dur": 2}`, "unexpected end of input", 44},
		{"truncated string", `[{"name": "a`, "unexpected end of input", 12},
		{"truncated object", `{"traceEvents": [`, "unexpected end of input", 17},
		{"missing colon", `{"traceEvents" []}`, "expected ':'", 15},
		{"missing comma", `[{"name": "a" "ph": "X"}]`, "expected ',' or '}'", 14},
		{"trailing comma", `[{"name": "a"},]`, "expected a trace event object, found ']'", 15},
		{"trailing data", `[] x`, "unexpected 'x' after the end of the trace", 3},
		{"bad literal", `{"traceEvents": [], "x": tru}`, "invalid literal (expected true)", 25},
		{"bad number", `{"traceEvents": [], "x": 1.2.3}`, `invalid number "1.2.3"`, 25},
		{"leading zero", `{"traceEvents": [], "x": 01}`, `invalid number "01"`, 25},
		{"bad escape", `{"traceEvents": [], "x": "a\qb"}`, `invalid escape '\q'`, 27},
		{"bad unicode escape", `[{"name": "\u12G4"}]`, `invalid \u escape`, 11},
		{"dur is NaN", ev(`"name": "a", "ts": 1, "dur": NaN`), `NaN is not JSON (JSON has no NaN or Infinity`, 75},
		{"ts is Infinity", ev(`"name": "a", "ts": -Infinity, "dur": 1`), `-Infinity is not JSON`, 65},
		{"legacy NaN", `[{"name": "a", "ph": "X", "ts": NaN, "dur": 1, "tid": 1}]`, `NaN is not JSON`, 32},
		{"NaN in a skipped value", `{"traceEvents": [], "x": [1, NaN]}`, `NaN is not JSON`, 29},
		{"Infinity in an unused event", `[{"ph": "C", "name": "c", "ts": 1, "args": {"v": Infinity}}]`, `Infinity is not JSON`, 49},
		{"UTF-16 BOM", "\xff\xfe[\x00]\x00", "UTF-16 byte order mark", 0},
		{"long number quoted short", `{"traceEvents": [], "x": 1.` + strings.Repeat("2", 5000) + `.3}`, `invalid number "1.` + strings.Repeat("2", 98) + `"…`, 25},
		{"deep nesting", `{"traceEvents": [], "x": ` + strings.Repeat("[", jsonscan.MaxDepth+5) + strings.Repeat("]", jsonscan.MaxDepth+5) + `}`,
			"nested deeper than", 25 + jsonscan.MaxDepth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			td, err := Read(strings.NewReader(tt.in), "bad.json", Options{})
			require.Error(t, err)
			assert.Nil(t, td)
			var te *Error
			require.ErrorAs(t, err, &te)
			assert.Equal(t, "bad.json", te.File)
			assert.Contains(t, te.Msg, tt.msg)
			assert.Equal(t, tt.offset, te.Offset, "offset; error: %v", err)
			assert.True(t, strings.HasPrefix(err.Error(), "bad.json: "), err.Error())
		})
	}
}

// TestReaderSkipsMalformedEvents: one rule for valid JSON that is not a valid trace event:
// an event the reader would use with a missing or mistyped field, and any event without a
// one-letter "ph" or with one the Trace Event Format does not define, is skipped and counted,
// with the first one's problem, whatever the field and wherever it is; the other events are
// read as usual.
func TestReaderSkipsMalformedEvents(t *testing.T) {
	ev := func(fields string) string { return `{"ph": "X", "cat": "cpu_op", ` + fields + `}` }
	good := `{"ph": "X", "cat": "cpu_op", "name": "good", "ts": 10, "dur": 5}`
	tests := []struct {
		name, event, reason string
	}{
		{"not an object", `1`, `trace event is a number, not an object`},
		{"empty object", `{}`, `trace event has no "ph" (a one-letter string)`},
		{"ph a number", `{"ph": 1, "name": "a", "ts": 1, "dur": 1}`, `trace event has no "ph" (a one-letter string)`},
		{"ph two letters", `{"ph": "XX", "name": "a", "ts": 1, "dur": 1}`, `trace event has no "ph" (a one-letter string)`},
		{"ph unknown", `{"ph": "Z", "name": "a", "ts": 1, "dur": 1}`, `trace event has an unknown "ph" "Z"`},
		{"name a number", ev(`"name": 1, "ts": 1, "dur": 1`), `"name" is a number, not a string`},
		{"missing name", ev(`"ts": 1, "dur": 1`), `trace event has no "name"`},
		{"ts a string", ev(`"name": "a", "ts": "abc", "dur": 1`), `"ts" is a string, not a number`},
		{"missing ts", ev(`"name": "a", "dur": 1`), `trace event "a" has no "ts"`},
		{"negative dur", ev(`"name": "a", "ts": 1, "dur": -5`), `"dur" is negative (-5)`},
		{"missing dur", ev(`"name": "a", "ts": 1`), `complete ("X") event "a" has no "dur"`},
		{"ts overflows", ev(`"name": "a", "ts": 1e300, "dur": 1`), `"ts" is out of range (1e300)`},
		{"long name quoted short", ev(`"name": "` + strings.Repeat("n", 300) + `", "dur": 1`), `trace event "` + strings.Repeat("n", 100) + `"… has no "ts"`},
		{"memory without ts", `{"ph": "i", "name": "[memory]", "args": {"Bytes": 4}}`, `trace event "[memory]" has no "ts"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := `{"traceEvents": [` + good + `, ` + tt.event + `, ` + tt.event + `]}`
			td, err := Read(strings.NewReader(in), "t.json", Options{})
			require.NoError(t, err)
			require.Len(t, td.Events, 1)
			assert.Equal(t, "good", td.Events[0].Name)
			assert.Equal(t, 2, td.Skipped)
			// The offset is the event's, or the bad field's within it.
			start := len(`{"traceEvents": [` + good + `, `)
			var at int
			_, err = fmt.Sscanf(td.SkipReason, "byte %d:", &at)
			require.NoError(t, err, td.SkipReason)
			assert.True(t, at >= start && at < start+len(tt.event), "offset %d in the first bad event", at)
			assert.Equal(t, fmt.Sprintf("byte %d: %s", at, tt.reason), td.SkipReason)
			w := td.Warnings("t.json")
			require.Len(t, w, 1)
			assert.Equal(t, fmt.Sprintf("t.json: skipped 2 malformed or unknown trace events (the first at byte %d: %s)", at, tt.reason), w[0])
			assert.Less(t, len(w[0]), 300)

			legacy := `[` + strings.ReplaceAll(good, `"cat": "cpu_op", `, ``) + `, ` + tt.event + `]`
			td, err = Read(strings.NewReader(legacy), "t.json", Options{})
			require.NoError(t, err)
			// Instants are not events in the legacy form, whose float µs reach 1e300.
			if tt.name != "memory without ts" && tt.name != "ts overflows" {
				assert.Equal(t, 1, td.Skipped, "the legacy form follows the same rule")
			}
		})
	}
	// Known event types the reader does not use are neither errors nor counted.
	td, err := Read(strings.NewReader(`{"traceEvents": [{"ph": "B", "name": "b", "ts": 1}, {"ph": "s", "id": 1},
		{"ph": "C", "name": "c", "ts": "x"}, {"ph": "X", "cat": "python_function", "name": 3}, `+good+`]}`), "t.json", Options{})
	require.NoError(t, err)
	assert.Zero(t, td.Skipped)
	assert.Empty(t, td.Warnings("t.json"))
}

// TestReaderIgnoredProblems: problems in events the reader does not use are not errors, and
// arguments of an unexpected type are ignored.
func TestReaderIgnoredProblems(t *testing.T) {
	in := `{"traceEvents": [
		{"ph": "M", "name": "thread_name", "ts": "whenever", "args": {"name": 1}},
		{"ph": "X", "cat": "python_function", "name": "f", "ts": 1, "dur": -3},
		{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 2, "tid": [1],
		 "args": {"External id": "id 7", "Sequence number": 1.5, "Call stack": 3, "Input Dims": "none"}}
	]}`
	td, err := Read(strings.NewReader(in), "ok.json", Options{})
	require.NoError(t, err)
	require.Len(t, td.Events, 1)
	e := td.Events[0]
	assert.Equal(t, int64(0), e.ID)
	assert.Equal(t, int64(-1), e.SequenceNr)
	assert.Nil(t, e.Stack)
	assert.Equal(t, "[]", e.InputShapes)
	assert.Equal(t, int64(0), e.Thread)
}

// errReader fails after its data.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// zeroReader never makes progress.
type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestReaderReadErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := Read(&errReader{data: []byte(`{"traceEvents": [{"name": "a"`), err: boom}, "r.json", Options{})
	require.ErrorIs(t, err, boom)
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, int64(29), te.Offset)
	assert.Equal(t, "r.json: byte 29: read failed: disk on fire", err.Error())

	_, err = Read(&errReader{err: boom}, "r.json", Options{})
	require.ErrorIs(t, err, boom)

	// A complete trace followed by a read error is still an error: the input may be cut.
	_, err = Read(&errReader{data: []byte(`[]`), err: boom}, "r.json", Options{})
	require.ErrorIs(t, err, boom)

	_, err = Read(zeroReader{}, "z.json", Options{})
	require.ErrorIs(t, err, io.ErrNoProgress)
}

func TestTraceErrorString(t *testing.T) {
	assert.Equal(t, "f.json: byte 12: bad", (&Error{File: "f.json", Offset: 12, Msg: "bad"}).Error())
	assert.Equal(t, "f.json: bad", (&Error{File: "f.json", Offset: -1, Msg: "bad"}).Error())
	assert.Equal(t, "legacy", Legacy.String())
	assert.Equal(t, "kineto", Kineto.String())
}

// TestReaderBufferGrowth: a single token larger than the scanner's buffer is read whole.
func TestReaderBufferGrowth(t *testing.T) {
	long := strings.Repeat("x", 3*jsonscan.BufSize+17)
	stack := strings.Repeat("frame.py(1): f;", jsonscan.BufSize/8)
	in := `{"meta": "` + long + `", "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "` + long +
		`", "ts": 1, "dur": 1, "args": {"Call stack": "` + stack + `", "Input Dims": [` +
		strings.Repeat("[1, 2], ", jsonscan.BufSize/6) + `[3]]}}]}`
	td, err := Read(iotest.HalfReader(strings.NewReader(in)), "big.json", Options{})
	require.NoError(t, err)
	require.Len(t, td.Events, 1)
	assert.Equal(t, long, td.Events[0].Name)
	assert.Len(t, td.Events[0].Stack, jsonscan.BufSize/8)
	assert.True(t, strings.HasSuffix(td.Events[0].InputShapes, "[1, 2], [3]]"))
}

// TestReaderOrprofFallback reads a trace as orprof's sessions write it in fallback mode: the
// op's "Device time us" becomes PyTorch's single fake kernel, the device row drawing the same
// interval is skipped, "Scope" and "Async" are taken as written, times are measured from
// baseTimeNanoseconds, and any non-CPU "Device Type" is device memory.
func TestReaderOrprofFallback(t *testing.T) {
	td := openTestTrace(t, "orprof_fallback.json")
	assert.Equal(t, devices.PrivateUse1, td.Device)
	assert.Equal(t, "openreg", td.DeviceName)
	require.Len(t, td.Events, 3)
	it, mm, add := td.Events[0], td.Events[1], td.Events[2]
	assert.Equal(t, events.ScopeUserScope, it.Scope)
	assert.Equal(t, 10.0, it.StartUs)
	assert.Equal(t, int64(128), it.CPUMemoryUsage)
	assert.Equal(t, int64(4096), it.DeviceMemoryUsage)
	assert.Equal(t, events.FunctionEvent{ID: 2, Name: "aten::mm", TraceName: "aten::mm", Thread: 1, NodeID: -1,
		StartUs: 20.5, EndUs: 50.75, InputShapes: "[[2, 3], [3, 4]]", SequenceNr: -1, CPUMemoryUsage: 128,
		DeviceMemoryUsage: 4096, IsLegacy: true,
		Kernels: []events.Kernel{{Name: "aten::mm", Device: 0, DurationUs: 25}}}, mm)
	assert.True(t, add.IsAsync)
	assert.Empty(t, add.Kernels)
	assert.Equal(t, int64(2), add.Thread)
}

// TestReaderOrprofKernels: in orprof's traces an "External id" equal to the correlation is
// still a link (orprof's op handles and activity ids are separate small counters).
func TestReaderOrprofKernels(t *testing.T) {
	td := openTestTrace(t, "orprof_kernels.json")
	assert.Equal(t, devices.PrivateUse1, td.Device)
	require.Len(t, td.Events, 3)
	op, rt := td.Events[0], td.Events[1]
	require.Len(t, op.Kernels, 1)
	assert.Equal(t, "openreg::uniform_kernel", op.Kernels[0].Name)
	start, end := 221.761, 274.399 // the kernel's StartUs and EndUs
	assert.Equal(t, end-start, op.Kernels[0].DurationUs)
	assert.Equal(t, 24.326, op.StartUs, "times as written: orprof measures from baseTimeNanoseconds")
	assert.Equal(t, int64(1), rt.Thread)
}

// TestReaderOwnCorrelation: in other traces an "External id" equal to the event's correlation
// is a link only when the runtime call lies inside that op on its thread.
func TestReaderOwnCorrelation(t *testing.T) {
	in := `{"traceEvents": [
	  {"ph": "X", "cat": "cpu_op", "name": "inside", "pid": 1, "tid": 1, "ts": 100, "dur": 100, "args": {"External id": 5}},
	  {"ph": "X", "cat": "cuda_runtime", "name": "launch5", "pid": 1, "tid": 1, "ts": 120, "dur": 1, "args": {"External id": 5, "correlation": 5}},
	  {"ph": "X", "cat": "kernel", "name": "k5", "pid": 0, "tid": 7, "ts": 130, "dur": 2, "args": {"External id": 5, "correlation": 5}},
	  {"ph": "X", "cat": "cpu_op", "name": "elsewhere", "pid": 1, "tid": 1, "ts": 300, "dur": 100, "args": {"External id": 6}},
	  {"ph": "X", "cat": "cuda_runtime", "name": "launch6", "pid": 1, "tid": 2, "ts": 500, "dur": 1, "args": {"External id": 6, "correlation": 6}},
	  {"ph": "X", "cat": "kernel", "name": "k6", "pid": 0, "tid": 7, "ts": 510, "dur": 2, "args": {"External id": 6, "correlation": 6}},
	  {"ph": "X", "cat": "cpu_op", "name": "norun", "pid": 1, "tid": 1, "ts": 600, "dur": 100, "args": {"External id": 7}},
	  {"ph": "X", "cat": "kernel", "name": "k7", "pid": 0, "tid": 7, "ts": 610, "dur": 2, "args": {"External id": 7, "correlation": 7}}
	]}`
	td, err := Read(strings.NewReader(in), "own.json", Options{})
	require.NoError(t, err)
	kernels := map[string]int{}
	threads := map[string]int64{}
	for _, e := range td.Events {
		kernels[e.Name] = len(e.Kernels)
		threads[e.Name] = e.Thread
	}
	assert.Equal(t, map[string]int{"inside": 1, "launch5": 0, "k5": 0, "elsewhere": 0, "launch6": 0, "k6": 0,
		"norun": 0, "k7": 0}, kernels)
	assert.Equal(t, int64(2), threads["launch6"], "not linked: keeps its own thread")
}

// TestReaderInvalidUTF8Name: a name with bytes that are not UTF-8 reads with U+FFFD in their
// place, as a JSON decoder reads it, so that it is the same name once orprof writes it to JSON.
func TestReaderInvalidUTF8Name(t *testing.T) {
	td, err := Read(strings.NewReader("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ite\x82\x83ation\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}"), "t.json", Options{})
	require.NoError(t, err)
	require.Len(t, td.Events, 1)
	assert.Equal(t, "ite\uFFFDation", td.Events[0].Name)
}
