package openreg

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/orprof/orprof/devices"
)

// DefaultDevices is the number of devices of the default runtime, OpenReg's DEVICE_COUNT.
const DefaultDevices = 2

// StreamsPerPool is the number of streams in each device's pool per priority (kStreamsPerPool).
const StreamsPerPool = 32

// Stream priorities: OpenReg's range is [LowestPriority, HighestPriority] = [0, 1]; a larger
// number is a higher priority. The simulated device runs every stream at the same speed.
const (
	LowestPriority  = 0
	HighestPriority = 1
)

// FirstUserStreamID is the id of a device's first stream made with NewStream; later ones count
// up from it. Stream ids are small device-local integers and become trace tids: the pool stream
// with priority p and slot i has id p*StreamsPerPool + i, so the default stream is 0.
const FirstUserStreamID = 2 * StreamsPerPool

// Options configure a Runtime.
type Options struct {
	// Devices is the number of devices; 0 means DefaultDevices.
	Devices int
	// Clock stamps events and activities; nil is the system clock. Stream workers read it, so
	// a fake clock advanced inside a kernel makes that kernel take exactly that long.
	Clock devices.Clock
}

// Runtime is one simulated OpenReg installation: its devices, their streams, memory and
// counters, and the activity buffer. All methods are safe for concurrent use. Streams are
// created lazily; Close stops their workers.
type Runtime struct {
	clock devices.Clock
	devs  []*device

	kernelIDs atomic.Int64
	closed    atomic.Bool

	tracing  atomic.Bool
	actMu    sync.Mutex
	actOn    bool
	acts     []Activity
	launches []Activity
}

// device is the per-device state: streams, memory accounting, work counters.
type device struct {
	rt    *Runtime
	index int

	poolOnce sync.Once
	pools    [2][StreamsPerPool]*Stream
	rr       [2]atomic.Uint32

	mu      sync.Mutex
	streams []*Stream // every live stream, in creation order (orDeviceSynchronize's set)
	userIDs int64
	mem     MemoryStats

	kernels, memcpys, memsets      atomic.Int64
	flops, bytesRead, bytesWritten atomic.Int64
	busyNs                         atomic.Int64
}

// New returns a runtime with opts.Devices devices (DefaultDevices when 0). No goroutine runs
// until a stream is first used. A negative device count is an error.
func New(opts Options) (*Runtime, error) {
	n := opts.Devices
	if n == 0 {
		n = DefaultDevices
	}
	if n < 0 {
		return nil, unknown("New", "device count %d is negative", n)
	}
	rt := &Runtime{clock: opts.Clock}
	if rt.clock == nil {
		rt.clock = devices.SystemClock{}
	}
	rt.devs = make([]*device, n)
	for i := range rt.devs {
		rt.devs[i] = &device{rt: rt, index: i, userIDs: FirstUserStreamID}
	}
	return rt, nil
}

var defaultRT atomic.Pointer[Runtime]

func init() {
	rt, _ := New(Options{})
	defaultRT.Store(rt)
}

// Default returns the package's runtime, the one the registered "openreg" stubs and the
// package-level WithDevice/CurrentStream use: DefaultDevices devices on the system clock.
func Default() *Runtime { return defaultRT.Load() }

// SetDefault makes rt the default runtime and returns the previous one; the registered stubs
// follow it from their next call. Tests use it to profile with a runtime on a fake clock. The
// previous runtime is not closed. A nil rt is ignored.
func SetDefault(rt *Runtime) (prev *Runtime) {
	if rt == nil {
		return Default()
	}
	return defaultRT.Swap(rt)
}

// Clock is the runtime's time source.
func (rt *Runtime) Clock() devices.Clock { return rt.clock }

// DeviceCount is the number of devices (orGetDeviceCount). It never blocks.
func (rt *Runtime) DeviceCount() int { return len(rt.devs) }

// checkDevice fails when d is not a device of rt.
func (rt *Runtime) checkDevice(op string, d int) error {
	if d < 0 || d >= len(rt.devs) {
		return unknown(op, "device %d out of range [0, %d)", d, len(rt.devs))
	}
	return nil
}

// dev is device d, failing when it does not exist or rt is closed.
func (rt *Runtime) dev(op string, d int) (*device, error) {
	if err := rt.checkDevice(op, d); err != nil {
		return nil, err
	}
	if rt.closed.Load() {
		return nil, unknown(op, "runtime is closed")
	}
	return rt.devs[d], nil
}

