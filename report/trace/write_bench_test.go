package trace_test

import (
	"compress/gzip"
	"io"
	"strconv"
	"syscall"
	"testing"

	"github.com/orprof/orprof/internal/gz"
	"github.com/orprof/orprof/report/trace"
)

// benchTrace is a trace shaped like a session's: n operators on 4 threads with the args a
// session writes (ids, shapes, sequence numbers) and a device kernel for every fourth.
func benchTrace(n int) *trace.Trace {
	t := &trace.Trace{BaseTimeNs: 1_700_000_000_000_000_000, StartNs: 1_700_000_000_000_000_000}
	t.Processes = []trace.Process{{Pid: 1234, Name: "python", Label: "CPU"}, {Pid: 0, Name: "openreg:0", Label: "OPENREG 0"}}
	for th := int64(1); th <= 4; th++ {
		t.Threads = append(t.Threads, trace.Thread{Pid: 1234, Tid: th, Name: "thread " + strconv.FormatInt(th, 10)})
	}
	ts := t.StartNs
	for i := 0; i < n; i++ {
		id := int64(i + 1)
		args := []trace.Arg{trace.Int(trace.ArgExternalID, id), trace.Int(trace.ArgRecordFunctionID, id),
			trace.Raw(trace.ArgInputDims, "[[64, 64], [64, 64]]"),
			trace.Int(trace.ArgFwdThreadID, 0), trace.Int(trace.ArgSequenceNumber, id/3)}
		t.Events = append(t.Events, trace.Event{Ph: 'X', Cat: "cpu_op", Name: "aten::op_" + strconv.Itoa(i%200),
			Pid: 1234, Tid: int64(i%4 + 1), TsNs: ts, DurNs: 3_512 + int64(i%97), Args: args})
		if i%4 == 0 {
			t.Events = append(t.Events, trace.Event{Ph: 'X', Cat: "kernel", Name: "op_kernel_" + strconv.Itoa(i%50),
				Pid: 0, Tid: 7, TsNs: ts + 1_000, DurNs: 2_000, Args: []trace.Arg{trace.Int(trace.ArgExternalID, id),
					trace.Int(trace.ArgDevice, 0), trace.Int(trace.ArgStream, 7), trace.Int(trace.ArgCorrelation, id)}})
		}
		ts += 4_000
	}
	t.EndNs = ts
	return t
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkWriteTrace writes a 200k-operator trace (about 80 MB of JSON) plain, through
// package gz (what `orprof run --trace x.gz` uses) and through the standard library's gzip at
// BestSpeed, the anchor, side by side. MB/s are of the uncompressed JSON; cpu-ms/op is the
// process's CPU time, which shows what the pipelined writer spends on its second core.
func BenchmarkWriteTrace(b *testing.B) {
	t := benchTrace(200_000)
	var size countWriter
	if err := trace.Write(&size, t); err != nil {
		b.Fatal(err)
	}
	run := func(name string, mk func(io.Writer) io.WriteCloser) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size.n)
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
			b.ReportMetric(float64(size.n)/float64(out.n), "ratio")
			b.ReportMetric(float64(cpuNow()-c0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
	run("plain", nil)
	run("gzip-stdlib-BestSpeed", func(w io.Writer) io.WriteCloser {
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		return zw
	})
	run("gz", func(w io.Writer) io.WriteCloser { return gz.NewWriter(w) })
}

// cpuNow is the process's CPU time so far (user + system), in ns.
func cpuNow() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
