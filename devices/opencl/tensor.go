package opencl

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/devices"
)

// Tensor is a float32 tensor in an OpenCL buffer: a shape, strides and an element offset over
// a reference-counted cl_mem that views share. Ops read and write it on the device; ToHost and
// Item copy it back. A Tensor is used by one goroutine at a time.
type Tensor struct {
	rt      *Runtime
	dev     *Device
	buf     *buffer
	shape   []int64
	strides []int64
	offset  int64

	requiresGrad bool
	grad         *Tensor
}

// buffer is one cl_mem and the number of tensors that use it.
type buffer struct {
	mem   uintptr
	bytes int64
	refs  atomic.Int32
}

// Shape is the tensor's shape (do not modify).
func (t *Tensor) Shape() []int64 { return t.shape }

// Device is the index of the tensor's device.
func (t *Tensor) Device() int { return t.dev.Index }

// Numel is the number of elements.
func (t *Tensor) Numel() int64 { return numel(t.shape) }

// Grad is the gradient accumulated by Backward, nil when none.
func (t *Tensor) Grad() *Tensor { return t.grad }

// SetRequiresGrad marks a leaf tensor as a parameter whose gradient Backward computes.
func (t *Tensor) SetRequiresGrad(on bool) *Tensor { t.requiresGrad = on; return t }

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

func (t *Tensor) isContiguous() bool {
	want := contiguousStrides(t.shape)
	for i := range want {
		if t.shape[i] != 1 && t.strides[i] != want[i] {
			return false
		}
	}
	return true
}

// alloc makes a contiguous tensor of shape on device d of rt (clCreateBuffer), recording the
// allocation for profile_memory.
func (rt *Runtime) alloc(ctx context.Context, d int, shape []int64) (*Tensor, error) {
	dev, err := rt.Device(d)
	if err != nil {
		return nil, err
	}
	bytes := 4 * max(numel(shape), 1)
	l := rt.cl
	var code int32
	mem := l.call(l.createBuffer, dev.Platform.context, clMemReadWrite, uintptr(bytes), 0, uintptr(unsafe.Pointer(&code)))
	if err := checkCode("clCreateBuffer", code); err != nil {
		return nil, fmt.Errorf("opencl: allocating %d bytes on device %d: %w", bytes, d, err)
	}
	b := &buffer{mem: mem, bytes: bytes}
	b.refs.Store(1)
	orprof.RecordMemory(ctx, bytes, devices.PrivateUse1)
	sh := append([]int64(nil), shape...)
	return &Tensor{rt: rt, dev: dev, buf: b, shape: sh, strides: contiguousStrides(sh)}, nil
}

// share is another reference to t's data and layout, without autograd state.
func share(t *Tensor) *Tensor {
	t.buf.refs.Add(1)
	return &Tensor{rt: t.rt, dev: t.dev, buf: t.buf, shape: t.shape, strides: t.strides, offset: t.offset}
}

// viewOf is a view of t's buffer with another layout.
func viewOf(t *Tensor, shape, strides []int64, offset int64) *Tensor {
	t.buf.refs.Add(1)
	return &Tensor{rt: t.rt, dev: t.dev, buf: t.buf, shape: shape, strides: strides, offset: offset}
}

// Release drops this reference to the tensor's buffer; the last one frees it
// (clReleaseMemObject: OpenCL keeps it until commands already queued on it have finished).
// Releasing twice is a no-op.
func (t *Tensor) Release(ctx context.Context) {
	if t == nil || t.buf == nil {
		return
	}
	b := t.buf
	t.buf = nil
	if b.refs.Add(-1) == 0 {
		orprof.RecordMemory(ctx, -b.bytes, devices.PrivateUse1)
		t.rt.cl.call(t.rt.cl.releaseMem, b.mem)
	}
}

func shapesOf(ts ...*Tensor) [][]int64 {
	out := make([][]int64, len(ts))
	for i, t := range ts {
		if t == nil {
			out[i] = []int64{}
		} else {
			out[i] = t.shape
		}
	}
	return out
}

// beginOp records an ATen-style op with its inputs' shapes (nil inputs are scalars or options).
func beginOp(ctx context.Context, name string, args ...*Tensor) orprof.Range {
	if !orprof.Active() {
		return orprof.Range{}
	}
	return orprof.Begin(ctx, orprof.Op{Name: name, Inputs: shapesOf(args...)})
}

// write copies host data into t's buffer (clEnqueueWriteBuffer, blocking: data may be reused
// when it returns). t must be contiguous.
func (t *Tensor) write(ctx context.Context, data []float32) error {
	st, err := t.rt.streamOn(ctx, t.dev)
	if err != nil {
		return err
	}
	l := t.rt.cl
	n := int64(len(data))
	if n == 0 {
		return nil
	}
	return t.rt.launch(ctx, st, ActivityMemcpy, "Memcpy HtoD", "clEnqueueWriteBuffer", 4*n, func(ev *uintptr) uintptr {
		return l.call(l.enqueueWrite, st.queue, t.buf.mem, 1, uintptr(4*t.offset), uintptr(4*n),
			uintptr(unsafe.Pointer(&data[0])), 0, 0, uintptr(unsafe.Pointer(ev)))
	})
}

