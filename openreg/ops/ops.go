package ops

import (
	"context"
	"fmt"
	"math"

	"github.com/orprof/orprof/openreg"
)

// The op library. Every op records itself (and the sub-ops PyTorch's ATen would call) with
// orprof.Begin on ctx's logical thread, checks its inputs on the calling goroutine, allocates
// its output, and launches kernels on ctx's current stream of the inputs' device; it returns
// before the kernels run. Results are read back with ToHost or Item.

// T is the transpose of a 2-D tensor, a view (aten::t: aten::transpose, aten::as_strided).
func T(ctx context.Context, t *Tensor) (*Tensor, error) {
	if err := checkTensors("t", t); err != nil {
		return nil, err
	}
	if t.Dim() != 2 {
		return nil, fmt.Errorf("openreg: t: expects a 2-D tensor, got shape %v", t.shape)
	}
	g := gradFor(ctx, t)
	r := beginGradOp(ctx, "aten::t", g, t)
	defer r.End()
	r2 := beginOp(ctx, "aten::transpose", t, nil, nil)
	defer r2.End()
	r3 := beginOp(ctx, "aten::as_strided", t, nil, nil, nil)
	out := viewOf(t, []int64{t.shape[1], t.shape[0]}, []int64{t.strides[1], t.strides[0]}, t.offset)
	r3.End()
	if g.on {
		g.attach(ctx, out, "TBackward0", []*Tensor{t}, nil, func(ctx context.Context, n *node, gr *Tensor) ([]*Tensor, error) {
			x, err := T(ctx, gr)
			return []*Tensor{x}, err
		})
	}
	return out, nil
}

// expand is aten::expand (aten::as_strided): a view of t broadcast to shape, stride 0 on the
// dimensions t does not have or has as 1.
func expand(ctx context.Context, t *Tensor, shape []int64) (*Tensor, error) {
	if len(shape) < t.Dim() {
		return nil, fmt.Errorf("openreg: expand: shape %v has fewer dimensions than %v", shape, t.shape)
	}
	r := beginOp(ctx, "aten::expand", t, nil, nil)
	defer r.End()
	r2 := beginOp(ctx, "aten::as_strided", t, nil, nil, nil)
	defer r2.End()
	st := make([]int64, len(shape))
	lead := len(shape) - t.Dim()
	for i := range shape {
		if i < lead {
			continue
		}
		d := t.shape[i-lead]
		switch {
		case d == shape[i]:
			st[i] = t.strides[i-lead]
		case d == 1:
		default:
			return nil, fmt.Errorf("openreg: expand: cannot expand %v to %v", t.shape, shape)
		}
	}
	return viewOf(t, append([]int64(nil), shape...), st, t.offset), nil
}

// view is aten::view of a contiguous tensor.
func view(ctx context.Context, t *Tensor, shape []int64) (*Tensor, error) {
	r := beginOp(ctx, "aten::view", t, nil)
	defer r.End()
	if !t.IsContiguous() || numel(shape) != t.Numel() {
		return nil, fmt.Errorf("openreg: view: cannot view %v as %v", t.shape, shape)
	}
	return viewOf(t, append([]int64(nil), shape...), contiguousStrides(shape), t.offset), nil
}

// gemm computes out (+)= a·b for 2-D a [m,k], b [k,n] with any strides into a contiguous out.
func gemm(out []float32, a, b *Tensor, accumulate bool) {
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	ad, bd := a.buf.Float32s(), b.buf.Float32s()
	for i := int64(0); i < m; i++ {
		row := out[i*n : (i+1)*n]
		if !accumulate {
			clear(row)
		}
		for p := int64(0); p < k; p++ {
			av := ad[a.offset+i*a.strides[0]+p*a.strides[1]]
			if av == 0 {
				continue
			}
			bo := b.offset + p*b.strides[0]
			if b.strides[1] == 1 {
				brow := bd[bo : bo+n]
				for j := range row {
					row[j] += av * brow[j]
				}
				continue
			}
			for j := range row {
				row[j] += av * bd[bo+int64(j)*b.strides[1]]
			}
		}
	}
}

