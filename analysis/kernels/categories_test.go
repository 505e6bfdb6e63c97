package kernels

import (
	"math"
	"path/filepath"
	"testing"
)

// The categories' totals add up to the device time, largest first, every kernel counted once.
func TestByCategory(t *testing.T) {
	for _, name := range []string{"rocm_mi250_train.json.gz", "cuda_ns_resolution.json.gz"} {
		s, _, err := Open(filepath.Join("..", "..", "testdata", "kineto", name), 0, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cats := s.ByCategory(nil)
		sum, n := 0.0, 0
		for i, c := range cats {
			sum += c.TotalUs
			n += c.Kernels
			if i > 0 && c.TotalUs > cats[i-1].TotalUs {
				t.Errorf("%s: %s after a smaller category", name, c.Category)
			}
		}
		if n != len(s.Kernels) || len(cats) < 2 || math.Abs(sum-s.DeviceUs()) > 1e-6*s.DeviceUs() {
			t.Errorf("%s: %d categories of %d kernels sum to %v µs; %d kernels, %v µs", name, len(cats), n, sum, len(s.Kernels), s.DeviceUs())
		}
	}
}