// read copies a contiguous tensor's elements to the host (clEnqueueReadBuffer, blocking).
func (t *Tensor) read(ctx context.Context) ([]float32, error) {
	st, err := t.rt.streamOn(ctx, t.dev)
	if err != nil {
		return nil, err
	}
	l := t.rt.cl
	n := t.Numel()
	out := make([]float32, max(n, 1))
	err = t.rt.launch(ctx, st, ActivityMemcpy, "Memcpy DtoH", "clEnqueueReadBuffer", 4*n, func(ev *uintptr) uintptr {
		return l.call(l.enqueueRead, st.queue, t.buf.mem, 1, uintptr(4*t.offset), uintptr(4*max(n, 1)),
			uintptr(unsafe.Pointer(&out[0])), 0, 0, uintptr(unsafe.Pointer(ev)))
	})
	return out[:n], err
}

// fill sets every element of a contiguous tensor to v (clEnqueueFillBuffer: a memset).
func (t *Tensor) fill(ctx context.Context, v float32) error {
	st, err := t.rt.streamOn(ctx, t.dev)
	if err != nil {
		return err
	}
	l := t.rt.cl
	n := max(t.Numel(), 1)
	pattern := v
	return t.rt.launch(ctx, st, ActivityMemset, "Memset", "clEnqueueFillBuffer", 4*n, func(ev *uintptr) uintptr {
		return l.call(l.enqueueFill, st.queue, t.buf.mem, uintptr(unsafe.Pointer(&pattern)), 4, uintptr(4*t.offset),
			uintptr(4*n), 0, 0, uintptr(unsafe.Pointer(ev)))
	})
}

// streamOn is ctx's stream when it is on dev, else dev's default stream.
func (rt *Runtime) streamOn(ctx context.Context, dev *Device) (*Stream, error) {
	if ctx != nil {
		if s, ok := ctx.Value(streamKey{}).(*Stream); ok && s.device == dev {
			return s, nil
		}
	}
	return rt.DefaultStream(dev.Index)
}

// ToHost copies the tensor's elements to the host in row-major order, waiting for the work
// queued before it. Views are gathered on the host.
func (t *Tensor) ToHost(ctx context.Context) ([]float32, error) {
	if t.buf == nil {
		return nil, fmt.Errorf("opencl: ToHost of a released tensor")
	}
	if t.isContiguous() {
		return t.read(ctx)
	}
	whole := &Tensor{rt: t.rt, dev: t.dev, buf: t.buf, shape: []int64{t.buf.bytes / 4}, strides: []int64{1}}
	all, err := whole.read(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]float32, t.Numel())
	idx := make([]int64, len(t.shape))
	for i := range out {
		off := t.offset
		for k, v := range idx {
			off += v * t.strides[k]
		}
		out[i] = all[off]
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < t.shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out, nil
}

// rng is a small deterministic generator (splitmix64) for initial values.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// uniformValues are n values uniform in [lo, hi) from seed.
func uniformValues(n int64, lo, hi float32, seed uint64) []float32 {
	r := rng(seed)
	out := make([]float32, n)
	for i := range out {
		u := float32(r.next()>>40) / float32(1<<24)
		out[i] = lo + (hi-lo)*u
	}
	return out
}

// Uniform is a new tensor of shape on device d with values uniform in [lo, hi) from seed
// (aten::empty, then aten::uniform_). The values are drawn on the host and copied to the device.
func Uniform(ctx context.Context, rt *Runtime, d int, lo, hi float32, seed uint64, shape ...int64) (*Tensor, error) {
	r := beginOp(ctx, "aten::empty", nil, nil, nil, nil, nil, nil)
	t, err := rt.alloc(ctx, d, shape)
	r.End()
	if err != nil {
		return nil, err
	}
	r2 := beginOp(ctx, "aten::uniform_", t, nil, nil, nil)
	defer r2.End()
	if err := t.write(ctx, uniformValues(t.Numel(), lo, hi, seed)); err != nil {
		t.Release(ctx)
		return nil, err
	}
	return t, nil
}

// FromSlice copies host data of shape to device d (aten::to, aten::_to_copy, aten::empty_strided,
// aten::copy_).
func FromSlice(ctx context.Context, rt *Runtime, d int, data []float32, shape ...int64) (*Tensor, error) {
	if numel(shape) != int64(len(data)) {
		return nil, fmt.Errorf("opencl: from slice: %d values do not fill shape %v", len(data), shape)
	}
	host := &Tensor{shape: shape}
	r := beginOp(ctx, "aten::to", host, nil, nil, nil, nil, nil, nil, nil)
	defer r.End()
	r2 := beginOp(ctx, "aten::_to_copy", host, nil, nil, nil, nil, nil, nil)
	defer r2.End()
	r3 := beginOp(ctx, "aten::empty_strided", nil, nil, nil, nil, nil, nil)
	t, err := rt.alloc(ctx, d, shape)
	r3.End()
	if err != nil {
		return nil, err
	}
	r4 := beginOp(ctx, "aten::copy_", t, host, nil)
	defer r4.End()
	if err := t.write(ctx, data); err != nil {
		t.Release(ctx)
		return nil, err
	}
	return t, nil
}

// Item reads a one-element tensor (aten::item, aten::_local_scalar_dense), waiting for the work
// queued before it.
func (t *Tensor) Item(ctx context.Context) (float32, error) {
	if t.Numel() != 1 {
		return 0, fmt.Errorf("opencl: item: tensor of shape %v has %d elements, want 1", t.shape, t.Numel())
	}
	r := beginOp(ctx, "aten::item", t)
	defer r.End()
	r2 := beginOp(ctx, "aten::_local_scalar_dense", t)
	defer r2.End()
	v, err := t.ToHost(ctx)
	if err != nil {
		return float32(math.NaN()), err
	}
	return v[0], nil
}
