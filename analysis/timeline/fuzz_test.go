package timeline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/orprof/orprof/internal/ranknum"
	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace/tracefile"
)

// timelineSeed is a small Kineto trace with every kind of event the analyses use: steps, a
// launch and its kernel, overlapping kernels on one stream, a collective, a copy, a sync, a
// device range.
const timelineSeed = `{"schemaVersion": 1, "distributedInfo": {"rank": 2}, "traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100.000, "dur": 50.000},
{"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 150.000, "dur": 50.000},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110.000, "dur": 5.000, "args": {"correlation": 7}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 120.000, "dur": 40.500, "args": {"correlation": 7, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "inside", "pid": 0, "tid": 7, "ts": 125.000, "dur": 5.000, "args": {"correlation": 8, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32", "pid": 0, "tid": 20, "ts": 150.000, "dur": 30.000, "args": {"correlation": 9}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 21, "ts": 185.250, "dur": 0.600},
{"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 161.000, "dur": 20.000},
{"ph": "X", "cat": "gpu_user_annotation", "name": "fwd", "pid": 0, "tid": 7, "ts": 100.000, "dur": 100.000},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 160.000, "dur": 5.000, "args": {"correlation": 9}}
]}`

// FuzzTimeline reads any input as a trace and runs every analysis on it: no panic, and every
// summary keeps the invariants (no negative durations, categories summing to the total, no
// union above the wall time).
func FuzzTimeline(f *testing.F) {
	f.Add([]byte(timelineSeed))
	f.Add([]byte(`{"traceEvents": []}`))
	f.Add([]byte(`[{"name": "a", "ph": "X", "ts": 1, "dur": 2, "tid": 1}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := NewConsumer(DefaultOptions(), nil)
		if _, err := tracefile.ReadConsumers(bytes.NewReader(data), "fuzz.json", tracefile.Options{Consumers: []tracefile.Consumer{c}}); err != nil {
			return
		}
		s := c.Summary()
		checkInvariants(t, s)
		var buf bytes.Buffer
		for _, f := range []text.Format{text.Text, text.Markdown, text.CSV, text.JSON} {
			if err := Write(&buf, f, s, Views); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ReadSummary(bytes.NewReader(func() []byte { buf.Reset(); _ = Write(&buf, text.JSON, s, Views); return buf.Bytes() }())); err != nil {
			t.Fatalf("its own JSON does not load: %v", err)
		}
	})
}

// FuzzAnalyzer hands the analyses arbitrary event sequences: any overlap, order, steps and
// launches, on a few streams.
func FuzzAnalyzer(f *testing.F) {
	f.Add([]byte{0, 0, 10, 0, 1, 1, 2, 5, 20, 1, 2, 0, 3, 8, 12, 1, 3, 0, 2, 0, 30, 0, 1, 1})
	f.Add([]byte{2, 0, 100, 0, 1, 4, 2, 1, 50, 1, 2, 1, 2, 50, 3, 1, 0, 0, 0, 0, 99, 2, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		o := DefaultOptions()
		if len(data) > 0 && data[0]&1 == 1 {
			o.Steps = []int64{1}
		}
		a := NewAnalyzer(o)
		p := a.Part()
		for len(data) >= 6 {
			start := int64(binary.LittleEndian.Uint16(data[1:3])) * 100
			e := Event{StartNs: start, EndNs: start + int64(data[3])*int64(data[3])*10, Stream: int64(data[4] % 3),
				Correlation: int64(data[5] % 8)}
			switch data[0] % 4 {
			case 0:
				e.Kind, e.Class = Device, Class(1+data[5]%6)
			case 1:
				e.Kind = Launch
			case 2:
				e.Kind, e.Name = Op, "ProfilerStep#"+string(rune('0'+data[4]%3))
			case 3:
				e.Kind, e.Name = Device, "ncclKernel"
			}
			p.Add(&e)
			data = data[6:]
		}
		checkInvariants(t, a.Finish(RankInfo{}))
	})
}

// FuzzLoad reads any input as a timeline summary: an error or a summary that renders in every
// format and merges with itself (or names the rank number its traces share that the merge
// would part: ranknum.Clash), never a panic.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"rocm_mi250_train", "tbplugin_2021_small"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "golden", name+".json")); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"orprof_timeline": 1, "options": {"queue_length": 1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSummary(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		for _, f := range []text.Format{text.Text, text.Markdown, text.CSV, text.JSON} {
			if err := Write(&buf, f, s, Views); err != nil {
				t.Fatal(err)
			}
		}
		var clash *ranknum.Clash
		if err := s.Merge(s); err != nil && !errors.As(err, &clash) {
			t.Fatal(err)
		}
		if err := s.SelectRanks(nil); err != nil {
			t.Fatal(err)
		}
	})
}
