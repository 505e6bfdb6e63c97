package opencl

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/events"
)

// The op library: the ATen ops of an MLP training step, each recording itself (and the sub-ops
// ATen would call) with orprof.Begin on ctx's logical thread, allocating its output, and
// launching OpenCL kernels on ctx's stream of the inputs' device. Ops return before their
// kernels run; Item and ToHost wait.

// seqs holds each logical thread's autograd sequence-number counter.
var seqs sync.Map // *orprof.Thread → *atomic.Int64

// gradOp is the sequence number a forward op that makes an autograd node takes.
type gradOp struct {
	on          bool
	seq, thread int64
}

// gradFor takes a sequence number when any input requires grad, as at::sequence_number does.
func gradFor(ctx context.Context, inputs ...*Tensor) gradOp {
	for _, t := range inputs {
		if t != nil && t.requiresGrad {
			th := orprof.ThreadFrom(ctx)
			c, ok := seqs.Load(th)
			if !ok {
				c, _ = seqs.LoadOrStore(th, new(atomic.Int64))
			}
			return gradOp{on: true, seq: c.(*atomic.Int64).Add(1) - 1, thread: th.ID()}
		}
	}
	return gradOp{}
}

func beginGradOp(ctx context.Context, name string, g gradOp, args ...*Tensor) orprof.Range {
	if !orprof.Active() {
		return orprof.Range{}
	}
	return orprof.Begin(ctx, orprof.Op{Name: name, Inputs: shapesOf(args...), SequenceNr: g.seq, HasSequence: g.on})
}

// beginNode records an autograd node as the engine runs it: "autograd::engine::evaluate_function:
// <name>" around "<name>" (backward scope, the forward op's sequence number and thread).
func beginNode(ctx context.Context, name string, g gradOp, grad *Tensor) (outer, inner orprof.Range) {
	if !orprof.Active() {
		return orprof.Range{}, orprof.Range{}
	}
	outer = orprof.Begin(ctx, orprof.Op{Name: "autograd::engine::evaluate_function: " + name})
	inner = orprof.Begin(ctx, orprof.Op{Name: name, Scope: events.ScopeBackwardFunction, Inputs: shapesOf(grad),
		SequenceNr: g.seq, HasSequence: g.on, FwdThread: g.thread})
	return outer, inner
}

// run launches the named kernel of the program of t's device on ctx's stream.
func run(ctx context.Context, t *Tensor, name string, global []uintptr, args ...arg) error {
	p, err := t.rt.programFor(t.dev)
	if err != nil {
		return err
	}
	st, err := t.rt.streamOn(ctx, t.dev)
	if err != nil {
		return err
	}
	return t.rt.launchKernel(ctx, st, p.kernels[name], global, args...)
}

func sizes(v ...int64) []uintptr {
	out := make([]uintptr, len(v))
	for i, x := range v {
		out[i] = uintptr(max(x, 1))
	}
	return out
}

func checkLive(op string, ts ...*Tensor) error {
	for i, t := range ts {
		if t == nil || t.buf == nil {
			return fmt.Errorf("opencl: %s: input %d is nil or released", op, i)
		}
	}
	for _, t := range ts[1:] {
		if t.dev != ts[0].dev {
			return fmt.Errorf("opencl: %s: inputs on devices %d and %d", op, ts[0].dev.Index, t.dev.Index)
		}
	}
	return nil
}

// T is the transpose of a 2-D tensor, a view (aten::t: aten::transpose, aten::as_strided). g
// is the autograd decision of the caller (zero when T makes no node).
func T(ctx context.Context, t *Tensor, g gradOp) (*Tensor, error) {
	if err := checkLive("t", t); err != nil {
		return nil, err
	}
	if len(t.shape) != 2 {
		return nil, fmt.Errorf("opencl: t: expects a 2-D tensor, got shape %v", t.shape)
	}
	r := beginGradOp(ctx, "aten::t", g, t)
	defer r.End()
	r2 := beginOp(ctx, "aten::transpose", t, nil, nil)
	defer r2.End()
	r3 := beginOp(ctx, "aten::as_strided", t, nil, nil, nil)
	defer r3.End()
	return viewOf(t, []int64{t.shape[1], t.shape[0]}, []int64{t.strides[1], t.strides[0]}, t.offset), nil
}

