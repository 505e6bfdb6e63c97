package opencl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/orprof/orprof/devices"
)

// Environment variables that select what Default opens (Options from the environment).
const (
	// PlatformEnv selects the platform: its index in the ICD loader's order, or a
	// case-insensitive substring of its name, vendor or ICD suffix ("pocl", "NVIDIA"). Empty:
	// every platform.
	PlatformEnv = "ORPROF_OPENCL_PLATFORM"
	// DeviceTypeEnv selects device types: a comma-separated list of cpu, gpu, accelerator,
	// custom, default or all. Empty: all.
	DeviceTypeEnv = "ORPROF_OPENCL_DEVICE_TYPE"
	// LibraryEnv names the ICD loader to dlopen instead of libOpenCL.so.1.
	LibraryEnv = "ORPROF_OPENCL_LIBRARY"
)

// Options select the platforms and devices a Runtime uses.
type Options struct {
	// Platform is a platform index ("0") or a case-insensitive substring of the platform's
	// name, vendor or ICD suffix (pocl: "Portable Computing Language", "The pocl project",
	// "POCL"); empty takes every platform.
	Platform string
	// DeviceTypes is a comma-separated list of cpu, gpu, accelerator, custom, default, all;
	// empty is all.
	DeviceTypes string
	// Library is the ICD loader to load; empty tries libOpenCL.so.1, then libOpenCL.so.
	Library string
}

// OptionsFromEnv reads ORPROF_OPENCL_PLATFORM, ORPROF_OPENCL_DEVICE_TYPE and
// ORPROF_OPENCL_LIBRARY.
func OptionsFromEnv() Options {
	return Options{Platform: os.Getenv(PlatformEnv), DeviceTypes: os.Getenv(DeviceTypeEnv), Library: os.Getenv(LibraryEnv)}
}

func parseDeviceTypes(s string) (uint64, error) {
	if strings.TrimSpace(s) == "" {
		return clDeviceTypeAll, nil
	}
	var t uint64
	for _, part := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(part)) {
		case "cpu":
			t |= clDeviceTypeCPU
		case "gpu":
			t |= clDeviceTypeGPU
		case "accelerator":
			t |= clDeviceTypeAccelerator
		case "custom":
			t |= clDeviceTypeCustom
		case "default":
			t |= clDeviceTypeDefault
		case "all":
			t |= clDeviceTypeAll
		case "":
		default:
			return 0, fmt.Errorf("opencl: %s=%s: unknown device type %s (want cpu, gpu, accelerator, custom, default or all)",
				DeviceTypeEnv, quote(s), quote(strings.TrimSpace(part)))
		}
	}
	if t == 0 {
		return clDeviceTypeAll, nil
	}
	return t, nil
}

// Platform is one OpenCL platform the runtime uses.
type Platform struct {
	Index   int // in the ICD loader's order
	Name    string
	Version string
	id      uintptr
	context uintptr
}

// Device is one OpenCL device: its index in the runtime's order, its platform and name.
type Device struct {
	Index    int
	Name     string
	Version  string
	Platform *Platform
	// TimerResolutionNs is CL_DEVICE_PROFILING_TIMER_RESOLUTION.
	TimerResolutionNs int64
	id                uintptr
	rt                *Runtime

	mu       sync.Mutex
	streams  []*Stream // streams[0] is the default stream
	calib    *Stream   // private queue for clock samples; not a stream of the device
	minWidth int64     // narrowest clock sample so far, ns
}

// Stream is one in-order command queue of a device, created with CL_QUEUE_PROFILING_ENABLE.
// Its ID (1 for the device's default queue, then 2, 3, … in creation order) is the trace row
// of its work.
type Stream struct {
	id     int64
	device *Device
	queue  uintptr
}

// ID is the stream's id, unique per device.
func (s *Stream) ID() int64 { return s.id }

// DeviceIndex is the stream's device.
func (s *Stream) DeviceIndex() int { return s.device.Index }

