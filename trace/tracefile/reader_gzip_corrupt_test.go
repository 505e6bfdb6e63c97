package tracefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	gunzip "github.com/orprof/orprof/internal/gz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReaderGzipCorruptWins: a byte flipped inside the DEFLATE data decodes to wrong bytes the
// parse fails on first; the error is the stream's (its CRC-32 or length check), as gzip -t
// says, not the JSON error.
func TestReaderGzipCorruptWins(t *testing.T) {
	z, err := os.ReadFile(filepath.Join(sharedTestdata, "kineto", "cuda_alexnet.json.gz"))
	require.NoError(t, err)
	z[len(z)/2] ^= 0x55
	_, err = Read(bytes.NewReader(z), "c.json.gz", Options{})
	require.Error(t, err)
	assert.True(t, errors.Is(err, gunzip.ErrChecksum) || errors.Is(err, gunzip.ErrCorrupt), "%v", err)
	assert.Contains(t, err.Error(), "c.json.gz: the gzip stream is corrupt")
	assert.NotContains(t, err.Error(), "expected")
}