// ctxState is the OpenReg per-thread state a context carries: the current device and the
// current stream of each device (nil = that device's default stream). It is never modified
// after it is stored in a context.
type ctxState struct {
	device  int
	streams []*Stream
}

type ctxKey struct{}

func stateOf(ctx context.Context) *ctxState {
	if ctx == nil {
		return nil
	}
	s, _ := ctx.Value(ctxKey{}).(*ctxState)
	return s
}

// CurrentDevice is ctx's current OpenReg device (orGetDevice): the one set by WithDevice or
// WithStream, 0 when none was set. It never blocks.
func CurrentDevice(ctx context.Context) int {
	if s := stateOf(ctx); s != nil {
		return s.device
	}
	return 0
}

// WithDevice returns a context in which device d is current (orSetDevice); the current streams
// of the devices are kept. A device out of range is an error.
func (rt *Runtime) WithDevice(ctx context.Context, d int) (context.Context, error) {
	if err := rt.checkDevice("SetDevice", d); err != nil {
		return ctx, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ns := &ctxState{device: d}
	if s := stateOf(ctx); s != nil {
		if s.device == d {
			return ctx, nil
		}
		ns.streams = s.streams
	}
	return context.WithValue(ctx, ctxKey{}, ns), nil
}

// WithDevice is Default().WithDevice.
func WithDevice(ctx context.Context, d int) (context.Context, error) {
	return Default().WithDevice(ctx, d)
}

// WithStream returns a context in which s is the current stream of its device and its device
// is current, like a stream guard. A nil s returns ctx unchanged.
func WithStream(ctx context.Context, s *Stream) context.Context {
	if s == nil {
		return ctx
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ns := &ctxState{device: s.dev.index}
	old := stateOf(ctx)
	n := s.dev.index + 1
	if old != nil && len(old.streams) > n {
		n = len(old.streams)
	}
	ns.streams = make([]*Stream, n)
	if old != nil {
		copy(ns.streams, old.streams)
	}
	ns.streams[s.dev.index] = s
	return context.WithValue(ctx, ctxKey{}, ns)
}

// CurrentStream is ctx's current stream of its current device: the one set by WithStream, or
// the device's default stream (pool slot 0, id 0). It fails only when ctx's current device does
// not exist on rt or rt is closed. It never blocks; the first call on a device creates its pools.
func (rt *Runtime) CurrentStream(ctx context.Context) (*Stream, error) {
	return rt.streamFor(ctx, CurrentDevice(ctx))
}

// CurrentStream is Default().CurrentStream.
func CurrentStream(ctx context.Context) (*Stream, error) { return Default().CurrentStream(ctx) }

// CurrentStreamOn is ctx's current stream of device d (which need not be ctx's current device):
// the stream WithStream set for d, else d's default stream. It fails when d does not exist on rt
// or rt is closed. It never blocks.
func (rt *Runtime) CurrentStreamOn(ctx context.Context, d int) (*Stream, error) {
	return rt.streamFor(ctx, d)
}

// CheckDevice fails with an ErrorUnknown naming op when d is not a device of rt or rt is closed,
// as the runtime's own calls do; op libraries built on the runtime check their arguments with it.
func (rt *Runtime) CheckDevice(op string, d int) error {
	_, err := rt.dev(op, d)
	return err
}

// streamFor is ctx's current stream of device d.
func (rt *Runtime) streamFor(ctx context.Context, d int) (*Stream, error) {
	if s := stateOf(ctx); s != nil && d < len(s.streams) {
		if st := s.streams[d]; st != nil && st.rt == rt {
			return st, nil
		}
	}
	return rt.DefaultStream(d)
}

// DefaultStream is device d's default stream, slot 0 of its low-priority pool. It never blocks.
func (rt *Runtime) DefaultStream(d int) (*Stream, error) {
	dv, err := rt.dev("DefaultStream", d)
	if err != nil {
		return nil, err
	}
	dv.initPools()
	s := dv.pools[0][0]
	if s == nil {
		return nil, unknown("DefaultStream", "runtime is closed")
	}
	return s, nil
}

// StreamFromPool hands out device d's pool streams round-robin (getStreamFromPool): 32 streams
// per priority, created with the device's first stream use. Hand-outs start at slot 1, so the
// default stream (slot 0 of the low-priority pool, as in OpenReg) comes back only every 32nd
// time. Pool streams belong to the runtime: Destroy on them is an error.
func (rt *Runtime) StreamFromPool(d int, highPriority bool) (*Stream, error) {
	dv, err := rt.dev("StreamFromPool", d)
	if err != nil {
		return nil, err
	}
	dv.initPools()
	p := 0
	if highPriority {
		p = 1
	}
	s := dv.pools[p][dv.rr[p].Add(1)%StreamsPerPool]
	if s == nil {
		return nil, unknown("StreamFromPool", "runtime is closed")
	}
	return s, nil
}

// StreamPriorityRange returns OpenReg's (least, greatest) priorities, (0, 1)
// (orDeviceGetStreamPriorityRange).
func StreamPriorityRange() (least, greatest int) { return LowestPriority, HighestPriority }

// NewStream creates a stream on device d with the given priority (orStreamCreateWithPriority):
// a worker goroutine with its own FIFO queue, registered for device synchronization until
// Destroy. A priority outside [LowestPriority, HighestPriority] is an error.
func (rt *Runtime) NewStream(d int, priority int) (*Stream, error) {
	dv, err := rt.dev("StreamCreateWithPriority", d)
	if err != nil {
		return nil, err
	}
	if priority < LowestPriority || priority > HighestPriority {
		return nil, unknown("StreamCreateWithPriority", "priority %d outside [%d, %d]", priority, LowestPriority, HighestPriority)
	}
	return dv.newStream(-1, priority, false)
}

func (d *device) initPools() {
	d.poolOnce.Do(func() {
		for p := range d.pools {
			for i := range d.pools[p] {
				d.pools[p][i], _ = d.newStream(int64(p*StreamsPerPool+i), p, true) // nil once closed
			}
		}
	})
}

// liveStreams is a snapshot of the device's registered streams.
func (d *device) liveStreams() []*Stream {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*Stream(nil), d.streams...)
}

// SynchronizeDevice blocks until all work queued so far on every stream of device d has
// completed (orDeviceSynchronize, for an explicit device). It returns the first asynchronous
// kernel failure found on those streams.
func (rt *Runtime) SynchronizeDevice(d int) error {
	dv, err := rt.dev("DeviceSynchronize", d)
	if err != nil {
		return err
	}
	var first error
	for _, s := range dv.liveStreams() {
		if err := s.Synchronize(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// DeviceSynchronize synchronizes ctx's current device, exactly what orDeviceSynchronize does.
func (rt *Runtime) DeviceSynchronize(ctx context.Context) error {
	return rt.SynchronizeDevice(CurrentDevice(ctx))
}

// Synchronize blocks until all work queued so far on every device has completed, and returns
// the first asynchronous failure found.
func (rt *Runtime) Synchronize() error {
	var first error
	for i := range rt.devs {
		if err := rt.SynchronizeDevice(i); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Close drains and stops every stream of every device and makes later calls fail. It blocks
// until all workers have exited. Closing twice is harmless. The default runtime should not be
// closed while the registered stubs may be in use.
func (rt *Runtime) Close() error {
	if rt.closed.Swap(true) {
		return nil
	}
	for _, d := range rt.devs {
		d.poolOnce.Do(func() {})            // no pools from now on; waits for a concurrent creation
		for _, s := range d.liveStreams() { // newStream refuses to register once closed
			s.shutdown()
		}
	}
	return nil
}

// Counters are a device's cumulative work counts, the raw material of hardware metrics.
type Counters struct {
	Kernels, Memcpys, Memsets int64
	// Flops, BytesRead and BytesWritten sum the KernelWork of completed kernels and the bytes of
	// completed copies and sets.
	Flops, BytesRead, BytesWritten int64
	// BusyNs is the clock time stream workers spent running kernels, copies and sets.
	BusyNs int64
}

// Counters returns device d's counters. It never blocks.
func (rt *Runtime) Counters(d int) (Counters, error) {
	if err := rt.checkDevice("Counters", d); err != nil {
		return Counters{}, err
	}
	dv := rt.devs[d]
	return Counters{Kernels: dv.kernels.Load(), Memcpys: dv.memcpys.Load(), Memsets: dv.memsets.Load(),
		Flops: dv.flops.Load(), BytesRead: dv.bytesRead.Load(), BytesWritten: dv.bytesWritten.Load(),
		BusyNs: dv.busyNs.Load()}, nil
}
