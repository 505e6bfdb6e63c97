package opencl

import (
	"strings"
	"testing"
)

// FuzzParseDeviceTypes: any ORPROF_OPENCL_DEVICE_TYPE value gives a non-empty type mask or an
// error naming the variable, never a panic.
func FuzzParseDeviceTypes(f *testing.F) {
	for _, s := range []string{"", "cpu", "gpu,accelerator", " CPU , gpu ", "all", "tpu", ",,", "cpu,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseDeviceTypes(s)
		switch {
		case err != nil && !strings.Contains(err.Error(), DeviceTypeEnv):
			t.Fatalf("%q: error %v does not name %s", s, err, DeviceTypeEnv)
		case err == nil && m == 0:
			t.Fatalf("%q: empty mask", s)
		}
	})
}
