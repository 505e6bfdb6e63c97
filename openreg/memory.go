package openreg

import (
	"context"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/devices"
)

// HostDevice is the Device of host (page-locked) buffers from MallocHost.
const HostDevice = -1

// Buffer is a block of simulated device memory (or host memory from MallocHost): host memory in
// fact, viewed as float32s or bytes. Only kernels and copies ordered after the work that writes
// it — by stream order, events or a synchronize — may read or write a device buffer's contents;
// the host should go through Memcpy. Free releases it for accounting; the Go memory stays valid
// while referenced, so a late kernel never faults.
type Buffer struct {
	rt     *Runtime
	device int
	size   int64
	data   []float32
	freed  atomic.Bool
}

// Device is the buffer's device, HostDevice for host memory.
func (b *Buffer) Device() int { return b.device }

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int64 { return b.size }

// Float32s views the buffer as size/4 float32s.
func (b *Buffer) Float32s() []float32 { return b.data[:b.size/4] }

// Bytes views the buffer as size bytes.
func (b *Buffer) Bytes() []byte {
	if b.size == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&b.data[0])), b.size)
}

// Freed reports whether Free was called on the buffer.
func (b *Buffer) Freed() bool { return b.freed.Load() }

// String describes the buffer for messages.
func (b *Buffer) String() string {
	if b.device == HostDevice {
		return fmt.Sprintf("host buffer of %d bytes", b.size)
	}
	return fmt.Sprintf("buffer of %d bytes on device %d", b.size, b.device)
}

// HostBuffer wraps data as host memory of rt (size 4·len(data)) without allocating or accounting
// it, as registering existing host memory does: the source or destination of a copy from or to
// a Go slice. It must not be freed.
func (rt *Runtime) HostBuffer(data []float32) *Buffer {
	return &Buffer{rt: rt, device: HostDevice, size: 4 * int64(len(data)), data: data}
}

// View is a buffer aliasing n float32s of b from float32 offset off: the same device and memory,
// not accounted on its own, so it must not be freed. It is how one element of a device buffer
// is copied to the host. off and n must lie within b.
func (b *Buffer) View(off, n int64) *Buffer {
	return &Buffer{rt: b.rt, device: b.device, size: 4 * n, data: b.data[off : off+n]}
}

// MemoryStats is a device's byte accounting.
type MemoryStats struct {
	// Allocated is the bytes allocated and not yet freed; Peak its maximum since the runtime was
	// made or the peak was reset.
	Allocated, Peak int64
	// Allocs and Frees count the calls.
	Allocs, Frees int64
}

func newData(bytes int64) []float32 { return make([]float32, (bytes+3)/4) }

// Malloc allocates bytes of device memory on device d (orMalloc), zero-filled. With a non-nil
// ctx the allocation is reported to the profiler (orprof.RecordMemory on PrivateUse1). It never
// blocks on device work.
func (rt *Runtime) Malloc(ctx context.Context, d int, bytes int64) (*Buffer, error) {
	dv, err := rt.dev("Malloc", d)
	if err != nil {
		return nil, err
	}
	if bytes < 0 {
		return nil, unknown("Malloc", "size %d is negative", bytes)
	}
	b := &Buffer{rt: rt, device: d, size: bytes, data: newData(bytes)}
	dv.mu.Lock()
	m := &dv.mem
	m.Allocated += bytes
	m.Allocs++
	if m.Allocated > m.Peak {
		m.Peak = m.Allocated
	}
	dv.mu.Unlock()
	if ctx != nil {
		orprof.RecordMemory(ctx, bytes, devices.PrivateUse1)
	}
	return b, nil
}

