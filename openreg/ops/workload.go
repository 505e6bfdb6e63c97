package ops

import (
	"context"
	"fmt"
	"math"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/openreg"
)

// Workload is a built-in program for `orprof run`: ops on an OpenReg runtime, with the same
// shapes and op sequence every run.
type Workload struct {
	Name        string
	Description string
	// Run executes the workload on rt, recording on ctx's logical thread, and returns when its
	// device work has completed. It takes well under a second on a small machine.
	Run func(ctx context.Context, rt *openreg.Runtime) error
}

// Workloads lists the built-in workloads: "mlp" and "multistream".
func Workloads() []Workload {
	return []Workload{
		{Name: "mlp", Description: fmt.Sprintf("a %d→%d→%d MLP trained with cross-entropy and SGD for %d steps (ProfilerStep#0..%d) on the current device",
			mlpDefault.in, mlpDefault.hidden, mlpDefault.classes, mlpDefault.iters, mlpDefault.iters-1),
			Run: func(ctx context.Context, rt *openreg.Runtime) error {
				_, err := runMLP(ctx, rt, mlpDefault)
				return err
			}},
		{Name: "multistream", Description: "matrix products on two pool streams of device 0 joined by events, and on device 1 with copies both ways, 3 steps",
			Run: runMultistream},
	}
}

// LookupWorkload returns the built-in workload called name.
func LookupWorkload(name string) (Workload, bool) {
	for _, w := range Workloads() {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

type mlpConfig struct {
	batch, in, hidden, classes int64
	iters                      int
	lr                         float32
}

var mlpDefault = mlpConfig{batch: 64, in: 128, hidden: 256, classes: 10, iters: 4, lr: 0.5}

// linearParams makes a Linear layer's weight [out, in] and bias [out], uniform in ±1/√in as
// torch.nn.Linear initialises them.
func linearParams(ctx context.Context, rt *openreg.Runtime, d int, in, out int64, seed uint64) (w, b *Tensor, err error) {
	k := float32(1 / math.Sqrt(float64(in)))
	if w, err = Uniform(ctx, rt, d, -k, k, seed, out, in); err != nil {
		return nil, nil, err
	}
	if b, err = Uniform(ctx, rt, d, -k, k, seed+1, out); err != nil {
		return nil, nil, err
	}
	return w.SetRequiresGrad(true), b.SetRequiresGrad(true), nil
}

// runMLP trains the MLP and returns the loss of every step.
func runMLP(ctx context.Context, rt *openreg.Runtime, c mlpConfig) ([]float32, error) {
	d := openreg.CurrentDevice(ctx)
	x, err := Uniform(ctx, rt, d, -1, 1, 7, c.batch, c.in)
	if err != nil {
		return nil, err
	}
	labels := make([]float32, c.batch)
	for i := range labels {
		labels[i] = float32(int64(i) % c.classes)
	}
	y, err := FromSlice(ctx, rt, d, labels, c.batch)
	if err != nil {
		return nil, err
	}
	w1, b1, err := linearParams(ctx, rt, d, c.in, c.hidden, 11)
	if err != nil {
		return nil, err
	}
	w2, b2, err := linearParams(ctx, rt, d, c.hidden, c.classes, 13)
	if err != nil {
		return nil, err
	}
	opt := &SGD{Params: []*Tensor{w1, b1, w2, b2}, LR: c.lr}
	losses := make([]float32, 0, c.iters)
	step := func(i int) error {
		r := orprof.RecordFunction(ctx, fmt.Sprintf("ProfilerStep#%d", i))
		defer r.End()
		opt.ZeroGrad(ctx)
		h, err := Linear(ctx, x, w1, b1)
		if err != nil {
			return err
		}
		a, err := Relu(ctx, h)
		if err != nil {
			return err
		}
		logits, err := Linear(ctx, a, w2, b2)
		if err != nil {
			return err
		}
		loss, err := CrossEntropy(ctx, logits, y)
		if err != nil {
			return err
		}
		if err := loss.Backward(ctx); err != nil {
			return err
		}
		if err := opt.Step(ctx); err != nil {
			return err
		}
		v, err := loss.Item(ctx)
		if err != nil {
			return err
		}
		losses = append(losses, v)
		for _, t := range []*Tensor{h, a, logits, loss} {
			t.Release(ctx)
		}
		return nil
	}
	for i := 0; i < c.iters; i++ {
		if err := step(i); err != nil {
			return losses, fmt.Errorf("mlp: step %d: %w", i, err)
		}
	}
	opt.ZeroGrad(ctx)
	for _, t := range []*Tensor{x, y, w1, b1, w2, b2} {
		t.Release(ctx)
	}
	return losses, rt.DeviceSynchronize(ctx)
}

// runMultistream forks work from device 0's default stream onto two pool streams (one of each
// priority), joins it back with events, and round-trips a product through device 1 (or device
// 0 again on a one-device runtime).
func runMultistream(ctx context.Context, rt *openreg.Runtime) error {
	_, err := multistream(ctx, rt, 3)
	return err
}

// multistream returns every step's sum.
func multistream(ctx context.Context, rt *openreg.Runtime, steps int) ([]float32, error) {
	const n = 48
	ctx, err := rt.WithDevice(ctx, 0)
	if err != nil {
		return nil, err
	}
	other := 1 % rt.DeviceCount()
	ctxOther, err := rt.WithDevice(ctx, other)
	if err != nil {
		return nil, err
	}
	a, err := Uniform(ctx, rt, 0, -1, 1, 21, n, n)
	if err != nil {
		return nil, err
	}
	b, err := Uniform(ctx, rt, 0, -1, 1, 22, n, n)
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
	ctx1, ctx2 := openreg.WithStream(ctx, s1), openreg.WithStream(ctx, s2)
	var sums []float32
	step := func(i int) error {
		r := orprof.RecordFunction(ctx, fmt.Sprintf("ProfilerStep#%d", i))
		defer r.End()
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
		y1, err := Mm(ctx1, a, b)
		if err != nil {
			return err
		}
		p, err := Mm(ctx2, b, a)
		if err != nil {
			return err
		}
		y2, err := Relu(ctx2, p)
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
		z, err := Add(ctx, y1, y2)
		if err != nil {
			return err
		}
		a1, err := To(ctxOther, a, other)
		if err != nil {
			return err
		}
		z1, err := Mm(ctxOther, a1, a1)
		if err != nil {
			return err
		}
		back, err := To(ctx, z1, 0)
		if err != nil {
			return err
		}
		all, err := Add(ctx, z, back)
		if err != nil {
			return err
		}
		total, err := Sum(ctx, all)
		if err != nil {
			return err
		}
		v, err := total.Item(ctx)
		if err != nil {
			return err
		}
		sums = append(sums, v)
		for _, t := range []*Tensor{y1, p, y2, z, a1, z1, back, all, total} {
			if t != a {
				t.Release(ctx)
			}
		}
		return nil
	}
	for i := 0; i < steps; i++ {
		if err := step(i); err != nil {
			return sums, fmt.Errorf("multistream: step %d: %w", i, err)
		}
	}
	a.Release(ctx)
	b.Release(ctx)
	return sums, rt.Synchronize()
}
