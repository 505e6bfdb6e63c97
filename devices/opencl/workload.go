package opencl

import (
	"context"
	"fmt"
	"math"

	"github.com/orprof/orprof"
)

// Workload is a built-in program for `orprof run --device opencl`.
type Workload struct {
	Name        string
	Description string
	// Run executes the workload on the default runtime's current device of ctx, recording on
	// ctx's logical thread, and returns when its device work has completed.
	Run func(ctx context.Context) error
	// Prepare sets up what Run needs — the default runtime and its kernels, compiled for
	// ctx's current device (pocl takes 50–200 ms) — so that a session started after it records
	// from the workload's first op, not an empty stretch of setup; Run prepares what was not.
	Prepare func(ctx context.Context) error
}

// Workloads lists the built-in workloads: "mlp".
func Workloads() []Workload {
	c := DefaultMLP
	return []Workload{{Name: "mlp",
		Description: fmt.Sprintf("a %d→%d→%d MLP trained with cross-entropy and SGD for %d steps (ProfilerStep#0..%d), OpenCL C kernels",
			c.In, c.Hidden, c.Classes, c.Steps, c.Steps-1),
		Run: func(ctx context.Context) error {
			rt, err := Default()
			if err != nil {
				return err
			}
			_, err = TrainMLP(ctx, rt, DefaultMLP)
			return err
		},
		Prepare: func(ctx context.Context) error {
			rt, err := Default()
			if err != nil {
				return err
			}
			dev, err := rt.Device(CurrentDevice(ctx))
			if err != nil {
				return err
			}
			_, err = rt.programFor(dev)
			return err
		}}}
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

// MLPConfig sizes the MLP workload: Batch inputs of In features, a hidden layer of Hidden
// units with ReLU, Classes outputs, trained for Steps steps of SGD with learning rate LR.
type MLPConfig struct {
	Batch, In, Hidden, Classes int64
	Steps                      int
	LR                         float32
}

// DefaultMLP has the shapes of OpenReg's mlp workload: 64×128 → 256 → 10, 4 steps, LR 0.5.
var DefaultMLP = MLPConfig{Batch: 64, In: 128, Hidden: 256, Classes: 10, Steps: 4, LR: 0.5}

// Seeds of the MLP's initial values (uniformValues): the input, then each layer's weight and
// bias (seed, seed+1), as nn.Linear initialises them, uniform in ±1/√in.
const (
	seedInput  = 7
	seedLayer1 = 11
	seedLayer2 = 13
)

// MLPResult is what TrainMLP computed, copied to the host.
type MLPResult struct {
	Losses         []float32
	W1, B1, W2, B2 []float32
}

// mlp is the model's state during training.
type mlp struct {
	x, y           *Tensor
	w1, b1, w2, b2 *Tensor
	lr             float32
}

func (m *mlp) params() []*Tensor { return []*Tensor{m.w1, m.b1, m.w2, m.b2} }

// labelsFor are the MLP's class labels: i mod classes.
func labelsFor(c MLPConfig) []float32 {
	labels := make([]float32, c.Batch)
	for i := range labels {
		labels[i] = float32(int64(i) % c.Classes)
	}
	return labels
}

func linearParams(ctx context.Context, rt *Runtime, d int, in, out int64, seed uint64) (w, b *Tensor, err error) {
	k := float32(1 / math.Sqrt(float64(in)))
	if w, err = Uniform(ctx, rt, d, -k, k, seed, out, in); err != nil {
		return nil, nil, err
	}
	if b, err = Uniform(ctx, rt, d, -k, k, seed+1, out); err != nil {
		w.Release(ctx)
		return nil, nil, err
	}
	return w.SetRequiresGrad(true), b.SetRequiresGrad(true), nil
}

// TrainMLP trains the MLP on ctx's current device of rt: each step is the user range
// ProfilerStep#i around SGD.zero_grad, the forward pass (aten::linear → aten::t, aten::addmm;
// aten::relu; aten::linear; aten::cross_entropy_loss), the backward pass recorded as PyTorch's
// autograd engine records it (autograd::engine::evaluate_function: NllLossBackward0, …,
// AddmmBackward0, TBackward0, ReluBackward0, AccumulateGrad) and SGD.step (aten::add_), then
// aten::item of the loss. It returns every step's loss and the trained parameters.
func TrainMLP(ctx context.Context, rt *Runtime, c MLPConfig) (MLPResult, error) {
	var res MLPResult
	d := CurrentDevice(ctx)
	m := &mlp{lr: c.LR}
	var err error
	release := func() {
		for _, t := range []*Tensor{m.x, m.y, m.w1, m.b1, m.w2, m.b2} {
			if t != nil {
				t.Release(ctx)
				if t.grad != nil {
					t.grad.Release(ctx)
				}
			}
		}
	}
	defer release()
	dev, err := rt.Device(d)
	if err != nil {
		return res, err
	}
	if _, err := rt.programFor(dev); err != nil { // compile the kernels before any op runs
		return res, err
	}
	if m.x, err = Uniform(ctx, rt, d, -1, 1, seedInput, c.Batch, c.In); err != nil {
		return res, err
	}
	if m.y, err = FromSlice(ctx, rt, d, labelsFor(c), c.Batch); err != nil {
		return res, err
	}
	if m.w1, m.b1, err = linearParams(ctx, rt, d, c.In, c.Hidden, seedLayer1); err != nil {
		return res, err
	}
	if m.w2, m.b2, err = linearParams(ctx, rt, d, c.Hidden, c.Classes, seedLayer2); err != nil {
		return res, err
	}
	for i := 0; i < c.Steps; i++ {
		loss, err := m.step(ctx, i)
		if err != nil {
			return res, fmt.Errorf("mlp: step %d: %w", i, err)
		}
		res.Losses = append(res.Losses, loss)
	}
	m.zeroGrad(ctx)
	for _, p := range []struct {
		t   *Tensor
		dst *[]float32
	}{{m.w1, &res.W1}, {m.b1, &res.B1}, {m.w2, &res.W2}, {m.b2, &res.B2}} {
		if *p.dst, err = p.t.ToHost(ctx); err != nil {
			return res, err
		}
	}
	return res, rt.Synchronize()
}

// zeroGrad drops every gradient (zero_grad(set_to_none=True)) under
// "Optimizer.zero_grad#SGD.zero_grad".
func (m *mlp) zeroGrad(ctx context.Context) {
	r := orprof.RecordFunction(ctx, "Optimizer.zero_grad#SGD.zero_grad")
	defer r.End()
	for _, p := range m.params() {
		if p.grad != nil {
			p.grad.Release(ctx)
			p.grad = nil
		}
	}
}

// sgdStep is p −= LR·grad for every parameter under "Optimizer.step#SGD.step".
func (m *mlp) sgdStep(ctx context.Context) error {
	r := orprof.RecordFunction(ctx, "Optimizer.step#SGD.step")
	defer r.End()
	for _, p := range m.params() {
		if p.grad == nil {
			continue
		}
		if err := AddInPlace(ctx, p, p.grad, -m.lr); err != nil {
			return err
		}
	}
	return nil
}

// accumulateGrad is AccumulateGrad for a parameter whose gradient is None: it keeps a detached
// reference to g.
func accumulateGrad(ctx context.Context, p, g *Tensor) {
	o, i := beginNode(ctx, "torch::autograd::AccumulateGrad", gradOp{}, g)
	r := beginOp(ctx, "aten::detach", g)
	r2 := beginOp(ctx, "detach", g)
	if p.grad != nil {
		p.grad.Release(ctx)
	}
	p.grad = share(g)
	r2.End()
	r.End()
	i.End()
	o.End()
}

// step is one training step; it returns the loss.
func (m *mlp) step(ctx context.Context, i int) (float32, error) {
	r := orprof.RecordFunction(ctx, fmt.Sprintf("ProfilerStep#%d", i))
	defer r.End()
	m.zeroGrad(ctx)
	var live []*Tensor
	keep := func(ts ...*Tensor) {
		for _, t := range ts {
			if t != nil {
				live = append(live, t)
			}
		}
	}
	defer func() {
		for _, t := range live {
			t.Release(ctx)
		}
	}()

	// Forward.
	l1, err := Linear(ctx, m.x, m.w1, m.b1)
	if err != nil {
		return 0, err
	}
	keep(l1.out, l1.wt)
	l1.out.requiresGrad = l1.mmGrad.on
	gRelu := gradFor(ctx, l1.out)
	a, err := Relu(ctx, l1.out, gRelu)
	if err != nil {
		return 0, err
	}
	keep(a)
	a.requiresGrad = gRelu.on
	l2, err := Linear(ctx, a, m.w2, m.b2)
	if err != nil {
		return 0, err
	}
	keep(l2.out, l2.wt)
	l2.out.requiresGrad = l2.mmGrad.on
	ce := beginOp(ctx, "aten::cross_entropy_loss", l2.out, m.y, nil, nil, nil, nil)
	gLS := gradFor(ctx, l2.out)
	lp, err := LogSoftmax(ctx, l2.out, gLS)
	if err != nil {
		ce.End()
		return 0, err
	}
	keep(lp)
	lp.requiresGrad = gLS.on
	gNLL := gradFor(ctx, lp)
	loss, err := NllLoss(ctx, lp, m.y, gNLL)
	ce.End()
	if err != nil {
		return 0, err
	}
	keep(loss)

	// Backward, in the engine's order: highest sequence number first, AccumulateGrad as soon
	// as it is ready.
	g0, err := onesLike(ctx, loss)
	if err != nil {
		return 0, err
	}
	keep(g0)
	node := func(name string, g gradOp, grad *Tensor, f func() error) error {
		o, in := beginNode(ctx, name, g, grad)
		defer o.End()
		defer in.End()
		return f()
	}
	var gLp, gLogits, gA, gWt2, gB2, gW2, gH, gWt1, gB1, gW1 *Tensor
	defer func() { keep(gLp, gLogits, gA, gWt2, gB2, gW2, gH, gWt1, gB1, gW1) }() // runs before the release
	steps := []func() error{
		func() error {
			return node("NllLossBackward0", gNLL, g0, func() (err error) { gLp, err = nllLossBackward(ctx, g0, lp, m.y); return })
		},
		func() error {
			return node("LogSoftmaxBackward0", gLS, gLp, func() (err error) { gLogits, err = logSoftmaxBackward(ctx, gLp, lp); return })
		},
		func() error {
			return node("AddmmBackward0", l2.mmGrad, gLogits, func() (err error) {
				gA, gWt2, gB2, err = addmmBackward(ctx, gLogits, a, l2.wt, true)
				return
			})
		},
		func() error { accumulateGrad(ctx, m.b2, gB2); return nil },
		func() error {
			return node("TBackward0", l2.tGrad, gWt2, func() (err error) { gW2, err = T(ctx, gWt2, gradOp{}); return })
		},
		func() error { accumulateGrad(ctx, m.w2, gW2); return nil },
		func() error {
			return node("ReluBackward0", gRelu, gA, func() (err error) { gH, err = thresholdBackward(ctx, gA, a); return })
		},
		func() error {
			return node("AddmmBackward0", l1.mmGrad, gH, func() (err error) {
				_, gWt1, gB1, err = addmmBackward(ctx, gH, m.x, l1.wt, false)
				return
			})
		},
		func() error { accumulateGrad(ctx, m.b1, gB1); return nil },
		func() error {
			return node("TBackward0", l1.tGrad, gWt1, func() (err error) { gW1, err = T(ctx, gWt1, gradOp{}); return })
		},
		func() error { accumulateGrad(ctx, m.w1, gW1); return nil },
	}
	for _, f := range steps {
		if err := f(); err != nil {
			return 0, err
		}
	}
	if err := m.sgdStep(ctx); err != nil {
		return 0, err
	}
	return loss.Item(ctx)
}

// addmmBackward is AddmmBackward0 for bias + a·wt where wt is a transposed weight: the gradient of
// a (g·wtᵀ, when needA), of wt ((gᵀ·a)ᵀ, in wt's transposed layout as ATen computes it) and of
// the bias (g summed over rows, viewed as [n]).
func addmmBackward(ctx context.Context, g, a, wt *Tensor, needA bool) (gA, gWt, gB *Tensor, err error) {
	fail := func(e error) (*Tensor, *Tensor, *Tensor, error) {
		for _, t := range []*Tensor{gA, gWt, gB} {
			t.Release(ctx)
		}
		return nil, nil, nil, e
	}
	if needA {
		t, err := T(ctx, wt, gradOp{})
		if err != nil {
			return fail(err)
		}
		gA, err = Mm(ctx, g, t)
		t.Release(ctx)
		if err != nil {
			return fail(err)
		}
	}
	t, err := T(ctx, g, gradOp{})
	if err != nil {
		return fail(err)
	}
	p, err := Mm(ctx, t, a)
	t.Release(ctx)
	if err != nil {
		return fail(err)
	}
	gWt, err = T(ctx, p, gradOp{})
	p.Release(ctx)
	if err != nil {
		return fail(err)
	}
	s, err := sumDim0(ctx, g)
	if err != nil {
		return fail(err)
	}
	gB, err = view(ctx, s, g.shape[1])
	s.Release(ctx)
	if err != nil {
		return fail(err)
	}
	return gA, gWt, gB, nil
}
