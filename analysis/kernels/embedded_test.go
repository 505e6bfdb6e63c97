package kernels

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/text"
)

// TestReadEmbedded: a document ReadOptions.Embedded reads (a report summary, in the CLI) is one
// more summary among the inputs — a file, stdin, beside traces and kernels summaries — merged
// in path order as a kernels summary is (a rank its trace did not name numbered by its
// position), the same bytes as the traces read together; its errors are the input's; what it
// does not claim is read as before.
func TestReadEmbedded(t *testing.T) {
	dir := t.TempDir()
	const tr = "../../testdata/kineto/cuda_alexnet.json.gz"
	one, _, err := Open(tr, 0, ReadOptions{})
	require.NoError(t, err)
	var sum bytes.Buffer
	require.NoError(t, Write(&sum, text.JSON, one, WriteOptions{}))
	const mark = "WRAPPED\n"
	doc := append([]byte(mark), sum.Bytes()...)
	wrapped := filepath.Join(dir, "w.json")
	require.NoError(t, os.WriteFile(wrapped, doc, 0o644))
	broken := filepath.Join(dir, "broken.json")
	require.NoError(t, os.WriteFile(broken, []byte(mark+"{"), 0o644))
	own := filepath.Join(dir, "k.json")
	require.NoError(t, os.WriteFile(own, sum.Bytes(), 0o644))
	embedded := func(br *bufio.Reader, name string) (*Summary, bool, error) {
		head, _ := br.Peek(len(mark))
		if string(head) != mark {
			return nil, false, nil
		}
		br.Discard(len(mark))
		s, err := ReadSummary(br, name+": field kernels")
		return s, true, err
	}
	json := func(s *Summary) string {
		var b bytes.Buffer
		require.NoError(t, Write(&b, text.JSON, s, WriteOptions{}))
		return b.String()
	}
	want, _, err := ReadAll([]string{tr, tr, tr}, ReadOptions{})
	require.NoError(t, err)
	for _, paths := range [][]string{{tr, wrapped, own}, {wrapped, wrapped, wrapped}, {own, tr, wrapped}} {
		got, _, err := ReadAll(paths, ReadOptions{Embedded: embedded})
		require.NoError(t, err, "%v", paths)
		assert.Equal(t, json(want), json(got), "%v", paths)
	}
	got, _, err := ReadAll([]string{"-"}, ReadOptions{Embedded: embedded, Stdin: bytes.NewReader(doc)})
	require.NoError(t, err)
	assert.Equal(t, json(one), json(got), "on stdin")
	got, _, err = ReadAll([]string{"-"}, ReadOptions{Embedded: embedded, Stdin: bytes.NewReader(sum.Bytes())})
	require.NoError(t, err)
	assert.Equal(t, json(one), json(got), "a kernels summary on stdin, not claimed")

	_, _, err = ReadAll([]string{tr, broken}, ReadOptions{Embedded: embedded})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), broken+": field kernels"), "%v", err)
	_, _, err = ReadAll([]string{"-"}, ReadOptions{Embedded: embedded, Stdin: strings.NewReader(mark + "{")})
	assert.ErrorContains(t, err, fmt.Sprintf("%s: field kernels", "<stdin>"))
}
