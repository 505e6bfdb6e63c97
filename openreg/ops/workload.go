package ops

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/openreg"
)

// Workload is a built-in program for `orprof run`: ops on an OpenReg runtime, with the same
// shapes and op sequence every run, a step at a time.
type Workload struct {
	Name        string
	Description string
	// Steps is how many steps Run runs.
	Steps int
	// Start sets the workload up on rt, on ctx's current device, ready to run a step at a time.
	Start func(ctx context.Context, rt *openreg.Runtime) (*Stepper, error)
}

// Stepper is a workload set up on a runtime, run one step at a time from one goroutine.
type Stepper struct {
	step  func(ctx context.Context) (float32, error)
	close func(ctx context.Context) error
}

// Step runs one iteration, recording on ctx's logical thread, and returns the step's value
// (the MLP's loss, multistream's sum), which it reads back from the device. It records no
// ProfilerStep range: Run, or the loop's orprof.Profiler, does.
func (s *Stepper) Step(ctx context.Context) (float32, error) { return s.step(ctx) }

// Close releases the workload's tensors and waits for the device.
func (s *Stepper) Close(ctx context.Context) error { return s.close(ctx) }

// Run executes the workload on rt, each of its Steps steps inside a ProfilerStep#i range
// recorded on ctx's logical thread, and returns when its device work has completed. It takes
// well under a second on a small machine.
func (w Workload) Run(ctx context.Context, rt *openreg.Runtime) error {
	_, err := runSteps(ctx, rt, w.Name, w.Start, w.Steps)
	return err
}

// runSteps starts a workload, runs n steps of it inside ProfilerStep ranges and closes it,
// returning every step's value.
func runSteps(ctx context.Context, rt *openreg.Runtime, name string, start func(context.Context, *openreg.Runtime) (*Stepper, error), n int) ([]float32, error) {
	s, err := start(ctx, rt)
	if err != nil {
		return nil, err
	}
	values := make([]float32, 0, n)
	for i := 0; i < n; i++ {
		r := orprof.RecordFunction(ctx, fmt.Sprintf("ProfilerStep#%d", i))
		v, err := s.Step(ctx)
		r.End()
		if err != nil {
			return values, fmt.Errorf("%s: step %d: %w", name, i, err)
		}
		values = append(values, v)
	}
	return values, s.Close(ctx)
}