// Runtime is an opened OpenCL installation: the selected platforms, one context per platform,
// their devices and command queues, the compiled kernels, and the activity tracing state.
// Devices are numbered in platform order (the ICD loader's order), then in the order
// clGetDeviceIDs lists them within the platform. All methods are safe for concurrent use.
type Runtime struct {
	cl        *lib
	platforms []*Platform
	devs      []*Device
	clock     devices.Clock

	progMu sync.Mutex
	progs  map[*Platform]*program

	tracing  atomic.Bool
	launchID atomic.Int64
	actMu    sync.Mutex
	subs     []*subscription

	closed atomic.Bool
}

// Open loads the ICD loader and opens the platforms and devices opts select. It fails with a
// *MissingError when there is no loader, no platform or no matching device.
//
// The devices are every selected device of every selected platform, platforms in the ICD
// loader's order and devices in clGetDeviceIDs order. Each device has a profiling-enabled
// in-order queue per stream. Device timestamps are on the device's own clock; the activity
// profiler maps them to the host clock by calibration (Calibration) and reports the residual.
func Open(opts Options) (*Runtime, error) {
	types, err := parseDeviceTypes(opts.DeviceTypes)
	if err != nil {
		return nil, err
	}
	l, err := loadLibrary(opts.Library)
	if err != nil {
		return nil, err
	}
	rt := &Runtime{cl: l, clock: devices.SystemClock{}, progs: map[*Platform]*program{}}
	var n uint32
	code := int32(l.call(l.getPlatformIDs, 0, 0, uintptr(unsafe.Pointer(&n))))
	if code == clPlatformNotFoundKHR || (code == clSuccess && n == 0) {
		return nil, &MissingError{What: "no OpenCL platform found (" + l.path + " loaded, but no ICD is installed)"}
	}
	if err := checkCode("clGetPlatformIDs", code); err != nil {
		return nil, err
	}
	ids := make([]uintptr, n)
	if err := check("clGetPlatformIDs", l.call(l.getPlatformIDs, uintptr(n), uintptr(unsafe.Pointer(&ids[0])), 0)); err != nil {
		return nil, err
	}
	var names []string
	for i, id := range ids {
		name, err := l.infoString(l.getPlatformInfo, "clGetPlatformInfo", id, clPlatformName)
		if err != nil {
			return nil, err
		}
		names = append(names, name)
		// Matched against the vendor and the ICD suffix too: pocl's platform is named
		// "Portable Computing Language", its vendor "The pocl project", its suffix "POCL".
		vendor, _ := l.infoString(l.getPlatformInfo, "clGetPlatformInfo", id, clPlatformVendor)
		suffix, _ := l.infoString(l.getPlatformInfo, "clGetPlatformInfo", id, clPlatformICDSuffixKHR)
		if !platformSelected(opts.Platform, i, name, vendor, suffix) {
			continue
		}
		ver, _ := l.infoString(l.getPlatformInfo, "clGetPlatformInfo", id, clPlatformVersion)
		p := &Platform{Index: i, Name: name, Version: ver, id: id}
		if err := rt.openPlatform(p, types); err != nil {
			rt.Close()
			return nil, err
		}
	}
	if len(rt.devs) == 0 {
		rt.Close()
		what, hint := "no OpenCL device", ""
		if opts.DeviceTypes != "" {
			what += " of type " + quote(opts.DeviceTypes)
			hint = DeviceTypeEnv
		}
		if opts.Platform != "" {
			what += " on a platform matching " + quote(opts.Platform)
			hint = strings.TrimPrefix(hint+" or "+PlatformEnv, " or ")
		}
		if hint != "" {
			hint = "change " + hint + " (or the matching Options), or " + InstallHint
		}
		return nil, &MissingError{What: what + " (platforms: " + strings.Join(names, "; ") + ")", Hint: hint}
	}
	return rt, nil
}

// quote quotes a user's value for a message, cut to its first 100 bytes.
func quote(s string) string {
	if len(s) > 100 {
		return strconv.Quote(s[:100]) + "…"
	}
	return strconv.Quote(s)
}

