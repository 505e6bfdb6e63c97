package kernels

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClassify: names from the real traces in testdata, one or more per category.
func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Category
	}{
		{"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", Communication},
		{"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", Communication},
		{"rcclGenericKernel", Communication},
		{"Memcpy DtoD (Device -> Device)", Memory},
		{"Memset (Device)", Memory},
		{"hipMemcpyAsync", Memory},
		{"dma_request", Memory},
		{"Context Sync", Other},
		{"Stream Wait Event", Other},
		{"runFunction - job_prep_and_submit_for_execution", Other},
		{"ampere_sgemm_128x64_nn", GEMM},
		{"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_128x1)", GEMM},
		{"Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1", GEMM},
		{"fc-dtype_Float", GEMM},
		{"aten::mm.out-dtype_Float", GEMM},
		{"void cublasLt::splitKreduce_kernel<32, 16, int, float>", GEMM},
		{"flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4>>", Attention},
		{"fmha_cutlassF_f16_aligned_64x64_rf_sm80", Attention},
		{"cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1", Convolution},
		{"void cudnn::winograd_nonfused::winogradForwardOutput4x4<float, float>", Convolution},
		{"void wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>", Convolution},
		{"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>>>", Reduction},
		{"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>", Reduction},
		{"native_layer_norm-dtype_Float", Reduction},
		{"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>", Reduction},
		{"max_dim_max-dtype_Long", Reduction},
		{"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::clamp_min_scalar_kernel_impl>", Elementwise},
		{"void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4>", Elementwise},
		{"void at::native::normal_kernel<float>", Elementwise},
		{"add-dtype_Double", Elementwise},
		{"aten::gt.Tensor_out-dtype_Bool", Elementwise},
		{"void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float>", Elementwise},
		{"void fbgemm_gpu::_offsets_range_cuda_kernel<int>(long, long, int const*, int*)", ComputeOther},
		{"bucketize-dtype_Long", ComputeOther},
		{"__missing__", ComputeOther},
	} {
		assert.Equal(t, tt.want, Default().Classify(tt.name), "%q", tt.name)
	}
}

// htaType is HolisticTraceAnalysis's get_kernel_type as hta.md states it, written for this
// test only: its three checks in order, each an re.match (anchored at the start).
func htaType(name string) string {
	comm := regexp.MustCompile(`^((^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*))`)
	mem := regexp.MustCompile(`^((^(hip)?Memcpy)|(^(hip)?Memset)|(^dma))`)
	notComp := regexp.MustCompile(`^((^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)|(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution))`)
	switch {
	case comm.MatchString(name):
		return "communication"
	case mem.MatchString(name):
		return "memory"
	case !notComp.MatchString(name):
		return "computation"
	}
	return "other"
}

// TestGroupMatchesHTA: the group (communication, memory, computation, other) of every name is
// HolisticTraceAnalysis's kernel type, except where the package doc says why not.
func TestGroupMatchesHTA(t *testing.T) {
	names := []string{
		"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "ncclDevKernel_AllGather_RING_LL", "hcclAllReduce",
		"Memcpy HtoD (Pageable -> Device)", "Memset (Device)", "dma_request", "Memcpy DtoH (Device -> Pinned)",
		"Context Sync", "Event Sync", "Stream Sync", "Stream Wait Event", "cudaLaunchKernel",
		"runFunction - job_prep_and_submit_for_execution", "job_exe_x", "packet_y", "pe_exe", "cpum_exe_subgraph_1",
		"collective_subgraph_execution", "my_kernel_with_dma_inside", "foo_Memcpy_bar",
		"ampere_sgemm_128x64_nn", "add-dtype_Double", "aten::mm.out-dtype_Float", "__missing__",
		"void at::native::reduce_kernel<512, 1>", "flash_fwd_kernel", "cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1",
	}
	for _, n := range names {
		assert.Equal(t, htaType(n), Default().Classify(n).Group(), "%q", n)
	}
	// The differences the package doc states.
	for n, want := range map[string][2]string{
		"hipMemcpyDtoH":     {"communication", "memory"},
		"hipMemsetAsync":    {"communication", "memory"},
		"rcclGenericKernel": {"computation", "communication"},
		"hipLaunchKernel":   {"communication", "other"},
	} {
		assert.Equal(t, want[0], htaType(n), "HTA: %q", n)
		assert.Equal(t, want[1], Default().Classify(n).Group(), "orprof: %q", n)
	}
}

func TestParseRules(t *testing.T) {
	r, err := ParseRules(strings.NewReader("# ours\n\nattention ^my_fused_mha_\ngemm\t(?i)^tile_MATMUL\nother  ^ampere_sgemm_32\n"), "r.txt")
	require.NoError(t, err)
	assert.Equal(t, Attention, r.Classify("my_fused_mha_fwd"))
	assert.Equal(t, GEMM, r.Classify("tile_matmul_64"))
	assert.Equal(t, Other, r.Classify("ampere_sgemm_32x32_sliced1x4_nn"), "a user's rule comes first")
	assert.Equal(t, GEMM, r.Classify("ampere_sgemm_128x64_nn"), "the built-in rules follow")
	assert.Equal(t, Default().Classify("x"), r.Classify("x"))

	for in, want := range map[string]string{
		"gemmm foo\n":                `r.txt:1: "gemmm" is not a category`,
		"\n# c\ngemm\n":              `r.txt:3: "gemm" has no pattern`,
		"gemm (unclosed\n":           "r.txt:1: pattern \"(unclosed\": error parsing regexp",
		strings.Repeat("x", 300):     `r.txt:1: "xxxxxxxxxx`,
		"memory ^a\nbogus\n":         `r.txt:2: "bogus" is not a category`,
		"gemm " + "\x1b[31m(" + "\n": `r.txt:1: pattern "\x1b[31m("`,
	} {
		_, err := ParseRules(strings.NewReader(in), "r.txt")
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want)
		assert.NotContains(t, err.Error(), "\n")
		assert.Less(t, len(err.Error()), 400, "the line is quoted at most ~100 bytes")
	}
	_, err = LoadRules("testdata/no-such-file")
	assert.Error(t, err)
}

func TestCategoryNames(t *testing.T) {
	for _, c := range Categories() {
		got, ok := ParseCategory(c.String())
		assert.True(t, ok)
		assert.Equal(t, c, got)
	}
	_, ok := ParseCategory("Computation")
	assert.False(t, ok)
	assert.Equal(t, "Category(99)", Category(99).String())
}

func FuzzParseRules(f *testing.F) {
	f.Add("gemm ^x\n# c\nmemory (?i)dma\n")
	f.Add("attention\t(\n")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ParseRules(strings.NewReader(in), "f")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err)
			}
			return
		}
		_ = r.Classify(in)
	})
}

func ExampleRules_Classify() {
	r, err := ParseRules(strings.NewReader("attention ^my_fused_mha_\n"), "rules.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range []string{"my_fused_mha_fwd", "ampere_sgemm_128x64_nn", "Memcpy HtoD (Pageable -> Device)", "ncclDevKernel_AllReduce"} {
		c := r.Classify(n)
		fmt.Printf("%-35s %-13s %s\n", n, c, c.Group())
	}
	// Output:
	// my_fused_mha_fwd                    attention     computation
	// ampere_sgemm_128x64_nn              gemm          computation
	// Memcpy HtoD (Pageable -> Device)    memory        memory
	// ncclDevKernel_AllReduce             communication communication
}
