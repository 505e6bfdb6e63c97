package kernels

import (
	"fmt"
	"strings"
	"testing"
)

func TestTensorCore(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"volta_h884gemm_64x64_ldg8_nn", true},
		{"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", true},
		{"sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize96x64x32_stage4_warpsize2x2x1_tensor16x8x16_kernel", true},
		{"volta_sgemm_128x64_nn", false},
		{"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>", false},
		{"triton_mm_0", false},
		{"", false},
	} {
		if got := TensorCore(c.name); got != c.want {
			t.Errorf("TensorCore(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestTensorCoreIsSubstrings: the one scan answers what looking for each fragment in turn
// answers, on names holding fragments in other cases, across non-ASCII bytes, at either end.
func TestTensorCoreIsSubstrings(t *testing.T) {
	names := matchNames(3000)
	for _, k := range tensorCoreKeys {
		names = append(names, k, strings.ToUpper(k), "x"+k, k+"\u017f", "\u212a"+k[1:], k[:len(k)-1], "é"+k+"é")
	}
	for i, n := range names {
		if i%3 == 0 {
			n += tensorCoreKeys[i%len(tensorCoreKeys)]
		}
		want := hasTensorCoreKey(n)
		if got, d := TensorCore(n), Default().Lookup(n); got != want || d.TensorCore() != want {
			t.Errorf("TensorCore(%q) = %v, Lookup's %v, want %v", n, got, d.TensorCore(), want)
		}
	}
}

func ExampleTensorCore() {
	fmt.Println(TensorCore("volta_h884gemm_64x64_ldg8_nn"), TensorCore("volta_sgemm_128x64_nn"))
	// Output: true false
}
