package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/openreg"
)

// Tensor is a float32 tensor in OpenReg device memory, the op library's value: a shape, strides
// and offset into a Buffer it shares with its views, and the autograd state (RequiresGrad, Grad,
// the node that made it). Ops read a tensor's metadata on the calling goroutine and its data on
// the stream workers. A Tensor is not safe for concurrent mutation: Backward, SetRequiresGrad,
// ZeroGrad and in-place ops must not race with other use of the same tensor.
type Tensor struct {
	rt      *openreg.Runtime
	device  int
	shape   []int64
	strides []int64
	offset  int64
	buf     *openreg.Buffer
	refs    *atomic.Int64 // tensors sharing buf (t and its views); the last release frees it

	released     bool
	requiresGrad bool
	grad         *Tensor
	gradFn       *node // the node that computed it (nil for leaves)
	accum        *node // a leaf's AccumulateGrad node, made on first use
}

func numel(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

func contiguousStrides(shape []int64) []int64 {
	st := make([]int64, len(shape))
	s := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		s *= shape[i]
	}
	return st
}

// Runtime is the tensor's runtime.
func (t *Tensor) Runtime() *openreg.Runtime { return t.rt }

// Device is the tensor's device.
func (t *Tensor) Device() int { return t.device }

// Shape is the tensor's shape; the caller must not modify it.
func (t *Tensor) Shape() []int64 { return t.shape }

// Dim is the number of dimensions.
func (t *Tensor) Dim() int { return len(t.shape) }

// Numel is the number of elements.
func (t *Tensor) Numel() int64 { return numel(t.shape) }

// Buffer is the device memory the tensor views.
func (t *Tensor) Buffer() *openreg.Buffer { return t.buf }

// IsContiguous reports whether the tensor's elements are dense and in row-major order.
func (t *Tensor) IsContiguous() bool {
	want := int64(1)
	for i := len(t.shape) - 1; i >= 0; i-- {
		if t.shape[i] != 1 && t.strides[i] != want {
			return false
		}
		want *= t.shape[i]
	}
	return true
}

// RequiresGrad reports whether gradients flow to the tensor.
func (t *Tensor) RequiresGrad() bool { return t.requiresGrad }

// SetRequiresGrad marks a leaf tensor as a parameter whose gradient Backward accumulates into
// Grad. It returns t. Changing it on a tensor computed by a recorded op is ignored.
func (t *Tensor) SetRequiresGrad(on bool) *Tensor {
	if t.gradFn == nil {
		t.requiresGrad = on
	}
	return t
}

// IsLeaf reports whether the tensor was not computed by an op that records a gradient.
func (t *Tensor) IsLeaf() bool { return t.gradFn == nil }

// Grad is the gradient accumulated by Backward, nil when none.
func (t *Tensor) Grad() *Tensor { return t.grad }

// GradFnName is the name of the autograd node that computed the tensor ("MmBackward0"), "" for
// leaves.
func (t *Tensor) GradFnName() string {
	if t.gradFn == nil {
		return ""
	}
	return t.gradFn.name
}

// String describes the tensor for messages.
func (t *Tensor) String() string {
	return fmt.Sprintf("tensor(shape=%v, device=openreg:%d)", t.shape, t.device)
}

// Release drops the tensor's reference to its buffer; the buffer is freed (and the free
// reported to the profiler with ctx) when its last tensor lets go. Releasing twice is harmless.
// The tensor must not be used afterwards, nor needed by a pending Backward.
func (t *Tensor) Release(ctx context.Context) {
	if t == nil || t.released {
		return
	}
	t.released = true
	if t.refs.Add(-1) == 0 {
		_ = t.rt.Free(ctx, t.buf)
	}
}

