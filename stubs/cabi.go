//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package stubs

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"structs"
	"sync/atomic"
	"unsafe"

	"github.com/ebitengine/purego"
)

// ABIVersion is the version of the C ABI in orprof_stubs.h (ORPROF_STUBS_ABI_VERSION) that Open
// accepts.
const ABIVersion = 1

// GetStubsSymbol is the one symbol a C backend exports.
const GetStubsSymbol = "ORProf_GetStubs"

// cTable mirrors ORProf_Stubs from orprof_stubs.h on LP64 targets. Function pointers are kept as
// uintptr and bound with purego.RegisterFunc after the NULL checks.
type cTable struct {
	_                  structs.HostLayout
	unpaddedStructSize uintptr
	abiVersion         uint32
	_                  [4]byte
	deviceName         *byte
	enabled            uintptr
	deviceCount        uintptr
	record             uintptr
	elapsed            uintptr
	destroyEvent       uintptr
	mark               uintptr
	rangePush          uintptr
	rangePop           uintptr
	onEachDevice       uintptr
	synchronize        uintptr
	lastError          uintptr
	queueWork          uintptr // optional: read only when unpaddedStructSize covers it
}

// cTableHead is the part of ORProf_Stubs every version has; Open reads it before trusting the
// rest of the table.
type cTableHead struct {
	_                  structs.HostLayout
	unpaddedStructSize uintptr
	abiVersion         uint32
}

// cTableSize is offsetof(lastError) + sizeof(lastError), what orprof_stubs.h computes as
// ORPROF_STUBS_UNPADDED_SIZE_V1: the smallest table Open accepts.
const cTableSize = unsafe.Offsetof(cTable{}.lastError) + unsafe.Sizeof(cTable{}.lastError)

// cTableSizeWork is ORPROF_STUBS_UNPADDED_SIZE: the table with the optional queueWork hook.
const cTableSizeWork = unsafe.Offsetof(cTable{}.queueWork) + unsafe.Sizeof(cTable{}.queueWork)

// LoadError is the error of Open: the library could not be loaded or does not follow the C ABI.
// Path names the library; Err says what is wrong.
type LoadError struct {
	Path string
	Err  error
}

// Error returns the path and what is wrong with the library.
func (e *LoadError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *LoadError) Unwrap() error { return e.Err }

// cFuncs are the backend's hooks as Go functions. C int is int32 on every target purego supports.
type cFuncs struct {
	enabled      func() int32
	deviceCount  func(count *int32) int32
	record       func(device *int32, event *uintptr, cpuNs *int64) int32
	elapsed      func(start, end uintptr, us *float32) int32
	destroyEvent func(event uintptr)
	mark         func(name string) int32 // nil when the backend has no annotation hooks
	rangePush    func(name string) int32
	rangePop     func() int32
	onEachDevice func(fn, userData uintptr) int32
	synchronize  func() int32
	lastError    func() *byte
	queueWork    func(ns int64) int32 // nil when the backend has no queueWork hook
}

// CStubs is a device backend written in C against orprof_stubs.h and loaded from a shared
// library. It implements Stubs, Marker, Ranger, EventReleaser, DeviceCounter and Closer, and is
// safe for concurrent use; the C backend must be too.
//
// Threads. The C backend keeps the current device (and its range stack and lastError) per OS
// thread, while goroutines move between OS threads. CStubs therefore:
//   - runs every C call together with the lastError read that may follow it on one locked OS
//     thread, so a failure's message is the one the failing call left;
//   - runs each OnEachDevice call entirely on the caller's OS thread, locked, so fn sees device i
//     current in the C backend's thread-local state and Record inside fn reports it;
//   - serves Mark, RangePush and RangePop on one dedicated goroutine locked to its own OS thread
//     (started on first use, ended by Close), so every pop runs on the thread of its push. The
//     ranges of all goroutines therefore form one stack, as on a single host thread.
//
// Record reads the backend's current device on whatever OS thread the calling goroutine runs on.
// That is the backend's default device unless something on that thread changed it: a goroutine
// that selects a non-default device through the backend's own API must hold
// runtime.LockOSThread for as long as it relies on that choice. The ctx arguments are not used.
//
// Memory. Events are C memory owned by the backend; CStubs hands them out wrapped and frees them
// only through ReleaseEvent. Strings the backend returns (deviceName, lastError) are copied.
// Names passed to Mark and RangePush are copied into C-visible memory for the duration of the call.
type CStubs struct {
	path   string
	name   string
	fn     cFuncs
	closed atomic.Bool
	ranges *rangeThread
}

