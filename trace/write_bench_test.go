package trace_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/orprof/orprof/internal/gz"
	"github.com/orprof/orprof/internal/tracetest"
	"github.com/orprof/orprof/trace"
)

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkWriteTrace writes a 200k-operator trace (250k events, about 61 MB of JSON) plain and
// through package gz (what `orprof run --trace x.gz` uses), side by side with the anchors:
// klauspost/compress's gzip at BestSpeed compressing the same, already encoded bytes on one
// core (the floor of a one-core compressor) and on two goroutines with half the bytes each
// (what compression on both cores can do in this run), `gzip -1 -c` of those bytes, and the
// export through the standard library's gzip at BestSpeed. MB/s are of the uncompressed JSON;
// ratio is uncompressed over compressed size; cpu-ms/op is the process's CPU time; cores is
// that CPU time over the wall time: near 2 when the run had both cores, near 1 when the
// machine's other work left it one. Package gz needs both: on one core it can only be as fast
// as encoding and compressing one after the other.
func BenchmarkWriteTrace(b *testing.B) {
	t := tracetest.Session(200_000)
	var enc bytes.Buffer
	if err := trace.Write(&enc, t); err != nil {
		b.Fatal(err)
	}
	data := enc.Bytes()
	benchExport(b, "plain", t, int64(len(data)), nil)
	benchExport(b, "gz", t, int64(len(data)), func(w io.Writer) io.WriteCloser { return gz.NewWriter(w) })
	benchExport(b, "gzip-stdlib-BestSpeed", t, int64(len(data)), func(w io.Writer) io.WriteCloser {
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		return zw
	})
	b.Run("anchor-klauspost-BestSpeed-1core", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var out countWriter
		zw, _ := kgzip.NewWriterLevel(&out, kgzip.BestSpeed)
		c0 := cpuNow()
		for b.Loop() {
			out.n = 0
			zw.Reset(&out)
			for p := data; len(p) > 0; p = p[min(len(p), 1<<20):] {
				zw.Write(p[:min(len(p), 1<<20)]) // as package gz is fed
			}
			if err := zw.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(data))/float64(out.n), "ratio")
		b.ReportMetric(float64(cpuNow()-c0)/float64(b.N)/1e6, "cpu-ms/op")
	})
	b.Run("anchor-klauspost-BestSpeed-2cores", func(b *testing.B) {
		// The same bytes in two halves, each compressed by a goroutine of its own (two gzip
		// members): what compression on both cores can do in this run. Its cores metric says
		// whether the machine gave the run both cores at all.
		b.SetBytes(int64(len(data)))
		halves := [][]byte{data[:len(data)/2], data[len(data)/2:]}
		var outs [2]countWriter
		var zws [2]*kgzip.Writer
		for i := range zws {
			zws[i], _ = kgzip.NewWriterLevel(&outs[i], kgzip.BestSpeed)
		}
		c0 := cpuNow()
		for b.Loop() {
			var wg sync.WaitGroup
			for i := range zws {
				wg.Go(func() {
					outs[i].n = 0
					zws[i].Reset(&outs[i])
					for p := halves[i]; len(p) > 0; p = p[min(len(p), 1<<20):] {
						zws[i].Write(p[:min(len(p), 1<<20)])
					}
					zws[i].Close()
				})
			}
			wg.Wait()
		}
		cpu := cpuNow() - c0
		b.ReportMetric(float64(len(data))/float64(outs[0].n+outs[1].n), "ratio")
		b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
		b.ReportMetric(float64(cpu)/float64(b.Elapsed()), "cores")
	})
	b.Run("anchor-gzip-1", func(b *testing.B) {
		if _, err := exec.LookPath("gzip"); err != nil {
			b.Skip("gzip not found: " + err.Error())
		}
		in := filepath.Join(b.TempDir(), "trace.json")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		var out countWriter
		for b.Loop() {
			out.n = 0
			cmd := exec.Command("gzip", "-1", "-c", in)
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(data))/float64(out.n), "ratio")
	})
}

// benchExport times trace.Write of t through mk's writer (plain if mk is nil) into a counting
// writer; size is the uncompressed size.
func benchExport(b *testing.B, name string, t *trace.Trace, size int64, mk func(io.Writer) io.WriteCloser) {
	b.Run(name, func(b *testing.B) {
		b.SetBytes(size)
		var out countWriter
		c0 := cpuNow()
		for b.Loop() {
			out.n = 0
			var w io.Writer = &out
			var zw io.WriteCloser
			if mk != nil {
				zw = mk(&out)
				w = zw
			}
			if err := trace.Write(w, t); err != nil {
				b.Fatal(err)
			}
			if zw != nil {
				if err := zw.Close(); err != nil {
					b.Fatal(err)
				}
			}
		}
		cpu := cpuNow() - c0
		b.ReportMetric(float64(size)/float64(out.n), "ratio")
		b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
		b.ReportMetric(float64(cpu)/float64(b.Elapsed()), "cores")
	})
}

// cpuNow is the process's CPU time so far (user + system), in ns.
func cpuNow() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
