package tracefile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// The parallel parse of the event array must give exactly what the sequential parse gives:
// the same Data, or the same error at the same offset. These tests compare the two on
// every test trace, on traces built to fool the segment cuts, and on damaged input, with
// segments small enough that every trace is cut many times.

var parSegSizes = []int{1, 7, 64, 333, 4096, 64 << 10}

func seqRead(data []byte, name string) (*Data, error) {
	return readTrace(bytes.NewReader(data), name, Options{}, parConfig{workers: 1})
}

// parRead reads through a reader that returns half of each request, so the parallel path is
// taken however small the input is.
func parRead(data []byte, name string, cfg parConfig) (*Data, error) {
	return readTrace(iotest.HalfReader(bytes.NewReader(data)), name, Options{}, cfg)
}

// requireSameRead requires the parallel parse, of a stream and of the same bytes in place (as
// a mapped file is read), to give what the sequential parse gives.
func requireSameRead(t *testing.T, data []byte, name string, cfg parConfig) {
	t.Helper()
	want, wantErr := seqRead(data, name)
	got, gotErr := parRead(data, name, cfg)
	requireSameResult(t, want, wantErr, got, gotErr, fmt.Sprintf("%s %+v", name, cfg))
	got, gotErr = inPlaceRead(t, data, name, cfg)
	requireSameResult(t, want, wantErr, got, gotErr, fmt.Sprintf("%s %+v in place", name, cfg))
}

// requireSameResult requires got to be want, or the same error.
func requireSameResult(t *testing.T, want *Data, wantErr error, got *Data, gotErr error, what string) {
	t.Helper()
	if wantErr != nil {
		require.Error(t, gotErr, "%s: expected error %v", what, wantErr)
		require.Equal(t, wantErr.Error(), gotErr.Error(), what)
		var te *Error
		require.ErrorAs(t, gotErr, &te)
		return
	}
	require.NoError(t, gotErr, what)
	require.Equal(t, want, got, what)
}

// requireSameAsGeneric compares a read from memory (the scanner's fast paths see whole
// values) with a sequential read one byte at a time (they never do: every value goes through
// the general code).
func requireSameAsGeneric(t *testing.T, data []byte, name string) {
	t.Helper()
	want, wantErr := readTrace(iotest.OneByteReader(bytes.NewReader(data)), name, Options{}, parConfig{workers: 1})
	got, gotErr := seqRead(data, name)
	requireSameResult(t, want, wantErr, got, gotErr, name+" fast paths")
}

func gunzipFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(bytes.NewReader(data))
		require.NoError(t, err)
		data, err = io.ReadAll(gz)
		require.NoError(t, err)
	}
	return data
}

func TestReaderParallelSameAsSequential(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(readerTestdata, "*.json"))
	require.NotEmpty(t, files)
	small := []string{"cpu_only.json.gz", "rocm_mi250_train.json.gz", "cuda_alexnet.json.gz", "cuda_cupti_range_profiler.json.gz"}
	for _, f := range small {
		files = append(files, filepath.Join(requireShared(t, "kineto"), f))
	}
	files = append(files, filepath.Join(requireShared(t, "pytorch-1.13"), "mlp", "trace.json"))
	for _, f := range files {
		data := gunzipFile(t, f)
		requireSameAsGeneric(t, data, f)
		for _, seg := range parSegSizes {
			if seg < 64 && len(data) > 100<<10 {
				continue // thousands of one-event segments add nothing over 64 bytes
			}
			for _, w := range []int{2, 3} {
				requireSameRead(t, data, f, parConfig{workers: w, segSize: seg})
			}
		}
	}
}