var (
	_ Stubs         = (*CStubs)(nil)
	_ Marker        = (*CStubs)(nil)
	_ Ranger        = (*CStubs)(nil)
	_ EventReleaser = (*CStubs)(nil)
	_ DeviceCounter = (*CStubs)(nil)
	_ Closer        = (*CStubs)(nil)
	_ ThreadRanger  = (*CStubs)(nil)
	_ DeviceWorker  = (*CStubs)(nil)
)

// Open loads the C backend in the shared library at path (dlopen with RTLD_NOW|RTLD_LOCAL; a path
// without a slash is searched for like dlopen does), calls its ORProf_GetStubs and checks the
// table: abiVersion must be ABIVersion, unpaddedStructSize at least the size orprof_stubs.h
// computes, deviceName and every hook but mark/rangePush/rangePop non-NULL. Every problem is a
// *LoadError naming path; Open never panics on a bad library, but a library whose initialisers
// crash takes the process with it (orprof conformance runs its probe in a child for that reason).
//
// The library stays mapped for the life of the process: backends run threads of their own (stream
// workers), which unloading would pull the code from under. Opening the same library again
// shares its global state. Open does not register the backend; see Load.
func Open(path string) (*CStubs, error) {
	lerr := func(format string, args ...any) error {
		return &LoadError{Path: path, Err: fmt.Errorf(format, args...)}
	}
	if strings.ContainsRune(path, '/') {
		if _, err := os.Stat(path); err != nil {
			return nil, &LoadError{Path: path, Err: errors.Unwrap(err)}
		}
	}
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, lerr("dlopen: %v", err)
	}
	sym, err := purego.Dlsym(h, GetStubsSymbol)
	if err != nil || sym == 0 {
		return nil, lerr("no %s symbol (is the library an orprof backend built against orprof_stubs.h?)", GetStubsSymbol)
	}
	var getStubs func() *cTableHead
	purego.RegisterFunc(&getStubs, sym)
	head := getStubs()
	if head == nil {
		return nil, lerr("%s returned NULL", GetStubsSymbol)
	}
	t, name, annot, err := checkTable(head)
	if err != nil {
		return nil, &LoadError{Path: path, Err: err}
	}

	s := &CStubs{path: path, name: name}
	purego.RegisterFunc(&s.fn.enabled, t.enabled)
	purego.RegisterFunc(&s.fn.deviceCount, t.deviceCount)
	purego.RegisterFunc(&s.fn.record, t.record)
	purego.RegisterFunc(&s.fn.elapsed, t.elapsed)
	purego.RegisterFunc(&s.fn.destroyEvent, t.destroyEvent)
	purego.RegisterFunc(&s.fn.onEachDevice, t.onEachDevice)
	purego.RegisterFunc(&s.fn.synchronize, t.synchronize)
	purego.RegisterFunc(&s.fn.lastError, t.lastError)
	if t.queueWork != 0 {
		purego.RegisterFunc(&s.fn.queueWork, t.queueWork)
	}
	if annot == 3 {
		purego.RegisterFunc(&s.fn.mark, t.mark)
		purego.RegisterFunc(&s.fn.rangePush, t.rangePush)
		purego.RegisterFunc(&s.fn.rangePop, t.rangePop)
		s.ranges = newRangeThread(&s.fn)
		runtime.AddCleanup(s, func(r *rangeThread) { r.stop() }, s.ranges) // a CStubs never closed
	}
	return s, nil
}

