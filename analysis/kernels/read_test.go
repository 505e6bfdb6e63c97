package kernels

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/text"
)

// TestLoadKinds: a kernels summary, plain, gzip or after a byte order mark, and a report
// summary's kernels member are summaries among the inputs — files or stdin, beside traces —
// merged in path order as the traces read together are; a report summary's errors name it
// and the member; another summary is refused saying what it is.
func TestLoadKinds(t *testing.T) {
	dir := t.TempDir()
	const tr = "../../testdata/kineto/cuda_alexnet.json.gz"
	one, _, err := Open(tr, 0, ReadOptions{})
	require.NoError(t, err)
	var sum bytes.Buffer
	require.NoError(t, Write(&sum, text.JSON, one, WriteOptions{}))
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(sum.Bytes())
	zw.Close()
	report := []byte(`{"orprof_report": 1, "table": {}, "kernels": ` + sum.String() + `}`)
	wrapped := write("r.json", report)
	own := write("k.json", sum.Bytes())
	ownGz := write("k.json.gz", gz.Bytes())
	bom := write("bom.json", append([]byte("\uFEFF"), sum.Bytes()...))
	json := func(s *Summary) string {
		var b bytes.Buffer
		require.NoError(t, Write(&b, text.JSON, s, WriteOptions{}))
		return b.String()
	}
	want, _, err := Load([]string{tr, tr, tr}, ReadOptions{})
	require.NoError(t, err)
	for _, paths := range [][]string{{tr, wrapped, own}, {wrapped, ownGz, bom}, {own, tr, wrapped}} {
		got, _, err := Load(paths, ReadOptions{})
		require.NoError(t, err, "%v", paths)
		assert.Equal(t, json(want), json(got), "%v", paths)
	}
	for name, in := range map[string][]byte{"report": report, "kernels": sum.Bytes(), "kernels gzip": gz.Bytes()} {
		got, _, err := Load([]string{"-"}, ReadOptions{Stdin: bytes.NewReader(in)})
		require.NoError(t, err, name)
		assert.Equal(t, json(one), json(got), "%s on stdin", name)
	}

	broken := write("broken.json", []byte(`{"orprof_report": 1, "kernels": {"orprof_kernels": "x"}}`))
	_, _, err = Load([]string{tr, broken}, ReadOptions{})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), broken+": field kernels"), "%v", err)
	noMember := write("nomember.json", []byte(`{"orprof_report": 1, "kernels": null}`))
	_, _, err = Load([]string{noMember}, ReadOptions{})
	assert.ErrorContains(t, err, noMember+": field kernels: null: this report summary has no kernels summary")
	timeline := write("t.json", []byte(`{"orprof_timeline": 1}`))
	_, _, err = Load([]string{tr, timeline}, ReadOptions{})
	var ke *input.KindError
	require.True(t, errors.As(err, &ke), "%v", err)
	assert.Equal(t, input.TimelineSummary, ke.Kind)
}