// MallocHost allocates bytes of page-locked host memory (orMallocHost). With a non-nil ctx the
// allocation is reported to the profiler as CPU memory.
func (rt *Runtime) MallocHost(ctx context.Context, bytes int64) (*Buffer, error) {
	if bytes < 0 {
		return nil, unknown("MallocHost", "size %d is negative", bytes)
	}
	if ctx != nil {
		orprof.RecordMemory(ctx, bytes, devices.CPU)
	}
	return &Buffer{rt: rt, device: HostDevice, size: bytes, data: newData(bytes)}, nil
}

// Free releases a buffer from Malloc or MallocHost (orFree/orFreeHost). It does not wait for
// queued work that uses the buffer (that work still sees valid memory). Freeing twice, a nil
// buffer or another runtime's buffer is an error. With a non-nil ctx the free is reported to the
// profiler.
func (rt *Runtime) Free(ctx context.Context, b *Buffer) error {
	if b == nil {
		return unknown("Free", "nil buffer")
	}
	if b.rt != rt {
		return unknown("Free", "%v belongs to another runtime", b)
	}
	if b.freed.Swap(true) {
		return unknown("Free", "%v was already freed", b)
	}
	typ := devices.CPU
	if b.device != HostDevice {
		typ = devices.PrivateUse1
		dv := rt.devs[b.device]
		dv.mu.Lock()
		dv.mem.Allocated -= b.size
		dv.mem.Frees++
		dv.mu.Unlock()
	}
	if ctx != nil {
		orprof.RecordMemory(ctx, -b.size, typ)
	}
	return nil
}

// MemoryStats returns device d's byte accounting. It never blocks on device work.
func (rt *Runtime) MemoryStats(d int) (MemoryStats, error) {
	if err := rt.checkDevice("MemoryStats", d); err != nil {
		return MemoryStats{}, err
	}
	dv := rt.devs[d]
	dv.mu.Lock()
	defer dv.mu.Unlock()
	return dv.mem, nil
}

// ResetPeakMemory sets device d's peak to its current allocation.
func (rt *Runtime) ResetPeakMemory(d int) error {
	if err := rt.checkDevice("ResetPeakMemory", d); err != nil {
		return err
	}
	dv := rt.devs[d]
	dv.mu.Lock()
	dv.mem.Peak = dv.mem.Allocated
	dv.mu.Unlock()
	return nil
}

// MemcpyKind is the direction of a copy (orMemcpyKind).
type MemcpyKind int

// The copy directions, with OpenReg's values.
const (
	HostToHost     MemcpyKind = 0
	HostToDevice   MemcpyKind = 1
	DeviceToHost   MemcpyKind = 2
	DeviceToDevice MemcpyKind = 3
)

// String is the copy's activity name suffix, as CUDA traces spell it: "HtoD", "DtoH", ….
func (k MemcpyKind) String() string {
	switch k {
	case HostToHost:
		return "HtoH"
	case HostToDevice:
		return "HtoD"
	case DeviceToHost:
		return "DtoH"
	case DeviceToDevice:
		return "DtoD"
	}
	return "unknown"
}

func copyKind(dst, src *Buffer) MemcpyKind {
	switch {
	case dst.device == HostDevice && src.device == HostDevice:
		return HostToHost
	case src.device == HostDevice:
		return HostToDevice
	case dst.device == HostDevice:
		return DeviceToHost
	}
	return DeviceToDevice
}

func (rt *Runtime) checkCopy(op string, dst, src *Buffer, bytes int64) error {
	switch {
	case dst == nil || src == nil:
		return unknown(op, "nil buffer")
	case dst.rt != rt || src.rt != rt:
		return unknown(op, "buffer belongs to another runtime")
	case bytes < 0 || bytes > dst.size || bytes > src.size:
		return unknown(op, "copy of %d bytes from %v to %v", bytes, src, dst)
	case dst.Freed() || src.Freed():
		return unknown(op, "buffer was freed")
	}
	return nil
}