// platformSelected reports whether platform i, with the given name, vendor and ICD suffix,
// is selected by sel: every platform when sel is empty, its index, or a case-insensitive
// substring of any of those strings.
func platformSelected(sel string, i int, names ...string) bool {
	sel = strings.TrimSpace(sel)
	if sel == "" {
		return true
	}
	if n, err := strconv.Atoi(sel); err == nil {
		return n == i
	}
	for _, name := range names {
		if name != "" && strings.Contains(strings.ToLower(name), strings.ToLower(sel)) {
			return true
		}
	}
	return false
}

// openPlatform adds the platform's devices of the selected types, with a context and a default
// queue each. A platform without such devices is skipped.
func (rt *Runtime) openPlatform(p *Platform, types uint64) error {
	l := rt.cl
	var n uint32
	code := int32(l.call(l.getDeviceIDs, p.id, uintptr(types), 0, 0, uintptr(unsafe.Pointer(&n))))
	if code == clDeviceNotFound || (code == clSuccess && n == 0) {
		return nil
	}
	if err := checkCode("clGetDeviceIDs", code); err != nil {
		return fmt.Errorf("platform %q: %w", p.Name, err)
	}
	ids := make([]uintptr, n)
	if err := check("clGetDeviceIDs", l.call(l.getDeviceIDs, p.id, uintptr(types), uintptr(n), uintptr(unsafe.Pointer(&ids[0])), 0)); err != nil {
		return fmt.Errorf("platform %q: %w", p.Name, err)
	}
	props := [3]uintptr{clContextPlatform, p.id, 0}
	var code2 int32
	p.context = l.call(l.createContext, uintptr(unsafe.Pointer(&props[0])), uintptr(n), uintptr(unsafe.Pointer(&ids[0])), 0, 0, uintptr(unsafe.Pointer(&code2)))
	if err := checkCode("clCreateContext", code2); err != nil {
		return fmt.Errorf("platform %q: %w", p.Name, err)
	}
	rt.platforms = append(rt.platforms, p)
	for _, id := range ids {
		d := &Device{Index: len(rt.devs), Platform: p, id: id, rt: rt}
		d.Name, _ = l.infoString(l.getDeviceInfo, "clGetDeviceInfo", id, clDeviceName)
		d.Version, _ = l.infoString(l.getDeviceInfo, "clGetDeviceInfo", id, clDeviceVersion)
		if res, err := l.infoUint64(l.getDeviceInfo, "clGetDeviceInfo", id, clDeviceProfilingTimerResolution); err == nil {
			d.TimerResolutionNs = int64(res)
		}
		rt.devs = append(rt.devs, d)
		if _, err := rt.newStream(d); err != nil {
			return fmt.Errorf("device %d (%s): %w", d.Index, d.Name, err)
		}
	}
	return nil
}

// newStream creates a profiling-enabled in-order queue on d and adds it to d's streams.
func (rt *Runtime) newStream(d *Device) (*Stream, error) {
	s, err := rt.newQueue(d)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	s.id = int64(len(d.streams) + 1)
	d.streams = append(d.streams, s)
	return s, nil
}

// newQueue creates a profiling-enabled in-order queue on d.
func (rt *Runtime) newQueue(d *Device) (*Stream, error) {
	l := rt.cl
	var code int32
	var q uintptr
	if l.createQueueWithProperties != 0 {
		props := [3]uint64{clQueueProperties, clQueueProfilingEnable, 0}
		q = l.call(l.createQueueWithProperties, d.Platform.context, d.id, uintptr(unsafe.Pointer(&props[0])), uintptr(unsafe.Pointer(&code)))
		if err := checkCode("clCreateCommandQueueWithProperties", code); err != nil {
			return nil, err
		}
	} else {
		q = l.call(l.createQueue, d.Platform.context, d.id, clQueueProfilingEnable, uintptr(unsafe.Pointer(&code)))
		if err := checkCode("clCreateCommandQueue", code); err != nil {
			return nil, err
		}
	}
	return &Stream{device: d, queue: q}, nil
}

