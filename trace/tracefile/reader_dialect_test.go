package tracefile

import (
	"bytes"
	"compress/gzip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
)

// linkedUs sums the device time attached to host operators as kernels.
func linkedUs(td *Data) float64 {
	var s float64
	for i := range td.Events {
		if td.Events[i].DeviceType == devices.CPU {
			for _, k := range td.Events[i].Kernels {
				s += k.DurationUs
			}
		}
	}
	return s
}

func readString(t *testing.T, in string) *Data {
	t.Helper()
	return readStringWith(t, in, Options{})
}

// strict is the Options of --link external-id.
var strict = Options{Link: LinkExternalID}

func readStringWith(t *testing.T, in string, o Options) *Data {
	t.Helper()
	td, err := Read(strings.NewReader(in), "t.json", o)
	require.NoError(t, err)
	return td
}

// byRule is a DeviceLink's ByRuleUs with us under rule r.
func byRule(r LinkRule, us float64) (a [NumLinkRules]float64) {
	a[r] = us
	return a
}

func gz(t *testing.T, in string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(in))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

// kineto is a minimal Kineto trace of an op that launched one kernel, with the given keys.
func kineto(top, opCat, rtCat, devCat, linkKey string, opID, rtExt, devExt int) string {
	r := strings.NewReplacer("TOP", top, "OPCAT", opCat, "RTCAT", rtCat, "DEVCAT", devCat, "KEY", linkKey,
		"OPID", itoa(opID), "RTEXT", itoa(rtExt), "DEVEXT", itoa(devExt))
	return r.Replace(`{TOP"traceEvents": [
 {"ph": "X", "cat": "OPCAT", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 50, "args": {"External id": OPID}},
 {"ph": "X", "cat": "RTCAT", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"KEY": RTEXT, "correlation": 77}},
 {"ph": "X", "cat": "DEVCAT", "name": "gemm", "pid": 0, "tid": 7, "ts": 120, "dur": 20, "args": {"KEY": DEVEXT, "correlation": 77}}
]}`)
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// TestDialects: one test per row of the package doc's table of accepted dialects.
func TestDialects(t *testing.T) {
	t.Run("legacy array", func(t *testing.T) {
		td := openTestTrace(t, "legacy.json")
		assert.Equal(t, Legacy, td.Form)
		assert.Equal(t, 45.98599999999999, td.Events[1].EndUs-td.Events[1].StartUs, "float µs kept as written")
		assert.True(t, td.Events[0].IsLegacy)
	})
	t.Run("Kineto 2021: lower-case external id, old categories", func(t *testing.T) {
		td := readString(t, kineto("", "Operator", "Runtime", "Kernel", "external id", 5, 5, 5))
		require.Len(t, td.Events, 3)
		assert.Equal(t, []events.Kernel{{Name: "gemm", DurationUs: 20}}, td.Events[0].Kernels)
		assert.Equal(t, devices.CUDA, td.Device)
		// The real 2021 trace: every kernel's time reaches an op.
		real, err := Open(filepath.Join(sharedTestdata, "kineto-extra", "tbplugin_2021_small.json.gz"), Options{})
		require.NoError(t, err)
		assert.Positive(t, linkedUs(real))
		assert.Zero(t, real.DeviceLink.Unlinked, real.DeviceLink.Warning())
		assert.Equal(t, real.DeviceLink.TotalUs, linkedUs(real))
		assert.Empty(t, real.Warnings("t"))
	})
	t.Run("Kineto 2022-2023: self-correlated External id", func(t *testing.T) {
		in := kineto("", "cpu_op", "cuda_runtime", "kernel", "External id", 12, 77, 77)
		td := readStringWith(t, in, strict)
		assert.Empty(t, td.Events[0].Kernels)
		assert.Equal(t, DeviceLink{TotalUs: 20, UnlinkedUs: 20, Unlinked: 1, Cause: causeSelfCorr, ByRuleUs: byRule(Unlinked, 20)}, td.DeviceLink)
		// Rule 2: the kernel's launch lies within aten::mm on its thread.
		td = readString(t, in)
		assert.Equal(t, []events.Kernel{{Name: "gemm", DurationUs: 20}}, td.Events[0].Kernels)
		assert.Equal(t, DeviceLink{TotalUs: 20, ByRuleUs: byRule(ByLaunch, 20)}, td.DeviceLink)
		// An op whose id happens to equal the correlation gets the kernel only when the launch
		// lies within it on its thread.
		outsideIn := `{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 5, "args": {"External id": 77}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"External id": 77, "correlation": 77}},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 120, "dur": 20, "args": {"External id": 77, "correlation": 77}}]}`
		outside := readStringWith(t, outsideIn, strict)
		assert.Empty(t, outside.Events[0].Kernels, "an id equal to the event's own correlation is no link")
		assert.Equal(t, causeSelfCorr, outside.DeviceLink.Cause)
		outside = readString(t, outsideIn)
		assert.Empty(t, outside.Events[0].Kernels, "the launch lies within no op")
		assert.Equal(t, causeOutsideOps, outside.DeviceLink.Cause)
		inside := readStringWith(t, kineto("", "cpu_op", "cuda_runtime", "kernel", "External id", 77, 77, 77), strict)
		assert.Len(t, inside.Events[0].Kernels, 1, "the launch lies within op 77: a link")
		path := filepath.Join(sharedTestdata, "kineto", "cuda_alexnet.json.gz")
		real, err := Open(path, strict)
		require.NoError(t, err)
		assert.Zero(t, linkedUs(real))
		assert.Equal(t, causeSelfCorr, real.DeviceLink.Cause)
		assert.Equal(t, []string{`a.json: 67681.000 µs of 67681.000 µs of device time (100.0%, 139 events) reached no operator: ` +
			`its "External id" equals the event's own "correlation", as some Kineto builds of 2022–2023 wrote it, so the file does not say which operator launched it`},
			real.Warnings("a.json"))
		real, err = Open(path, Options{})
		require.NoError(t, err)
		assert.Equal(t, 67671.0, linkedUs(real))
		assert.Equal(t, []string{`a.json: 10.000 µs of 67681.000 µs of device time (0.0%, 1 event) reached no operator: ` +
			`its runtime launch lies within no operator on its thread`}, real.Warnings("a.json"))
		assert.Equal(t, "device time linked to operators: 67671.000 µs of 67681.000 µs (100.0%): external-id 0.0%, launch 100.0%, order 0.0%, enclosing 0.0%, unlinked 10.000 µs (0.0%)",
			real.DeviceLink.Coverage())
	})
	t.Run("Kineto 2024+: External id is the launching op", func(t *testing.T) {
		td := readString(t, kineto("", "cpu_op", "cuda_runtime", "kernel", "External id", 5, 5, 5))
		assert.Equal(t, []events.Kernel{{Name: "gemm", DurationUs: 20}}, td.Events[0].Kernels)
		assert.Zero(t, td.DeviceLink.Unlinked)
		viaRuntime := readString(t, kineto("", "cpu_op", "cuda_runtime", "kernel", "External id", 5, 5, 0))
		assert.Len(t, viaRuntime.Events[0].Kernels, 1, "a kernel without an External id takes its runtime call's")
	})
	t.Run("ns-resolution floats", func(t *testing.T) {
		td := readString(t, `{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1.2345678, "dur": 0.0004999}]}`)
		assert.Equal(t, 0.0, td.Events[0].StartUs)
		assert.InDelta(t, 0.0, td.Events[0].EndUs, 1e-12, "0.0004999 µs rounds to 0 ns")
		real, err := Open(filepath.Join(sharedTestdata, "kineto", "cuda_ns_resolution.json.gz"), Options{})
		require.NoError(t, err)
		assert.Zero(t, real.DeviceLink.Unlinked, real.DeviceLink.Warning())
	})
	t.Run("ROCm", func(t *testing.T) {
		real, err := Open(filepath.Join(sharedTestdata, "kineto", "rocm_mi250_train.json.gz"), Options{})
		require.NoError(t, err)
		assert.Equal(t, devices.CUDA, real.Device)
		assert.Positive(t, linkedUs(real))
		assert.Zero(t, real.DeviceLink.Unlinked)
	})
	t.Run("MTIA", func(t *testing.T) {
		in := kineto("", "cpu_op", "mtia_runtime", "mtia_ccp_events", "External id", 5, 5, 5)
		td := readStringWith(t, in, strict)
		assert.Equal(t, devices.MTIA, td.Device)
		assert.Empty(t, td.Events[0].Kernels, "PyTorch attaches no MTIA activity to ops")
		assert.Equal(t, causeNotAttached, td.DeviceLink.Cause)
		td = readString(t, in)
		assert.Len(t, td.Events[0].Kernels, 1, "orprof does, by the same rules as CUDA's")
		// MTIA's runFunction launch carries the correlation alone (rule 2); a dma_request carries
		// none and goes to the op running when it starts (rule 4), the shortest of those on the
		// host threads.
		td = readString(t, `{"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "## backward ##", "pid": 1, "tid": 2, "ts": 0, "dur": 1000, "args": {"External id": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 100, "dur": 50, "args": {"External id": 5}},
 {"ph": "X", "cat": "mtia_runtime", "name": "runFunction - job_prep_and_submit_for_execution", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"correlation": 77}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::_copy_from", "pid": 1, "tid": 1, "ts": 300, "dur": 50, "args": {"External id": 6}},
 {"ph": "X", "cat": "mtia_ccp_events", "name": "mul-dtype_Float", "pid": 9, "tid": 4, "ts": 120, "dur": 20, "args": {"correlation": 77, "stream": 1}},
 {"ph": "X", "cat": "mtia_ccp_events", "name": "dma_request", "pid": 9, "tid": 4, "ts": 310, "dur": 8, "args": {"stream": 1, "size": 16}},
 {"ph": "X", "cat": "mtia_ccp_events", "name": "dma_request", "pid": 9, "tid": 4, "ts": 2000, "dur": 4, "args": {"stream": 1, "size": 16}}
]}`)
		assert.Equal(t, []events.Kernel{{Name: "mul-dtype_Float", Device: 9, DurationUs: 20}}, td.Events[1].Kernels)
		assert.Equal(t, []events.Kernel{{Name: "dma_request", Device: 9, DurationUs: 8}}, td.Events[3].Kernels)
		assert.Empty(t, td.Events[0].Kernels, "the backward span is longer than aten::_copy_from")
		want := DeviceLink{TotalUs: 32, UnlinkedUs: 4, Unlinked: 1, Cause: causeNoEnclosing}
		want.ByRuleUs[ByLaunch], want.ByRuleUs[ByEnclosing], want.ByRuleUs[Unlinked] = 20, 8, 4
		assert.Equal(t, want, td.DeviceLink)
	})
	t.Run("GPU-only", func(t *testing.T) {
		td := readString(t, `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 3, "args": {"correlation": 4}}]}`)
		assert.Equal(t, DeviceLink{TotalUs: 3, UnlinkedUs: 3, Unlinked: 1, Cause: causeNoHostOps, ByRuleUs: byRule(Unlinked, 3)}, td.DeviceLink)
	})
	t.Run("graph replay", func(t *testing.T) {
		// Each replayed kernel carries the correlation of the cudaGraphLaunch that replayed it
		// (and no External id): rule 2 gives them all to the op that launched the graph.
		in := `{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 50, "dur": 20, "args": {"External id": 4}},
 {"ph": "X", "cat": "cpu_op", "name": "CUDAGraph::replay", "pid": 1, "tid": 1, "ts": 100, "dur": 50, "args": {"External id": 5}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"correlation": 77}},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 120, "dur": 20, "args": {"correlation": 77}},
 {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 140, "dur": 5, "args": {"correlation": 77}}
]}`
		td := readStringWith(t, in, strict)
		assert.Equal(t, causeNoLaunch, td.DeviceLink.Cause)
		td = readString(t, in)
		assert.Equal(t, []events.Kernel{{Name: "gemm", DurationUs: 20}, {Name: "relu", DurationUs: 5}}, td.Events[1].Kernels)
		assert.Equal(t, DeviceLink{TotalUs: 25, ByRuleUs: byRule(ByLaunch, 25)}, td.DeviceLink)

		strayIn := kineto("", "cpu_op", "cuda_runtime", "kernel", "External id", 5, 9, 9)
		stray := readStringWith(t, strayIn, strict)
		assert.Equal(t, causeNoSuchOp, stray.DeviceLink.Cause)
		w := stray.Warnings("s.json")
		require.Len(t, w, 1)
		assert.Equal(t, `s.json: 20.000 µs of 20.000 µs of device time (100.0%, 1 event) reached no operator: its "External id" names no operator in the trace`, w[0])
		stray = readString(t, strayIn)
		assert.Len(t, stray.Events[0].Kernels, 1, "an External id that names no op: the launch's enclosing op")
	})
	t.Run("range profiler", func(t *testing.T) {
		// Rule 3: the k-th range-profiler kernel is the k-th kernel launch in time order.
		in := `{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 100, "dur": 50, "args": {"External id": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"External id": 1, "correlation": 70}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 200, "dur": 50, "args": {"External id": 2}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaFuncSetAttribute", "pid": 1, "tid": 1, "ts": 205, "dur": 2, "args": {"External id": 2, "correlation": 71}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 210, "dur": 5, "args": {"correlation": 72}},
 {"ph": "X", "cat": "cuda_profiler_range", "name": "mul_kernel", "pid": 0, "tid": 0, "ts": 400, "dur": 30, "args": {"dram__bytes": 3}},
 {"ph": "X", "cat": "cuda_profiler_range", "name": "add_kernel", "pid": 0, "tid": 0, "ts": 300, "dur": 10, "args": {"dram__bytes": 4}}
]}`
		td := readString(t, in)
		assert.Equal(t, []events.Kernel{{Name: "add_kernel", DurationUs: 10}}, td.Events[0].Kernels, "by its launch's External id")
		assert.Equal(t, []events.Kernel{{Name: "mul_kernel", DurationUs: 30}}, td.Events[2].Kernels, "by its launch's enclosing op")
		assert.Equal(t, DeviceLink{TotalUs: 40, ByRuleUs: byRule(ByOrder, 40)}, td.DeviceLink)
		// One launch too many: the order pairs nothing.
		td = readString(t, strings.Replace(in, `"cudaFuncSetAttribute"`, `"cudaLaunchKernel"`, 1))
		assert.Equal(t, causeRangeCount, td.DeviceLink.Cause)
		assert.Equal(t, causeNoLaunch, readStringWith(t, in, strict).DeviceLink.Cause)
	})
	t.Run("work after the last operator", func(t *testing.T) {
		// orprof's OpenCL trace in kernel mode: the workload reads the weights back after its
		// last op, so those copies have no External id. That is no CUDA graph replay.
		trace := func(dev string) string {
			return `{"orprof": {"device": "` + dev + `", "device_time": "kernels"}, "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 50, "args": {"External id": 5}},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 120, "dur": 20, "args": {"External id": 5, "correlation": 77}},
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH", "pid": 0, "tid": 7, "ts": 200, "dur": 8, "args": {"correlation": 78, "bytes": 64}}
]}`
		}
		td := readString(t, trace("opencl"))
		assert.Equal(t, causeAfterOps, td.DeviceLink.Cause)
		w := td.Warnings("o.json")
		require.Len(t, w, 1)
		assert.NotContains(t, w[0], "CUDA")
		assert.Contains(t, w[0], "(28.6%, 1 event)")
		// On CUDA such work is as likely a graph replay launched by the last op.
		assert.Equal(t, causeNoLaunch, readString(t, trace("cuda")).DeviceLink.Cause)
	})
	t.Run("distributed rank", func(t *testing.T) {
		td := readString(t, kineto(`"distributedInfo": {"backend": "nccl", "rank": 7, "world_size": 8}, `, "cpu_op", "cuda_runtime", "kernel", "External id", 5, 5, 5))
		assert.True(t, td.HasRank)
		assert.Equal(t, int64(7), td.Rank)
		for in, want := range map[string]bool{`"distributedInfo": {"rank": "7"}, `: true, `"distributedInfo": {"rank": "r7"}, `: false, `"distributedInfo": 3, `: false,
			`"distributedInfo": {"rank": -1}, `: false, `"distributedInfo": {"rank": 0}, `: true} {
			assert.Equal(t, want, readString(t, kineto(in, "cpu_op", "cuda_runtime", "kernel", "External id", 5, 5, 5)).HasRank, in)
		}
		real, err := Open(filepath.Join(sharedTestdata, "kineto-extra", "hta_sampled_rank0.json.gz"), Options{})
		require.NoError(t, err)
		assert.True(t, real.HasRank)
		none, err := Open(filepath.Join(sharedTestdata, "kineto-extra", "hta_no_rank.json.gz"), Options{})
		require.NoError(t, err)
		assert.False(t, none.HasRank)
	})
	t.Run("orprof", func(t *testing.T) {
		td := openTestTrace(t, "orprof_fallback.json")
		legacyKernels := 0
		for _, e := range td.Events {
			if e.IsLegacy && len(e.Kernels) == 1 {
				legacyKernels++
			}
		}
		assert.Positive(t, legacyKernels, "fallback device time becomes PyTorch's one fake kernel")
		self := readString(t, kineto(`"orprof": {"device": "openreg"}, `, "cpu_op", "privateuse1_runtime", "kernel", "External id", 77, 77, 77))
		assert.Len(t, self.Events[0].Kernels, 1, "in orprof's traces an External id is always a link")
	})
	t.Run("gzip", func(t *testing.T) {
		in := kineto("", "cpu_op", "cuda_runtime", "kernel", "External id", 5, 5, 5)
		want := readString(t, in)
		half := len(in) / 2
		for name, data := range map[string][]byte{
			"one member":          gz(t, in),
			"two members":         append(gz(t, in[:half]), gz(t, in[half:])...),
			"short trailing data": append(gz(t, in), "xyz"...),
			"long trailing data":  append(gz(t, in), strings.Repeat("garbage!", 10)...),
			"trailing zeros":      append(gz(t, in), make([]byte, 512)...),
		} {
			td, err := Read(bytes.NewReader(data), "t.json.gz", Options{})
			require.NoError(t, err, name)
			assert.Equal(t, want.Events, td.Events, name)
			trailing := int64(len(data) - len(gz(t, in)))
			if name == "two members" {
				trailing = 0
			}
			assert.Equal(t, trailing, td.TrailingBytes, name)
			if trailing > 0 {
				assert.Contains(t, td.Warnings("t.json.gz"), "t.json.gz: ignored "+itoa(int(trailing))+" bytes of trailing data after the gzip stream", name)
			}
		}
		_, err := Read(bytes.NewReader(gz(t, in)[:40]), "cut.json.gz", Options{})
		assert.ErrorContains(t, err, "the .gz ends inside a member", "a truncated member is still an error")
	})
	t.Run("UTF-8 byte order mark", func(t *testing.T) {
		in := kineto("", "cpu_op", "cuda_runtime", "kernel", "External id", 5, 5, 5)
		td := readString(t, "\uFEFF"+in)
		assert.Equal(t, readString(t, in).Events, td.Events)
		_, err := Read(strings.NewReader("\uFEFF[1, x]"), "b.json", Options{})
		assert.ErrorContains(t, err, "b.json: byte 7: ", "offsets count the mark")
	})
}
