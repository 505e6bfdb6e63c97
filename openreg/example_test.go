package openreg_test

import (
	"context"
	"fmt"
	"time"

	"github.com/orprof/orprof/devices"
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
