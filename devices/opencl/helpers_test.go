package opencl

import (
	"errors"
	"testing"
)

// needOpenCL returns the default runtime, or skips the test saying why OpenCL is unusable.
func needOpenCL(t testing.TB) *Runtime {
	t.Helper()
	rt, err := Default()
	if err != nil {
		var m *MissingError
		if errors.As(err, &m) {
			t.Skipf("OpenCL is not available: %v", err)
		}
		t.Fatalf("opening OpenCL: %v", err)
	}
	return rt
}