// checkTable checks the table ORProf_GetStubs returned, as Open does: abiVersion, then
// unpaddedStructSize (only after which the rest is read), deviceName, the required hooks and the
// all-or-none annotation hooks. It returns a copy of the table, the device name and how many
// annotation hooks are set (0 or 3). It reads the table and deviceName only; it never calls a
// hook. The error names the field.
func checkTable(head *cTableHead) (t cTable, name string, annot int, err error) {
	lerr := func(format string, args ...any) (cTable, string, int, error) {
		return cTable{}, "", 0, fmt.Errorf(format, args...)
	}
	if head.abiVersion != ABIVersion {
		return lerr("ABI version %d, orprof supports version %d", head.abiVersion, ABIVersion)
	}
	if head.unpaddedStructSize < cTableSize {
		return lerr("ORProf_Stubs is %d bytes, orprof needs at least %d (ABI version %d): rebuild against the current orprof_stubs.h",
			head.unpaddedStructSize, cTableSize, ABIVersion)
	}
	// Copy the fields the backend's size covers (at least up to lastError, checked above);
	// optional fields past its size stay zero (NULL), and nothing past it is read.
	n := min(head.unpaddedStructSize, unsafe.Sizeof(t))
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&t)), n), unsafe.Slice((*byte)(unsafe.Pointer(head)), n))
	if n < cTableSizeWork {
		t.queueWork = 0
	}
	if t.deviceName == nil {
		return lerr("ORProf_Stubs.deviceName is NULL")
	}
	name, ok := cString(t.deviceName, 256)
	if !ok || name == "" {
		return lerr("ORProf_Stubs.deviceName is empty or longer than 256 bytes")
	}
	for _, f := range []struct {
		field string
		ptr   uintptr
	}{
		{"enabled", t.enabled}, {"deviceCount", t.deviceCount}, {"record", t.record},
		{"elapsed", t.elapsed}, {"destroyEvent", t.destroyEvent}, {"onEachDevice", t.onEachDevice},
		{"synchronize", t.synchronize}, {"lastError", t.lastError},
	} {
		if f.ptr == 0 {
			return lerr("required hook ORProf_Stubs.%s is NULL", f.field)
		}
	}
	for _, p := range []uintptr{t.mark, t.rangePush, t.rangePop} {
		if p != 0 {
			annot++
		}
	}
	if annot != 0 && annot != 3 {
		return lerr("ORProf_Stubs.mark, rangePush and rangePop must be all set or all NULL")
	}
	return t, name, annot, nil
}

// Load opens the C backend at path and registers it under its deviceName (see Register). It
// returns the name. Nothing is registered when Open fails.
func Load(path string) (name string, err error) {
	s, err := Open(path)
	if err != nil {
		return "", err
	}
	Register(s.name, s)
	return s.name, nil
}

// DeviceName is the backend's deviceName, copied at Open.
func (s *CStubs) DeviceName() string { return s.name }

// Path is the library path given to Open.
func (s *CStubs) Path() string { return s.path }

// Close stops the thread that serves Mark, RangePush and RangePop and makes every later call
// fail. It does not unload the library (see Open). Close is idempotent and safe to call
// concurrently with other methods; calls already inside C finish normally.
func (s *CStubs) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if s.ranges != nil {
		s.ranges.stop()
	}
	return nil
}

// cString copies the NUL-terminated C string at p, at most max bytes; ok is false when no NUL was
// found within max bytes.
func cString(p *byte, max int) (s string, ok bool) {
	if p == nil {
		return "", true
	}
	for n := 0; n <= max; n++ {
		if *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) == 0 {
			return string(unsafe.Slice(p, n)), true
		}
	}
	return string(unsafe.Slice(p, max)), false
}