func gemmWork(m, k, n int64) openreg.KernelWork {
	return openreg.KernelWork{Flops: 2 * m * k * n, BytesRead: 4 * (m*k + k*n), BytesWritten: 4 * m * n}
}

func checkMm(op string, a, b *Tensor) error {
	if err := checkTensors(op, a, b); err != nil {
		return err
	}
	if a.Dim() != 2 || b.Dim() != 2 {
		return fmt.Errorf("openreg: %s: expects 2-D tensors, got %v and %v", op, a.shape, b.shape)
	}
	if a.shape[1] != b.shape[0] {
		return fmt.Errorf("openreg: %s: mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)",
			op, a.shape[0], a.shape[1], b.shape[0], b.shape[1])
	}
	return nil
}

// Mm is the matrix product of 2-D tensors (aten::mm), one gemm kernel; its gradient node is
// MmBackward0.
func Mm(ctx context.Context, a, b *Tensor) (*Tensor, error) {
	if err := checkMm("mm", a, b); err != nil {
		return nil, err
	}
	g := gradFor(ctx, a, b)
	r := beginGradOp(ctx, "aten::mm", g, a, b)
	defer r.End()
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	out, err := newTensor(ctx, a.rt, a.device, []int64{m, n})
	if err != nil {
		return nil, err
	}
	if err := launch(ctx, out, "openreg::gemm_f32", gemmWork(m, k, n), func() { gemm(out.out(), a, b, false) }); err != nil {
		return nil, err
	}
	if g.on {
		sa, sb := share(a), share(b)
		g.attach(ctx, out, "MmBackward0", []*Tensor{a, b}, []*Tensor{sa, sb}, mmBackward(sa, sb))
	}
	return out, nil
}

// mmBackward: grad a = g·bᵀ, grad b = aᵀ·g; a and b are the last two inputs of the node. Like
// ATen's mm_mat1/mat2_backward, a gradient for a transposed (column-major) input is computed as
// the transpose of the product with swapped factors, so it has the input's layout: a weight used
// through aten::t then gets a contiguous gradient back from TBackward0.
func mmBackward(a, b *Tensor) applyFn {
	return func(ctx context.Context, n *node, g *Tensor) ([]*Tensor, error) {
		outs := make([]*Tensor, len(n.next))
		var err error
		if i := len(n.next) - 2; n.needs(i) {
			if isTransposed(a) {
				outs[i], err = product(ctx, b, false, g, true, true) // (b·gᵀ)ᵀ
			} else {
				outs[i], err = product(ctx, g, false, b, true, false) // g·bᵀ
			}
			if err != nil {
				return nil, err
			}
		}
		if i := len(n.next) - 1; n.needs(i) {
			if isTransposed(b) {
				outs[i], err = product(ctx, g, true, a, false, true) // (gᵀ·a)ᵀ
			} else {
				outs[i], err = product(ctx, a, true, g, false, false) // aᵀ·g
			}
			if err != nil {
				return nil, err
			}
		}
		return outs, nil
	}
}

// isTransposed reports whether a 2-D tensor is laid out column-major.
func isTransposed(t *Tensor) bool {
	return t.strides[0] == 1 && t.strides[1] == t.shape[0] && t.shape[0] != 1
}

// product is op(x)·op(y), transposed when tout, where op transposes (aten::t) when asked.
func product(ctx context.Context, x *Tensor, tx bool, y *Tensor, ty bool, tout bool) (*Tensor, error) {
	maybeT := func(t *Tensor, on bool) (*Tensor, error) {
		if on {
			return T(ctx, t)
		}
		return share(t), nil
	}
	fx, err := maybeT(x, tx)
	if err != nil {
		return nil, err
	}
	defer fx.Release(ctx)
	fy, err := maybeT(y, ty)
	if err != nil {
		return nil, err
	}
	defer fy.Release(ctx)
	p, err := Mm(ctx, fx, fy)
	if err != nil || !tout {
		return p, err
	}
	defer p.Release(ctx)
	return T(ctx, p)
}

