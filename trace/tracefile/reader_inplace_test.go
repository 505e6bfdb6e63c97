package tracefile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/segment"
)

// inPlaceRead reads data as a mapped trace file is read: in place, from memory the process
// cannot write (readOnly), the parallel parse cutting its segments out of it. Every offset the
// parse says it is done with must be at most the input's length and never go back.
func inPlaceRead(t *testing.T, data []byte, name string, cfg parConfig) (*Data, error) {
	t.Helper()
	var last int64
	consumed := func(end int64) {
		require.GreaterOrEqual(t, end, last, "consumed went back")
		require.LessOrEqual(t, end, int64(len(data)), "consumed past the end")
		last = end
	}
	return readTrace(newInPlace(readOnly(t, data), consumed), name, Options{}, cfg)
}

// bigTrace is a valid Kineto trace of at least n bytes (above mapMin, so that Open maps it).
func bigTrace(n int) []byte {
	k := 1
	for len(trickyTrace(k, false)) < n {
		k *= 2
	}
	return trickyTrace(k, false)
}

// TestOpenInPlace: Open and OpenAverages of a file large enough to be mapped give what Read and
// ReadAverages of its bytes give.
func TestOpenInPlace(t *testing.T) {
	data := bigTrace(3 * mapMin)
	path := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	r, closeIn, err := openInput(path)
	require.NoError(t, err)
	_, mapped := r.(*inPlace)
	closeIn()
	if runtime.GOOS == "linux" {
		require.True(t, mapped, "a %d-byte regular file is mapped on Linux", len(data))
	}

	want, err := Read(bytes.NewReader(data), path, Options{})
	require.NoError(t, err)
	got, err := Open(path, Options{})
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, int64(len(data)), got.Bytes)

	wantAv, err := ReadAverages(bytes.NewReader(data), path, Options{}, events.AverageOptions{})
	require.NoError(t, err)
	gotAv, err := OpenAverages(path, Options{}, events.AverageOptions{})
	require.NoError(t, err)
	require.Equal(t, wantAv, gotAv)

	// Gzip input is streamed, not mapped.
	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.NoCompression)
	require.NoError(t, err)
	_, err = zw.Write(bytes.Repeat(data, 2))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.Greater(t, z.Len(), mapMin)
	gz := filepath.Join(t.TempDir(), "big.json.gz")
	require.NoError(t, os.WriteFile(gz, z.Bytes(), 0o644))
	r, closeIn, err = openInput(gz)
	require.NoError(t, err)
	require.IsType(t, &os.File{}, r)
	closeIn()
}

// TestOpenInPlaceProgress: a mapped trace reports its progress as a read one does, ending at
// its size.
func TestOpenInPlaceProgress(t *testing.T) {
	data := bigTrace(3 * mapMin)
	path := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	var seen []int64
	_, err := Open(path, Options{Progress: func(n int64) { seen = append(seen, n) }})
	require.NoError(t, err)
	require.NotEmpty(t, seen)
	require.Equal(t, int64(len(data)), seen[len(seen)-1])
	for i := 1; i < len(seen); i++ {
		require.Greater(t, seen[i], seen[i-1])
	}
}

// TestOpenInPlaceTruncated: a mapped file cut short while it is read faults where its pages are
// gone (SIGBUS); the read reports that, naming the file, instead of crashing.
func TestOpenInPlaceTruncated(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	data := bigTrace(4 * mapMin)
	// Cut in the middle of a page, the rest of which reads as zeros, and at a page boundary,
	// where the next read faults: on the reading goroutine, or first on a worker ahead of it.
	for _, cut := range []int{len(data) / 3, len(data) / 3 &^ (os.Getpagesize() - 1)} {
		for _, par := range []parConfig{{workers: 1}, defaultParConfig(), {workers: 2, segSize: 4096}} {
			what := fmt.Sprintf("cut at %d, %+v", cut, par)
			path := filepath.Join(t.TempDir(), "cut.json")
			require.NoError(t, os.WriteFile(path, data, 0o644))
			r, closeIn, err := openInput(path)
			require.NoError(t, err)
			require.IsType(t, &inPlace{}, r)
			require.NoError(t, os.Truncate(path, int64(cut)))
			_, err = readTrace(r, path, Options{}, par)
			closeIn()
			require.Error(t, err, what)
			require.Equal(t, path+": the file changed while it was read (it was cut short or rewritten)", err.Error(), what)
		}
	}
}

// TestWorkerFaultFailsSegment: a worker that faults in a mapped trace (its file cut short after
// the segment was cut) fails the segment and stops the workers, for the reading goroutine to
// meet the fault itself and report it.
func TestWorkerFaultFailsSegment(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	data := bigTrace(2 * mapMin)
	path := filepath.Join(t.TempDir(), "cut.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	r, closeIn, err := openInput(path)
	require.NoError(t, err)
	defer closeIn()
	in := r.(*inPlace)
	page := os.Getpagesize()
	require.NoError(t, os.Truncate(path, int64(page)))

	d := newDecoderInPlace(in, path, Options{}, parConfig{workers: 1, segSize: 4096})
	d.format = Kineto
	p := &parser{d: d, arr: &segment.Array[segResult]{}, inPlace: true}
	start := bytes.Index(data, []byte(`{"ph"`))
	seg := &piece{Buf: in.data[start : 3*page], Off: int64(start)}
	done := make(chan struct{})
	go func() { // the worker's goroutine: the fault setting is a goroutine's
		defer close(done)
		p.worker(0)(seg)
	}()
	<-done
	require.Equal(t, segment.Failed, seg.Status)
	require.True(t, p.arr.Quitting())
}
