package orprof_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/events"
)

// A training loop under torch.profiler's schedule: skip nothing, wait one step, warm up one,
// record two, twice. Each finished cycle goes to OnTraceReady; TensorBoardTraceHandler(dir,
// …) would write it as <worker>.<ms>.pt.trace.json instead.
func ExampleProfiler() {
	sched := orprof.Schedule{Wait: 1, Warmup: 1, Active: 2, Repeat: 2}
	p, err := orprof.NewProfiler(orprof.ProfilerOptions{
		Schedule: &sched,
		OnTraceReady: func(res *orprof.Result) error {
			var rows []string
			for _, row := range res.KeyAverages(events.AverageOptions{}) {
				rows = append(rows, fmt.Sprintf("%s×%d", row.Key, row.Count))
			}
			fmt.Println(strings.Join(rows, " "))
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	ctx := orprof.WithThread(context.Background(), orprof.NewThread())
	if err := p.Start(ctx); err != nil {
		panic(err)
	}
	for step := 0; step < sched.Steps(); step++ {
		orprof.Begin(ctx, orprof.Op{Name: "aten::mm"}).End() // the step's work
		if err := p.Step(ctx); err != nil {
			panic(err)
		}
	}
	if err := p.Stop(); err != nil {
		panic(err)
	}
	// Output:
	// ProfilerStep*×2 aten::mm×2
	// ProfilerStep*×2 aten::mm×2
}

// The ready-made handler: each cycle becomes a trace file TensorBoard and Perfetto open.
func ExampleTensorBoardTraceHandler() {
	dir, _ := os.MkdirTemp("", "traces")
	defer os.RemoveAll(dir)
	p, _ := orprof.NewProfiler(orprof.ProfilerOptions{
		Schedule:     &orprof.Schedule{Active: 1, Repeat: 2},
		OnTraceReady: orprof.TensorBoardTraceHandler(dir, orprof.TraceHandlerOptions{Worker: "rank0", Gzip: true}),
	})
	ctx := context.Background()
	p.Start(ctx)
	for i := 0; i < 2; i++ {
		orprof.Begin(ctx, orprof.Op{Name: "aten::mm"}).End()
		p.Step(ctx)
	}
	p.Stop()
	files, _ := filepath.Glob(filepath.Join(dir, "rank0.*.pt.trace.json.gz"))
	fmt.Println(len(files), "files")
	// Output: 2 files
}
