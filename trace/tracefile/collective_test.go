package tracefile

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commTrace is a CUDA trace of one rank with the collective args PyTorch and Kineto write:
// a record_param_comms operator (group "1", Seq 7) holding the launch of an NCCL kernel that
// carries no args of its own, a send kernel that carries them (as Kineto copies them onto the
// kernel), a 2024 build's record_param_comms with an integer "Process Group ID" and no Seq,
// a compute kernel and an NCCL kernel launched outside every collective operator.
func commTrace(pad int) string {
	evs := []string{
		`{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 10, "ts": 100.000, "dur": 50.000,
		  "args": {"External id": 1, "Collective name": "allreduce", "dtype": "Float", "In msg nelems": 1024,
		  "Out msg nelems": 1024, "Group size": 2, "In split size": "[]", "Out split size": "[]",
		  "Global rank start": 0, "Global rank stride": 2, "Process Group Name": "1",
		  "Process Group Description": "dp_group", "Process Group Ranks": "[0, 2]", "Rank": 0, "Seq": 7,
		  "Comms Id": 18446744073709551557, "Is asynchronized op": 0}}`,
		`{"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce", "pid": 1, "tid": 10, "ts": 110.000, "dur": 30.000, "args": {"External id": 2}}`,
		`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 1, "tid": 10, "ts": 120.000, "dur": 5.000, "args": {"External id": 2, "correlation": 5}}`,
		`{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 7, "ts": 130.000, "dur": 40.000, "args": {"External id": 2, "stream": 7, "correlation": 5}}`,
		`{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 10, "ts": 200.000, "dur": 20.000, "args": {"External id": 3}}`,
		`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 10, "ts": 205.000, "dur": 5.000, "args": {"External id": 3, "correlation": 6}}`,
		`{"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 8, "ts": 210.000, "dur": 40.000, "args": {"External id": 3, "stream": 8, "correlation": 6}}`,
		`{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 10, "ts": 300.000, "dur": 50.000, "args": {"External id": 4, "Collective name": "send", "Group size": 2, "Process Group Name": "0", "Dst Rank": 1, "Seq": 3}}`,
		`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 10, "ts": 310.000, "dur": 5.000, "args": {"External id": 4, "correlation": 8}}`,
		`{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv", "pid": 0, "tid": 7, "ts": 320.000, "dur": 10.000, "args": {"External id": 4, "stream": 7, "correlation": 8, "Collective name": "send", "In msg nelems": 64, "Out msg nelems": 64, "Group size": 2, "dtype": "Float", "Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1]", "Dst Rank": 1, "Seq": 3}}`,
		`{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 11, "ts": 400.000, "dur": 50.000, "args": {"External id": 5, "Collective name": "broadcast", "Group size": 1, "Process Group Ranks": "[0]", "Process Group ID": 0}}`,
		`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 11, "ts": 410.000, "dur": 5.000, "args": {"correlation": 9}}`,
		`{"ph": "X", "cat": "kernel", "name": "ncclKernel_Broadcast_RING_LL_Sum_int8_t", "pid": 0, "tid": 7, "ts": 420.000, "dur": 10.000, "args": {"stream": 7, "correlation": 9}}`,
		`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 10, "ts": 500.000, "dur": 5.000, "args": {"correlation": 10}}`,
		`{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather", "pid": 0, "tid": 7, "ts": 510.000, "dur": 10.000, "args": {"stream": 7, "correlation": 10}}`,
	}
	var b strings.Builder
	b.WriteString(`{"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 4}, "traceEvents": [`)
	for i, e := range evs {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(e)
		for range pad {
			b.WriteString(`, {"ph": "X", "cat": "python_function", "name": "pad", "pid": 1, "tid": 99, "ts": 1.000, "dur": 1.000, "args": {"Python id": 1, "Seq": 1, "dtype": "x"}}`)
		}
	}
	b.WriteString("]}")
	return b.String()
}

// commCollect keeps, per event name and occurrence, the collective it was handed.
type commCollect struct {
	linked
	got []string
}

func (c *commCollect) Event(ev *Event) {
	s := "-"
	if x := ev.Comm; x != nil {
		s = fmt.Sprintf("%s pg=%q desc=%q ranks=%q size=%d seq=%d src=%d dst=%d n=%d/%d %s id=%s", x.Name, x.Group,
			x.GroupDesc, x.Ranks, x.GroupSize, x.Seq, x.Src, x.Dst, x.InNelems, x.OutNelems, x.Dtype, x.CommsID)
	}
	c.got = append(c.got, ev.Name+": "+s)
}