// newTensor allocates a contiguous tensor; the allocation is reported on ctx (inside the op that
// is open there) without an aten::empty range of its own, as structured ATen kernels allocate.
func newTensor(ctx context.Context, rt *openreg.Runtime, d int, shape []int64) (*Tensor, error) {
	for _, s := range shape {
		if s < 0 {
			return nil, fmt.Errorf("openreg: negative dimension in shape %v", shape)
		}
	}
	shape = append(make([]int64, 0, len(shape)), shape...) // never nil: a 0-D shape is []
	b, err := rt.Malloc(ctx, d, 4*numel(shape))
	if err != nil {
		return nil, err
	}
	// The tensor and its buffer's reference count in one allocation.
	tr := &struct {
		t    Tensor
		refs atomic.Int64
	}{t: Tensor{rt: rt, device: d, shape: shape, strides: contiguousStrides(shape), buf: b}}
	tr.refs.Store(1)
	tr.t.refs = &tr.refs
	return &tr.t, nil
}

// viewOf is a tensor sharing t's buffer with other geometry.
func viewOf(t *Tensor, shape, strides []int64, offset int64) *Tensor {
	t.refs.Add(1)
	return &Tensor{rt: t.rt, device: t.device, shape: shape, strides: strides, offset: offset, buf: t.buf, refs: t.refs}
}

// share is another reference to t's data and geometry, without autograd state.
func share(t *Tensor) *Tensor { return viewOf(t, t.shape, t.strides, t.offset) }