// gemm launches out (+)= a·b for 2-D a [m,k] and b [k,n] of any strides into contiguous out.
func gemm(ctx context.Context, out, a, b *Tensor, accumulate bool) error {
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	return run(ctx, out, "gemm_f32", sizes(m, n), intArg(m), intArg(n), intArg(k),
		memArg(a.buf.mem), intArg(a.offset), intArg(a.strides[0]), intArg(a.strides[1]),
		memArg(b.buf.mem), intArg(b.offset), intArg(b.strides[0]), intArg(b.strides[1]),
		memArg(out.buf.mem), boolArg(accumulate))
}

func checkMm(op string, a, b *Tensor) error {
	if err := checkLive(op, a, b); err != nil {
		return err
	}
	if len(a.shape) != 2 || len(b.shape) != 2 || a.shape[1] != b.shape[0] {
		return fmt.Errorf("opencl: %s: shapes %v and %v cannot be multiplied", op, a.shape, b.shape)
	}
	return nil
}

// Mm is the matrix product of 2-D tensors (aten::mm), one gemm_f32 kernel.
func Mm(ctx context.Context, a, b *Tensor) (*Tensor, error) {
	if err := checkMm("mm", a, b); err != nil {
		return nil, err
	}
	r := beginOp(ctx, "aten::mm", a, b)
	defer r.End()
	out, err := a.rt.alloc(ctx, a.dev.Index, []int64{a.shape[0], b.shape[1]})
	if err != nil {
		return nil, err
	}
	if err := gemm(ctx, out, a, b, false); err != nil {
		out.Release(ctx)
		return nil, err
	}
	return out, nil
}

// Addmm is bias + a·b for a bias [n] (aten::addmm: the bias broadcast with aten::expand and
// copied into the output by aten::copy_, then a gemm accumulating into it).
func Addmm(ctx context.Context, bias, a, b *Tensor, g gradOp) (*Tensor, error) {
	if err := checkMm("addmm", a, b); err != nil {
		return nil, err
	}
	if err := checkLive("addmm", bias, a); err != nil {
		return nil, err
	}
	m, n := a.shape[0], b.shape[1]
	if len(bias.shape) != 1 || bias.shape[0] != n {
		return nil, fmt.Errorf("opencl: addmm: bias of shape %v does not fit a %dx%d result", bias.shape, m, n)
	}
	r := beginGradOp(ctx, "aten::addmm", g, bias, a, b, nil, nil)
	defer r.End()
	out, err := a.rt.alloc(ctx, a.dev.Index, []int64{m, n})
	if err != nil {
		return nil, err
	}
	r2 := beginOp(ctx, "aten::expand", bias, nil, nil)
	r3 := beginOp(ctx, "aten::as_strided", bias, nil, nil, nil)
	be := viewOf(bias, []int64{m, n}, []int64{0, bias.strides[0]}, bias.offset)
	r3.End()
	r2.End()
	r4 := beginOp(ctx, "aten::copy_", out, be, nil)
	err = run(ctx, out, "copy_2d_f32", sizes(m, n), intArg(m), intArg(n), memArg(be.buf.mem), intArg(be.offset),
		intArg(be.strides[0]), intArg(be.strides[1]), memArg(out.buf.mem))
	r4.End()
	be.Release(ctx)
	if err == nil {
		err = gemm(ctx, out, a, b, true)
	}
	if err != nil {
		out.Release(ctx)
		return nil, err
	}
	return out, nil
}

// linearOut is a Linear layer's result and what its backward needs.
type linearOut struct {
	out    *Tensor
	wt     *Tensor // the transposed weight the addmm multiplied by
	tGrad  gradOp  // aten::t's node (TBackward0)
	mmGrad gradOp  // aten::addmm's node (AddmmBackward0)
}

// Linear is x·wᵀ + b (aten::linear: aten::t, then aten::addmm). x is [batch, in], w [out, in],
// b [out].
func Linear(ctx context.Context, x, w, b *Tensor) (linearOut, error) {
	if err := checkLive("linear", x, w, b); err != nil {
		return linearOut{}, err
	}
	r := beginOp(ctx, "aten::linear", x, w, b)
	defer r.End()
	var lo linearOut
	var err error
	lo.tGrad = gradFor(ctx, w)
	if lo.wt, err = T(ctx, w, lo.tGrad); err != nil {
		return linearOut{}, err
	}
	lo.mmGrad = gradFor(ctx, b, x, lo.wt, w)
	if lo.out, err = Addmm(ctx, b, x, lo.wt, lo.mmGrad); err != nil {
		lo.wt.Release(ctx)
		return linearOut{}, err
	}
	return lo, nil
}