// Matmul is torch.matmul for 2-D tensors (aten::matmul calling aten::mm).
func Matmul(ctx context.Context, a, b *Tensor) (*Tensor, error) {
	if err := checkMm("matmul", a, b); err != nil {
		return nil, err
	}
	r := beginOp(ctx, "aten::matmul", a, b)
	defer r.End()
	return Mm(ctx, a, b)
}

// Addmm is bias + a·b (aten::addmm: the bias broadcast with aten::expand and aten::copy_ into the
// output, then a gemm accumulating into it). bias is [n] or [m, n]. Its node is AddmmBackward0.
func Addmm(ctx context.Context, bias, a, b *Tensor) (*Tensor, error) {
	if err := checkMm("addmm", a, b); err != nil {
		return nil, err
	}
	if err := checkTensors("addmm", bias, a); err != nil {
		return nil, err
	}
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	if !(bias.Dim() == 1 && bias.shape[0] == n) && !(bias.Dim() == 2 && bias.shape[0] == m && bias.shape[1] == n) {
		return nil, fmt.Errorf("openreg: addmm: bias of shape %v does not fit a %dx%d result", bias.shape, m, n)
	}
	g := gradFor(ctx, bias, a, b)
	r := beginGradOp(ctx, "aten::addmm", g, bias, a, b, nil, nil)
	defer r.End()
	out, err := newTensor(ctx, a.rt, a.device, []int64{m, n})
	if err != nil {
		return nil, err
	}
	be, err := expand(ctx, bias, out.shape)
	if err != nil {
		return nil, err
	}
	err = copyInto(ctx, out, be)
	be.Release(ctx)
	if err != nil {
		return nil, err
	}
	if err := launch(ctx, out, "openreg::gemm_f32", gemmWork(m, k, n), func() { gemm(out.out(), a, b, true) }); err != nil {
		return nil, err
	}
	if g.on {
		sa, sb := share(a), share(b)
		mm := mmBackward(sa, sb)
		biasShape := bias.shape
		g.attach(ctx, out, "AddmmBackward0", []*Tensor{bias, a, b}, []*Tensor{sa, sb}, func(ctx context.Context, nd *node, gr *Tensor) ([]*Tensor, error) {
			outs, err := mm(ctx, nd, gr)
			if err != nil {
				return nil, err
			}
			if nd.needs(0) {
				if len(biasShape) == 2 {
					outs[0] = share(gr)
				} else {
					s, err := sumDim0(ctx, gr)
					if err != nil {
						return nil, err
					}
					v, err := view(ctx, s, biasShape)
					s.Release(ctx)
					if err != nil {
						return nil, err
					}
					outs[0] = v
				}
			}
			return outs, nil
		})
	}
	return out, nil
}

// Linear is x·wᵀ + b (aten::linear: aten::t, then aten::addmm, or aten::matmul without bias). x is
// [batch, in], w [out, in], b [out] or nil.
func Linear(ctx context.Context, x, w, b *Tensor) (*Tensor, error) {
	if err := checkTensors("linear", x, w); err != nil {
		return nil, err
	}
	r := beginOp(ctx, "aten::linear", x, w, b)
	defer r.End()
	wt, err := T(ctx, w)
	if err != nil {
		return nil, err
	}
	defer wt.Release(ctx)
	if b == nil {
		return Matmul(ctx, x, wt)
	}
	return Addmm(ctx, b, x, wt)
}