// copyStream picks the stream of a copy that names none: ctx's current stream on the device
// side of the copy (the source for device-to-device).
func (rt *Runtime) copyStream(ctx context.Context, dst, src *Buffer) (*Stream, error) {
	d := src.device
	if d == HostDevice {
		d = dst.device
	}
	if d == HostDevice {
		return nil, nil
	}
	return rt.streamFor(ctx, d)
}

// MemcpyAsync enqueues a copy of the first bytes of src into dst on stream s (orMemcpyAsync); a
// nil s is ctx's current stream of the device involved (the source's for device to device). The
// copy is recorded as an ActivityMemcpy. Host memory is read when the stream reaches the copy,
// not at the call: the caller must keep it unchanged until then. It never blocks.
func (rt *Runtime) MemcpyAsync(ctx context.Context, dst, src *Buffer, bytes int64, s *Stream) error {
	if err := rt.checkCopy("MemcpyAsync", dst, src, bytes); err != nil {
		return err
	}
	if s == nil {
		var err error
		if s, err = rt.copyStream(ctx, dst, src); err != nil {
			return err
		}
		if s == nil { // host to host: any stream orders it; use device 0's current one
			if s, err = rt.streamFor(ctx, 0); err != nil {
				return err
			}
		}
	} else if s.rt != rt {
		return unknown("MemcpyAsync", "%v belongs to another runtime", s)
	}
	kind := copyKind(dst, src)
	n := bytes
	return s.push("MemcpyAsync", task{kind: taskWork, act: ActivityMemcpy, name: "Memcpy " + kind.String(),
		work: KernelWork{BytesRead: n, BytesWritten: n}, corr: orprof.CorrelationID(ctx), id: rt.kernelIDs.Add(1), thread: orprof.ThreadFrom(ctx).ID(),
		fn: func() { copy(dst.Bytes()[:n], src.Bytes()[:n]) }})
}

// Memcpy copies the first bytes of src into dst and returns when the copy is done (orMemcpy). It
// runs in order on ctx's current stream of the device involved, after the work already queued
// there, and waits for that stream; a host-to-host copy runs at once on the caller.
func (rt *Runtime) Memcpy(ctx context.Context, dst, src *Buffer, bytes int64) error {
	if err := rt.checkCopy("Memcpy", dst, src, bytes); err != nil {
		return err
	}
	s, err := rt.copyStream(ctx, dst, src)
	if err != nil {
		return err
	}
	if s == nil {
		copy(dst.Bytes()[:bytes], src.Bytes()[:bytes])
		return nil
	}
	if err := rt.MemcpyAsync(ctx, dst, src, bytes, s); err != nil {
		return err
	}
	return s.Synchronize()
}

// MemsetAsync enqueues setting the first bytes of b to value on stream s (nil: ctx's current
// stream of b's device), recorded as an ActivityMemset. It never blocks.
func (rt *Runtime) MemsetAsync(ctx context.Context, b *Buffer, value byte, bytes int64, s *Stream) error {
	switch {
	case b == nil || b.rt != rt:
		return unknown("MemsetAsync", "nil buffer or buffer of another runtime")
	case b.device == HostDevice:
		return unknown("MemsetAsync", "%v is not device memory", b)
	case bytes < 0 || bytes > b.size:
		return unknown("MemsetAsync", "set of %d bytes in %v", bytes, b)
	case b.Freed():
		return unknown("MemsetAsync", "buffer was freed")
	}
	if s == nil {
		var err error
		if s, err = rt.streamFor(ctx, b.device); err != nil {
			return err
		}
	}
	return s.push("MemsetAsync", task{kind: taskWork, act: ActivityMemset, name: "Memset (Device)",
		work: KernelWork{BytesWritten: bytes}, corr: orprof.CorrelationID(ctx), id: rt.kernelIDs.Add(1), thread: orprof.ThreadFrom(ctx).ID(),
		fn: func() {
			p := b.Bytes()[:bytes]
			for i := range p {
				p[i] = value
			}
		}})
}