// values returns the tensor's elements in row-major order. It runs on stream workers (inside
// kernels); a contiguous tensor returns a slice of its buffer, others a gathered copy.
func (t *Tensor) values() []float32 {
	n := numel(t.shape)
	data := t.buf.Float32s()
	if t.IsContiguous() {
		return data[t.offset : t.offset+n]
	}
	out := make([]float32, n)
	idx := make([]int64, len(t.shape))
	for k := range out {
		off := t.offset
		for i, v := range idx {
			off += v * t.strides[i]
		}
		out[k] = data[off]
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < t.shape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return out
}

// out is the writable elements of a contiguous tensor made by newTensor.
func (t *Tensor) out() []float32 { return t.buf.Float32s()[t.offset : t.offset+numel(t.shape)] }

// shapesOf builds the Inputs of an op record: a tensor's shape, or [] for nil (a non-tensor
// argument such as a scalar or a dimension).
func shapesOf(args ...*Tensor) [][]int64 {
	if !orprof.Active() {
		return nil
	}
	out := make([][]int64, len(args))
	for i, a := range args {
		if a != nil {
			out[i] = a.shape
		} else {
			out[i] = []int64{}
		}
	}
	return out
}

// beginOp records an operator without an autograd node.
func beginOp(ctx context.Context, name string, args ...*Tensor) orprof.Range {
	if !orprof.Active() {
		return orprof.Range{}
	}
	return orprof.Begin(ctx, orprof.Op{Name: name, Inputs: shapesOf(args...)})
}

func checkTensors(op string, ts ...*Tensor) error {
	var first *Tensor
	for _, t := range ts {
		if t == nil {
			return fmt.Errorf("openreg: %s: nil tensor", op)
		}
		if t.released {
			return fmt.Errorf("openreg: %s: %v was released", op, t)
		}
		if first == nil {
			first = t
			continue
		}
		if t.rt != first.rt || t.device != first.device {
			return fmt.Errorf("openreg: %s: expected all tensors to be on the same device, found openreg:%d and openreg:%d",
				op, first.device, t.device)
		}
	}
	return nil
}

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// launch enqueues a kernel on ctx's current stream of t's device.
func launch(ctx context.Context, t *Tensor, name string, work openreg.KernelWork, fn func()) error {
	s, err := t.rt.CurrentStreamOn(ctx, t.device)
	if err != nil {
		return err
	}
	return s.LaunchKernel(ctx, name, work, fn)
}

// Empty allocates an uninitialised (in fact zeroed) tensor on device d (aten::empty).
func Empty(ctx context.Context, rt *openreg.Runtime, d int, shape ...int64) (*Tensor, error) {
	r := beginOp(ctx, "aten::empty", nil, nil, nil, nil, nil, nil) // sizes and options: no tensor inputs
	defer r.End()
	return newTensor(ctx, rt, d, shape)
}

// Zeros allocates a zero tensor on device d (aten::zeros: aten::empty then aten::zero_, a memset
// on the current stream).
func Zeros(ctx context.Context, rt *openreg.Runtime, d int, shape ...int64) (*Tensor, error) {
	r := beginOp(ctx, "aten::zeros", nil, nil, nil, nil, nil)
	defer r.End()
	t, err := Empty(ctx, rt, d, shape...)
	if err != nil {
		return nil, err
	}
	return t, zero(ctx, t)
}

// zero is aten::zero_ on a contiguous tensor.
func zero(ctx context.Context, t *Tensor) error {
	r := beginOp(ctx, "aten::zero_", t)
	defer r.End()
	s, err := t.rt.CurrentStreamOn(ctx, t.device)
	if err != nil {
		return err
	}
	return t.rt.MemsetAsync(ctx, t.buf, 0, t.buf.Size(), s)
}

// Full allocates a tensor filled with v (aten::full: aten::empty then aten::fill_).
func Full(ctx context.Context, rt *openreg.Runtime, d int, v float32, shape ...int64) (*Tensor, error) {
	r := beginOp(ctx, "aten::full", nil, nil, nil, nil, nil, nil)
	defer r.End()
	t, err := Empty(ctx, rt, d, shape...)
	if err != nil {
		return nil, err
	}
	return t, fill(ctx, t, v)
}

func fill(ctx context.Context, t *Tensor, v float32) error {
	r := beginOp(ctx, "aten::fill_", t, nil)
	defer r.End()
	n := t.Numel()
	return launch(ctx, t, "openreg::fill_kernel", openreg.KernelWork{BytesWritten: 4 * n}, func() {
		o := t.out()
		for i := range o {
			o[i] = v
		}
	})
}

// OnesLike is a tensor of ones shaped like t (aten::ones_like: aten::empty_like, aten::fill_).
func OnesLike(ctx context.Context, t *Tensor) (*Tensor, error) {
	if err := checkTensors("ones_like", t); err != nil {
		return nil, err
	}
	r := beginOp(ctx, "aten::ones_like", t, nil, nil, nil, nil, nil)
	defer r.End()
	o, err := emptyLike(ctx, t)
	if err != nil {
		return nil, err
	}
	return o, fill(ctx, o, 1)
}

func emptyLike(ctx context.Context, t *Tensor) (*Tensor, error) {
	r := beginOp(ctx, "aten::empty_like", t, nil, nil, nil, nil, nil)
	defer r.End()
	return emptyStrided(ctx, t.rt, t.device, t.shape)
}

func emptyStrided(ctx context.Context, rt *openreg.Runtime, d int, shape []int64) (*Tensor, error) {
	r := beginOp(ctx, "aten::empty_strided", nil, nil, nil, nil, nil, nil)
	defer r.End()
	return newTensor(ctx, rt, d, shape)
}

// Uniform allocates a tensor on device d filled with values uniform in [lo, hi) from a PCG
// generator seeded with seed (aten::empty then aten::uniform_, a kernel): the same seed gives
// the same values.
func Uniform(ctx context.Context, rt *openreg.Runtime, d int, lo, hi float32, seed uint64, shape ...int64) (*Tensor, error) {
	t, err := Empty(ctx, rt, d, shape...)
	if err != nil {
		return nil, err
	}
	r := beginOp(ctx, "aten::uniform_", t, nil, nil, nil)
	defer r.End()
	n := t.Numel()
	return t, launch(ctx, t, "openreg::uniform_kernel", openreg.KernelWork{Flops: 2 * n, BytesWritten: 4 * n}, func() {
		g := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		o := t.out()
		for i := range o {
			o[i] = lo + (hi-lo)*g.Float32()
		}
	})
}

// FromSlice copies host data into a new tensor on device d (torch.tensor(data).to(device):
// aten::to, aten::_to_copy, aten::empty_strided, aten::copy_ with a synchronous host-to-device
// copy on the current stream). len(data) must equal the shape's element count; data is not
// retained.
func FromSlice(ctx context.Context, rt *openreg.Runtime, d int, data []float32, shape ...int64) (*Tensor, error) {
	if int64(len(data)) != numel(shape) {
		return nil, fmt.Errorf("openreg: FromSlice: %d values for shape %v", len(data), shape)
	}
	host := rt.HostBuffer(data)
	hostT := &Tensor{rt: rt, device: openreg.HostDevice, shape: shape, strides: contiguousStrides(shape), buf: host}
	r := beginOp(ctx, "aten::to", hostT, nil, nil, nil, nil, nil, nil, nil)
	defer r.End()
	r2 := beginOp(ctx, "aten::_to_copy", hostT, nil, nil, nil, nil, nil, nil)
	defer r2.End()
	t, err := emptyStrided(ctx, rt, d, shape)
	if err != nil {
		return nil, err
	}
	r3 := beginOp(ctx, "aten::copy_", t, hostT, nil)
	defer r3.End()
	return t, rt.Memcpy(ctx, t.buf, host, host.Size())
}

// ToHost copies the tensor's elements, row-major, to a new host slice (tensor.cpu(): aten::to,
// aten::_to_copy, aten::empty_strided, aten::copy_). It waits for the work queued before it on
// ctx's current stream of the tensor's device; work the tensor depends on elsewhere must be
// joined to that stream first (events).
func (t *Tensor) ToHost(ctx context.Context) ([]float32, error) {
	if err := checkTensors("to", t); err != nil {
		return nil, err
	}
	r := beginOp(ctx, "aten::to", t, nil, nil, nil, nil, nil, nil, nil)
	defer r.End()
	r2 := beginOp(ctx, "aten::_to_copy", t, nil, nil, nil, nil, nil, nil)
	defer r2.End()
	src, err := dense(ctx, t)
	if err != nil {
		return nil, err
	}
	defer src.Release(ctx)
	n := src.Numel()
	r3 := beginOp(ctx, "aten::empty_strided", nil, nil, nil, nil, nil, nil)
	out := make([]float32, n)
	r3.End()
	r4 := beginOp(ctx, "aten::copy_", t, t, nil)
	defer r4.End()
	host := t.rt.HostBuffer(out)
	return out, t.rt.Memcpy(ctx, host, src.buf, 4*n)
}

// dense is a reference to t's elements in a buffer of their own, in row-major order from
// offset 0 (what a whole-buffer copy needs): t itself when it is laid out so, else a copy.
func dense(ctx context.Context, t *Tensor) (*Tensor, error) {
	if t.IsContiguous() && t.offset == 0 {
		return share(t), nil
	}
	return Contiguous(ctx, t)
}

// Item copies a one-element tensor to the host (tensor.item(): aten::item,
// aten::_local_scalar_dense), waiting like ToHost.
func (t *Tensor) Item(ctx context.Context) (float32, error) {
	if err := checkTensors("item", t); err != nil {
		return 0, err
	}
	if t.Numel() != 1 {
		return 0, fmt.Errorf("openreg: item: a tensor with %d elements cannot be converted to a scalar", t.Numel())
	}
	r := beginOp(ctx, "aten::item", t)
	defer r.End()
	r2 := beginOp(ctx, "aten::_local_scalar_dense", t)
	defer r2.End()
	var v [1]float32
	host := t.rt.HostBuffer(v[:])
	elem := t.buf.View(t.offset, 1)
	err := t.rt.Memcpy(ctx, host, elem, 4)
	return v[0], err
}

// To copies the tensor to device d (tensor.to("openreg:d"): aten::to, aten::_to_copy,
// aten::empty_strided, aten::copy_). The copy runs on ctx's current stream of d after that
// stream waits for an event recorded on the source device's current stream, and the source
// stream then waits for the copy, so both sides stay ordered. It never blocks. On the same
// device it returns t itself. Gradients flow back (ToCopyBackward0).
func To(ctx context.Context, t *Tensor, d int) (*Tensor, error) {
	if err := checkTensors("to", t); err != nil {
		return nil, err
	}
	if d == t.device {
		return t, nil
	}
	if err := t.rt.CheckDevice("to", d); err != nil {
		return nil, err
	}
	g := gradFor(ctx, t)
	r := beginGradOp(ctx, "aten::to", g, t, nil, nil, nil, nil, nil, nil, nil)
	defer r.End()
	r2 := beginOp(ctx, "aten::_to_copy", t, nil, nil, nil, nil, nil, nil)
	defer r2.End()
	src, err := dense(ctx, t)
	if err != nil {
		return nil, err
	}
	defer src.Release(ctx)
	out, err := emptyStrided(ctx, t.rt, d, t.shape)
	if err != nil {
		return nil, err
	}
	r3 := beginOp(ctx, "aten::copy_", out, t, nil)
	defer r3.End()
	rt := t.rt
	from, err := rt.CurrentStreamOn(ctx, t.device)
	if err != nil {
		return nil, err
	}
	to, err := rt.CurrentStreamOn(ctx, d)
	if err != nil {
		return nil, err
	}
	ready, err := rt.NewEvent(t.device, false)
	if err != nil {
		return nil, err
	}
	if err := ready.RecordOn(from); err != nil {
		return nil, err
	}
	if err := to.WaitEvent(ready); err != nil {
		return nil, err
	}
	if err := rt.MemcpyAsync(ctx, out.buf, src.buf, out.buf.Size(), to); err != nil {
		return nil, err
	}
	done, err := rt.NewEvent(d, false)
	if err != nil {
		return nil, err
	}
	if err := done.RecordOn(to); err != nil {
		return nil, err
	}
	if err := from.WaitEvent(done); err != nil {
		return nil, err
	}
	if g.on {
		srcDev := t.device
		g.attach(ctx, out, "ToCopyBackward0", []*Tensor{t}, nil, func(ctx context.Context, n *node, gr *Tensor) ([]*Tensor, error) {
			back, err := To(ctx, gr, srcDev)
			if back == gr {
				back = share(gr)
			}
			return []*Tensor{back}, err
		})
	}
	return out, nil
}

// Contiguous returns t when it is contiguous, otherwise a dense copy (aten::contiguous:
// aten::clone, aten::empty_like, aten::copy_).
func Contiguous(ctx context.Context, t *Tensor) (*Tensor, error) {
	if err := checkTensors("contiguous", t); err != nil {
		return nil, err
	}
	if t.IsContiguous() {
		return share(t), nil
	}
	r := beginOp(ctx, "aten::contiguous", t, nil)
	defer r.End()
	return clone(ctx, t)
}

func clone(ctx context.Context, t *Tensor) (*Tensor, error) {
	r := beginOp(ctx, "aten::clone", t, nil)
	defer r.End()
	out, err := emptyLike(ctx, t)
	if err != nil {
		return nil, err
	}
	return out, copyInto(ctx, out, t)
}

// copyInto is aten::copy_ of src's elements into the contiguous dst on dst's device.
func copyInto(ctx context.Context, dst, src *Tensor) error {
	r := beginOp(ctx, "aten::copy_", dst, src, nil)
	defer r.End()
	n := dst.Numel()
	return launch(ctx, dst, "openreg::copy_kernel", openreg.KernelWork{BytesRead: 4 * n, BytesWritten: 4 * n}, func() {
		copy(dst.out(), src.values())
	})
}
