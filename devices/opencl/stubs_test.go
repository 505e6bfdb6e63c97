package opencl

import (
	"testing"

	"github.com/orprof/orprof/stubs"
	"github.com/orprof/orprof/stubs/stubstest"
)

func TestConformance(t *testing.T) {
	needOpenCL(t)
	stubstest.Run(t, func(t *testing.T) stubs.Stubs { return stubs.Lookup("opencl") }, stubstest.Device("opencl"))
}
