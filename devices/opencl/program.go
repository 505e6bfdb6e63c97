package opencl

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// kernelSource is the OpenCL C of every kernel the op library launches. It is compiled at run
// time, once per platform, by the platform's own compiler (pocl: clang/LLVM). Tensors are
// float32; views pass an element offset and strides, results are contiguous.
const kernelSource = `
__kernel void gemm_f32(int M, int N, int K,
		__global const float* A, int aOff, int as0, int as1,
		__global const float* B, int bOff, int bs0, int bs1,
		__global float* C, int accumulate) {
	int i = get_global_id(0), j = get_global_id(1);
	if (i >= M || j >= N) return;
	float acc = accumulate ? C[i*N + j] : 0.0f;
	for (int p = 0; p < K; p++)
		acc += A[aOff + i*as0 + p*as1] * B[bOff + p*bs0 + j*bs1];
	C[i*N + j] = acc;
}

__kernel void copy_2d_f32(int rows, int cols, __global const float* src, int off, int s0, int s1,
		__global float* dst) {
	int i = get_global_id(0), j = get_global_id(1);
	if (i >= rows || j >= cols) return;
	dst[i*cols + j] = src[off + i*s0 + j*s1];
}

__kernel void clamp_min_f32(int n, __global const float* x, __global float* out, float lo) {
	int i = get_global_id(0);
	if (i < n) out[i] = fmax(x[i], lo);
}

__kernel void threshold_backward_f32(int n, __global const float* g, __global const float* y,
		__global float* out) {
	int i = get_global_id(0);
	if (i < n) out[i] = y[i] > 0.0f ? g[i] : 0.0f;
}

__kernel void log_softmax_f32(int rows, int cols, __global const float* x, __global float* out) {
	int i = get_global_id(0);
	if (i >= rows) return;
	__global const float* r = x + i*cols;
	float mx = -INFINITY;
	for (int j = 0; j < cols; j++) mx = fmax(mx, r[j]);
	float s = 0.0f;
	for (int j = 0; j < cols; j++) s += exp(r[j] - mx);
	float ls = log(s);
	for (int j = 0; j < cols; j++) out[i*cols + j] = r[j] - mx - ls;
}

__kernel void log_softmax_backward_data_f32(int rows, int cols, __global const float* g,
		__global const float* y, __global float* out) {
	int i = get_global_id(0);
	if (i >= rows) return;
	float s = 0.0f;
	for (int j = 0; j < cols; j++) s += g[i*cols + j];
	for (int j = 0; j < cols; j++) out[i*cols + j] = g[i*cols + j] - exp(y[i*cols + j]) * s;
}

__kernel void nll_loss_forward_f32(int rows, int cols, __global const float* logp,
		__global const float* target, __global float* out) {
	if (get_global_id(0) != 0) return;
	float s = 0.0f;
	for (int i = 0; i < rows; i++) s -= logp[i*cols + (int)target[i]];
	out[0] = s / (float)max(rows, 1);
}

__kernel void nll_loss_backward_f32(int rows, int cols, __global const float* grad,
		__global const float* target, __global float* out) {
	int i = get_global_id(0);
	if (i < rows) out[i*cols + (int)target[i]] = -grad[0] / (float)max(rows, 1);
}

__kernel void sum_dim0_f32(int rows, int cols, __global const float* x, __global float* out) {
	int j = get_global_id(0);
	if (j >= cols) return;
	float s = 0.0f;
	for (int i = 0; i < rows; i++) s += x[i*cols + j];
	out[j] = s;
}

__kernel void add_scaled_f32(int n, __global float* a, __global const float* b, float alpha) {
	int i = get_global_id(0);
	if (i < n) a[i] += alpha * b[i];
}
`

// kernelNames are the kernels of kernelSource, created for every program.
var kernelNames = []string{"gemm_f32", "copy_2d_f32", "clamp_min_f32", "threshold_backward_f32",
	"log_softmax_f32", "log_softmax_backward_data_f32", "nll_loss_forward_f32", "nll_loss_backward_f32",
	"sum_dim0_f32", "add_scaled_f32"}

// program is kernelSource built for one platform's devices.
type program struct {
	handle  uintptr
	kernels map[string]*kernel
}

// kernel is one cl_kernel. Its arguments are state of the kernel object, so setting them and
// enqueueing is done under mu.
type kernel struct {
	name   string
	handle uintptr
	mu     sync.Mutex
}

func (p *program) release(l *lib) {
	for _, k := range p.kernels {
		l.call(l.releaseKernel, k.handle)
	}
	if p.handle != 0 {
		l.call(l.releaseProgram, p.handle)
	}
}

