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
	td, err := Read(strings.NewReader(in), "t.json", Options{})
	require.NoError(t, err)
	return td
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
		td := readString(t, kineto("", "cpu_op", "cuda_runtime", "kernel", "External id", 12, 77, 77))
		assert.Empty(t, td.Events[0].Kernels)
		assert.Equal(t, DeviceLink{TotalUs: 20, UnlinkedUs: 20, Unlinked: 1, Cause: causeSelfCorr}, td.DeviceLink)
		// An op whose id happens to equal the correlation gets the kernel only when the launch
		// lies within it on its thread.
		outside := readString(t, `{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 5, "args": {"External id": 77}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"External id": 77, "correlation": 77}},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 120, "dur": 20, "args": {"External id": 77, "correlation": 77}}]}`)
		assert.Empty(t, outside.Events[0].Kernels, "an id equal to the event's own correlation is no link")
		assert.Equal(t, causeSelfCorr, outside.DeviceLink.Cause)
		inside := readString(t, kineto("", "cpu_op", "cuda_runtime", "kernel", "External id", 77, 77, 77))
		assert.Len(t, inside.Events[0].Kernels, 1, "the launch lies within op 77: a link")
		real, err := Open(filepath.Join(sharedTestdata, "kineto", "cuda_alexnet.json.gz"), Options{})
		require.NoError(t, err)
		assert.Zero(t, linkedUs(real))
		assert.Equal(t, causeSelfCorr, real.DeviceLink.Cause)
		assert.Equal(t, []string{`a.json: 67681.000 µs of 67681.000 µs of device time (100.0%, 139 events) reached no operator: ` +
			`its "External id" equals the event's own "correlation", as some Kineto builds of 2022–2023 wrote it, so the file does not say which operator launched it`},
			real.Warnings("a.json"))
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
		td := readString(t, kineto("", "cpu_op", "mtia_runtime", "mtia_ccp_events", "External id", 5, 5, 5))
		assert.Equal(t, devices.MTIA, td.Device)
		assert.Empty(t, td.Events[0].Kernels, "PyTorch attaches no MTIA activity to ops")
		assert.Equal(t, causeNotAttached, td.DeviceLink.Cause)
	})
	t.Run("GPU-only", func(t *testing.T) {
		td := readString(t, `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 3, "args": {"correlation": 4}}]}`)
		assert.Equal(t, DeviceLink{TotalUs: 3, UnlinkedUs: 3, Unlinked: 1, Cause: causeNoHostOps}, td.DeviceLink)
	})
	t.Run("graph replay", func(t *testing.T) {
		td := readString(t, kineto("", "cpu_op", "cuda_runtime", "kernel", "none", 5, 0, 0))
		assert.Equal(t, causeNoLaunch, td.DeviceLink.Cause)
		stray := readString(t, kineto("", "cpu_op", "cuda_runtime", "kernel", "External id", 5, 9, 9))
		assert.Equal(t, causeNoSuchOp, stray.DeviceLink.Cause)
		w := stray.Warnings("s.json")
		require.Len(t, w, 1)
		assert.Equal(t, `s.json: 20.000 µs of 20.000 µs of device time (100.0%, 1 event) reached no operator: its "External id" names no operator in the trace`, w[0])
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
		for in, want := range map[string]bool{`"distributedInfo": {"rank": "7"}, `: false, `"distributedInfo": 3, `: false,
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