// Relu is max(x, 0) (aten::relu calling aten::clamp_min).
func Relu(ctx context.Context, x *Tensor, g gradOp) (*Tensor, error) {
	if err := checkLive("relu", x); err != nil {
		return nil, err
	}
	r := beginGradOp(ctx, "aten::relu", g, x)
	defer r.End()
	r2 := beginOp(ctx, "aten::clamp_min", x, nil)
	defer r2.End()
	out, err := x.rt.alloc(ctx, x.dev.Index, x.shape)
	if err != nil {
		return nil, err
	}
	n := x.Numel()
	if err := run(ctx, out, "clamp_min_f32", sizes(n), intArg(n), memArg(x.buf.mem), memArg(out.buf.mem), floatArg(0)); err != nil {
		out.Release(ctx)
		return nil, err
	}
	return out, nil
}

// thresholdBackward is the gradient of relu: g where y > 0, else 0 (aten::threshold_backward).
func thresholdBackward(ctx context.Context, g, y *Tensor) (*Tensor, error) {
	r := beginOp(ctx, "aten::threshold_backward", g, y, nil)
	defer r.End()
	out, err := g.rt.alloc(ctx, g.dev.Index, g.shape)
	if err != nil {
		return nil, err
	}
	n := g.Numel()
	if err := run(ctx, out, "threshold_backward_f32", sizes(n), intArg(n), memArg(g.buf.mem), memArg(y.buf.mem), memArg(out.buf.mem)); err != nil {
		out.Release(ctx)
		return nil, err
	}
	return out, nil
}

// LogSoftmax is log(softmax) over the rows of a 2-D tensor (aten::log_softmax, aten::_log_softmax).
func LogSoftmax(ctx context.Context, x *Tensor, g gradOp) (*Tensor, error) {
	if err := checkLive("log_softmax", x); err != nil {
		return nil, err
	}
	if len(x.shape) != 2 || !x.isContiguous() {
		return nil, fmt.Errorf("opencl: log_softmax: expects a contiguous 2-D tensor, got shape %v", x.shape)
	}
	r := beginOp(ctx, "aten::log_softmax", x, nil, nil)
	defer r.End()
	r2 := beginGradOp(ctx, "aten::_log_softmax", g, x, nil, nil)
	defer r2.End()
	out, err := x.rt.alloc(ctx, x.dev.Index, x.shape)
	if err != nil {
		return nil, err
	}
	rows, cols := x.shape[0], x.shape[1]
	if err := run(ctx, out, "log_softmax_f32", sizes(rows), intArg(rows), intArg(cols), memArg(x.buf.mem), memArg(out.buf.mem)); err != nil {
		out.Release(ctx)
		return nil, err
	}
	return out, nil
}

// logSoftmaxBackward is aten::_log_softmax_backward_data: g − exp(y)·Σg per row.
func logSoftmaxBackward(ctx context.Context, g, y *Tensor) (*Tensor, error) {
	r := beginOp(ctx, "aten::_log_softmax_backward_data", g, y, nil, nil)
	defer r.End()
	out, err := g.rt.alloc(ctx, g.dev.Index, g.shape)
	if err != nil {
		return nil, err
	}
	rows, cols := g.shape[0], g.shape[1]
	if err := run(ctx, out, "log_softmax_backward_data_f32", sizes(rows), intArg(rows), intArg(cols),
		memArg(g.buf.mem), memArg(y.buf.mem), memArg(out.buf.mem)); err != nil {
		out.Release(ctx)
		return nil, err
	}
	return out, nil
}

// NllLoss is the mean negative log-likelihood of logp [batch, classes] at the class indices of
// target [batch] (aten::nll_loss_nd, aten::nll_loss, aten::nll_loss_forward). The indices must
// be valid; CrossEntropy's callers check them on the host.
func NllLoss(ctx context.Context, logp, target *Tensor, g gradOp) (*Tensor, error) {
	if err := checkLive("nll_loss", logp, target); err != nil {
		return nil, err
	}
	if len(logp.shape) != 2 || len(target.shape) != 1 || target.shape[0] != logp.shape[0] {
		return nil, fmt.Errorf("opencl: nll_loss: expects input [N, C] and target [N], got %v and %v", logp.shape, target.shape)
	}
	r := beginOp(ctx, "aten::nll_loss_nd", logp, target, nil, nil, nil)
	defer r.End()
	r2 := beginOp(ctx, "aten::nll_loss", logp, target, nil, nil, nil)
	defer r2.End()
	r3 := beginGradOp(ctx, "aten::nll_loss_forward", g, logp, target, nil, nil, nil)
	defer r3.End()
	out, err := logp.rt.alloc(ctx, logp.dev.Index, []int64{})
	if err != nil {
		return nil, err
	}
	rows, cols := logp.shape[0], logp.shape[1]
	if err := run(ctx, out, "nll_loss_forward_f32", sizes(1), intArg(rows), intArg(cols), memArg(logp.buf.mem),
		memArg(target.buf.mem), memArg(out.buf.mem)); err != nil {
		out.Release(ctx)
		return nil, err
	}
	return out, nil
}

