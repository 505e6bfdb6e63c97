// Package collective says what a trace records of one collective or point-to-point call of
// PyTorch's c10d, and what that makes of its size and bandwidth.
//
// PyTorch wraps every call in a record_param_comms operator whose args name it; Kineto
// copies the same args onto the kernel the operator launched (libkineto/src/output_json.cpp,
// appendCollectiveArgs). The keys, as they spell them:
//
//	"Collective name"            the call: "allreduce", "allgather", "_reduce_scatter_base", "send", …
//	"Process Group Name"         the group's name ("0" for the default group; builds of early 2024
//	                             wrote an integer "Process Group ID" instead)
//	"Process Group Description"  "default_pg", "undefined" or a user's description
//	"Process Group Ranks"        the group's global ranks, "[0, 1, 2, 3]" (cut with ", ..." past 30)
//	"Group size"                 the group's size
//	"Seq"                        the group's sequence number of the call (collectives and
//	                             point-to-point calls are counted apart)
//	"Comms Id"                   a 64-bit unsigned hash of the group's name, Seq, whether the call is
//	                             point-to-point and the communicator's rank start, stride and size
//	                             (PyTorch's saveNcclMeta, pytorch#176810, kineto#1300): the same number
//	                             on every rank of one call; written as a bare JSON integer
//	"Src Rank", "Dst Rank"       the peer's global rank of a recv, a send
//	"In msg nelems", "Out msg nelems", "dtype"
//	                             the input's and output's element counts and their element type
//	                             (c10's ScalarType name: "Float", "BFloat16", …)
//
// Sizes and bandwidths follow nccl-tests' definitions (its doc/PERFORMANCE.md). The size S of a
// call is the larger of its input and output in bytes (an all-gather's output, a
// reduce-scatter's input: the whole buffer, as nccl-tests counts it). The algorithm bandwidth is
// S / t, the bus bandwidth algbw × a factor that makes the figures of different calls compare
// with the hardware's link speed: 2(n−1)/n for all-reduce, (n−1)/n for all-gather,
// reduce-scatter and all-to-all, 1 for broadcast, reduce, send and recv (n: the group's size).
package collective