// elementwise launches out[i] = f(i, a[i], b[i]) over same-shaped inputs (b may be nil).
func elementwise(ctx context.Context, name string, flopsPer int64, out, a, b *Tensor, f func(x, y float32) float32) error {
	n := out.Numel()
	ins := int64(1)
	if b != nil {
		ins = 2
	}
	return launch(ctx, out, name, openreg.KernelWork{Flops: flopsPer * n, BytesRead: 4 * ins * n, BytesWritten: 4 * n}, func() {
		o := out.out()
		av := a.values()
		if b == nil {
			for i := range o {
				o[i] = f(av[i], 0)
			}
			return
		}
		bv := b.values()
		for i := range o {
			o[i] = f(av[i], bv[i])
		}
	})
}

func checkSame(op string, a, b *Tensor) error {
	if err := checkTensors(op, a, b); err != nil {
		return err
	}
	if !sameShape(a.shape, b.shape) {
		return fmt.Errorf("openreg: %s: shapes %v and %v differ", op, a.shape, b.shape)
	}
	return nil
}

// Add is a + b for same-shaped tensors (aten::add); its node is AddBackward0.
func Add(ctx context.Context, a, b *Tensor) (*Tensor, error) {
	if err := checkSame("add", a, b); err != nil {
		return nil, err
	}
	g := gradFor(ctx, a, b)
	r := beginGradOp(ctx, "aten::add", g, a, b, nil)
	defer r.End()
	out, err := newTensor(ctx, a.rt, a.device, a.shape)
	if err != nil {
		return nil, err
	}
	if err := elementwise(ctx, "openreg::add_kernel", 1, out, a, b, func(x, y float32) float32 { return x + y }); err != nil {
		return nil, err
	}
	if g.on {
		g.attach(ctx, out, "AddBackward0", []*Tensor{a, b}, nil, func(ctx context.Context, n *node, gr *Tensor) ([]*Tensor, error) {
			outs := make([]*Tensor, 2)
			for i := range outs {
				if n.needs(i) {
					outs[i] = share(gr)
				}
			}
			return outs, nil
		})
	}
	return out, nil
}

// AddInPlace is a += alpha·b (aten::add_), the optimizer's update. a must be contiguous; it may
// not be a tensor that requires grad unless ctx has grad disabled (NoGrad).
func AddInPlace(ctx context.Context, a, b *Tensor, alpha float32) error {
	if err := checkSame("add_", a, b); err != nil {
		return err
	}
	if GradEnabled(ctx) && (a.requiresGrad || b.requiresGrad) {
		return fmt.Errorf("openreg: add_: in-place update of a tensor that requires grad needs NoGrad")
	}
	if !a.IsContiguous() {
		return fmt.Errorf("openreg: add_: %v is not contiguous", a)
	}
	r := beginOp(ctx, "aten::add_", a, b, nil)
	defer r.End()
	n := a.Numel()
	return launch(ctx, a, "openreg::add_kernel", openreg.KernelWork{Flops: 2 * n, BytesRead: 8 * n, BytesWritten: 4 * n}, func() {
		o := a.buf.Float32s()[a.offset : a.offset+n]
		bv := b.values()
		for i := range o {
			o[i] += alpha * bv[i]
		}
	})
}

// Mul is the elementwise product of same-shaped tensors (aten::mul); its node is MulBackward0.
func Mul(ctx context.Context, a, b *Tensor) (*Tensor, error) {
	if err := checkSame("mul", a, b); err != nil {
		return nil, err
	}
	g := gradFor(ctx, a, b)
	r := beginGradOp(ctx, "aten::mul", g, a, b)
	defer r.End()
	out, err := newTensor(ctx, a.rt, a.device, a.shape)
	if err != nil {
		return nil, err
	}
	if err := elementwise(ctx, "openreg::mul_kernel", 1, out, a, b, func(x, y float32) float32 { return x * y }); err != nil {
		return nil, err
	}
	if g.on {
		inputs := []*Tensor{a, b}
		a, b := share(a), share(b) // the formula reads its own references
		g.attach(ctx, out, "MulBackward0", inputs, []*Tensor{a, b}, func(ctx context.Context, n *node, gr *Tensor) ([]*Tensor, error) {
			outs := make([]*Tensor, 2)
			var err error
			if n.needs(0) {
				if outs[0], err = Mul(ctx, gr, b); err != nil {
					return nil, err
				}
			}
			if n.needs(1) {
				if outs[1], err = Mul(ctx, gr, a); err != nil {
					return nil, err
				}
			}
			return outs, nil
		})
	}
	return out, nil
}

