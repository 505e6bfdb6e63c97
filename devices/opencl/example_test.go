package opencl_test

import (
	"context"
	"fmt"
	"os"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/devices/opencl"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/kineto"
)

// Profile the OpenCL MLP workload in kernel mode: every kernel timed by its own event and
// attributed to the op that launched it.
func Example() {
	rt, err := opencl.Default() // ORPROF_OPENCL_PLATFORM / ORPROF_OPENCL_DEVICE_TYPE select devices
	if err != nil {
		fmt.Println(err) // "opencl: ... ; install pocl-opencl-icd ocl-icd-libopencl1 ..."
		return
	}
	sess, err := orprof.Start(orprof.Options{Device: "opencl",
		Activities: kineto.NewActivitySet(kineto.CPUOp, kineto.ConcurrentKernel, kineto.GPUMemcpy, kineto.PrivateUse1Runtime)})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := orprof.WithThread(context.Background(), orprof.MainThread())
	if _, err := opencl.TrainMLP(ctx, rt, opencl.DefaultMLP); err != nil {
		fmt.Println(err)
	}
	res, err := sess.Stop()
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = optable.WriteTable(os.Stdout, res.KeyAverages(events.AverageOptions{}), optable.TableOptions{UseDevice: res.Device})
}