// programFor returns the program for d's platform, building it on first use.
func (rt *Runtime) programFor(d *Device) (*program, error) {
	rt.progMu.Lock()
	defer rt.progMu.Unlock()
	if p, ok := rt.progs[d.Platform]; ok {
		return p, nil
	}
	p, err := rt.build(d.Platform)
	if err != nil {
		return nil, err
	}
	rt.progs[d.Platform] = p
	return p, nil
}

func (rt *Runtime) build(pl *Platform) (*program, error) {
	l := rt.cl
	src := append([]byte(kernelSource), 0)
	var pin runtime.Pinner // src is reached only through srcPtr during the call
	pin.Pin(&src[0])
	defer pin.Unpin()
	srcPtr := uintptr(unsafe.Pointer(&src[0]))
	length := uintptr(len(kernelSource))
	var code int32
	h := l.call(l.createProgram, pl.context, 1, uintptr(unsafe.Pointer(&srcPtr)), uintptr(unsafe.Pointer(&length)), uintptr(unsafe.Pointer(&code)))
	if err := checkCode("clCreateProgramWithSource", code); err != nil {
		return nil, err
	}
	p := &program{handle: h, kernels: map[string]*kernel{}}
	var ids []uintptr
	for _, d := range rt.devs {
		if d.Platform == pl {
			ids = append(ids, d.id)
		}
	}
	opts := []byte("\x00")
	if err := check("clBuildProgram", l.call(l.buildProgram, h, uintptr(len(ids)), uintptr(unsafe.Pointer(&ids[0])),
		uintptr(unsafe.Pointer(&opts[0])), 0, 0)); err != nil {
		var logs []string
		for _, id := range ids {
			if s, lerr := l.infoStringArgs(l.getBuildInfo, "clGetProgramBuildInfo", h, id, clProgramBuildLog); lerr == nil && strings.TrimSpace(s) != "" {
				logs = append(logs, strings.TrimSpace(s))
			}
		}
		p.release(l)
		if len(logs) > 0 {
			return nil, fmt.Errorf("%w: %s", err, strings.Join(logs, "; "))
		}
		return nil, err
	}
	for _, name := range kernelNames {
		cname := append([]byte(name), 0)
		k := l.call(l.createKernel, h, uintptr(unsafe.Pointer(&cname[0])), uintptr(unsafe.Pointer(&code)))
		if err := checkCode("clCreateKernel", code); err != nil {
			p.release(l)
			return nil, fmt.Errorf("kernel %s: %w", name, err)
		}
		p.kernels[name] = &kernel{name: name, handle: k}
	}
	return p, nil
}

// infoStringArgs is infoString for queries with two object arguments (clGetProgramBuildInfo).
func (l *lib) infoStringArgs(fn uintptr, call string, obj, obj2 uintptr, param uint32) (string, error) {
	var size uintptr
	if err := check(call, l.call(fn, obj, obj2, uintptr(param), 0, 0, uintptr(unsafe.Pointer(&size)))); err != nil {
		return "", err
	}
	if size == 0 {
		return "", nil
	}
	buf := make([]byte, size)
	if err := check(call, l.call(fn, obj, obj2, uintptr(param), size, uintptr(unsafe.Pointer(&buf[0])), 0)); err != nil {
		return "", err
	}
	return strings.TrimRight(string(buf), "\x00"), nil
}

// arg is one kernel argument: a buffer, an int or a float.
type arg struct {
	mem uintptr
	i   int32
	f   float32
	typ byte // 'm', 'i', 'f'
}

func memArg(m uintptr) arg   { return arg{mem: m, typ: 'm'} }
func intArg(v int64) arg     { return arg{i: int32(v), typ: 'i'} }
func floatArg(v float32) arg { return arg{f: v, typ: 'f'} }
func boolArg(v bool) arg {
	if v {
		return intArg(1)
	}
	return intArg(0)
}

// setArgs sets k's arguments; k.mu is held.
func (l *lib) setArgs(k *kernel, args []arg) error {
	for i := range args {
		a := &args[i]
		var code uintptr
		switch a.typ {
		case 'm':
			code = l.call(l.setKernelArg, k.handle, uintptr(i), 8, uintptr(unsafe.Pointer(&a.mem)))
		case 'i':
			code = l.call(l.setKernelArg, k.handle, uintptr(i), 4, uintptr(unsafe.Pointer(&a.i)))
		case 'f':
			code = l.call(l.setKernelArg, k.handle, uintptr(i), 4, uintptr(unsafe.Pointer(&a.f)))
		}
		if err := check("clSetKernelArg", code); err != nil {
			return fmt.Errorf("%s argument %d: %w", k.name, i, err)
		}
	}
	return nil
}
