package sniff

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFirstKey(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{`{"k": 1}`, true},
		{"\uFEFF \n{\r\n\t\"k\":1}", true},
		{`{"k"`, true},
		{`{"kk": 1}`, false}, // another key with k as its prefix
		{`{"k`, false},       // cut inside the key
		{`[{"k": 1}]`, false},
		{`{"traceEvents": [], "k": 1}`, false}, // k, but not first
		{``, false},
		{`"k"`, false},
	} {
		assert.Equal(t, c.want, FirstKey([]byte(c.in), "k"), "%q", c.in)
	}
}

func TestHead(t *testing.T) {
	doc := []byte(`{"orprof_kernels": 2, "kernels": []}`)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, err := w.Write(doc)
	require.NoError(t, err)
	require.NoError(t, w.Close())

	assert.Equal(t, doc[:10], Head(bytes.NewReader(doc), 10), "plain")
	assert.Equal(t, doc[:10], Head(bytes.NewReader(gz.Bytes()), 10), "gzip, read through")
	assert.Equal(t, doc, Head(bytes.NewReader(doc), 1000), "shorter than n: all of it")
	assert.Empty(t, Head(bytes.NewReader([]byte{0x1f, 0x8b, 0, 0}), 10), "a gzip header that does not parse")

	path := filepath.Join(t.TempDir(), "s.json.gz")
	require.NoError(t, os.WriteFile(path, gz.Bytes(), 0o644))
	head, err := FileHead(path, 17)
	require.NoError(t, err)
	assert.Equal(t, doc[:17], head)
	_, err = FileHead(filepath.Join(t.TempDir(), "missing"), 17)
	assert.Error(t, err)
}