// Relu is max(x, 0) (aten::relu calling aten::clamp_min, as in PyTorch 1.13); its node is
// ReluBackward0, whose gradient is aten::threshold_backward.
func Relu(ctx context.Context, x *Tensor) (*Tensor, error) {
	if err := checkTensors("relu", x); err != nil {
		return nil, err
	}
	g := gradFor(ctx, x)
	r := beginGradOp(ctx, "aten::relu", g, x)
	defer r.End()
	r2 := beginOp(ctx, "aten::clamp_min", x, nil)
	out, err := newTensor(ctx, x.rt, x.device, x.shape)
	if err == nil {
		err = elementwise(ctx, "openreg::clamp_min_kernel", 1, out, x, nil, func(v, _ float32) float32 {
			if v > 0 {
				return v
			}
			return 0
		})
	}
	r2.End()
	if err != nil {
		return nil, err
	}
	if g.on {
		result := share(out)
		g.attach(ctx, out, "ReluBackward0", []*Tensor{x}, []*Tensor{result}, func(ctx context.Context, n *node, gr *Tensor) ([]*Tensor, error) {
			r := beginOp(ctx, "aten::threshold_backward", gr, result, nil)
			defer r.End()
			gi, err := newTensor(ctx, gr.rt, gr.device, gr.shape)
			if err != nil {
				return nil, err
			}
			err = elementwise(ctx, "openreg::threshold_backward_kernel", 1, gi, gr, result, func(gv, y float32) float32 {
				if y > 0 {
					return gv
				}
				return 0
			})
			return []*Tensor{gi}, err
		})
	}
	return out, nil
}

// Sum is the sum of all elements, a 0-D tensor (aten::sum); its node is SumBackward0, whose
// gradient is an aten::expand of the incoming one.
func Sum(ctx context.Context, x *Tensor) (*Tensor, error) {
	if err := checkTensors("sum", x); err != nil {
		return nil, err
	}
	g := gradFor(ctx, x)
	r := beginGradOp(ctx, "aten::sum", g, x, nil)
	defer r.End()
	out, err := newTensor(ctx, x.rt, x.device, []int64{})
	if err != nil {
		return nil, err
	}
	n := x.Numel()
	err = launch(ctx, out, "openreg::reduce_sum_kernel", openreg.KernelWork{Flops: n, BytesRead: 4 * n, BytesWritten: 4}, func() {
		var s float64
		for _, v := range x.values() {
			s += float64(v)
		}
		out.out()[0] = float32(s)
	})
	if err != nil {
		return nil, err
	}
	if g.on {
		shape := x.shape
		g.attach(ctx, out, "SumBackward0", []*Tensor{x}, nil, func(ctx context.Context, n *node, gr *Tensor) ([]*Tensor, error) {
			e, err := expand(ctx, gr, shape)
			return []*Tensor{e}, err
		})
	}
	return out, nil
}

