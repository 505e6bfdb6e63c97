// Package kernels is the device-side view of a trace: what each kernel (and copy and fill)
// is, how long it ran, on which streams, and which operator launched it — the view `nsys
// stats` (cuda_gpu_kern_sum), TraceLens's kernel summary and HolisticTraceAnalysis's kernel
// breakdown give and PyTorch's operator table does not.
//
// # Categories
//
// Classify puts a kernel name in one Category by the first of a list of rules (regular
// expressions) that matches it. The built-in rules come first in HolisticTraceAnalysis's
// order (reference: hta.md, "Kernel classification"), then orprof's own for the kinds of
// computation:
//
//   - communication: the name starts with nccl, rccl or hccl, or holds ncclKernel or
//     ncclDevKernel;
//   - memory: it starts with Memcpy or Memset (hipMemcpy…, hipMemset… too) or dma (MTIA's
//     dma_request);
//   - other: it holds Memcpy, Memset, dma or Sync, or is a stream wait, a launch call or one
//     of MTIA's job steps (runFunction, job_exe, packet, pe_exe, cpum_exe_subgraph,
//     collective_subgraph_execution);
//   - computation, split by name into elementwise (PyTorch's elementwise, vectorized and
//     unrolled kernels, Triton pointwise, foreach/multi-tensor optimizers, index and layout
//     kernels, checked first), attention (attention, attn, fmha, flash, sdpa), convolution
//     (conv, winograd, fprop/dgrad/wgrad, cuDNN's scudnn kernels), GEMM (gemm, gemv, matmul,
//     cuBLAS, CUTLASS, xmma, nvjet, Tensile's Cijk_, bmm/addmm/mm/fc as words), reduction
//     (reduce, softmax, norms and batch norm, pooling, scans, sorts, top-k, sum/mean/max/min
//     as words), elementwise again by the names of arithmetic and comparison ops, and
//     "computation" (ComputeOther) for the rest.
//
// A device copy or fill (gpu_memcpy, gpu_memset) is memory and a device synchronization
// (cuda_sync) is other whatever its name, as their categories in the trace say.
//
// A user extends the rules with a small file (ParseRules, `orprof kernels --rules FILE`):
// lines "CATEGORY REGEXP", tried before the built-in ones.
//
// Where orprof differs from HolisticTraceAnalysis, and why:
//
//   - HTA tests `^hip` for communication before memory, so hipMemcpy… and hipMemset… names
//     come out as communication; orprof does not test `^hip` (ROCm's kernels do not start
//     with it; its runtime calls are not device work) and calls them memory.
//   - HTA counts rccl kernels as computation; orprof, as communication.
//   - HTA has no kinds of computation. TraceLens's kernel classification has more
//     (normalization, quantization, MoE, KV cache) and picks among matching rules by a
//     priority; orprof keeps six kinds, folds normalization into reduction and quantization
//     into computation, and takes the first rule that matches, so a user's rule always wins.
//   - TraceLens and HTA classify only what the trace calls a kernel; orprof classifies copies,
//     fills and MTIA's dma requests too, as memory.
package kernels
