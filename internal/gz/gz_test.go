package gz

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, bufSize - 1, bufSize, bufSize + 1, 3*bufSize + 12345} {
		data := make([]byte, n)
		for i := range data {
			data[i] = "{}\"abcdefgh0123456789 ,:\n"[rng.IntN(25)] // compressible, not constant
		}
		for _, chunk := range []int{1 << 10, 64 << 10, 3 << 20} {
			var out bytes.Buffer
			w := NewWriter(&out)
			for p := data; len(p) > 0; {
				c := min(chunk, len(p))
				k, err := w.Write(p[:c])
				require.NoError(t, err)
				require.Equal(t, c, k)
				p = p[c:]
			}
			require.NoError(t, w.Close())
			r, err := gzip.NewReader(&out)
			require.NoError(t, err, "size %d", n)
			r.Multistream(false)
			got, err := io.ReadAll(r)
			require.NoError(t, err, "size %d chunk %d", n, chunk)
			require.True(t, bytes.Equal(data, got), "size %d chunk %d: round trip differs", n, chunk)
			rest, _ := io.ReadAll(&out)
			assert.Empty(t, rest, "one gzip stream, nothing after it")
		}
	}
}

type failWriter struct{ after int }

var errDisk = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	if f.after < len(p) {
		return 0, errDisk
	}
	f.after -= len(p)
	return len(p), nil
}

func TestDestinationErrorStopsTheWriter(t *testing.T) {
	w := NewWriter(&failWriter{after: 100})
	block := bytes.Repeat([]byte("random-ish data 0123456789 "), bufSize/8)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = w.Write(block)
	}
	require.ErrorIs(t, err, errDisk, "Write reports the compressor's error before the input ends")
	assert.ErrorIs(t, w.Close(), errDisk)
	_, err = w.Write([]byte("x"))
	assert.ErrorIs(t, err, ErrClosed)
	assert.ErrorIs(t, w.Close(), ErrClosed)
}

func TestCloseReportsTrailerError(t *testing.T) {
	w := NewWriter(&failWriter{after: 0})
	_, err := w.Write([]byte("small"))
	require.NoError(t, err, "nothing reaches the destination before Close")
	assert.ErrorIs(t, w.Close(), errDisk)
}
