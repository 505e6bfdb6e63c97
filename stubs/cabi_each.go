//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package stubs

import (
	"fmt"
	"sync"

	"github.com/ebitengine/purego"
)

// The ORProf_DeviceFn every OnEachDevice passes to C. purego's callback slots are few (2000) and
// never freed, so the callback is made once per process; each OnEachDevice call is found through
// an integer handle passed as userData, so C never holds a Go pointer.
var (
	eachOnce sync.Once
	eachFn   uintptr

	eachMu    sync.Mutex
	eachCalls = map[uintptr]*eachState{}
	eachNext  uintptr
)

// eachState is one OnEachDevice call in flight.
type eachState struct {
	mu  sync.Mutex
	run func(device int) error
	err error // the first error or panic of run; later devices are skipped
}

// eachCallback returns the process's ORProf_DeviceFn, making it on first use.
func eachCallback() uintptr {
	eachOnce.Do(func() { eachFn = purego.NewCallback(eachTrampoline) })
	return eachFn
}

func registerEach(st *eachState) uintptr {
	eachMu.Lock()
	defer eachMu.Unlock()
	eachNext++
	if eachNext == 0 { // never hand out NULL
		eachNext++
	}
	eachCalls[eachNext] = st
	return eachNext
}

func unregisterEach(h uintptr) {
	eachMu.Lock()
	delete(eachCalls, h)
	eachMu.Unlock()
}

// eachTrampoline is called by C as fn(device, userData). A handle that is not in flight (a
// backend calling fn after onEachDevice returned) is ignored.
func eachTrampoline(device int32, userData uintptr) {
	eachMu.Lock()
	st := eachCalls[userData]
	eachMu.Unlock()
	if st != nil {
		st.visit(int(device))
	}
}

// visit runs fn for one device unless an earlier device failed. A panic must not unwind
// through the backend's C frames (they would skip restoring the current device), so it is
// recovered here and becomes the call's error.
func (st *eachState) visit(device int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err != nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			st.err = fmt.Errorf("OnEachDevice fn panicked on device %d: %v", device, r)
		}
	}()
	st.err = st.run(device)
}