// TestReaderParallelLarge reads the shared multi-MB traces with the default segment size.
func TestReaderParallelLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large traces: too slow under -race or -short (.ci/run runs this test without -race)")
	}
	for _, f := range []string{"cuda_ns_resolution.json.gz", "cuda_train_step.json.gz", "mtia_rank0.json.gz"} {
		p := filepath.Join(requireShared(t, "kineto"), f)
		data := gunzipFile(t, p)
		// Kineto's layouts, read by literal from memory, against no literal at all.
		requireSameAsGeneric(t, data, f)
		requireSameRead(t, data, f, parConfig{workers: 2, segSize: defaultParConfig().segSize})
		requireSameRead(t, data, f, parConfig{workers: 3, segSize: 32 << 10})
	}
}

// trickyTrace builds a Kineto trace whose strings and arguments hold "}, {" and nested objects
// in arrays, so that many cuts fall inside an event and the parse must recover.
func trickyTrace(n int, legacy bool) []byte {
	var b strings.Builder
	if legacy {
		b.WriteString("[")
	} else {
		b.WriteString(`{"schemaVersion": 1, "deviceProperties": [{"id": 0}, {"id": 1}], "traceEvents": [`)
	}
	for i := range n {
		if i > 0 {
			b.WriteString(",\n  ")
		}
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "cpu_op", "name": "op}, {\"x%d", "pid": 1, "tid": 2, "ts": %d.5, "dur": 3, "args": {"External id": %d, "Input Dims": [[1, 2], []], "Call stack": "a.py(1): f}, {\"g;b.py(2): h"}}`, i%3, 10*i, i+1)
		case 1:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": %d, "dur": 1, "args": {"External id": %d, "extra": [{"a": 1}, {"b": {"c": [{"d": 2}, {"e": 3}]}}]}}`, 10*i+1, i+1)
		case 2:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "kernel", "name": "k%d", "pid": 0, "tid": 7, "ts": %d, "dur": 2, "args": {"External id": %d, "correlation": %d}}`, i, 10*i+2, i, 1000+i)
		case 3:
			fmt.Fprintf(&b, `{"ph": "M", "name": "process_labels", "pid": %d, "tid": 0, "args": {"labels": "MTIA %d"}}`, i, i%4)
		case 4:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "user_annotation", "name": "}, {", "pid": 1, "tid": 2, "ts": %d, "dur": 4, "args": {}},{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": 1, "tid": 2, "ts": %d, "dur": 100}`, 10*i+3, 5+i)
		}
	}
	if legacy {
		b.WriteString("]")
	} else {
		b.WriteString(`], "traceName": "x}, {y", "baseTimeNanoseconds": 1700000000000000000}`)
	}
	return []byte(b.String())
}

func TestReaderParallelFalseCuts(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		data := trickyTrace(400, legacy)
		td, err := seqRead(data, "tricky.json")
		require.NoError(t, err)
		require.NotEmpty(t, td.Events)
		for _, seg := range parSegSizes {
			requireSameRead(t, data, "tricky.json", parConfig{workers: 2, segSize: seg})
		}
	}
}

// TestReaderParallelDamage compares the errors (and results) for truncated and corrupted
// traces: every error must be the sequential one, at the same offset.
func TestReaderParallelDamage(t *testing.T) {
	inputs := [][]byte{trickyTrace(40, false), trickyTrace(40, true)}
	for _, f := range []string{"link.json", "fields.json", "legacy.json", "memory.json"} {
		data, err := os.ReadFile(filepath.Join(readerTestdata, f))
		require.NoError(t, err)
		inputs = append(inputs, data)
	}
	step := 37
	if testing.Short() || raceEnabled {
		step = 61
	}
	for k, data := range inputs {
		name := fmt.Sprintf("input%d.json", k)
		for cut := 0; cut < len(data); cut += step {
			requireSameAsGeneric(t, data[:cut], name)
			for _, seg := range []int{1, 50, 500} {
				requireSameRead(t, data[:cut], name, parConfig{workers: 2, segSize: seg})
			}
		}
		for pos := 0; pos < len(data); pos += step {
			for _, c := range []byte{'x', '}', '"', ',', '\\', ' ', 'e', '0'} {
				bad := bytes.Clone(data)
				bad[pos] = c
				requireSameAsGeneric(t, bad, name)
				requireSameRead(t, bad, name, parConfig{workers: 2, segSize: 50})
			}
		}
	}
}

