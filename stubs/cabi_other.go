//go:build !(darwin || freebsd || linux || netbsd) || noplugin

package stubs

import (
	"errors"
	"fmt"
	"runtime"
)

// ABIVersion is the version of the C ABI in orprof_stubs.h that Open accepts.
const ABIVersion = 1

// GetStubsSymbol is the one symbol a C backend exports.
const GetStubsSymbol = "ORProf_GetStubs"

// ErrClosed is the error of every call on a CStubs after Close.
var ErrClosed = errors.New("backend closed")

// LoadError is the error of Open: the library could not be loaded or does not follow the C ABI.
type LoadError struct {
	Path string
	Err  error
}

// Error returns the path and what is wrong with the library.
func (e *LoadError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *LoadError) Unwrap() error { return e.Err }

// CStubs is a C backend loaded from a shared library. On this platform, or in a build with the
// noplugin tag (a static binary without purego), C backends cannot be loaded: Open always
// fails and CStubs behaves like Default stubs.
type CStubs struct{ defaultStubs }

// Open fails: loading C backends needs dlopen, which this platform or build lacks. The error
// matches errors.ErrUnsupported.
func Open(path string) (*CStubs, error) {
	return nil, &LoadError{Path: path, Err: fmt.Errorf("C backends are not supported in this build (%s, or built with -tags noplugin): %w",
		runtime.GOOS, errors.ErrUnsupported)}
}

// Load fails like Open.
func Load(path string) (string, error) {
	_, err := Open(path)
	return "", err
}

// ElapsedRaw fails like every call on Default stubs.
func (s *CStubs) ElapsedRaw(start, end Event) (float64, error) { return s.Elapsed(start, end) }

// ReleaseEvent does nothing.
func (s *CStubs) ReleaseEvent(Event) {}

// Close does nothing.
func (s *CStubs) Close() error { return nil }

// ErrNoMessage is wrapped by the error of a C hook that failed without a lastError message.
var ErrNoMessage = errors.New("no lastError message")
