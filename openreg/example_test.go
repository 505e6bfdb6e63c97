package openreg_test

import (
	"context"
	"fmt"
	"time"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/openreg"
)

// A stream runs kernels in order on its worker; events recorded around them measure the time
// the worker spent. A fake clock, advanced by the kernel, makes the time exact.
func ExampleRuntime() {
	clock := devices.NewFakeClock(0)
	rt, _ := openreg.New(openreg.Options{Devices: 2, Clock: clock})
	defer rt.Close()
	ctx := context.Background()

	s, _ := rt.StreamFromPool(0, false)
	start, _ := rt.NewEvent(0, true)
	end, _ := rt.NewEvent(0, true)
	_ = start.RecordOn(s)
	var sum int
	_ = s.LaunchKernel(ctx, "sum_kernel", openreg.KernelWork{Flops: 100}, func() {
		for i := 1; i <= 100; i++ {
			sum += i
		}
		clock.Advance(5 * time.Millisecond)
	})
	_ = end.RecordOn(s)
	_ = end.Synchronize()

	ms, _ := openreg.ElapsedTime(start, end)
	fmt.Println(sum, ms, "ms")
	// Output: 5050 5 ms
}

// Ops take a context (carrying the current device and stream) and return tensors whose kernels
// run on the device's stream; ToHost waits for them.
func ExampleMm() {
	rt, _ := openreg.New(openreg.Options{})
	defer rt.Close()
	ctx := context.Background()
	a, _ := openreg.FromSlice(ctx, rt, 0, []float32{1, 2, 3, 4}, 2, 2)
	b, _ := openreg.FromSlice(ctx, rt, 0, []float32{5, 6, 7, 8}, 2, 2)
	c, _ := openreg.Mm(ctx, a, b)
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
	a, _ := openreg.Uniform(ctx, rt, 0, -1, 1, 42, 128, 128)
	c, _ := openreg.Mm(ctx, a, a)
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
	for _, w := range openreg.Workloads() {
		fmt.Println(w.Name)
	}
	// Output:
	// mlp
	// multistream
}
