package ops

import (
	"context"

	"github.com/orprof/orprof"
)

// SGD is plain stochastic gradient descent over Params (torch.optim.SGD without momentum).
type SGD struct {
	Params []*Tensor
	LR     float32
}

// Step updates every parameter that has a gradient, p −= LR·grad, under the user range
// "Optimizer.step#SGD.step", one aten::add_ per parameter with grad disabled. It queues device
// work and does not wait for it.
func (o *SGD) Step(ctx context.Context) error {
	r := orprof.RecordFunction(ctx, "Optimizer.step#SGD.step")
	defer r.End()
	ctx = NoGrad(ctx)
	for _, p := range o.Params {
		if p.grad == nil {
			continue
		}
		if err := AddInPlace(ctx, p, p.grad, -o.LR); err != nil {
			return err
		}
	}
	return nil
}

// ZeroGrad drops every parameter's gradient (zero_grad(set_to_none=True)) under the user range
// "Optimizer.zero_grad#SGD.zero_grad", releasing the gradient buffers.
func (o *SGD) ZeroGrad(ctx context.Context) {
	r := orprof.RecordFunction(ctx, "Optimizer.zero_grad#SGD.zero_grad")
	defer r.End()
	for _, p := range o.Params {
		if p.grad != nil {
			p.grad.Release(ctx)
			p.grad = nil
		}
	}
}
