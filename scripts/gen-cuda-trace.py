#!/usr/bin/env python3
"""gen-cuda-trace.py MB OUT: write a synthetic CUDA-style Kineto trace of about MB megabytes.

Each step is what a CUDA training step's trace holds per op: a cpu_op with "External id",
"Input Dims" and "Sequence number", the cudaLaunchKernel runtime call inside it with its
"correlation", and the kernel on the GPU stream linked back by both; every 8th op nests under the
one before it. For memory and time benchmarks at sizes the repository's traces do not reach
(issue 9: 250 MB - 1 GB); the events are ours, made up, in Kineto's layout (one event per line).
"""
import sys

OPS = ["aten::mm", "aten::add", "aten::relu", "aten::conv2d", "aten::sum", "aten::mul"]
KERNELS = ["volta_sgemm_128x64_nn", "vectorized_elementwise_kernel", "reduce_kernel",
           "implicit_convolve_sgemm", "elementwise_kernel_with_index"]


def main():
    target, dst = float(sys.argv[1]) * 1e6, sys.argv[2]
    with open(dst, "w") as out:
        out.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [],\n  "traceEvents": [\n')
        out.write('  {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", '
                  '"tid": "PyTorch Profiler", "ts": 1000000000.000, "dur": 1.000}')
        written, i, ts = 0, 0, 1000000000000
        while written < target:
            ext, corr = 10 + i, 100000 + i
            op, kern = OPS[i % len(OPS)], KERNELS[i % len(KERNELS)]
            start = ts + 20000 * i
            dur = 15000 if i % 8 else 19000
            if i % 8 == 1:
                start -= 17000  # nested in the op before it
                dur = 3000
            lines = [
                f',\n  {{"ph": "X", "cat": "cpu_op", "name": "{op}", "pid": 4242, "tid": 4242, '
                f'"ts": {start // 1000}.{start % 1000:03d}, "dur": {dur // 1000}.{dur % 1000:03d}, '
                f'"args": {{"External id": {ext}, "Sequence number": {i}, "Fwd thread id": 0, '
                f'"Record function id": 0, "Ev Idx": {i}, "Input Dims": [[64, 1024], [1024, 1024]], '
                f'"Input type": ["float", "float"]}}}}',
                f',\n  {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, '
                f'"tid": 4242, "ts": {(start + 500) // 1000}.{(start + 500) % 1000:03d}, "dur": 4.250, '
                f'"args": {{"External id": {ext}, "cbid": 211, "correlation": {corr}}}}}',
                f',\n  {{"ph": "X", "cat": "kernel", "name": "{kern}", "pid": 0, "tid": 7, '
                f'"ts": {(start + 9000) // 1000}.{(start + 9000) % 1000:03d}, "dur": 8.128, '
                f'"args": {{"External id": {ext}, "queued": 0, "device": 0, "context": 1, '
                f'"stream": 7, "correlation": {corr}, "registers per thread": 128, '
                f'"shared memory": 16384, "blocks per SM": 2.5, "warps per SM": 10.0, '
                f'"grid": [512, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 50}}}}',
            ]
            s = "".join(lines)
            out.write(s)
            written += len(s)
            i += 1
        out.write('\n  ],\n  "traceName": "synthetic",\n  "baseTimeNanoseconds": 1700000000000000000\n}\n')


if __name__ == "__main__":
    main()