// TestReaderParallelTail covers what follows the array: members after "traceEvents", a second
// "traceEvents", trailing bytes, and an array that ends at the very end of the input.
func TestReaderParallelTail(t *testing.T) {
	ev := `{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"External id": 1}}`
	many := strings.Repeat(ev+", ", 50) + ev
	for _, in := range []string{
		`{"traceEvents": [` + many + `], "baseTimeNanoseconds": 5, "deviceName": "mtia"}`,
		`{"traceEvents": [` + many + `], "traceEvents": [` + many + `]}`,
		`{"traceEvents": [` + many + `]} x`,
		`{"traceEvents": [` + many + `]`,
		`{"traceEvents": [` + many + `,]}`,
		`{"traceEvents": [` + many + `, 5]}`,
		`[` + many + `]`,
		`[` + many + `] `,
		`[` + many + `]]`,
		`[` + many,
		`[` + many + `,`,
	} {
		for _, seg := range []int{1, 40, 200, 4096} {
			requireSameRead(t, []byte(in), "tail.json", parConfig{workers: 2, segSize: seg})
		}
	}
}

// TestReaderParallelReadError: a read error in the middle of the array is reported at the
// same offset as by the sequential read, and Progress sees every byte once, in order.
func TestReaderParallelReadError(t *testing.T) {
	data := trickyTrace(200, false)
	boom := errors.New("disk on fire")
	for _, cut := range []int{10, len(data) / 3, len(data) - 5} {
		want, wantErr := readTrace(&errReader{data: data[:cut], err: boom}, "r.json", Options{}, parConfig{workers: 1})
		require.Nil(t, want)
		_, gotErr := readTrace(iotest.HalfReader(&errReader{data: data[:cut], err: boom}), "r.json", Options{},
			parConfig{workers: 2, segSize: 100})
		require.ErrorIs(t, gotErr, boom)
		require.Equal(t, wantErr.Error(), gotErr.Error())
	}
	var seen []int64
	td, err := readTrace(iotest.HalfReader(bytes.NewReader(data)), "p.json",
		Options{Progress: func(n int64) { seen = append(seen, n) }}, parConfig{workers: 2, segSize: 100})
	require.NoError(t, err)
	require.Equal(t, int64(len(data)), td.Bytes)
	require.NotEmpty(t, seen)
	require.Equal(t, int64(len(data)), seen[len(seen)-1])
	for i := 1; i < len(seen); i++ {
		require.Greater(t, seen[i], seen[i-1])
	}
}

// FuzzReadTraceParallel: for any input and segment size, the parallel parse gives what the
// sequential one gives, and the scanner's fast paths what its general code gives.
func FuzzReadTraceParallel(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(readerTestdata, "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data, uint16(40))
		}
	}
	f.Add([]byte(`{"traceEvents": [1, {}, {"ph": 1}, {"ph": "Z"}, {"ph": "X", "cat": "cpu_op", "name": 2, "ts": 1, "dur": 1}, {"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 1}, "x", {"ph": "X", "name": "b", "ts": 1}]}`), uint16(9))
	f.Add(trickyTrace(12, false), uint16(30))
	f.Add(trickyTrace(12, true), uint16(7))
	f.Add([]byte(`[{"name": "a", "ph": "X", "ts": 1, "dur": 2}, {"name": "b}, {", "ph": "X", "ts": 1, "dur": 1}]`), uint16(1))
	f.Add([]byte(kinetoRepeatSeed), uint16(150)) // repeated metadata events across segments
	f.Fuzz(func(t *testing.T, data []byte, seg uint16) {
		if len(data) > 1<<16 {
			return
		}
		requireSameAsGeneric(t, data, "fuzz.json")
		requireSameRead(t, data, "fuzz.json", parConfig{workers: 2, segSize: int(seg%1024) + 1})
	})
}
