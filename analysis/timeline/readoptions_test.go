package timeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace/tracefile"
)

// commLaunchTrace: an NCCL kernel that carries neither an External id nor c10d's args, whose
// cudaLaunchKernel (no External id either) lies in a record_param_comms op of process group
// 0, sequence number 7: its collective is known through its launch (link rule 2) alone.
const commLaunchTrace = `{"schemaVersion": 1, "traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 10, "tid": 11, "ts": 100, "dur": 20,
 "args": {"External id": 1, "Collective name": "allreduce", "Group size": 2, "Process Group Name": "0",
  "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1]", "Seq": 7, "Rank": 0}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 105, "dur": 5, "args": {"correlation": 5}},
{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 20, "ts": 130, "dur": 20,
 "args": {"stream": 20, "correlation": 5}}
]}`

// TestReadOptionsLink: ReadOptions.Link is the reader's: with every rule the kernel's
// collective is found through its launch; with the External id alone (PyTorch's reading) it
// is not, and the kernel is a collective of unknown call. File and stream alike.
func TestReadOptionsLink(t *testing.T) {
	path := filepath.Join(t.TempDir(), "comm.json")
	require.NoError(t, os.WriteFile(path, []byte(commLaunchTrace), 0o644))
	for _, tc := range []struct {
		link  tracefile.LinkMode
		group string
		seq   int64
	}{
		{tracefile.LinkAll, "0", 7},
		{tracefile.LinkExternalID, "", 0},
	} {
		t.Run(tc.link.String(), func(t *testing.T) {
			fromFile, _, err := Load([]string{path}, DefaultOptions(), ReadOptions{Link: tc.link})
			require.NoError(t, err)
			fromStream, _, err := Read(strings.NewReader(commLaunchTrace), path, DefaultOptions(), 0, ReadOptions{Link: tc.link})
			require.NoError(t, err)
			for _, s := range []*Summary{fromFile, fromStream} {
				require.Len(t, s.Stragglers.Collectives, 1)
				require.Len(t, s.Stragglers.Collectives[0].Items, 1)
				c := s.Stragglers.Collectives[0].Items[0]
				assert.Equal(t, tc.group, c.Group)
				assert.Equal(t, tc.seq, c.Seq)
				assert.Equal(t, tc.seq != 0, c.HasSeq)
			}
		})
	}
}

// TestReadReportMember: a report summary's timeline member is one more summary among the
// inputs: merged in path order with traces and summaries, its one rank numbered by its
// position when its trace named none, its options checked as a summary's (ErrOtherOptions);
// its errors name the input and the member; files and a stream alike. A timeline summary
// re-saved by a JSON tool (keys sorted, indentation changed) reads back.
func TestReadReportMember(t *testing.T) {
	dir := t.TempDir()
	const tr = "../../testdata/kineto/rocm_mi250_train.json.gz"
	one, _, err := OpenTrace(tr, DefaultOptions(), 0)
	require.NoError(t, err)
	var sum bytes.Buffer
	require.NoError(t, Write(&sum, text.JSON, one, nil))
	report := []byte(`{"orprof_report": 1, "table": {}, "timeline": ` + sum.String() + `}`)
	wrapped := filepath.Join(dir, "w.json")
	require.NoError(t, os.WriteFile(wrapped, report, 0o644))
	broken := filepath.Join(dir, "broken.json")
	require.NoError(t, os.WriteFile(broken, []byte(`{"orprof_report": 1, "timeline": {"orprof_timeline": "x"}}`), 0o644))
	var generic any
	require.NoError(t, json.Unmarshal(sum.Bytes(), &generic))
	resaved, err := json.Marshal(generic) // keys sorted, no indentation
	require.NoError(t, err)
	sorted := filepath.Join(dir, "sorted.json")
	require.NoError(t, os.WriteFile(sorted, resaved, 0o644))
	ro := ReadOptions{}
	js := func(s *Summary) string {
		var b bytes.Buffer
		require.NoError(t, Write(&b, text.JSON, s, nil))
		return b.String()
	}

	want, _, err := Load([]string{tr, tr, tr}, DefaultOptions(), ReadOptions{})
	require.NoError(t, err)
	for _, paths := range [][]string{{tr, wrapped, wrapped}, {tr, sorted, wrapped}} {
		got, _, err := Load(paths, DefaultOptions(), ro)
		require.NoError(t, err)
		assert.Equal(t, js(want), js(got), "the wrapped summaries are ranks 1 and 2, as the traces there are")
		assert.Equal(t, []int64{0, 1, 2}, []int64{got.Ranks[0].Number, got.Ranks[1].Number, got.Ranks[2].Number})
	}

	other := DefaultOptions()
	other.QueueLength = 2
	_, _, err = Load([]string{wrapped}, other, ro)
	assert.True(t, errors.Is(err, ErrOtherOptions), "%v", err)
	_, _, err = Read(bytes.NewReader(report), "<stdin>", other, 0, ro)
	assert.True(t, errors.Is(err, ErrOtherOptions), "%v", err)

	for _, in := range [][]byte{report, sum.Bytes(), resaved} {
		s, _, err := Read(bytes.NewReader(in), "<stdin>", DefaultOptions(), 0, ro)
		require.NoError(t, err)
		assert.Equal(t, js(one), js(s), "on a stream")
	}

	_, _, err = Load([]string{tr, broken}, DefaultOptions(), ro)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), broken+": field timeline: "), "%v", err)
}
