package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/tracetest"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// TestGzipTraceReadsBack: a trace of many MiB written by the writer of `--trace x.gz` is one
// gzip member that the standard library and gzip(1) decompress to the plain export's bytes, and
// that tracefile reads to the same events and `orprof table` to the same table as the plain file.
func TestGzipTraceReadsBack(t *testing.T) {
	tr := tracetest.Session(40_000)
	var plain bytes.Buffer
	require.NoError(t, trace.Write(&plain, tr))
	require.Greater(t, plain.Len(), 4<<20, "big enough for several blocks")

	var z bytes.Buffer
	zw := newGzipWriter(&z)
	require.NoError(t, trace.Write(zw, tr))
	require.NoError(t, zw.Close())

	zr, err := gzip.NewReader(bytes.NewReader(z.Bytes()))
	require.NoError(t, err)
	zr.Multistream(false)
	got, err := io.ReadAll(zr)
	require.NoError(t, err)
	require.True(t, bytes.Equal(plain.Bytes(), got), "the standard library decompresses the plain export's bytes")
	assert.Less(t, z.Len()*8, plain.Len(), "compressed more than 8×")

	dir := t.TempDir()
	plainPath, gzPath := filepath.Join(dir, "t.json"), filepath.Join(dir, "t.json.gz")
	require.NoError(t, os.WriteFile(plainPath, plain.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(gzPath, z.Bytes(), 0o644))

	if _, err := exec.LookPath("gzip"); err != nil {
		t.Log("gzip not found: the gzip -dc check is left out")
	} else {
		out, err := exec.Command("gzip", "-dc", gzPath).Output()
		require.NoError(t, err)
		require.True(t, bytes.Equal(plain.Bytes(), out), "gzip -dc gives the plain export's bytes")
	}

	dp, err := tracefile.Open(plainPath, tracefile.Options{})
	require.NoError(t, err)
	dz, err := tracefile.Open(gzPath, tracefile.Options{})
	require.NoError(t, err)
	require.Len(t, dz.Events, len(dp.Events))
	assert.Equal(t, dp.Events, dz.Events)
	assert.Zero(t, dz.TrailingBytes)
	assert.Zero(t, dz.Skipped)

	var outP, outZ, errb bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"table", "--row-limit", "-1", plainPath}, nil, &outP, &errb), errb.String())
	require.Equal(t, 0, dispatch([]string{"table", "--row-limit", "-1", gzPath}, nil, &outZ, &errb), errb.String())
	assert.Equal(t, outP.String(), outZ.String())
}