// sumDim0 sums a 2-D tensor over its rows (aten::sum with dim [0]); no gradient.
func sumDim0(ctx context.Context, x *Tensor) (*Tensor, error) {
	r := beginOp(ctx, "aten::sum", x, nil, nil, nil)
	defer r.End()
	if x.Dim() != 2 {
		return nil, fmt.Errorf("openreg: sum: expects a 2-D tensor, got %v", x.shape)
	}
	m, n := x.shape[0], x.shape[1]
	out, err := newTensor(ctx, x.rt, x.device, []int64{1, n})
	if err != nil {
		return nil, err
	}
	return out, launch(ctx, out, "openreg::reduce_sum_kernel", openreg.KernelWork{Flops: m * n, BytesRead: 4 * m * n, BytesWritten: 4 * n}, func() {
		o := out.out()
		clear(o)
		v := x.values()
		for i := int64(0); i < m; i++ {
			for j := int64(0); j < n; j++ {
				o[j] += v[i*n+j]
			}
		}
	})
}

// lastDim checks a softmax dimension: only the last one of a 1-D or 2-D tensor is supported.
func lastDim(op string, x *Tensor, dim int) (rows, cols int64, err error) {
	nd := x.Dim()
	if dim < 0 {
		dim += nd
	}
	if nd < 1 || nd > 2 || dim != nd-1 {
		return 0, 0, fmt.Errorf("openreg: %s: only the last dimension of a 1-D or 2-D tensor is supported (shape %v, dim %d)", op, x.shape, dim)
	}
	cols = x.shape[nd-1]
	return x.Numel() / max(cols, 1), cols, nil
}

// softmaxRows computes (log-)softmax of every row.
func softmaxRows(o, v []float32, rows, cols int64, logOut bool) {
	for i := int64(0); i < rows; i++ {
		row, dst := v[i*cols:(i+1)*cols], o[i*cols:(i+1)*cols]
		mx := float32(math.Inf(-1))
		for _, x := range row {
			mx = max(mx, x)
		}
		var s float64
		for _, x := range row {
			s += math.Exp(float64(x - mx))
		}
		ls := math.Log(s)
		for j, x := range row {
			if logOut {
				dst[j] = float32(float64(x-mx) - ls)
			} else {
				dst[j] = float32(math.Exp(float64(x-mx)) / s)
			}
		}
	}
}

func softmaxOp(ctx context.Context, x *Tensor, dim int, logOut bool) (*Tensor, error) {
	outer, inner, nodeName, bwd := "aten::softmax", "aten::_softmax", "SoftmaxBackward0", "aten::_softmax_backward_data"
	if logOut {
		outer, inner, nodeName, bwd = "aten::log_softmax", "aten::_log_softmax", "LogSoftmaxBackward0", "aten::_log_softmax_backward_data"
	}
	if err := checkTensors(outer, x); err != nil {
		return nil, err
	}
	rows, cols, err := lastDim(outer, x, dim)
	if err != nil {
		return nil, err
	}
	r := beginOp(ctx, outer, x, nil, nil)
	defer r.End()
	g := gradFor(ctx, x)
	r2 := beginGradOp(ctx, inner, g, x, nil, nil)
	defer r2.End()
	out, err := newTensor(ctx, x.rt, x.device, x.shape)
	if err != nil {
		return nil, err
	}
	n := x.Numel()
	kname := "openreg::softmax_kernel"
	if logOut {
		kname = "openreg::log_softmax_kernel"
	}
	if err := launch(ctx, out, kname, openreg.KernelWork{Flops: 5 * n, BytesRead: 4 * n, BytesWritten: 4 * n}, func() {
		softmaxRows(out.out(), x.values(), rows, cols, logOut)
	}); err != nil {
		return nil, err
	}
	if g.on {
		y := share(out)
		g.attach(ctx, out, nodeName, []*Tensor{x}, []*Tensor{y}, func(ctx context.Context, _ *node, gr *Tensor) ([]*Tensor, error) {
			r := beginOp(ctx, bwd, gr, y, nil, nil)
			defer r.End()
			gi, err := newTensor(ctx, gr.rt, gr.device, gr.shape)
			if err != nil {
				return nil, err
			}
			err = launch(ctx, gi, "openreg::"+bwd[len("aten::_"):]+"_kernel", openreg.KernelWork{Flops: 4 * n, BytesRead: 8 * n, BytesWritten: 4 * n}, func() {
				o, gv, yv := gi.out(), gr.values(), y.values()
				for i := int64(0); i < rows; i++ {
					lo, hi := i*cols, (i+1)*cols
					var s float64
					for j := lo; j < hi; j++ {
						if logOut {
							s += float64(gv[j])
						} else {
							s += float64(gv[j] * yv[j])
						}
					}
					for j := lo; j < hi; j++ {
						if logOut { // g − exp(y)·Σg
							o[j] = gv[j] - float32(math.Exp(float64(yv[j]))*s)
						} else { // y·(g − Σ g·y)
							o[j] = yv[j] * (gv[j] - float32(s))
						}
					}
				}
			})
			return []*Tensor{gi}, err
		})
	}
	return out, nil
}