// Workloads lists the built-in workloads: "mlp" and "multistream".
func Workloads() []Workload {
	return []Workload{
		{Name: "mlp", Description: fmt.Sprintf("a %d→%d→%d MLP trained with cross-entropy and SGD for %d steps (ProfilerStep#0..%d) on the current device",
			mlpDefault.in, mlpDefault.hidden, mlpDefault.classes, mlpDefault.iters, mlpDefault.iters-1),
			Steps: mlpDefault.iters,
			Start: func(ctx context.Context, rt *openreg.Runtime) (*Stepper, error) { return startMLP(ctx, rt, mlpDefault) }},
		{Name: "multistream", Description: "matrix products on two pool streams of device 0 joined by events, and on device 1 with copies both ways, 3 steps",
			Steps: 3, Start: startMultistream},
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

// StartWorkload sets the built-in workload called name up on rt, on ctx's current device, for
// a loop that runs it a step at a time (orprof run --loop and --schedule, httpprof's tests).
func StartWorkload(ctx context.Context, rt *openreg.Runtime, name string) (*Stepper, error) {
	w, ok := LookupWorkload(name)
	if !ok {
		var names []string
		for _, w := range Workloads() {
			names = append(names, w.Name)
		}
		return nil, fmt.Errorf("workload %q: unknown (have %s)", name, strings.Join(names, ", "))
	}
	return w.Start(ctx, rt)
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
	return runSteps(ctx, rt, "mlp", func(ctx context.Context, rt *openreg.Runtime) (*Stepper, error) {
		return startMLP(ctx, rt, c)
	}, c.iters)
}

// startMLP sets up the MLP, its inputs and labels on ctx's current device; a step is one SGD
// step on the whole batch.
func startMLP(ctx context.Context, rt *openreg.Runtime, c mlpConfig) (*Stepper, error) {
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
	step := func(ctx context.Context) (float32, error) {
		opt.ZeroGrad(ctx)
		h, err := Linear(ctx, x, w1, b1)
		if err != nil {
			return 0, err
		}
		a, err := Relu(ctx, h)
		if err != nil {
			return 0, err
		}
		logits, err := Linear(ctx, a, w2, b2)
		if err != nil {
			return 0, err
		}
		loss, err := CrossEntropy(ctx, logits, y)
		if err != nil {
			return 0, err
		}
		if err := loss.Backward(ctx); err != nil {
			return 0, err
		}
		if err := opt.Step(ctx); err != nil {
			return 0, err
		}
		v, err := loss.Item(ctx)
		if err != nil {
			return 0, err
		}
		for _, t := range []*Tensor{h, a, logits, loss} {
			t.Release(ctx)
		}
		return v, nil
	}
	closeFn := func(ctx context.Context) error {
		opt.ZeroGrad(ctx)
		for _, t := range []*Tensor{x, y, w1, b1, w2, b2} {
			t.Release(ctx)
		}
		return rt.DeviceSynchronize(ctx)
	}
	return &Stepper{step: step, close: closeFn}, nil
}

// multistream returns every step's sum.
func multistream(ctx context.Context, rt *openreg.Runtime, steps int) ([]float32, error) {
	return runSteps(ctx, rt, "multistream", startMultistream, steps)
}

// startMultistream sets up multistream's inputs and streams on device 0; a step forks work
// from device 0's default stream onto two pool streams (one of each priority), joins it back
// with events, and round-trips a product through device 1 (or device 0 again on a one-device
// runtime).
func startMultistream(ctx context.Context, rt *openreg.Runtime) (*Stepper, error) {
	const n = 48
	ctx, err := rt.WithDevice(ctx, 0)
	if err != nil {
		return nil, err
	}
	other := 1 % rt.DeviceCount()
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
	step := func(ctx context.Context) (float32, error) {
		ctx, err := rt.WithDevice(ctx, 0)
		if err != nil {
			return 0, err
		}
		ctxOther, err := rt.WithDevice(ctx, other)
		if err != nil {
			return 0, err
		}
		ctx1, ctx2 := openreg.WithStream(ctx, s1), openreg.WithStream(ctx, s2)
		fork, err := rt.NewEvent(0, false)
		if err != nil {
			return 0, err
		}
		if err := fork.RecordOn(main); err != nil {
			return 0, err
		}
		if err := s1.WaitEvent(fork); err != nil {
			return 0, err
		}
		if err := s2.WaitEvent(fork); err != nil {
			return 0, err
		}
		y1, err := Mm(ctx1, a, b)
		if err != nil {
			return 0, err
		}
		p, err := Mm(ctx2, b, a)
		if err != nil {
			return 0, err
		}
		y2, err := Relu(ctx2, p)
		if err != nil {
			return 0, err
		}
		for _, s := range []*openreg.Stream{s1, s2} {
			join, err := rt.NewEvent(0, true)
			if err != nil {
				return 0, err
			}
			if err := join.RecordOn(s); err != nil {
				return 0, err
			}
			if err := main.WaitEvent(join); err != nil {
				return 0, err
			}
		}
		z, err := Add(ctx, y1, y2)
		if err != nil {
			return 0, err
		}
		a1, err := To(ctxOther, a, other)
		if err != nil {
			return 0, err
		}
		z1, err := Mm(ctxOther, a1, a1)
		if err != nil {
			return 0, err
		}
		back, err := To(ctx, z1, 0)
		if err != nil {
			return 0, err
		}
		all, err := Add(ctx, z, back)
		if err != nil {
			return 0, err
		}
		total, err := Sum(ctx, all)
		if err != nil {
			return 0, err
		}
		v, err := total.Item(ctx)
		if err != nil {
			return 0, err
		}
		for _, t := range []*Tensor{y1, p, y2, z, a1, z1, back, all, total} {
			if t != a {
				t.Release(ctx)
			}
		}
		return v, nil
	}
	closeFn := func(ctx context.Context) error {
		a.Release(ctx)
		b.Release(ctx)
		return rt.Synchronize()
	}
	return &Stepper{step: step, close: closeFn}, nil
}
