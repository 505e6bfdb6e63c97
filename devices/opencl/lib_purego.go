//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package opencl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ebitengine/purego"
)

// defaultLibraries are the ICD loader names tried in order when no library is configured.
var defaultLibraries = []string{"libOpenCL.so.1", "libOpenCL.so", "/System/Library/Frameworks/OpenCL.framework/OpenCL"}

// loadLibrary opens the OpenCL ICD loader (path, or the default names) and resolves the entry
// points the package calls. clCreateCommandQueueWithProperties (OpenCL 2.0) is optional: on a
// 1.x loader clCreateCommandQueue is used instead.
func loadLibrary(path string) (*lib, error) {
	names := defaultLibraries
	if path != "" {
		names = []string{path}
	}
	var tried []string
	var h uintptr
	for _, n := range names {
		var err error
		h, err = purego.Dlopen(n, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err == nil {
			path = n
			break
		}
		tried = append(tried, n)
	}
	if h == 0 {
		return nil, &MissingError{What: "the OpenCL ICD loader (" + strings.Join(tried, ", ") + ") cannot be loaded"}
	}
	l := &lib{handle: h, path: path}
	var missing []string
	for _, s := range l.symbols() {
		p, err := purego.Dlsym(h, s.name)
		if err != nil || p == 0 {
			if !s.optional {
				missing = append(missing, s.name)
			}
			continue
		}
		*s.fn = p
	}
	if len(missing) > 0 {
		_ = purego.Dlclose(h)
		return nil, fmt.Errorf("%s: missing OpenCL entry points %s", path, strings.Join(missing, ", "))
	}
	if l.createQueueWithProperties == 0 && l.createQueue == 0 {
		_ = purego.Dlclose(h)
		return nil, errors.New(path + ": neither clCreateCommandQueueWithProperties nor clCreateCommandQueue is exported")
	}
	return l, nil
}

// call invokes an OpenCL entry point with integer and pointer arguments and returns its
// result register. Pointers into Go memory must be written as uintptr(unsafe.Pointer(&x)) in
// the call expression itself, so the compiler keeps them alive and in place for the call.
//
//go:uintptrescapes
func (l *lib) call(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}