// Softmax is softmax over the last dimension (dim = −1 or Dim()−1) of a 1-D or 2-D tensor
// (aten::softmax, aten::_softmax); its node is SoftmaxBackward0.
func Softmax(ctx context.Context, x *Tensor, dim int) (*Tensor, error) {
	return softmaxOp(ctx, x, dim, false)
}

// LogSoftmax is log(softmax) over the last dimension (aten::log_softmax, aten::_log_softmax);
// its node is LogSoftmaxBackward0.
func LogSoftmax(ctx context.Context, x *Tensor, dim int) (*Tensor, error) {
	return softmaxOp(ctx, x, dim, true)
}

// NllLoss is the mean negative log-likelihood of log-probabilities logp [batch, classes] at the
// class indices in target [batch] (held as float32 integers) (aten::nll_loss_nd, aten::nll_loss,
// aten::nll_loss_forward); its node is NllLossBackward0 (aten::nll_loss_backward). An index out
// of range fails the kernel: the error surfaces at the next synchronize.
func NllLoss(ctx context.Context, logp, target *Tensor) (*Tensor, error) {
	if err := checkTensors("nll_loss", logp, target); err != nil {
		return nil, err
	}
	if logp.Dim() != 2 || target.Dim() != 1 || target.shape[0] != logp.shape[0] {
		return nil, fmt.Errorf("openreg: nll_loss: expects input [N, C] and target [N], got %v and %v", logp.shape, target.shape)
	}
	rows, cols := logp.shape[0], logp.shape[1]
	r := beginOp(ctx, "aten::nll_loss_nd", logp, target, nil, nil, nil)
	defer r.End()
	r2 := beginOp(ctx, "aten::nll_loss", logp, target, nil, nil, nil)
	defer r2.End()
	g := gradFor(ctx, logp)
	r3 := beginGradOp(ctx, "aten::nll_loss_forward", g, logp, target, nil, nil, nil)
	defer r3.End()
	out, err := newTensor(ctx, logp.rt, logp.device, []int64{})
	if err != nil {
		return nil, err
	}
	err = launch(ctx, out, "openreg::nll_loss_forward_kernel", openreg.KernelWork{Flops: 2 * rows, BytesRead: 8 * rows, BytesWritten: 4}, func() {
		lv, tv := logp.values(), target.values()
		var s float64
		for i := int64(0); i < rows; i++ {
			c := classOf(tv[i], cols)
			s -= float64(lv[i*cols+c])
		}
		out.out()[0] = float32(s / float64(max(rows, 1)))
	})
	if err != nil {
		return nil, err
	}
	if g.on {
		target := share(target)
		g.attach(ctx, out, "NllLossBackward0", []*Tensor{logp}, []*Tensor{target}, func(ctx context.Context, _ *node, gr *Tensor) ([]*Tensor, error) {
			r := beginOp(ctx, "aten::nll_loss_backward", gr, logp, target, nil, nil, nil, nil)
			defer r.End()
			gi, err := newTensor(ctx, logp.rt, logp.device, logp.shape)
			if err != nil {
				return nil, err
			}
			if err := zero(ctx, gi); err != nil {
				return nil, err
			}
			err = launch(ctx, gi, "openreg::nll_loss_backward_kernel", openreg.KernelWork{Flops: rows, BytesRead: 4*rows + 4, BytesWritten: 4 * rows}, func() {
				o, tv := gi.out(), target.values()
				scale := -gr.values()[0] / float32(max(rows, 1))
				for i := int64(0); i < rows; i++ {
					o[i*cols+classOf(tv[i], cols)] = scale
				}
			})
			return []*Tensor{gi}, err
		})
	}
	return out, nil
}

