package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const convertFixture = "../../trace/perfetto/testdata/overlaps.json"

// TestConvertLeavesNothingHalfWritten: a trace that goes bad past its start fails with one
// line naming it, and the output is neither created nor touched.
func TestConvertLeavesNothingHalfWritten(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(convertFixture)
	require.NoError(t, err)
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, good[:len(good)*2/3], 0o644))
	for _, out := range []string{"new.pftrace", "old.pftrace", "new.json.gz"} {
		path := filepath.Join(dir, out)
		if strings.HasPrefix(out, "old") {
			require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
		}
		var stdout, stderr bytes.Buffer
		code := dispatch([]string{"convert", "-o", path, convertFixture, bad}, nil, &stdout, &stderr)
		require.Equal(t, 2, code)
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
		assert.Contains(t, stderr.String(), bad)
		b, err := os.ReadFile(path)
		if strings.HasPrefix(out, "old") {
			assert.Equal(t, "old", string(b), "the old output is kept")
		} else {
			assert.True(t, os.IsNotExist(err), "no output is left: %v", err)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			assert.False(t, strings.Contains(e.Name(), ".tmp") || strings.HasPrefix(e.Name(), "."), "a temporary file is left: %s", e.Name())
		}
	}
}

// TestConvertForms: a directory of traces, stdin, gzip in and out; the JSON output is read
// back by encoding/json and names each rank's processes.
func TestConvertForms(t *testing.T) {
	dir := t.TempDir()
	ranks := filepath.Join(dir, "ranks")
	require.NoError(t, os.Mkdir(ranks, 0o755))
	good, err := os.ReadFile(convertFixture)
	require.NoError(t, err)
	for i, r := range []string{"3", "10"} {
		var zb bytes.Buffer
		z := gzip.NewWriter(&zb)
		z.Write(bytes.Replace(good, []byte(`"rank": 3`), []byte(`"rank": `+r), 1))
		z.Close()
		require.NoError(t, os.WriteFile(filepath.Join(ranks, "rank"+[]string{"2", "10"}[i]+".json.gz"), zb.Bytes(), 0o644))
	}
	out := filepath.Join(dir, "all.json.gz")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"convert", "-o", out, ranks}, nil, &stdout, &stderr), stderr.String())
	assert.Empty(t, stdout.String())
	assert.Equal(t, "orprof: "+out+" written: 2 ranks, 20 slices, 4 overlap tracks, 8 flow ends\n", stderr.String())
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.NewDecoder(z).Decode(&doc))
	var procs []string
	for _, ev := range doc.TraceEvents {
		if ev["name"] == "process_name" {
			procs = append(procs, ev["args"].(map[string]any)["name"].(string))
		}
	}
	assert.Equal(t, []string{"rank 3 · host", "rank 3 · GPU 0", "rank 10 · host", "rank 10 · GPU 0"}, procs)

	// stdin, into a .pftrace: the same bytes as from the file.
	fromFile, fromStdin := filepath.Join(dir, "a.pftrace"), filepath.Join(dir, "b.pftrace")
	require.Equal(t, 0, dispatch([]string{"convert", "-o", fromFile, convertFixture}, nil, io.Discard, &stderr), stderr.String())
	require.Equal(t, 0, dispatch([]string{"convert", "-o", fromStdin, "-"}, bytes.NewReader(good), io.Discard, &stderr), stderr.String())
	a, _ := os.ReadFile(fromFile)
	b, _ := os.ReadFile(fromStdin)
	assert.True(t, len(a) > 0 && bytes.Equal(a, b), "stdin gives the file's bytes")
}
