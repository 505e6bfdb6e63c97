// Package kernels is the device-side view of a trace: what each kernel (and copy and fill)
// is, how long it ran, on which streams, and which operator launched it — the view `nsys
// stats` (cuda_gpu_kern_sum), TraceLens's kernel summary and HolisticTraceAnalysis's kernel
// breakdown give and PyTorch's operator table does not.
//
// # Statistics
//
// A kernel's durations are whole ns: tracefile.Event's EndNs − StartNs, the reader's times on
// the trace's own clock (a Kineto trace's µs to three decimals exactly, finer fractions
// rounded to the ns as read; a legacy trace's float µs rounded to the ns at each end). A
// Summary keeps per kernel the count, the sum, the least and the greatest as int64 ns and the
// sum of the squares as an unsigned 128-bit integer (exact.go); the mean (the sum over the
// count, rounded once) and the sample standard deviation are computed from those integers
// alone. So a summary is the same bits whatever order its events arrive in, and Merge of
// per-rank summaries in any grouping gives the same bytes as one read of all the traces. A
// summary's device time stays below 2⁶³ ns (292 years): the Collector and Merge fail past it.
// The median comes from a histogram of the durations, which merges by adding counts.
//
// Write's json (version 2) carries the exact figures (calls, total_ns, min_ns, max_ns,
// sum_sq_ns2 as decimal digits, the histogram, the launching ops' calls and total_ns) and µs
// figures derived from them, which ReadSummary ignores; it refuses version 1, whose float
// statistics cannot be made exact, in one line naming the file and the field.
//
// # Categories
//
// Classify puts a kernel name in one Category by the first of a list of rules (regular
// expressions) that matches it; Rules.Of adds the work's kind. Every view (this one, the
// timeline, the steps, the report) classifies through one Rules, which decides each distinct
// name once, in one scan of the name: the rules are compiled into one automaton over their
// literal keys (match.go), so a name's cost is linear in its length whatever the rules. The built-in rules come first in HolisticTraceAnalysis's
// order (reference: hta.md, "Kernel classification"), then orprof's own for the kinds of
// computation:
//
//   - communication: the name starts with nccl, rccl, hccl or ccl (oneCCL), or holds
//     ncclKernel or ncclDevKernel;
//   - memory: it starts with Memcpy or Memset (hipMemcpy…, hipMemset… too) or dma (MTIA's
//     dma_request);
//   - other: it holds Memcpy, Memset, dma or Sync, or is a stream wait, a launch call or one
//     of MTIA's job steps (runFunction, job_exe, packet, pe_exe, cpum_exe_subgraph,
//     collective_subgraph_execution);
//   - computation, split by name into elementwise (PyTorch's elementwise, vectorized and
//     unrolled kernels, Triton pointwise, foreach/multi-tensor optimizers, index and layout
//     kernels, clamp (ReLU is clamp_min: not a min reduction), checked first), attention (attention, attn, fmha, flash, sdpa), convolution
//     (conv, winograd, fprop/dgrad/wgrad, cuDNN's scudnn kernels), GEMM (gemm, gemv, matmul,
//     cuBLAS, CUTLASS, xmma, nvjet, Tensile's Cijk_, bmm/addmm/mm/fc as words), reduction
//     (reduce, softmax, norms and batch norm, pooling, scans, sorts, top-k, sum/mean/max/min
//     as words, a loss's forward: nll_loss_forward sums the picked log-probabilities over the
//     batch; its backward writes each gradient element from its own inputs, elementwise), elementwise again by the names of arithmetic and comparison ops, and
//     "computation" (ComputeOther) for the rest.
//
// A device copy or fill (gpu_memcpy, gpu_memset) is memory and a device synchronization
// (cuda_sync) is other whatever its name, as their categories in the trace say.
//
// A user extends the rules with a small file (ParseRules, `orprof kernels --rules FILE`):
// lines "CATEGORY REGEXP", tried before the built-in ones and before the kind: a user's rule
// decides copies, fills and synchronizations too.
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
