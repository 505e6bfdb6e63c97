package collective

import (
	"strconv"
	"strings"
)

// Call is what a trace says of one collective or point-to-point call (the keys of the package
// doc). Absent strings are "", absent numbers −1 (New). A Call is comparable, so it can key a
// map.
type Call struct {
	// Name is "Collective name".
	Name string
	// Group is "Process Group Name" (or "Process Group ID" in decimal); GroupDesc is
	// "Process Group Description"; Ranks is "Process Group Ranks" as written.
	Group, GroupDesc, Ranks string
	// GroupSize is "Group size", Seq is "Seq"; Src and Dst are the peer's global rank of a recv
	// and of a send.
	GroupSize, Seq, Src, Dst int64
	// InNelems and OutNelems are "In msg nelems" and "Out msg nelems".
	InNelems, OutNelems int64
	// Dtype is "dtype"; CommsID is "Comms Id" in decimal, exactly as written (it may not fit
	// an int64 or a float64).
	Dtype, CommsID string
}

// New is a Call that says nothing yet: every number −1.
func New() Call { return Call{GroupSize: -1, Seq: -1, Src: -1, Dst: -1, InNelems: -1, OutNelems: -1} }

// Kind is what a call does, from its name.
type Kind uint8

// The kinds of calls; Unknown is a name that says none of them.
const (
	Unknown Kind = iota
	AllReduce
	AllGather
	ReduceScatter
	AllToAll
	Broadcast
	Reduce
	Gather
	Scatter
	Send
	Recv
	Barrier
)

var kindNames = [...]string{"unknown", "allreduce", "allgather", "reduce_scatter", "alltoall", "broadcast", "reduce",
	"gather", "scatter", "send", "recv", "barrier"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// KindOf is the kind of a call or kernel named name: c10d's names ("allreduce",
// "_allgather_base", "reduce_scatter_tensor_coalesced", "all_to_all", …) and the
// communication libraries' kernel names ("ncclDevKernel_AllReduce_Sum_f32_RING_LL",
// "ncclKernel_AllGather_RING_LL_Sum_int8_t", "ncclDevKernel_SendRecv") alike; Unknown when
// the name says none of them (a SendRecv kernel is Unknown: either side).
func KindOf(name string) Kind {
	n := strings.ToLower(strings.ReplaceAll(name, "_", ""))
	switch {
	case strings.Contains(n, "allreduce"):
		return AllReduce
	case strings.Contains(n, "allgather"):
		return AllGather
	case strings.Contains(n, "reducescatter"):
		return ReduceScatter
	case strings.Contains(n, "alltoall"):
		return AllToAll
	case strings.Contains(n, "broadcast") || strings.Contains(n, "bcast"):
		return Broadcast
	case strings.Contains(n, "barrier"):
		return Barrier
	case strings.Contains(n, "sendrecv"):
		return Unknown
	case strings.Contains(n, "reduce"):
		return Reduce
	case strings.Contains(n, "gather"):
		return Gather
	case strings.Contains(n, "scatter"):
		return Scatter
	case strings.Contains(n, "send"):
		return Send
	case strings.Contains(n, "recv"):
		return Recv
	}
	return Unknown
}

// P2P reports whether the call is point-to-point: a send or recv by name, or one that names
// its peer.
func (c Call) P2P() bool {
	k := KindOf(c.Name)
	return k == Send || k == Recv || c.Src >= 0 || c.Dst >= 0
}

// Bytes is the call's size in bytes as nccl-tests counts it: the larger of its input and
// output element counts times the size of its element type. False when the trace does not say
// (no element count, or a type whose size is unknown). A trace without "Out msg nelems"
// (before 2023) gives an all-gather's output as its input times the group's size.
func (c Call) Bytes() (int64, bool) {
	size, ok := DtypeSize(c.Dtype)
	if !ok {
		return 0, false
	}
	n := max(c.InNelems, c.OutNelems)
	if c.OutNelems < 0 && c.InNelems >= 0 && KindOf(c.Name) == AllGather {
		if c.GroupSize < 1 {
			return 0, false
		}
		n = c.InNelems * c.GroupSize
	}
	if n < 0 {
		return 0, false
	}
	return n * int64(size), true
}

// dtypeSizes are the bytes per element of c10's ScalarType names, lowercased.
var dtypeSizes = map[string]int{
	"byte": 1, "char": 1, "bool": 1, "qint8": 1, "quint8": 1, "bits8": 1,
	"float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1, "float8_e8m0fnu": 1,
	"float4_e2m1fn_x2": 1,
	"short":            2, "half": 2, "bfloat16": 2, "uint16": 2, "bits16": 2, "complexhalf": 4,
	"int": 4, "float": 4, "uint32": 4, "qint32": 4,
	"long": 8, "double": 8, "uint64": 8, "complexfloat": 8,
	"complexdouble": 16,
	// torch's Python names, as some writers spell them.
	"uint8": 1, "int8": 1, "int16": 2, "float16": 2, "int32": 4, "float32": 4, "int64": 8, "float64": 8,
	"complex64": 8, "complex128": 16,
}

// DtypeSize is the size in bytes of one element of type dtype: c10's ScalarType names
// ("Float", "BFloat16", "Long", "Float8_e4m3fn", …) or torch's ("float32", "torch.bfloat16"),
// in any case. False for a type it does not know (a packed sub-byte one, "").
func DtypeSize(dtype string) (int, bool) {
	d := strings.ToLower(strings.TrimSpace(dtype))
	d = strings.TrimPrefix(d, "torch.")
	s, ok := dtypeSizes[d]
	return s, ok
}

// BusFactor is nccl-tests' bus bandwidth factor of a call of kind k in a group of n ranks:
// 2(n−1)/n for all-reduce, (n−1)/n for all-gather, reduce-scatter and all-to-all, 1 for
// broadcast, reduce, send and recv. False for other kinds or n < 1.
func BusFactor(k Kind, n int64) (float64, bool) {
	if n < 1 {
		return 0, false
	}
	f := float64(n-1) / float64(n)
	switch k {
	case AllReduce:
		return 2 * f, true
	case AllGather, ReduceScatter, AllToAll:
		return f, true
	case Broadcast, Reduce, Send, Recv:
		return 1, true
	}
	return 0, false
}

// Bandwidth is the algorithm bandwidth of moving bytes in ns nanoseconds, in bytes per
// second, and the bus bandwidth of a call of kind k in a group of n ranks (BusFactor; false
// when it has none). Both are 0 when ns ≤ 0.
func Bandwidth(bytes, ns int64, k Kind, n int64) (algbw, busbw float64, hasBus bool) {
	if ns <= 0 {
		return 0, 0, false
	}
	algbw = float64(bytes) / (float64(ns) / 1e9)
	f, ok := BusFactor(k, n)
	return algbw, algbw * f, ok
}

// ParseRanks reads a "Process Group Ranks" value ("[0, 2, 4]"); false when it is not a
// whole list of integers (PyTorch cuts lists of more than 30 ranks with ", ...").
func ParseRanks(s string) ([]int64, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	if s == "" {
		return nil, true
	}
	var out []int64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// Size is the group's size: GroupSize, else the length of a whole Ranks list; false when the
// trace says neither.
func (c Call) Size() (int64, bool) {
	if c.GroupSize > 0 {
		return c.GroupSize, true
	}
	if rs, ok := ParseRanks(c.Ranks); ok && len(rs) > 0 {
		return int64(len(rs)), true
	}
	return 0, false
}