// nllLossBackward is aten::nll_loss_backward: zeros (aten::zero_, a memset) with −g/N at each
// row's target class.
func nllLossBackward(ctx context.Context, g, logp, target *Tensor) (*Tensor, error) {
	r := beginOp(ctx, "aten::nll_loss_backward", g, logp, target, nil, nil, nil, nil)
	defer r.End()
	out, err := g.rt.alloc(ctx, g.dev.Index, logp.shape)
	if err != nil {
		return nil, err
	}
	r2 := beginOp(ctx, "aten::zero_", out)
	err = out.fill(ctx, 0)
	r2.End()
	rows, cols := logp.shape[0], logp.shape[1]
	if err == nil {
		err = run(ctx, out, "nll_loss_backward_f32", sizes(rows), intArg(rows), intArg(cols), memArg(g.buf.mem),
			memArg(target.buf.mem), memArg(out.buf.mem))
	}
	if err != nil {
		out.Release(ctx)
		return nil, err
	}
	return out, nil
}

// sumDim0 sums a contiguous 2-D tensor over its rows into [1, cols] (aten::sum with dim [0]).
func sumDim0(ctx context.Context, x *Tensor) (*Tensor, error) {
	r := beginOp(ctx, "aten::sum", x, nil, nil, nil)
	defer r.End()
	rows, cols := x.shape[0], x.shape[1]
	out, err := x.rt.alloc(ctx, x.dev.Index, []int64{1, cols})
	if err != nil {
		return nil, err
	}
	if err := run(ctx, out, "sum_dim0_f32", sizes(cols), intArg(rows), intArg(cols), memArg(x.buf.mem), memArg(out.buf.mem)); err != nil {
		out.Release(ctx)
		return nil, err
	}
	return out, nil
}

// view is aten::view of a contiguous tensor.
func view(ctx context.Context, t *Tensor, shape ...int64) (*Tensor, error) {
	r := beginOp(ctx, "aten::view", t, nil)
	defer r.End()
	if !t.isContiguous() || numel(shape) != t.Numel() {
		return nil, fmt.Errorf("opencl: view: cannot view %v as %v", t.shape, shape)
	}
	return viewOf(t, shape, contiguousStrides(shape), t.offset), nil
}

// AddInPlace is a += alpha·b for contiguous same-shaped tensors (aten::add_), the optimizer's
// update.
func AddInPlace(ctx context.Context, a, b *Tensor, alpha float32) error {
	if err := checkLive("add_", a, b); err != nil {
		return err
	}
	if numel(a.shape) != numel(b.shape) || !a.isContiguous() || !b.isContiguous() || a.offset != 0 || b.offset != 0 {
		return fmt.Errorf("opencl: add_: needs contiguous tensors of one shape, got %v and %v", a.shape, b.shape)
	}
	r := beginOp(ctx, "aten::add_", a, b, nil)
	defer r.End()
	n := a.Numel()
	return run(ctx, a, "add_scaled_f32", sizes(n), intArg(n), memArg(a.buf.mem), memArg(b.buf.mem), floatArg(alpha))
}

// onesLike is aten::ones_like (aten::empty_like, aten::empty_strided, aten::fill_ as a memset).
func onesLike(ctx context.Context, t *Tensor) (*Tensor, error) {
	r := beginOp(ctx, "aten::ones_like", t, nil, nil, nil, nil, nil)
	defer r.End()
	r2 := beginOp(ctx, "aten::empty_like", t, nil, nil, nil, nil, nil)
	r3 := beginOp(ctx, "aten::empty_strided", nil, nil, nil, nil, nil, nil)
	out, err := t.rt.alloc(ctx, t.dev.Index, t.shape)
	r3.End()
	r2.End()
	if err != nil {
		return nil, err
	}
	r4 := beginOp(ctx, "aten::fill_", out, nil)
	defer r4.End()
	if err := out.fill(ctx, 1); err != nil {
		out.Release(ctx)
		return nil, err
	}
	return out, nil
}
