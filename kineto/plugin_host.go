//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package kineto

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The host side of kineto_plugin.h through purego. Rules kept here (shared/reference/
// ecosystem.md §1.4): the seven callbacks C may call are made once per process (purego's
// callback slots are finite and never freed); C never receives a Go pointer it keeps beyond a
// call, except pinned memory a session holds; per-load and per-builder state is found through
// integer ids passed as the opaque handles; every callback recovers from panics and returns -1;
// NULL function pointers are never bound.

// pluginFuncs are one registered interface's functions, bound with purego.RegisterFunc after
// the NULL checks. The correlation functions are nil when the plugin left them NULL.
type pluginFuncs struct {
	createFn, destroyFn, queryFn, startFn, stopFn, processFn func(unsafe.Pointer) int32
	pushFn, pushUserFn                                       func(*cPushParams) int32
	popFn, popUserFn                                         func(*cHandleParams) int32
}

// hostMemory is C memory (malloc) a plugin session may read until it is destroyed. C memory,
// not pinned Go memory: a session dropped without ProcessTrace then leaks a few bytes instead
// of tripping the runtime's check for leaked pins.
type hostMemory struct {
	p unsafe.Pointer
}

func (h *hostMemory) release() {
	if h.p != nil {
		libc.free(h.p)
		h.p = nil
	}
}

// libc's malloc and free, found once among the symbols already loaded (purego links libc).
var (
	libcOnce sync.Once
	libc     struct {
		malloc func(size uintptr) unsafe.Pointer
		free   func(p unsafe.Pointer)
		err    error
	}
)

func cMalloc(size uintptr) (unsafe.Pointer, error) {
	libcOnce.Do(func() {
		m, err := purego.Dlsym(purego.RTLD_DEFAULT, "malloc")
		if err != nil || m == 0 {
			libc.err = fmt.Errorf("malloc not found: %v", err)
			return
		}
		f, err := purego.Dlsym(purego.RTLD_DEFAULT, "free")
		if err != nil || f == 0 {
			libc.err = fmt.Errorf("free not found: %v", err)
			return
		}
		purego.RegisterFunc(&libc.malloc, m)
		purego.RegisterFunc(&libc.free, f)
	})
	if libc.err != nil {
		return nil, libc.err
	}
	p := libc.malloc(size)
	if p == nil {
		return nil, errors.New("malloc failed")
	}
	return p, nil
}

// handleTable maps the integer ids handed to C as opaque handles to host state.
type handleTable[T any] struct {
	mu   sync.RWMutex
	next uintptr
	m    map[uintptr]T
}

func (h *handleTable[T]) add(v T) uintptr {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[uintptr]T{}
	}
	h.next++
	h.m[h.next] = v
	return h.next
}

func (h *handleTable[T]) get(id uintptr) (T, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	v, ok := h.m[id]
	return v, ok
}

func (h *handleTable[T]) remove(id uintptr) {
	h.mu.Lock()
	delete(h.m, id)
	h.mu.Unlock()
}

var (
	registries handleTable[*loadState]
	builders   handleTable[*traceBuilder]

	callbacksOnce sync.Once
	callbacks     callbackTable
)

// callbackTable holds the C function pointers of the host's callbacks.
type callbackTable struct {
	registerProfiler                                     uintptr
	addEvent, setLastEventName, setLastEventFlow         uintptr
	addLastEventMetadata, addDeviceInfo, addResourceInfo uintptr
}

// hostCallbacks makes the callbacks on first use, once per process.
func hostCallbacks() *callbackTable {
	callbacksOnce.Do(func() {
		callbacks.registerProfiler = purego.NewCallback(registerProfilerCallback)
		callbacks.addEvent = purego.NewCallback(addEventCallback)
		callbacks.setLastEventName = purego.NewCallback(setLastEventNameCallback)
		callbacks.setLastEventFlow = purego.NewCallback(setLastEventFlowCallback)
		callbacks.addLastEventMetadata = purego.NewCallback(addLastEventMetadataCallback)
		callbacks.addDeviceInfo = purego.NewCallback(addDeviceInfoCallback)
		callbacks.addResourceInfo = purego.NewCallback(addResourceInfoCallback)
	})
	return &callbacks
}

