package kernels

// tensorCoreKeys are the name fragments of kernels that run on NVIDIA's tensor cores, as the
// TensorBoard plugin lists them (tb_plugin.md §4.1, taken from NVIDIA PyProf): the HMMA and
// IMMA shapes cuBLAS and cuDNN name their kernels by, and cuDNN's and CUTLASS's tensor-core
// kernel families.
var tensorCoreKeys = []string{
	"h884", "s884", "h1688", "s1688", "c1688", "hmma", "i8816", "16816",
	"dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1", "direct_group",
	"xmma_implicit_gemm", "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm", "xmma_gemm",
	"xmma_sparse_gemm",
}

// TensorCore reports whether a kernel named name runs on tensor cores, by the TensorBoard
// plugin's rule: its name holds one of the fragments its kernels are known by. A pure
// substring test, so kernels named otherwise (Triton's, ROCm's MFMA kernels) count as not.
// The classifier's scan of a name finds the fragments too (Decision.TensorCore).
func TensorCore(name string) bool {
	_, tc := defaultRules.decide(name)
	return tc
}
