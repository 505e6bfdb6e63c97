package opencl

import (
	"bufio"
	"context"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/stubs"
)

// TestErrorNamesMatchHeader checks the name table against the Khronos header where it is
// installed (ocl-icd-opencl-dev / opencl-headers).
func TestErrorNamesMatchHeader(t *testing.T) {
	f, err := os.Open("/usr/include/CL/cl.h")
	if err != nil {
		t.Skip("Khronos CL/cl.h not installed (apt-get install ocl-icd-opencl-dev): cannot cross-check error names")
	}
	defer f.Close()
	def := regexp.MustCompile(`^#define\s+(CL_[A-Z0-9_]+)\s+(-[0-9]+)\s*$`)
	n := 0
	sc := bufio.NewScanner(f)
	inErrors := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "Error Codes"):
			inErrors = true
		case inErrors && strings.HasPrefix(line, "/*"):
			inErrors = false
		}
		if !inErrors {
			continue
		}
		m := def.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		code, _ := strconv.Atoi(m[2])
		n++
		if got := ErrorName(int32(code)); got != m[1] {
			t.Errorf("ErrorName(%d) = %s, header says %s", code, got, m[1])
		}
	}
	if n < 60 {
		t.Fatalf("found only %d error codes in cl.h", n)
	}
}

func TestErrorMessages(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{&Error{Call: "clEnqueueMarkerWithWaitList", Code: -5}, "clEnqueueMarkerWithWaitList: CL_OUT_OF_RESOURCES"},
		{&Error{Call: "clFinish", Code: -36}, "clFinish: CL_INVALID_COMMAND_QUEUE"},
		{&Error{Call: "clBuildProgram", Code: -9999}, "clBuildProgram: CL error -9999"},
		{&MissingError{What: "no OpenCL platform found"}, "opencl: no OpenCL platform found; install pocl-opencl-icd ocl-icd-libopencl1"},
	}
	for _, c := range cases {
		if got := c.err.Error(); !strings.HasPrefix(got, c.want) {
			t.Errorf("got %q, want prefix %q", got, c.want)
		}
	}
}

func TestOpenMissing(t *testing.T) {
	_, err := Open(Options{Library: "/nonexistent/libOpenCL.so.1"})
	var m *MissingError
	if !errors.As(err, &m) || !strings.Contains(err.Error(), "/nonexistent/libOpenCL.so.1") ||
		!strings.Contains(err.Error(), "pocl-opencl-icd") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Open with a missing loader: %v", err)
	}
	if _, err := Open(Options{DeviceTypes: "gpu,tpu"}); err == nil || !strings.Contains(err.Error(), `unknown device type "tpu"`) {
		t.Fatalf("bad device type: %v", err)
	}
	needOpenCL(t)
	_, err = Open(Options{Platform: "no such platform"})
	if !errors.As(err, &m) || !strings.Contains(err.Error(), `matching "no such platform"`) {
		t.Fatalf("Open with an unmatched platform: %v", err)
	}
	_, err = Open(Options{Platform: "99"})
	if !errors.As(err, &m) {
		t.Fatalf("Open with platform index 99: %v", err)
	}
}

// TestStubsWithoutOpenCL: stubs over a runtime that cannot open are disabled and every call
// returns the reason, as orprof.Start reports it.
func TestStubsWithoutOpenCL(t *testing.T) {
	missing := &MissingError{What: "no OpenCL platform found"}
	s := &Stubs{open: func() (*Runtime, error) { return nil, missing }}
	if s.Enabled() {
		t.Fatal("Enabled() = true without a runtime")
	}
	if _, err := s.Record(context.Background(), stubs.WantEvent); !errors.Is(err, missing) {
		t.Errorf("Record: %v", err)
	}
	if err := s.Synchronize(context.Background()); !errors.Is(err, missing) {
		t.Errorf("Synchronize: %v", err)
	}
	if _, err := s.DeviceCount(); !errors.Is(err, missing) {
		t.Errorf("DeviceCount: %v", err)
	}
	stubs.Register("opencl-missing", s)
	defer stubs.Unregister("opencl-missing")
	_, err := orprof.Start(orprof.Options{Device: "opencl-missing"})
	if err == nil || !strings.Contains(err.Error(), "install pocl-opencl-icd") {
		t.Fatalf("Start: %v", err)
	}
}

// TestReleaseEventOnce: a second release is a no-op and a released event cannot be measured.
func TestReleaseEventOnce(t *testing.T) {
	rt := needOpenCL(t)
	s := NewStubs(rt)
	r, err := s.Record(context.Background(), stubs.WantEvent)
	if err != nil {
		t.Fatal(err)
	}
	s.ReleaseEvent(r.Event)
	s.ReleaseEvent(r.Event)
	if _, err := s.Elapsed(r.Event, r.Event); err == nil || !strings.Contains(err.Error(), "released") {
		t.Fatalf("Elapsed of a released event: %v", err)
	}
}

// TestPlatformSelected: ORPROF_OPENCL_PLATFORM is an index or a case-insensitive substring of
// the platform's name, vendor or ICD suffix: "pocl" selects pocl, whose platform is named
// "Portable Computing Language".
func TestPlatformSelected(t *testing.T) {
	pocl := []string{"Portable Computing Language", "The pocl project", "POCL"}
	nv := []string{"NVIDIA CUDA", "NVIDIA Corporation", "NV"}
	for _, tc := range []struct {
		sel   string
		i     int
		names []string
		want  bool
	}{
		{"", 3, pocl, true},
		{"pocl", 0, pocl, true},
		{"POCL", 0, pocl, true},
		{"portable", 0, pocl, true},
		{"pocl", 1, nv, false},
		{"nvidia", 1, nv, true},
		{"1", 1, nv, true},
		{"1", 0, pocl, false},
		{" 0 ", 0, pocl, true},
		{"intel", 0, pocl, false},
	} {
		if got := platformSelected(tc.sel, tc.i, tc.names...); got != tc.want {
			t.Errorf("platformSelected(%q, %d, %q) = %v, want %v", tc.sel, tc.i, tc.names, got, tc.want)
		}
	}
}

// TestOpenPlatformByVendor: the README's ORPROF_OPENCL_PLATFORM=pocl opens pocl, whose
// platform name does not contain "pocl".
func TestOpenPlatformByVendor(t *testing.T) {
	needOpenCL(t)
	rt, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	isPocl := false
	for _, d := range rt.Devices() {
		isPocl = isPocl || d.Platform.Name == "Portable Computing Language"
	}
	rt.Close()
	if !isPocl {
		t.Skip("no pocl platform here: the vendor match is checked by TestPlatformSelected")
	}
	rt, err = Open(Options{Platform: "pocl"})
	if err != nil {
		t.Fatalf(`Open(Platform: "pocl") on pocl: %v`, err)
	}
	defer rt.Close()
	if len(rt.Devices()) == 0 {
		t.Fatal("no devices")
	}
}