// loadState is one KinetoPlugin_register call: the interfaces registered and the refusals.
type loadState struct {
	mu       sync.Mutex
	path     string
	calls    int
	accepted []acceptedInterface
	refused  []PluginError
}

type acceptedInterface struct {
	index int
	iface cInterface
}

func (st *loadState) refuse(index int, err error) int32 {
	st.refused = append(st.refused, PluginError{Path: st.path, Err: fmt.Errorf("interface #%d refused: %w", index, err)})
	return -1
}

// registerProfilerCallback is KinetoPlugin_Registry.registerProfiler. It copies the interface
// (the plugin may pass a stack struct) after checking its size and its required functions.
func registerProfilerCallback(handle uintptr, iface unsafe.Pointer) (rc int32) {
	st, ok := registries.get(handle)
	if !ok {
		return -1 // a registry kept past KinetoPlugin_register, or a bad handle
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.calls++
	index := st.calls - 1
	defer func() {
		if r := recover(); r != nil {
			rc = st.refuse(index, fmt.Errorf("host panic: %v", r))
		}
	}()
	if iface == nil {
		return st.refuse(index, errors.New("registerProfiler called with a NULL interface"))
	}
	if size := *(*uintptr)(iface); size < interfaceSize {
		return st.refuse(index, sizeError("KinetoPlugin_ProfilerInterface", size, interfaceSize))
	}
	c := *(*cInterface)(iface)
	var missing []string
	for _, f := range []struct {
		name string
		ptr  uintptr
	}{{"profilerCreate", c.create}, {"profilerDestroy", c.destroy}, {"profilerQuery", c.query},
		{"profilerStart", c.start}, {"profilerStop", c.stop}, {"profilerProcessEvents", c.processEvents}} {
		if f.ptr == 0 {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return st.refuse(index, fmt.Errorf("required function(s) NULL: %s", strings.Join(missing, ", ")))
	}
	st.accepted = append(st.accepted, acceptedInterface{index: index, iface: c})
	return 0
}

// loadLibrary opens one library and registers its profilers. keep is false when the library
// was refused as a whole (and closed, as Kineto does).
func loadLibrary(path string) (r loadResult, keep bool) {
	refuse := func(err error) (loadResult, bool) {
		return loadResult{errs: []PluginError{{Path: path, Err: err}}}, false
	}
	h, err := purego.Dlopen(dlopenPath(path), purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return refuse(fmt.Errorf("%w: %w", ErrNotLoadable, err))
	}
	sym, err := purego.Dlsym(h, RegisterSymbol)
	if err != nil || sym == 0 {
		purego.Dlclose(h)
		return refuse(fmt.Errorf("no %s symbol: %w", RegisterSymbol, ErrNotPlugin))
	}
	var register func(*cRegistry) int32
	purego.RegisterFunc(&register, sym)
	st := &loadState{path: path}
	id := registries.add(st)
	reg := &cRegistry{size: registrySize, handle: id, registerProfiler: hostCallbacks().registerProfiler}
	rc := register(reg)
	registries.remove(id)
	st.mu.Lock()
	defer st.mu.Unlock()
	if rc != 0 {
		purego.Dlclose(h)
		err := fmt.Errorf("%s returned %d", RegisterSymbol, rc)
		for _, e := range st.refused {
			err = fmt.Errorf("%w; %w", err, e.Err)
		}
		return refuse(err)
	}
	r.errs = append(r.errs, st.refused...)
	for _, a := range st.accepted {
		p, err := newPlugin(path, a.index, a.iface)
		if err != nil {
			r.errs = append(r.errs, PluginError{Path: path, Err: fmt.Errorf("interface #%d refused: %w", a.index, err)})
			continue
		}
		r.plugins = append(r.plugins, p)
	}
	if len(st.accepted) == 0 && len(st.refused) == 0 {
		r.errs = append(r.errs, PluginError{Path: path, Err: errors.New("registered no profiler")})
	}
	return r, true
}

// dlopenPath is path as dlopen must get it: a name without a slash ("x.so", a library of
// the directory ".") is searched for on the system's library path, not in the working
// directory, so it gets "./" in front.
func dlopenPath(path string) string {
	if !strings.ContainsRune(path, '/') {
		return "./" + path
	}
	return path
}

// newPlugin binds an accepted interface and queries it (NULL handle, a 32-byte name buffer
// with at most 31 characters, a zeroed 25-slot type array).
func newPlugin(path string, index int, c cInterface) (*Plugin, error) {
	f := &pluginFuncs{}
	for _, b := range []struct {
		fn  *func(unsafe.Pointer) int32
		ptr uintptr
	}{{&f.createFn, c.create}, {&f.destroyFn, c.destroy}, {&f.queryFn, c.query}, {&f.startFn, c.start},
		{&f.stopFn, c.stop}, {&f.processFn, c.processEvents}} {
		purego.RegisterFunc(b.fn, b.ptr) // checked non-NULL in registerProfilerCallback
	}
	if c.pushCorrelation != 0 {
		purego.RegisterFunc(&f.pushFn, c.pushCorrelation)
	}
	if c.popCorrelation != 0 {
		purego.RegisterFunc(&f.popFn, c.popCorrelation)
	}
	if c.pushUserCorrelation != 0 {
		purego.RegisterFunc(&f.pushUserFn, c.pushUserCorrelation)
	}
	if c.popUserCorrelation != 0 {
		purego.RegisterFunc(&f.popUserFn, c.popUserCorrelation)
	}

	q, err := query(f.queryFn)
	if err != nil {
		return nil, err
	}
	p := &Plugin{Path: path, Index: index, name: q.name, fn: f}
	if p.name == "" {
		// Kineto keeps the empty name; a trace row and a warning need one (kineto package doc).
		p.name = strings.TrimSuffix(filepath.Base(path), ".so")
		p.Warnings = append(p.Warnings, "profilerQuery gave an empty name: named after its library")
	}
	for _, v := range q.types {
		t, known, ok := activityFromPlugin(v)
		if !ok {
			continue
		}
		if !known {
			p.Warnings = append(p.Warnings, fmt.Sprintf("supported type %d unknown to this host: taken as kernel", v))
		}
		p.types = append(p.types, v)
		p.activities = p.activities.Add(t)
	}
	return p, nil
}

// queryGuard is how many bytes past the name buffer and past the type array query watches:
// a plugin that writes past either is refused (it ignored profilerNameMaxLen or
// supportedActivityTypesMaxLen) instead of corrupting memory the host uses. The buffers are C
// memory, so a write past the guard hits the C heap, never Go's.
const queryGuard = 256

// queryResult is what profilerQuery reported.
type queryResult struct {
	name  string
	types [pluginNumTypes]int32
}

// query calls profilerQuery as Kineto does (NULL handle, a zeroed 32-byte name buffer with
// profilerNameMaxLen 31, a zeroed 25-slot type array) and checks that the plugin kept to
// them. A non-zero return is a refusal: Kineto names such a profiler "N/A" and still uses the
// types it wrote (kineto package doc says why orprof does not).
func query(fn func(unsafe.Pointer) int32) (queryResult, error) {
	const typesBytes = pluginNumTypes * 4
	const total = pluginNameBufSize + queryGuard + typesBytes + queryGuard
	mem, err := cMalloc(total)
	if err != nil {
		return queryResult{}, fmt.Errorf("profilerQuery not called: %w", err)
	}
	defer libc.free(mem)
	buf := unsafe.Slice((*byte)(mem), total)
	const nameAt, typesAt = 0, pluginNameBufSize + queryGuard
	for i := range buf {
		buf[i] = 0xa5
	}
	clear(buf[nameAt : nameAt+pluginNameBufSize])
	clear(buf[typesAt : typesAt+typesBytes])
	params := &cQueryParams{size: queryParamsSize, name: unsafe.Add(mem, nameAt), nameMax: pluginNameBufSize - 1,
		types: unsafe.Add(mem, typesAt), typesMax: pluginNumTypes}
	var pin runtime.Pinner
	pin.Pin(params)
	rc := fn(unsafe.Pointer(params))
	pin.Unpin()
	guarded := func(from int) bool {
		for _, b := range buf[from : from+queryGuard] {
			if b != 0xa5 {
				return false
			}
		}
		return true
	}
	name := buf[nameAt : nameAt+pluginNameBufSize]
	switch {
	case name[pluginNameBufSize-1] != 0 || !guarded(nameAt+pluginNameBufSize):
		return queryResult{}, fmt.Errorf("profilerQuery wrote a name past its %d-byte buffer (profilerNameMaxLen is %d, plus the NUL)",
			pluginNameBufSize, pluginNameBufSize-1)
	case !guarded(typesAt + typesBytes):
		return queryResult{}, fmt.Errorf("profilerQuery wrote past the %d-slot type array (supportedActivityTypesMaxLen)", pluginNumTypes)
	case rc != 0:
		return queryResult{}, fmt.Errorf("profilerQuery returned %d", rc)
	}
	var r queryResult
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	r.name = string(name)
	copy(r.types[:], unsafe.Slice((*int32)(unsafe.Add(mem, typesAt)), pluginNumTypes))
	return r, nil
}

func (f *pluginFuncs) hasCorrelation() bool { return f.pushFn != nil || f.popFn != nil }

// create calls profilerCreate. The params struct is zero-filled (pProfilerHandle NULL on
// entry); the plugin assigns its handle to the field, which is read back after a 0 return
// (kineto_plugin.h, KinetoPlugin_ProfilerCreate_Params).
func (f *pluginFuncs) create(s *pluginSession, enabled []int32) error {
	// The enabled types, in C memory the plugin may read until profilerDestroy returns.
	mem, err := cMalloc(uintptr(len(enabled)) * unsafe.Sizeof(enabled[0]))
	if err != nil {
		return fmt.Errorf("profilerCreate not called: %w", err)
	}
	copy(unsafe.Slice((*int32)(mem), len(enabled)), enabled)
	s.hold.p = mem
	params := &cCreateParams{size: createParamsSize, enabled: mem, enabledLen: uintptr(len(enabled))}
	var pin runtime.Pinner
	pin.Pin(params)
	rc := f.createFn(unsafe.Pointer(params))
	pin.Unpin()
	if rc != 0 {
		s.hold.release()
		return fmt.Errorf("profilerCreate returned %d", rc)
	}
	s.handle = params.handle
	return nil
}

func (f *pluginFuncs) handleCall(fn func(unsafe.Pointer) int32, handle uintptr) int32 {
	return fn(unsafe.Pointer(&cHandleParams{size: handleParamsSize, handle: handle}))
}

func (f *pluginFuncs) start(handle uintptr) int32   { return f.handleCall(f.startFn, handle) }
func (f *pluginFuncs) stop(handle uintptr) int32    { return f.handleCall(f.stopFn, handle) }
func (f *pluginFuncs) destroy(handle uintptr) int32 { return f.handleCall(f.destroyFn, handle) }

func (f *pluginFuncs) pushCorrelation(handle uintptr, id uint64) int32 {
	if f.pushFn == nil {
		return 0
	}
	return f.pushFn(&cPushParams{size: pushParamsSize, id: id, handle: handle})
}

func (f *pluginFuncs) popCorrelation(handle uintptr) int32 {
	if f.popFn == nil {
		return 0
	}
	return f.popFn(&cHandleParams{size: handleParamsSize, handle: handle})
}

func (f *pluginFuncs) pushUserCorrelation(handle uintptr, id uint64) int32 {
	if f.pushUserFn == nil {
		return 0
	}
	return f.pushUserFn(&cPushParams{size: pushParamsSize, id: id, handle: handle})
}

func (f *pluginFuncs) popUserCorrelation(handle uintptr) int32 {
	if f.popUserFn == nil {
		return 0
	}
	return f.popUserFn(&cHandleParams{size: handleParamsSize, handle: handle})
}

// processEvents calls profilerProcessEvents with a trace builder whose handle is b's id; the
// builder is reachable from C only while the call runs.
func (f *pluginFuncs) processEvents(handle uintptr, b *traceBuilder) int32 {
	cb := hostCallbacks()
	id := builders.add(b)
	defer builders.remove(id)
	call := &struct {
		params  cProcessEventsParams
		builder cTraceBuilder
	}{}
	call.builder = cTraceBuilder{size: traceBuilderSize, handle: id, addEvent: cb.addEvent,
		setLastEventName: cb.setLastEventName, setLastEventFlow: cb.setLastEventFlow,
		addLastEventMetadata: cb.addLastEventMetadata, addDeviceInfo: cb.addDeviceInfo,
		addResourceInfo: cb.addResourceInfo}
	call.params = cProcessEventsParams{size: processParamsSize, handle: handle, builder: unsafe.Pointer(&call.builder)}
	var pin runtime.Pinner
	pin.Pin(call)
	defer pin.Unpin()
	return f.processFn(unsafe.Pointer(&call.params))
}

// The trace-builder callbacks. Each finds its builder by id, copies what C passed, and
// recovers from a panic.

func builderFor(handle uintptr) *traceBuilder {
	b, _ := builders.get(handle)
	return b
}

// structAt reads a struct of type T at p when its unpaddedStructSize is at least min; nil
// otherwise (the memory past the size field is then never read).
func structAt[T any](p unsafe.Pointer, min uintptr) (size uintptr, v *T) {
	size = *(*uintptr)(p)
	if size < min {
		return size, nil
	}
	c := *(*T)(p)
	return size, &c
}

func addEventCallback(handle uintptr, ev unsafe.Pointer) (rc int32) {
	b := builderFor(handle)
	if b == nil {
		return -1
	}
	defer func() {
		if r := recover(); r != nil {
			b.recovered("addEvent", r, &rc)
		}
	}()
	if ev == nil {
		return b.nullArg("addEvent", true)
	}
	return b.addEvent(structAt[cProfileEvent](ev, eventSize))
}

func setLastEventNameCallback(handle uintptr, name *byte) (rc int32) {
	b := builderFor(handle)
	if b == nil {
		return -1
	}
	defer func() {
		if r := recover(); r != nil {
			b.recovered("setLastEventName", r, &rc)
		}
	}()
	s, ok := goString(name)
	return b.setLastEventName(s, ok)
}

func setLastEventFlowCallback(handle uintptr, flow unsafe.Pointer) (rc int32) {
	b := builderFor(handle)
	if b == nil {
		return -1
	}
	defer func() {
		if r := recover(); r != nil {
			b.recovered("setLastEventFlow", r, &rc)
		}
	}()
	if flow == nil {
		return b.nullArg("setLastEventFlow", false)
	}
	size := *(*uintptr)(flow)
	if size < flowSize {
		return b.setLastEventFlow(size, nil)
	}
	// Field by field: the C struct's padding after isStartPoint need not be readable.
	f := cEventFlow{size: size,
		flowType:     *(*int32)(unsafe.Add(flow, unsafe.Offsetof(cEventFlow{}.flowType))),
		flowID:       *(*uint32)(unsafe.Add(flow, unsafe.Offsetof(cEventFlow{}.flowID))),
		isStartPoint: *(*uint8)(unsafe.Add(flow, unsafe.Offsetof(cEventFlow{}.isStartPoint)))}
	return b.setLastEventFlow(size, &f)
}

func addLastEventMetadataCallback(handle uintptr, key, value *byte) (rc int32) {
	b := builderFor(handle)
	if b == nil {
		return -1
	}
	defer func() {
		if r := recover(); r != nil {
			b.recovered("addLastEventMetadata", r, &rc)
		}
	}()
	k, kok := goString(key)
	v, vok := goString(value)
	return b.addLastEventMetadata(k, kok, v, vok)
}

func addDeviceInfoCallback(handle uintptr, info unsafe.Pointer) (rc int32) {
	b := builderFor(handle)
	if b == nil {
		return -1
	}
	defer func() {
		if r := recover(); r != nil {
			b.recovered("addDeviceInfo", r, &rc)
		}
	}()
	if info == nil {
		return b.nullArg("addDeviceInfo", false)
	}
	return b.addDeviceInfo(structAt[cDeviceInfo](info, deviceInfoSize))
}

func addResourceInfoCallback(handle uintptr, info unsafe.Pointer) (rc int32) {
	b := builderFor(handle)
	if b == nil {
		return -1
	}
	defer func() {
		if r := recover(); r != nil {
			b.recovered("addResourceInfo", r, &rc)
		}
	}()
	if info == nil {
		return b.nullArg("addResourceInfo", false)
	}
	return b.addResourceInfo(structAt[cResourceInfo](info, resourceInfoSize))
}
