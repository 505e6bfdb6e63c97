package collective

import (
	"math"
	"testing"
)

func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		name string
		want Kind
	}{
		{"allreduce", AllReduce}, {"allreduce_coalesced", AllReduce}, {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", AllReduce},
		{"allgather", AllGather}, {"_allgather_base", AllGather}, {"allgather_into_tensor_coalesced", AllGather},
		{"ncclKernel_AllGather_RING_LL_Sum_int8_t", AllGather},
		{"reduce_scatter", ReduceScatter}, {"_reduce_scatter_base", ReduceScatter}, {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", ReduceScatter},
		{"all_to_all", AllToAll}, {"alltoall_base", AllToAll}, {"all_to_allv", AllToAll},
		{"broadcast", Broadcast}, {"ncclDevKernel_Broadcast_RING_LL", Broadcast},
		{"reduce", Reduce}, {"_reduce_oop", Reduce}, {"gather", Gather}, {"scatter", Scatter},
		{"send", Send}, {"recv", Recv}, {"ncclDevKernel_SendRecv", Unknown}, {"barrier", Barrier},
		{"", Unknown}, {"hcclKernel", Unknown},
	} {
		if got := KindOf(c.name); got != c.want {
			t.Errorf("KindOf(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestBytes(t *testing.T) {
	call := func(name, dtype string, in, out, size int64) Call {
		c := New()
		c.Name, c.Dtype, c.InNelems, c.OutNelems, c.GroupSize = name, dtype, in, out, size
		return c
	}
	for _, c := range []struct {
		c    Call
		want int64
		ok   bool
	}{
		{call("allreduce", "Float", 1024, 1024, 8), 4096, true},
		{call("_allgather_base", "BFloat16", 1000, 8000, 8), 16000, true},   // the output
		{call("_reduce_scatter_base", "Float", 8000, 1000, 8), 32000, true}, // the input
		{call("allgather", "Float", 1000, -1, 4), 16000, true},              // no Out msg nelems: in × n
		{call("allgather", "Float", 1000, -1, -1), 0, false},
		{call("send", "Long", 10, 10, 2), 80, true},
		{call("allreduce", "Float8_e4m3fn", 100, 100, 2), 100, true},
		{call("allreduce", "torch.float16", 100, 100, 2), 200, true},
		{call("allreduce", "", 100, 100, 2), 0, false},
		{call("allreduce", "QUInt4x2", 100, 100, 2), 0, false},
		{call("allreduce", "Float", -1, -1, 2), 0, false},
	} {
		got, ok := c.c.Bytes()
		if got != c.want || ok != c.ok {
			t.Errorf("%+v: Bytes() = %d, %v; want %d, %v", c.c, got, ok, c.want, c.ok)
		}
	}
}

// TestBusBandwidth checks the figures against ones worked out by hand from nccl-tests'
// definitions.
func TestBusBandwidth(t *testing.T) {
	for _, c := range []struct {
		k            Kind
		n            int64
		bytes, ns    int64
		algbw, busbw float64 // GB/s (1e9 B/s)
		hasBus       bool
	}{
		// 1 GB in 10 ms: 100 GB/s; all-reduce over 8: × 2·7/8 = 175 GB/s.
		{AllReduce, 8, 1_000_000_000, 10_000_000, 100, 175, true},
		// 256 MiB in 4 ms over 4 ranks: 67.108864 GB/s × 3/4 = 50.331648.
		{AllGather, 4, 256 << 20, 4_000_000, 67.108864, 50.331648, true},
		{ReduceScatter, 2, 4_000_000, 1_000_000, 4, 2, true},
		{AllToAll, 16, 1_600_000, 1_000, 1600, 1500, true},
		{Broadcast, 8, 8_000, 1_000, 8, 8, true},
		{Send, 2, 500, 1_000, 0.5, 0.5, true},
		{AllReduce, 1, 4_000, 1_000, 4, 0, true}, // one rank moves nothing over the bus
		{Gather, 8, 8_000, 1_000, 8, 0, false},
		{AllReduce, 8, 8_000, 0, 0, 0, false},
	} {
		alg, bus, ok := Bandwidth(c.bytes, c.ns, c.k, c.n)
		if math.Abs(alg/1e9-c.algbw) > 1e-9 || math.Abs(bus/1e9-c.busbw) > 1e-9 || ok != c.hasBus {
			t.Errorf("%v n=%d %d B in %d ns: algbw %g busbw %g GB/s (%v), want %g %g (%v)", c.k, c.n, c.bytes, c.ns,
				alg/1e9, bus/1e9, ok, c.algbw, c.busbw, c.hasBus)
		}
	}
}

func TestParseRanksAndSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		ok   bool
		size int64
	}{
		{"[0, 1, 2, 3]", 4, true, 4}, {"[]", 0, true, 0}, {"[0, 1, ...]", 0, false, 0}, {"0,1", 0, false, 0},
	} {
		rs, ok := ParseRanks(c.in)
		if len(rs) != c.n || ok != c.ok {
			t.Errorf("ParseRanks(%q) = %v, %v", c.in, rs, ok)
		}
		call := New()
		call.Ranks = c.in
		if n, _ := call.Size(); n != c.size {
			t.Errorf("Size of ranks %q = %d, want %d", c.in, n, c.size)
		}
	}
	c := New()
	c.GroupSize, c.Ranks = 16, "[0, 1, ...]"
	if n, ok := c.Size(); n != 16 || !ok {
		t.Errorf("Size with Group size 16 = %d, %v", n, ok)
	}
}

func TestP2P(t *testing.T) {
	c := New()
	c.Name = "allreduce"
	if c.P2P() {
		t.Error("allreduce is point-to-point")
	}
	c.Name, c.Dst = "ncclDevKernel_SendRecv", 3
	if !c.P2P() {
		t.Error("a call with a Dst Rank is not point-to-point")
	}
}
