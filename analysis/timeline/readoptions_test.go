package timeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
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
			fromFile, _, err := ReadInputs([]string{path}, DefaultOptions(), ReadOptions{Link: tc.link})
			require.NoError(t, err)
			fromStream, _, err := ReadStream(strings.NewReader(commLaunchTrace), path, DefaultOptions(), 0, ReadOptions{Link: tc.link})
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

// TestReadOptionsEmbedded: a document ReadOptions.Embedded reads (a report summary, in the
// CLI) is one more summary among the inputs: merged in path order with traces and summaries,
// its one rank numbered by its position when its trace named none, its options checked as a
// summary's (ErrOtherOptions); its errors are the input's; what it does not claim is read as
// before, on files and on a stream.
func TestReadOptionsEmbedded(t *testing.T) {
	dir := t.TempDir()
	const tr = "../../testdata/kineto/rocm_mi250_train.json.gz"
	one, _, err := OpenTrace(tr, DefaultOptions(), 0)
	require.NoError(t, err)
	var sum bytes.Buffer
	require.NoError(t, Write(&sum, text.JSON, one, nil))
	// A wrapper document: a line, then the summary.
	const mark = "WRAPPED\n"
	wrapped := filepath.Join(dir, "w.json")
	require.NoError(t, os.WriteFile(wrapped, append([]byte(mark), sum.Bytes()...), 0o644))
	broken := filepath.Join(dir, "broken.json")
	require.NoError(t, os.WriteFile(broken, []byte(mark+"{"), 0o644))
	embedded := func(br *bufio.Reader, name string) (*Summary, bool, error) {
		head, _ := br.Peek(len(mark))
		if string(head) != mark {
			return nil, false, nil
		}
		br.Discard(len(mark))
		s, err := Load(br)
		if err != nil {
			return nil, true, fmt.Errorf("%s: field timeline: %v", name, err)
		}
		return s, true, nil
	}
	ro := ReadOptions{Embedded: embedded}
	json := func(s *Summary) string {
		var b bytes.Buffer
		require.NoError(t, Write(&b, text.JSON, s, nil))
		return b.String()
	}

	want, _, err := ReadAll([]string{tr, tr, tr}, DefaultOptions(), 0)
	require.NoError(t, err)
	got, _, err := ReadInputs([]string{tr, wrapped, wrapped}, DefaultOptions(), ro)
	require.NoError(t, err)
	assert.Equal(t, json(want), json(got), "the wrapped summaries are ranks 1 and 2, as the traces there are")
	assert.Equal(t, []int64{0, 1, 2}, []int64{got.Ranks[0].Rank, got.Ranks[1].Rank, got.Ranks[2].Rank})

	other := DefaultOptions()
	other.QueueLength = 2
	_, _, err = ReadInputs([]string{wrapped}, other, ro)
	assert.True(t, errors.Is(err, ErrOtherOptions), "%v", err)
	_, _, err = ReadStream(bytes.NewReader(append([]byte(mark), sum.Bytes()...)), "<stdin>", other, 0, ro)
	assert.True(t, errors.Is(err, ErrOtherOptions), "%v", err)

	s, _, err := ReadStream(bytes.NewReader(append([]byte(mark), sum.Bytes()...)), "<stdin>", DefaultOptions(), 0, ro)
	require.NoError(t, err)
	assert.Equal(t, json(one), json(s), "on a stream")
	// What the reader does not claim is read as before: the summary itself, the trace.
	s, _, err = ReadStream(bytes.NewReader(sum.Bytes()), "<stdin>", DefaultOptions(), 0, ro)
	require.NoError(t, err)
	assert.Equal(t, json(one), json(s))
	got, _, err = ReadInputs([]string{tr}, DefaultOptions(), ro)
	require.NoError(t, err)
	assert.Equal(t, json(one), json(got))

	_, _, err = ReadInputs([]string{tr, broken}, DefaultOptions(), ro)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), broken+": field timeline: "), "%v", err)
}
