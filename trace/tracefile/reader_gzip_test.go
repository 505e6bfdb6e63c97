package tracefile

import (
	"bytes"
	stdgzip "compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	gunzip "github.com/orprof/orprof/internal/gz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReaderGzipErrors: damaged gzip input is a *Error naming the file and the uncompressed
// offset where reading failed, wrapping what internal/gz found.
func TestReaderGzipErrors(t *testing.T) {
	in := kineto("", "cpu_op", "cuda_runtime", "kernel", "External id", 5, 5, 5)
	z := gz(t, in)
	for name, tc := range map[string]struct {
		data []byte
		want error
	}{
		"bad CRC":    {append(bytes.Clone(z[:len(z)-8]), 0, 0, 0, 0, z[len(z)-4], z[len(z)-3], z[len(z)-2], z[len(z)-1]), gunzip.ErrChecksum},
		"bad length": {append(bytes.Clone(z[:len(z)-4]), 1, 2, 3, 4), gunzip.ErrChecksum},
		"bad block":  {append(bytes.Clone(z[:10]), 0x07, 0, 0, 0, 0, 0, 0, 0, 0), gunzip.ErrCorrupt},
		"bad second": {append(bytes.Clone(z), 0x1f, 0x8b, 9, 0, 0, 0, 0, 0, 0, 0), gunzip.ErrHeader},
	} {
		_, err := Read(bytes.NewReader(tc.data), "t.json.gz", Options{})
		var te *Error
		require.ErrorAs(t, err, &te, name)
		assert.Equal(t, "t.json.gz", te.File, name)
		assert.GreaterOrEqual(t, te.Offset, int64(0), name)
		assert.ErrorIs(t, err, tc.want, name)
	}
}

// TestReaderGzipMTIALarge reads the MTIA trace's gzip file whole and one byte at a time (every
// refill boundary of the inflater) and gets what the plain read gets. Without -race only
// (.ci/run's second step); TestReaderGzipOneByte does the same on a smaller trace under -race.
func TestReaderGzipMTIALarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("reads the 87 MB MTIA trace three times; not in -short or under -race")
	}
	gzipReadsLikePlain(t, "mtia_rank0.json.gz")
}

// TestReaderGzipOneByte is TestReaderGzipMTIALarge on a 320 KB trace.
func TestReaderGzipOneByte(t *testing.T) {
	gzipReadsLikePlain(t, "cuda_alexnet.json.gz")
}

// gzipReadsLikePlain reads testdata/kineto/name whole and one byte at a time and requires what
// the read of its decompressed bytes gives.
func gzipReadsLikePlain(t *testing.T, name string) {
	z, err := os.ReadFile(filepath.Join(sharedTestdata, "kineto", name))
	require.NoError(t, err, "testdata missing")
	var plain bytes.Buffer
	r, err := stdgzip.NewReader(bytes.NewReader(z)) // the standard library's, as the reference
	require.NoError(t, err)
	_, err = plain.ReadFrom(r)
	require.NoError(t, err)
	want, err := Read(bytes.NewReader(plain.Bytes()), strings.TrimSuffix(name, ".gz"), Options{})
	require.NoError(t, err)
	got, err := Read(bytes.NewReader(z), name, Options{})
	require.NoError(t, err)
	require.Equal(t, want, got)
	got, err = Read(iotest.OneByteReader(bytes.NewReader(z)), name, Options{})
	require.NoError(t, err)
	require.Equal(t, want, got, "one byte at a time")
}
