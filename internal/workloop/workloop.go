// Package workloop runs the built-in OpenReg workloads one step at a time, for programs that
// profile a loop (orprof run --schedule, --loop, the httpprof tests): the ops of each step are
// those of the workload of the same name in ops.Workloads, without the ProfilerStep ranges,
// which the loop's orprof.Profiler records.
package workloop

import (
	"context"
	"fmt"
	"math"

	"github.com/orprof/orprof/openreg"
	"github.com/orprof/orprof/openreg/ops"
)

// Loop is a workload set up on a runtime, run a step at a time from one goroutine.
type Loop struct {
	// Step runs one iteration and returns when its work is queued (it may wait for the device
	// where the workload reads a value back).
	Step func(ctx context.Context) error
	// Close releases the workload's tensors and waits for the device.
	Close func(ctx context.Context) error
}

// Names lists the workloads New knows.
func Names() []string { return []string{"mlp", "multistream"} }

// New sets up the workload called name on rt, on ctx's current device.
func New(ctx context.Context, rt *openreg.Runtime, name string) (*Loop, error) {
	switch name {
	case "mlp":
		return newMLP(ctx, rt)
	case "multistream":
		return newMultistream(ctx, rt)
	}
	return nil, fmt.Errorf("workload %q: unknown (have mlp, multistream)", name)
}

// The MLP of openreg's "mlp" workload: 64×128 inputs, a 128→256→10 MLP, cross-entropy, SGD.
const (
	mlpBatch, mlpIn, mlpHidden, mlpClasses = 64, 128, 256, 10
	mlpLR                                  = 0.5
)

func linear(ctx context.Context, rt *openreg.Runtime, d int, in, out int64, seed uint64) (w, b *ops.Tensor, err error) {
	k := float32(1 / math.Sqrt(float64(in)))
	if w, err = ops.Uniform(ctx, rt, d, -k, k, seed, out, in); err != nil {
		return nil, nil, err
	}
	if b, err = ops.Uniform(ctx, rt, d, -k, k, seed+1, out); err != nil {
		return nil, nil, err
	}
	return w.SetRequiresGrad(true), b.SetRequiresGrad(true), nil
}

func newMLP(ctx context.Context, rt *openreg.Runtime) (*Loop, error) {
	d := openreg.CurrentDevice(ctx)
	x, err := ops.Uniform(ctx, rt, d, -1, 1, 7, mlpBatch, mlpIn)
	if err != nil {
		return nil, err
	}
	labels := make([]float32, mlpBatch)
	for i := range labels {
		labels[i] = float32(i % mlpClasses)
	}
	y, err := ops.FromSlice(ctx, rt, d, labels, mlpBatch)
	if err != nil {
		return nil, err
	}
	w1, b1, err := linear(ctx, rt, d, mlpIn, mlpHidden, 11)
	if err != nil {
		return nil, err
	}
	w2, b2, err := linear(ctx, rt, d, mlpHidden, mlpClasses, 13)
	if err != nil {
		return nil, err
	}
	opt := &ops.SGD{Params: []*ops.Tensor{w1, b1, w2, b2}, LR: mlpLR}
	step := func(ctx context.Context) error {
		opt.ZeroGrad(ctx)
		h, err := ops.Linear(ctx, x, w1, b1)
		if err != nil {
			return err
		}
		a, err := ops.Relu(ctx, h)
		if err != nil {
			return err
		}
		logits, err := ops.Linear(ctx, a, w2, b2)
		if err != nil {
			return err
		}
		loss, err := ops.CrossEntropy(ctx, logits, y)
		if err != nil {
			return err
		}
		if err := loss.Backward(ctx); err != nil {
			return err
		}
		if err := opt.Step(ctx); err != nil {
			return err
		}
		if _, err := loss.Item(ctx); err != nil {
			return err
		}
		for _, t := range []*ops.Tensor{h, a, logits, loss} {
			t.Release(ctx)
		}
		return nil
	}
	closeFn := func(ctx context.Context) error {
		opt.ZeroGrad(ctx)
		for _, t := range []*ops.Tensor{x, y, w1, b1, w2, b2} {
			t.Release(ctx)
		}
		return rt.DeviceSynchronize(ctx)
	}
	return &Loop{Step: step, Close: closeFn}, nil
}

// newMultistream is openreg's "multistream" workload a step at a time: products on two pool
// streams of device 0 joined by events, and a round trip through device 1.
func newMultistream(ctx context.Context, rt *openreg.Runtime) (*Loop, error) {
	const n = 48
	ctx, err := rt.WithDevice(ctx, 0)
	if err != nil {
		return nil, err
	}
	other := 1 % rt.DeviceCount()
	a, err := ops.Uniform(ctx, rt, 0, -1, 1, 21, n, n)
	if err != nil {
		return nil, err
	}
	b, err := ops.Uniform(ctx, rt, 0, -1, 1, 22, n, n)
	if err != nil {
		return nil, err
	}
	main, err := rt.DefaultStream(0)
	if err != nil {
		return nil, err
	}
	s1, err := rt.StreamFromPool(0, false)
	if err != nil {
		return nil, err
	}
	s2, err := rt.StreamFromPool(0, true)
	if err != nil {
		return nil, err
	}
	step := func(ctx context.Context) error {
		ctx, err := rt.WithDevice(ctx, 0)
		if err != nil {
			return err
		}
		ctxOther, err := rt.WithDevice(ctx, other)
		if err != nil {
			return err
		}
		ctx1, ctx2 := openreg.WithStream(ctx, s1), openreg.WithStream(ctx, s2)
		fork, err := rt.NewEvent(0, false)
		if err != nil {
			return err
		}
		if err := fork.RecordOn(main); err != nil {
			return err
		}
		if err := s1.WaitEvent(fork); err != nil {
			return err
		}
		if err := s2.WaitEvent(fork); err != nil {
			return err
		}
		y1, err := ops.Mm(ctx1, a, b)
		if err != nil {
			return err
		}
		p, err := ops.Mm(ctx2, b, a)
		if err != nil {
			return err
		}
		y2, err := ops.Relu(ctx2, p)
		if err != nil {
			return err
		}
		for _, s := range []*openreg.Stream{s1, s2} {
			join, err := rt.NewEvent(0, true)
			if err != nil {
				return err
			}
			if err := join.RecordOn(s); err != nil {
				return err
			}
			if err := main.WaitEvent(join); err != nil {
				return err
			}
		}
		z, err := ops.Add(ctx, y1, y2)
		if err != nil {
			return err
		}
		a1, err := ops.To(ctxOther, a, other)
		if err != nil {
			return err
		}
		z1, err := ops.Mm(ctxOther, a1, a1)
		if err != nil {
			return err
		}
		back, err := ops.To(ctx, z1, 0)
		if err != nil {
			return err
		}
		all, err := ops.Add(ctx, z, back)
		if err != nil {
			return err
		}
		total, err := ops.Sum(ctx, all)
		if err != nil {
			return err
		}
		if _, err := total.Item(ctx); err != nil {
			return err
		}
		for _, t := range []*ops.Tensor{y1, p, y2, z, a1, z1, back, all, total} {
			if t != a {
				t.Release(ctx)
			}
		}
		return nil
	}
	closeFn := func(ctx context.Context) error {
		a.Release(ctx)
		b.Release(ctx)
		return rt.Synchronize()
	}
	return &Loop{Step: step, Close: closeFn}, nil
}
