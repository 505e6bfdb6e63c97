package tracefile

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/events"
)

// loadGz decompresses a shared test trace into memory, skipping the benchmark when the shared
// data is absent.
func loadGz(b *testing.B, name string) []byte {
	b.Helper()
	f, err := os.Open(filepath.Join(sharedTestdata, "kineto", name))
	if err != nil {
		b.Fatalf("testdata missing: %v", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(gz)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkReadTraceMTIA reads the 87 MB MTIA trace (456k events) from memory, uncompressed;
// MB/s is the parse throughput.
func BenchmarkReadTraceMTIA(b *testing.B) {
	data := loadGz(b, "mtia_rank0.json.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "mtia_rank0.json", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadTraceMTIAGzip reads the same trace from its gzip bytes (decompression included);
// MB/s is over the uncompressed size.
func BenchmarkReadTraceMTIAGzip(b *testing.B) {
	f, err := os.ReadFile(filepath.Join(sharedTestdata, "kineto", "mtia_rank0.json.gz"))
	if err != nil {
		b.Fatalf("testdata missing: %v", err)
	}
	b.SetBytes(int64(len(loadGz(b, "mtia_rank0.json.gz"))))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(f), "mtia_rank0.json.gz", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTableMTIA is all of `orprof table` on the MTIA trace from memory: ReadAverages
// (read, tree, KeyAverages) and the text table; "list" is the same through Read's events and
// a List, the way it went before ReadAverages. MB/s is over the uncompressed size.
func BenchmarkTableMTIA(b *testing.B) {
	data := loadGz(b, "mtia_rank0.json.gz")
	for _, way := range []string{"averager", "list"} {
		b.Run(way, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var av *Averages
				var err error
				if way == "list" {
					var td *Data
					if td, err = Read(bytes.NewReader(data), "mtia_rank0.json", Options{}); err == nil {
						av = AveragesOf(td, events.AverageOptions{})
					}
				} else {
					av, err = ReadAverages(bytes.NewReader(data), "mtia_rank0.json", Options{}, events.AverageOptions{})
				}
				if err != nil {
					b.Fatal(err)
				}
				if err := optable.WriteTable(io.Discard, av.Rows, optable.TableOptions{UseDevice: av.Data.DeviceName}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadTraceMTIASequential is BenchmarkReadTraceMTIA on one goroutine: the scanner's
// own speed.
func BenchmarkReadTraceMTIASequential(b *testing.B) {
	data := loadGz(b, "mtia_rank0.json.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := readTrace(bytes.NewReader(data), "mtia_rank0.json", Options{}, parConfig{workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