// TestCollectiveArgs: a consumer gets each collective's group and sequence number on its
// record_param_comms operator, on a kernel that carries them, and on a kernel launched within
// such an operator; every other event has none. A parallel read hands over the same.
func TestCollectiveArgs(t *testing.T) {
	want := []string{
		`record_param_comms: allreduce pg="1" desc="dp_group" ranks="[0, 2]" size=2 seq=7 src=-1 dst=-1 n=1024/1024 Float id=18446744073709551557`,
		`nccl:all_reduce: -`,
		`cudaLaunchKernelExC: -`,
		`ncclDevKernel_AllReduce_Sum_f32_RING_LL: allreduce pg="1" desc="dp_group" ranks="[0, 2]" size=2 seq=7 src=-1 dst=-1 n=1024/1024 Float id=18446744073709551557`,
		`aten::mm: -`,
		`cudaLaunchKernel: -`,
		`sm90_gemm: -`,
		`record_param_comms: send pg="0" desc="" ranks="" size=2 seq=3 src=-1 dst=1 n=-1/-1  id=`,
		`cudaLaunchKernel: -`,
		`ncclDevKernel_SendRecv: send pg="0" desc="default_pg" ranks="[0, 1]" size=2 seq=3 src=-1 dst=1 n=64/64 Float id=`,
		`record_param_comms: broadcast pg="0" desc="" ranks="[0]" size=1 seq=-1 src=-1 dst=-1 n=-1/-1  id=`,
		`cudaLaunchKernel: -`,
		`ncclKernel_Broadcast_RING_LL_Sum_int8_t: broadcast pg="0" desc="" ranks="[0]" size=1 seq=-1 src=-1 dst=-1 n=-1/-1  id=`,
		`cudaLaunchKernel: -`,
		`ncclDevKernel_AllGather: -`,
	}
	for _, tc := range []struct {
		name string
		par  parConfig
		pad  int
	}{{"sequential", parConfig{workers: 1}, 0}, {"parallel", parConfig{workers: 3, segSize: 4096}, 300}} {
		t.Run(tc.name, func(t *testing.T) {
			var c commCollect
			_, err := readTrace(bytes.NewReader([]byte(commTrace(tc.pad))), "comm.json",
				Options{Consumers: []Consumer{&c}}, tc.par)
			require.NoError(t, err)
			assert.Equal(t, want, c.got)
		})
	}
}

// TestCollectiveArgsOnlyWhereNamed: args that look like a collective's on an event without a
// "Collective name" (a python_function's "Seq", a kernel's "dtype") give no collective.
func TestCollectiveArgsOnlyWhereNamed(t *testing.T) {
	data := `{"traceEvents": [
	{"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1.000, "dur": 10.000, "args": {"Seq": 4, "dtype": "Float", "Process Group Name": "0"}},
	{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_X", "pid": 0, "tid": 7, "ts": 2.000, "dur": 1.000, "args": {"stream": 7, "Seq": 4}}]}`
	var c commCollect
	_, err := Read(strings.NewReader(data), "x.json", Options{Consumers: []Consumer{&c}})
	require.NoError(t, err)
	assert.Equal(t, []string{"op: -", "ncclDevKernel_X: -"}, c.got)
}

// TestCollectiveArgsKineto: the PyTorch 2.3 CUDA trace in testdata (one rank, no NCCL kernel
// in the profile) has 45 record_param_comms ops whose args name the group by an integer
// "Process Group ID" and carry no Seq: each op gets its collective, group "0".
func TestCollectiveArgsKineto(t *testing.T) {
	var c commCollect
	_, err := Open(filepath.Join(requireShared(t, "kineto"), "cuda_ns_resolution.json.gz"), Options{Consumers: []Consumer{&c}})
	require.NoError(t, err)
	n := 0
	for _, s := range c.got {
		if strings.HasPrefix(s, "record_param_comms: ") {
			n++
			assert.Contains(t, s, `pg="0"`)
			assert.Contains(t, s, "seq=-1")
		} else {
			assert.True(t, strings.HasSuffix(s, ": -"), s)
		}
	}
	assert.Equal(t, 45, n)
}
