// Package tracetest makes traces for tests and benchmarks of the packages that write and read
// them.
package tracetest

import (
	"strconv"

	"github.com/orprof/orprof/trace"
)

// Session is a trace shaped like a session's: n operators on 4 threads with the args a
// session writes (ids, shapes, sequence numbers) and a device kernel for every fourth.
func Session(n int) *trace.Trace {
	t := &trace.Trace{BaseTimeNs: 1_700_000_000_000_000_000, StartNs: 1_700_000_000_000_000_000}
	t.Processes = []trace.Process{{Pid: 1234, Name: "python", Label: "CPU"}, {Pid: 0, Name: "openreg:0", Label: "OPENREG 0"}}
	for th := int64(1); th <= 4; th++ {
		t.Threads = append(t.Threads, trace.Thread{Pid: 1234, Tid: th, Name: "thread " + strconv.FormatInt(th, 10)})
	}
	ts := t.StartNs
	for i := 0; i < n; i++ {
		id := int64(i + 1)
		args := []trace.Arg{trace.Int(trace.ArgExternalID, id), trace.Int(trace.ArgRecordFunctionID, id),
			trace.Raw(trace.ArgInputDims, "[[64, 64], [64, 64]]"),
			trace.Int(trace.ArgFwdThreadID, 0), trace.Int(trace.ArgSequenceNumber, id/3)}
		t.Events = append(t.Events, trace.Event{Ph: 'X', Cat: "cpu_op", Name: "aten::op_" + strconv.Itoa(i%200),
			Pid: 1234, Tid: int64(i%4 + 1), TsNs: ts, DurNs: 3_512 + int64(i%97), Args: args})
		if i%4 == 0 {
			t.Events = append(t.Events, trace.Event{Ph: 'X', Cat: "kernel", Name: "op_kernel_" + strconv.Itoa(i%50),
				Pid: 0, Tid: 7, TsNs: ts + 1_000, DurNs: 2_000, Args: []trace.Arg{trace.Int(trace.ArgExternalID, id),
					trace.Int(trace.ArgDevice, 0), trace.Int(trace.ArgStream, 7), trace.Int(trace.ArgCorrelation, id)}})
		}
		ts += 4_000
	}
	t.EndNs = ts
	return t
}

// Respace rewrites JSON with the separators comma and colon and no other whitespace outside
// strings, keeping the members' order: what Python's json.dump(separators=(comma, colon))
// writes when a tool re-saves a trace. The reader's layout tests and scripts/bench use it.
func Respace(b []byte, comma, colon string) []byte {
	out := make([]byte, 0, len(b))
	inStr, esc := false, false
	for _, c := range b {
		if inStr {
			out = append(out, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case ' ', '\n', '\t', '\r':
		case '"':
			inStr = true
			out = append(out, c)
		case ',':
			out = append(out, comma...)
		case ':':
			out = append(out, colon...)
		default:
			out = append(out, c)
		}
	}
	return out
}

// LongKernelNames is a trace of n kernels, each with its own name of about nameLen bytes shaped
// like a template-heavy CUDA or Triton kernel's (namespaces, template arguments, tile sizes),
// each launched by an operator. Kernel classification is measured on it: its cost per byte of
// distinct name is what such traces pay.
func LongKernelNames(n, nameLen int) *trace.Trace {
	t := &trace.Trace{BaseTimeNs: 1_700_000_000_000_000_000, StartNs: 1_700_000_000_000_000_000}
	t.Processes = []trace.Process{{Pid: 1234, Name: "python", Label: "CPU"}, {Pid: 0, Name: "cuda:0", Label: "GPU 0"}}
	t.Threads = []trace.Thread{{Pid: 1234, Tid: 1, Name: "thread 1"}}
	parts := []string{"cutlass::gemm::kernel::GemmUniversal<", "cute::tuple<cute::C<128>, cute::C<256>, cute::C<64> >, ",
		"at::native::(anonymous namespace)::vectorized_elementwise_kernel<4, ", "triton_red_fused__to_copy_add_mean_",
		"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >, ",
		"flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::half_t>, ",
		"std::integral_constant<bool, true>, c10::BFloat16, ", "cutlass::epilogue::collective::EpilogueTensorBroadcast<", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize"}
	ts := t.StartNs
	for i := 0; i < n; i++ {
		id := int64(i + 1)
		b := []byte("void ns" + strconv.Itoa(i) + "::")
		for j := 0; len(b) < nameLen; j++ {
			b = append(b, parts[(i+j)%len(parts)]...)
			b = strconv.AppendInt(b, int64(i*31+j), 10)
			b = append(b, ", "...)
		}
		b = append(b[:nameLen-1], '>')
		t.Events = append(t.Events, trace.Event{Ph: 'X', Cat: "cpu_op", Name: "aten::op_" + strconv.Itoa(i%50),
			Pid: 1234, Tid: 1, TsNs: ts, DurNs: 3_000, Args: []trace.Arg{trace.Int(trace.ArgExternalID, id)}})
		t.Events = append(t.Events, trace.Event{Ph: 'X', Cat: "cuda_runtime", Name: "cudaLaunchKernel",
			Pid: 1234, Tid: 1, TsNs: ts + 500, DurNs: 1_000, Args: []trace.Arg{trace.Int(trace.ArgExternalID, id),
				trace.Int(trace.ArgCorrelation, id)}})
		t.Events = append(t.Events, trace.Event{Ph: 'X', Cat: "kernel", Name: string(b),
			Pid: 0, Tid: 7, TsNs: ts + 1_000, DurNs: 2_000, Args: []trace.Arg{trace.Int(trace.ArgExternalID, id),
				trace.Int(trace.ArgDevice, 0), trace.Int(trace.ArgStream, 7), trace.Int(trace.ArgCorrelation, id)}})
		ts += 4_000
	}
	t.EndNs = ts
	return t
}