func classOf(v float32, cols int64) int64 {
	c := int64(v)
	if float32(c) != v || c < 0 || c >= cols {
		panic(fmt.Sprintf("target %v is not a class index in [0, %d)", v, cols))
	}
	return c
}

// CrossEntropy is the mean cross-entropy of logits [batch, classes] against class indices
// target [batch] (aten::cross_entropy_loss: LogSoftmax then NllLoss).
func CrossEntropy(ctx context.Context, logits, target *Tensor) (*Tensor, error) {
	if err := checkTensors("cross_entropy_loss", logits, target); err != nil {
		return nil, err
	}
	r := beginOp(ctx, "aten::cross_entropy_loss", logits, target, nil, nil, nil, nil)
	defer r.End()
	lp, err := LogSoftmax(ctx, logits, 1)
	if err != nil {
		return nil, err
	}
	defer lp.Release(ctx) // the backward nodes hold their own references
	return NllLoss(ctx, lp, target)
}

// MseLoss is the mean squared error of same-shaped tensors (aten::mse_loss); its node is
// MseLossBackward0 (aten::mse_loss_backward).
func MseLoss(ctx context.Context, a, b *Tensor) (*Tensor, error) {
	if err := checkSame("mse_loss", a, b); err != nil {
		return nil, err
	}
	g := gradFor(ctx, a, b)
	r := beginGradOp(ctx, "aten::mse_loss", g, a, b, nil)
	defer r.End()
	out, err := newTensor(ctx, a.rt, a.device, []int64{})
	if err != nil {
		return nil, err
	}
	n := a.Numel()
	err = launch(ctx, out, "openreg::mse_loss_kernel", openreg.KernelWork{Flops: 3 * n, BytesRead: 8 * n, BytesWritten: 4}, func() {
		av, bv := a.values(), b.values()
		var s float64
		for i := range av {
			d := float64(av[i] - bv[i])
			s += d * d
		}
		out.out()[0] = float32(s / float64(max(n, 1)))
	})
	if err != nil {
		return nil, err
	}
	if g.on {
		inputs := []*Tensor{a, b}
		a, b := share(a), share(b) // the formula reads its own references
		g.attach(ctx, out, "MseLossBackward0", inputs, []*Tensor{a, b}, func(ctx context.Context, nd *node, gr *Tensor) ([]*Tensor, error) {
			r := beginOp(ctx, "aten::mse_loss_backward", gr, a, b, nil)
			defer r.End()
			outs := make([]*Tensor, 2)
			for i, sign := range []float32{1, -1} {
				if !nd.needs(i) {
					continue
				}
				gi, err := newTensor(ctx, a.rt, a.device, a.shape)
				if err != nil {
					return nil, err
				}
				if err := launch(ctx, gi, "openreg::mse_loss_backward_kernel", openreg.KernelWork{Flops: 3 * n, BytesRead: 8*n + 4, BytesWritten: 4 * n}, func() {
					o, av, bv := gi.out(), a.values(), b.values()
					scale := sign * 2 * gr.values()[0] / float32(max(n, 1))
					for j := range o {
						o[j] = scale * (av[j] - bv[j])
					}
				}); err != nil {
					return nil, err
				}
				outs[i] = gi
			}
			return outs, nil
		})
	}
	return out, nil
}
