package ops_test

import (
	"context"
	"fmt"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/openreg"
	"github.com/orprof/orprof/openreg/ops"
)

// Ops take a context (carrying the current device and stream) and return tensors whose kernels
// run on the device's stream; ToHost waits for them.
func ExampleMm() {
	rt, _ := openreg.New(openreg.Options{})
	defer rt.Close()
	ctx := context.Background()
	a, _ := ops.FromSlice(ctx, rt, 0, []float32{1, 2, 3, 4}, 2, 2)
	b, _ := ops.FromSlice(ctx, rt, 0, []float32{5, 6, 7, 8}, 2, 2)
	c, _ := ops.Mm(ctx, a, b)
	v, _ := c.ToHost(ctx)
	fmt.Println(c.Shape(), v)
	// Output: [2 2] [19 22 43 50]
}

// Profiling with the registered "openreg" stubs: every op gets device events on the current
// stream, and the time between them becomes the op's device time.
func Example_profiling() {
	rt := openreg.Default()
	sess, err := orprof.Start(orprof.Options{Device: "openreg", RecordShapes: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	r := orprof.RecordFunction(ctx, "matmul")
	a, _ := ops.Uniform(ctx, rt, 0, -1, 1, 42, 128, 128)
	c, _ := ops.Mm(ctx, a, a)
	_, _ = c.ToHost(ctx)
	r.End()
	res, err := sess.Stop()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, avg := range res.KeyAverages(events.AverageOptions{GroupByInputShape: true}) {
		if avg.Key == "aten::mm" && avg.SelfDeviceTimeTotal > 0 {
			fmt.Println(avg.Key, avg.InputShapes, "ran on the device")
		}
	}
	// Output: aten::mm [[128, 128], [128, 128]] ran on the device
}

func ExampleWorkloads() {
	for _, w := range ops.Workloads() {
		fmt.Println(w.Name)
	}
	// Output:
	// mlp
	// multistream
}

// A loop that profiles steps of its own runs a built-in workload a step at a time; the loop's
// orprof.Profiler (or its own ranges) marks the steps.
func ExampleStartWorkload() {
	ctx := context.Background()
	rt, _ := openreg.New(openreg.Options{})
	defer rt.Close()
	s, err := ops.StartWorkload(ctx, rt, "mlp")
	if err != nil {
		fmt.Println(err)
		return
	}
	var losses []float32
	for i := 0; i < 4; i++ {
		loss, err := s.Step(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		losses = append(losses, loss)
	}
	if err := s.Close(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(losses), "steps; the loss went down:", losses[3] < losses[0])
	// Output: 4 steps; the loss went down: true
}