// NewStream creates another stream (command queue) on device d.
func (rt *Runtime) NewStream(d int) (*Stream, error) {
	dev, err := rt.Device(d)
	if err != nil {
		return nil, err
	}
	return rt.newStream(dev)
}

// Devices lists the runtime's devices in index order.
func (rt *Runtime) Devices() []*Device { return rt.devs }

// DeviceCount is the number of devices.
func (rt *Runtime) DeviceCount() int { return len(rt.devs) }

// Device returns device d, or an error naming the valid range.
func (rt *Runtime) Device(d int) (*Device, error) {
	if d < 0 || d >= len(rt.devs) {
		return nil, fmt.Errorf("opencl: device %d out of range [0, %d)", d, len(rt.devs))
	}
	return rt.devs[d], nil
}

// DefaultStream is device d's default queue.
func (rt *Runtime) DefaultStream(d int) (*Stream, error) {
	dev, err := rt.Device(d)
	if err != nil {
		return nil, err
	}
	dev.mu.Lock()
	defer dev.mu.Unlock()
	return dev.streams[0], nil
}

// Synchronize waits (clFinish) for every queue of every device, in device order.
func (rt *Runtime) Synchronize() error {
	var errs []error
	for _, d := range rt.devs {
		d.mu.Lock()
		streams := append([]*Stream(nil), d.streams...)
		d.mu.Unlock()
		for _, s := range streams {
			if err := s.Synchronize(); err != nil {
				errs = append(errs, fmt.Errorf("device %d stream %d: %w", d.Index, s.id, err))
			}
		}
	}
	return errors.Join(errs...)
}

// Synchronize waits for every command queued on s (clFinish).
func (s *Stream) Synchronize() error {
	l := s.device.rt.cl
	return check("clFinish", l.call(l.finish, s.queue))
}

// Close releases the queues and contexts. Events and buffers still held become invalid.
func (rt *Runtime) Close() error {
	if rt.closed.Swap(true) {
		return nil
	}
	l := rt.cl
	rt.progMu.Lock()
	for _, p := range rt.progs {
		p.release(l)
	}
	rt.progs = nil
	rt.progMu.Unlock()
	for _, d := range rt.devs {
		d.mu.Lock()
		for _, s := range d.streams {
			l.call(l.finish, s.queue)
			l.call(l.releaseQueue, s.queue)
		}
		d.streams = nil
		if d.calib != nil {
			l.call(l.releaseQueue, d.calib.queue)
			d.calib = nil
		}
		d.mu.Unlock()
	}
	for _, p := range rt.platforms {
		if p.context != 0 {
			l.call(l.releaseContext, p.context)
		}
	}
	return nil
}

type deviceKey struct{}
type streamKey struct{}

// WithDevice returns a context in which device d is current.
func (rt *Runtime) WithDevice(ctx context.Context, d int) (context.Context, error) {
	if _, err := rt.Device(d); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithValue(ctx, deviceKey{}, d), nil
}

// WithStream returns a context whose current stream is s (and current device its device).
func WithStream(ctx context.Context, s *Stream) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithValue(context.WithValue(ctx, deviceKey{}, s.device.Index), streamKey{}, s)
}

// CurrentDevice is ctx's current device, 0 when ctx sets none.
func CurrentDevice(ctx context.Context) int {
	if ctx != nil {
		if d, ok := ctx.Value(deviceKey{}).(int); ok {
			return d
		}
	}
	return 0
}

// CurrentStream is ctx's current stream: the one WithStream set when it is on the current
// device, else the current device's default stream.
func (rt *Runtime) CurrentStream(ctx context.Context) (*Stream, error) {
	d := CurrentDevice(ctx)
	if ctx != nil {
		if s, ok := ctx.Value(streamKey{}).(*Stream); ok && s.device.Index == d && d < len(rt.devs) && rt.devs[d] == s.device {
			return s, nil
		}
	}
	return rt.DefaultStream(d)
}
