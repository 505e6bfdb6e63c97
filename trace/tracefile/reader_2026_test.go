package tracefile

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
)

// The traces of 2026 (testdata/kineto-2026, each written from its producer's source: the
// README there cites it), read as a consumer sees them.

func read2026(t *testing.T, name string) (*Data, []Event) {
	t.Helper()
	var c collect
	td, err := Open(filepath.Join("..", "..", "testdata", "kineto-2026", name), Options{Consumers: []Consumer{&c}})
	require.NoError(t, err)
	require.Zero(t, td.Skipped, td.SkipReason)
	return td, c.evs
}

func eventNamed(t *testing.T, evs []Event, name string) []Event {
	t.Helper()
	var out []Event
	for _, e := range evs {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// TestStreamSyncVirtualThread: kineto #1356 moved "Stream Sync" onto the thread stream + 1000000
// ("stream 7 (sync)"); its "stream" argument still names stream 7, which is the stream it is.
func TestStreamSyncVirtualThread(t *testing.T) {
	_, evs := read2026(t, "stream_sync.json")
	syncs := eventNamed(t, evs, "Stream Sync")
	require.Len(t, syncs, 1)
	s := syncs[0]
	assert.Equal(t, KindSync, s.Kind)
	assert.Equal(t, int64(1000007), s.Tid, "the row kineto drew it on")
	assert.Equal(t, int64(7), s.Stream, "the stream it belongs to")
	assert.Equal(t, "aten::item", s.Op)
	for _, e := range evs {
		if e.Kind.Device() {
			assert.Equal(t, int64(7), e.Stream, e.Name)
		}
	}
}

// TestPMSamplingCounters: CUPTI PM sampling (kineto #1530) writes one "C" event per metric,
// pid "GPU N Counters", value under the empty key. They are series, never device events, and
// the string pid moves neither the rank nor the device.
func TestPMSamplingCounters(t *testing.T) {
	td, evs := read2026(t, "pm_counters.json")
	for _, e := range evs {
		assert.NotContains(t, e.Name, "throughput", "a counter is no event")
	}
	assert.Equal(t, devices.CUDA, td.Device)
	assert.True(t, td.HasRank)
	assert.Equal(t, int64(2), td.Rank)
	const t0, t1 = 1000_000, 2000_000
	assert.Equal(t, []CounterSeries{
		{Cat: "hardware_counters", Name: "sm__throughput.avg.pct_of_peak_sustained_elapsed", Process: "GPU 0 Counters",
			Samples: 2, FirstNs: t0, LastNs: t1, Min: 87.5, Max: 91, Last: 91, Sum: 178.5},
		{Cat: "hardware_counters", Name: "dram__throughput.avg.pct_of_peak_sustained_elapsed", Process: "GPU 0 Counters",
			Samples: 2, FirstNs: t0, LastNs: t1, Min: 10.75, Max: 12.25, Last: 10.75, Sum: 23},
	}, td.Counters)
	assert.InDelta(t, 2500.0, td.DeviceLink.TotalUs, 1e-9, "the kernel alone")
}

// TestCountersParallel: the series of a read in parallel pieces are the sequential read's.
func TestCountersParallel(t *testing.T) {
	var b []byte
	b = append(b, `{"traceEvents": [`...)
	for i := range 20000 {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"ph": "C", "cat": "hardware_counters", "name": "m`...)
		b = append(b, byte('0'+i%3))
		b = append(b, `", "pid": "GPU 1 Counters", "tid": 0, "ts": `...)
		b = append(b, itoa(i+1)...)
		b = append(b, `, "args": {"": `...)
		b = append(b, itoa(i%100)...)
		b = append(b, `}}`...)
	}
	b = append(b, `]}`...)
	seq, err := readTrace(bytes.NewReader(b), "c.json", Options{}, parConfig{workers: 1})
	require.NoError(t, err)
	par, err := readTrace(bytes.NewReader(b), "c.json", Options{}, parConfig{workers: 4, segSize: 4096})
	require.NoError(t, err)
	require.Len(t, seq.Counters, 3)
	assert.Equal(t, seq.Counters, par.Counters)
	assert.Equal(t, int64(1), seq.Counters[0].Device)
	assert.Equal(t, 6667, seq.Counters[0].Samples)
}

// TestCUDAEventRecord: cuda_event activities ("cudaEvent", 1 ns, on their stream) are read as
// event records: device events that are no device time and no op's. One without a device
// timestamp (CUDA < 12.8: ts 0) is left out.
func TestCUDAEventRecord(t *testing.T) {
	td, evs := read2026(t, "cuda_event.json")
	recs := eventNamed(t, evs, "cudaEvent")
	require.Len(t, recs, 1)
	r := recs[0]
	assert.Equal(t, KindEventRecord, r.Kind)
	assert.True(t, r.Kind.Device())
	assert.False(t, r.Kind.DeviceTime())
	assert.Equal(t, "event_record", r.Kind.String())
	assert.Equal(t, int64(7), r.Stream)
	assert.Equal(t, int64(12), r.Correlation)
	assert.Equal(t, "", r.Op)
	assert.Equal(t, int64(1), r.EndNs-r.StartNs)
	assert.InDelta(t, 40.0, td.DeviceLink.TotalUs, 1e-9)
	assert.Zero(t, td.DeviceLink.UnlinkedUs)
	var rows int
	for _, e := range td.Events {
		if e.Name == "cudaEvent" {
			rows++
			assert.Equal(t, devices.CPU, e.DeviceType, "PyTorch has no device type for CUDA_EVENT")
		}
	}
	assert.Equal(t, 1, rows)
}

// TestROCmLogicalStreams: since kineto #1424 a ROCm kernel's tid and "stream" are its HIP
// stream's index on the device and "hsa_queue" the hardware queue, which streams share.
func TestROCmLogicalStreams(t *testing.T) {
	_, evs := read2026(t, "rocm_streams.json")
	streams := map[string]int64{}
	for _, e := range evs {
		if e.Kind == KindKernel {
			streams[e.Name] = e.Stream
		}
	}
	assert.Equal(t, map[string]int64{"Cijk_Alik_Bljk_SB_MT64x16x32": 1, "elementwise_kernel": 2}, streams)
}

// TestTypedMetadata: the same trace with its numbers typed (kineto #1464/#1482, PyTorch's typed
// metadata) and pre-quoted as strings reads the same.
func TestTypedMetadata(t *testing.T) {
	tdN, evN := read2026(t, "typed_numbers.json")
	tdS, evS := read2026(t, "typed_strings.json")
	for _, td := range []*Data{tdN, tdS} {
		assert.True(t, td.HasRank)
		assert.Equal(t, int64(3), td.Rank)
		assert.InDelta(t, 40.0, td.DeviceLink.TotalUs-td.DeviceLink.UnlinkedUs, 1e-9)
	}
	require.Equal(t, len(evN), len(evS))
	for i := range evN {
		n, s := evN[i], evS[i]
		n.Comm, s.Comm = nil, nil
		assert.Equal(t, n, s, evN[i].Name)
		if evN[i].Comm != nil {
			require.NotNil(t, evS[i].Comm)
			assert.Equal(t, *evN[i].Comm, *evS[i].Comm)
			assert.Equal(t, int64(4), evS[i].Comm.GroupSize)
			assert.Equal(t, int64(5), evS[i].Comm.Seq)
		}
	}
	bwd := eventNamed(t, evS, "MmBackward0")
	require.Len(t, bwd, 1)
	assert.Equal(t, int64(42), bwd[0].SequenceNr)
	assert.Equal(t, int64(1), bwd[0].FwdThread)
	assert.Equal(t, "aten::mm", eventNamed(t, evS, "sm90_xmma_gemm_f32f32_f32f32_f32_tn_n")[0].Op)
}

// TestSubMicrosecondTimes: µs with three decimals, with more (rounded half away from zero to
// the ns, exactly, where a float64 of µs since the epoch has no ns left) and as strings.
func TestSubMicrosecondTimes(t *testing.T) {
	_, evs := read2026(t, "sub_us_times.json")
	const epoch = 1782000000_000000_000
	want := map[string][2]int64{
		"aten::mm":                              {epoch + 123456_789, epoch + 123476_790},
		"cudaLaunchKernel":                      {epoch + 123460_250, epoch + 123465_250},
		"sm90_xmma_gemm_f32f32_f32f32_f32_tn_n": {epoch + 123470_125, epoch + 123503_458},
		"aten::add":                             {epoch + 123500_002, epoch + 123502_002},
	}
	got := map[string][2]int64{}
	for _, e := range evs {
		got[e.Name] = [2]int64{e.StartNs, e.EndNs}
	}
	assert.Equal(t, want, got)
}

func TestDecimalMicrosToNs(t *testing.T) {
	for _, c := range []struct {
		in string
		ns int64
		ok bool
	}{
		{"1.2345", 1235, true},
		{"1.2344999", 1234, true},
		{"-1.2345", -1235, true},
		{"1782000000123456.7896", 1782000000123456790, true},
		{"0.0005", 1, true},
		{"1.234", 0, false}, // three decimals: the fast path's
		{"1.2e3", 0, false},
		{"9223372036854775.8071", 0, false}, // past int64 ns: the float path, which refuses it
	} {
		ns, ok := decimalMicrosToNs([]byte(c.in))
		assert.Equal(t, c.ok, ok, c.in)
		assert.Equal(t, c.ns, ns, c.in)
	}
}

// BenchmarkReadPMCounters reads 100,000 PM-sampling counter events (10 metrics sampled every
// ms on one GPU), the shape kineto #1530 writes.
func BenchmarkReadPMCounters(b *testing.B) {
	var in []byte
	in = append(in, `{"traceEvents": [`...)
	for i := range 100000 {
		if i > 0 {
			in = append(in, ',')
		}
		in = append(in, "\n  {\n    \"ph\": \"C\",\n    \"cat\": \"hardware_counters\",\n    \"name\": \"metric_"...)
		in = append(in, byte('0'+i%10))
		in = append(in, "\",\n    \"pid\": \"GPU 0 Counters\",\n    \"tid\": 0,\n    \"ts\": "...)
		in = append(in, itoa(1000*(i/10))...)
		in = append(in, ".000,\n    \"args\": {\n      \"\": "...)
		in = append(in, itoa(i%97)...)
		in = append(in, ".5\n    }\n  }"...)
	}
	in = append(in, "]}"...)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		td, err := Read(bytes.NewReader(in), "c.json", Options{})
		if err != nil || len(td.Counters) != 10 {
			b.Fatal(err, len(td.Counters))
		}
	}
}
