package main

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/export"
)

// TestExportStdin: `orprof export -o DIR -` reads the trace from stdin, plain or gzipped,
// and writes the rows the same file given by its path makes; its files name <stdin> as
// their source.
func TestExportStdin(t *testing.T) {
	for _, name := range []string{"cuda_alexnet.json.gz", "rocm_mi250_train.json.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("..", "..", "testdata", "kineto", name)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			dir := t.TempDir()
			fromFile, fromStdin := filepath.Join(dir, "file"), filepath.Join(dir, "stdin")
			var out, errb bytes.Buffer
			require.Equal(t, 0, dispatch([]string{"export", "--quiet", "-o", fromFile, path}, nil, &out, &errb), errb.String())
			require.Equal(t, 0, dispatch([]string{"export", "--quiet", "-o", fromStdin, "-"}, bytes.NewReader(data), &out, &errb), errb.String())
			assert.Empty(t, out.String())
			file := export.FileName(0)
			assert.Equal(t, readRows[export.KernelRow](t, filepath.Join(fromFile, export.TableKernels, file)),
				readRows[export.KernelRow](t, filepath.Join(fromStdin, export.TableKernels, file)))
			assert.Equal(t, readRows[export.OpRow](t, filepath.Join(fromFile, export.TableOps, file)),
				readRows[export.OpRow](t, filepath.Join(fromStdin, export.TableOps, file)))
			assert.Equal(t, readRows[export.IdleRow](t, filepath.Join(fromFile, export.TableIdle, file)),
				readRows[export.IdleRow](t, filepath.Join(fromStdin, export.TableIdle, file)))
			f, err := os.Open(filepath.Join(fromStdin, export.TableKernels, file))
			require.NoError(t, err)
			defer f.Close()
			st, err := f.Stat()
			require.NoError(t, err)
			pf, err := parquet.OpenFile(f, st.Size())
			require.NoError(t, err)
			src, _ := pf.Lookup("orprof.source")
			assert.Equal(t, "<stdin>", src)
		})
	}
}

func readRows[T any](t *testing.T, path string) []T {
	t.Helper()
	rows, err := parquet.ReadFile[T](path)
	require.NoError(t, err)
	require.NotEmpty(t, rows, path)
	return rows
}

// TestExportGCLimit: the export's collection limit is 3/8 of the JSON of the largest traces
// read at once (a gzip file counts its uncompressed size), never below exportGCFloor per
// trace read at once; standard input counts as tableGCFloor.
func TestExportGCLimit(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string { return writeIn(t, dir, name, data) }
	big := write("big.json", make([]byte, 160<<20>>4)) // 10 MiB
	var gzb bytes.Buffer
	zw := gzip.NewWriter(&gzb)
	_, err := zw.Write(make([]byte, 100<<20))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	gzp := write("big.json.gz", gzb.Bytes())
	small := write("small.json", []byte("{}"))
	for _, c := range []struct {
		name    string
		paths   []string
		workers int
		want    int64
	}{
		{"small", []string{small}, 2, exportGCFloor},
		{"small ones, two at once", []string{small, small, small}, 2, 2 * exportGCFloor},
		{"gzip: its uncompressed size", []string{gzp}, 2, (100 << 20) * 3 / 8},
		{"two workers: the two largest", []string{small, big, gzp}, 2, ((100 << 20) + (10 << 20)) * 3 / 8},
		{"one worker: the largest", []string{small, big, gzp}, 1, (100 << 20) * 3 / 8},
		{"stdin", []string{"-"}, 2, tableGCFloor * 3 / 8},
		{"missing", []string{filepath.Join(dir, "nope.json")}, 1, tableGCFloor * 3 / 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, exportGCLimit(c.paths, c.workers))
		})
	}
}

// TestExportGCRaisesTheLimit: when more is live than the export's limit allows, the limit is
// raised over it rather than left for the collector to run without pause; done restores the
// settings.
func TestExportGCRaisesTheLimit(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the export leaves the collector alone")
	}
	before := debug.SetMemoryLimit(-1)
	gc := exportGC(1 << 20)
	live := make([]byte, 8<<20)
	for i := range live {
		live[i] = byte(i)
	}
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) <= 1<<20+1<<17 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	got := debug.SetMemoryLimit(-1)
	runtime.KeepAlive(live)
	gc.Done()
	assert.Greater(t, got, int64(8<<20), "the limit over what is live")
	assert.Equal(t, before, debug.SetMemoryLimit(-1), "restored")
}

// TestExportGCLinking: while any read links its events the collector has no limit; the
// export's limit is back when the last one has linked, and Done restores the settings.
func TestExportGCLinking(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the export leaves the collector alone")
	}
	before := debug.SetMemoryLimit(-1)
	gc := exportGC(64 << 20)
	assert.Equal(t, int64(64<<20), debug.SetMemoryLimit(-1))
	gc.Linking(true)
	assert.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1), "one read linking")
	gc.Linking(true)
	gc.Linking(false)
	assert.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1), "one of two reads still linking")
	gc.Linking(false)
	assert.Equal(t, int64(64<<20), debug.SetMemoryLimit(-1), "no read linking")
	gc.Done()
	assert.Equal(t, before, debug.SetMemoryLimit(-1), "restored")
}
