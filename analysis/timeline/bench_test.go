package timeline

import (
	"github.com/orprof/orprof/trace"
	"os"
	"testing"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace/tracefile"
)

// benchTrace is the uncompressed MTIA trace the performance target names
// (ORPROF_BENCH_TRACE, else skipped): zcat testdata/kineto/mtia_rank0.json.gz > FILE.
func benchTrace(b *testing.B) string {
	p := os.Getenv("ORPROF_BENCH_TRACE")
	if p == "" {
		b.Skip("set ORPROF_BENCH_TRACE to the uncompressed mtia_rank0 trace")
	}
	return p
}

// BenchmarkTimelineVsTable reads the trace for every timeline analysis, and for the table
// (the anchor), alternately.
func BenchmarkTimelineVsTable(b *testing.B) {
	p := benchTrace(b)
	st, _ := os.Stat(p)
	b.Run("table", func(b *testing.B) {
		b.SetBytes(st.Size())
		for b.Loop() {
			if _, err := tracefile.OpenAverages(p, tracefile.Options{}, events.AverageOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("timeline", func(b *testing.B) {
		b.SetBytes(st.Size())
		for b.Loop() {
			if _, _, err := OpenTrace(p, DefaultOptions(), 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAnalyzer is the analyses alone on the events of the trace: Add of each, Finish.
func BenchmarkAnalyzer(b *testing.B) {
	p := benchTrace(b)
	col := eventsOf{c: NewConsumer(DefaultOptions(), nil)}
	if _, err := tracefile.OpenConsumers(p, tracefile.Options{Consumers: []tracefile.Consumer{&col}}); err != nil {
		b.Fatal(err)
	}
	evs := col.evs
	b.ResetTimer()
	for b.Loop() {
		a := NewAnalyzer(DefaultOptions())
		pt := a.Part()
		for i := range evs {
			pt.Add(&evs[i])
		}
		a.Finish(RankInfo{})
	}
}

// eventsOf keeps the events a Consumer hands to the analyses.
type eventsOf struct {
	c   *Consumer
	evs []Event
}

func (o *eventsOf) Needs() tracefile.Needs     { return o.c.Needs() }
func (o *eventsOf) Begin(info *tracefile.Info) { o.c.Begin(info) }
func (o *eventsOf) Finish()                    {}

func (o *eventsOf) Event(ev *tracefile.Event) {
	o.c.Event(ev)
	if ev.Kind.Host() || ev.Kind == tracefile.KindRuntime || ev.Kind.Device() {
		o.evs = append(o.evs, o.c.e)
	}
}

// rankSummaries are n one-rank summaries of a job with c collectives of group "0" per rank,
// each rank arriving at a different offset.
func rankSummaries(n, c int) []*Summary {
	out := make([]*Summary, n)
	for r := range out {
		var evs []Event
		for k := range c {
			t := int64(k)*1000 + int64(r*7%13)
			id := &CommID{Op: "allreduce", Group: "0", Seq: int64(k), HasSeq: true, Peer: -1}
			evs = append(evs, Event{Kind: Launch, Correlation: int64(k + 1), StartNs: t*us - 5*us, EndNs: t*us - 4*us},
				Event{Kind: Device, Name: "ncclDevKernel_AllReduce", StartNs: t * us, EndNs: t*us + 100*us, Stream: 7,
					Correlation: int64(k + 1), Comm: id})
		}
		a := NewAnalyzer(DefaultOptions())
		p := a.Part()
		for i := range evs {
			p.Add(&evs[i])
		}
		out[r] = a.Finish(RankInfo{Rank: trace.Rank{Number: int64(r), Named: true}})
	}
	return out
}

// BenchmarkMergeRanks merges 256 ranks of 200 collectives each: MergeAll derives the
// cross-rank figures once, Merge one rank at a time derives them 255 times.
func BenchmarkMergeRanks(b *testing.B) {
	for _, mode := range []string{"MergeAll", "Merge-one-at-a-time"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				sums := rankSummaries(256, 200)
				b.StartTimer()
				s := sums[0]
				if mode == "MergeAll" {
					if err := s.MergeAll(sums[1:]...); err != nil {
						b.Fatal(err)
					}
					continue
				}
				for _, t := range sums[1:] {
					if err := s.Merge(t); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
