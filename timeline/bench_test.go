package timeline

import (
	"os"
	"testing"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/report/tracefile"
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

func (o *eventsOf) Event(ev *tracefile.Event) {
	o.c.Event(ev)
	if ev.Kind.Host() || ev.Kind == tracefile.KindRuntime || ev.Kind.Device() {
		o.evs = append(o.evs, o.c.e)
	}
}
