package gz

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mtiaGz is the 87 MB MTIA Kineto trace, gzip-compressed, from the repository's testdata.
var mtiaGz = filepath.Join("..", "..", "testdata", "kineto", "mtia_rank0.json.gz")

// gzipped compresses data with the standard library at level.
func gzipped(t testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, level)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

// sample is compressible trace-like text with runs, short and long repeats, and noise.
func sample(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	words := []string{`{"name": "aten::add", `, `"ph": "X", `, `"ts": `, `"dur": `, "\n  ", `"args": {}}, `, "          "}
	for b.Len() < n {
		switch rng.IntN(6) {
		case 0:
			b.WriteByte(byte(rng.IntN(256)))
		case 1:
			for range rng.IntN(40) {
				b.WriteByte('0' + byte(rng.IntN(10)))
			}
		case 2:
			b.Write(bytes.Repeat([]byte{byte(rng.IntN(256))}, rng.IntN(300)))
		case 3:
			if b.Len() > 0 {
				off := rng.IntN(b.Len())
				b.Write(bytes.Clone(b.Bytes()[off:min(b.Len(), off+rng.IntN(600))]))
			}
		default:
			b.WriteString(words[rng.IntN(len(words))])
		}
	}
	return b.Bytes()[:n]
}

func readAll(t testing.TB, in []byte, wrap func(io.Reader) io.Reader) ([]byte, int64, error) {
	z, err := NewReader(wrap(bytes.NewReader(in)))
	if err != nil {
		return nil, 0, err
	}
	out, err := io.ReadAll(z)
	return out, z.TrailingBytes(), err
}

// Under -race it samples one level per size (the Reader is one goroutine); .ci/run's no-race
// step runs the whole matrix (the name says Large).
func TestReaderRoundTripLarge(t *testing.T) {
	levels := []int{gzip.NoCompression, gzip.HuffmanOnly, gzip.BestSpeed, gzip.DefaultCompression, gzip.BestCompression}
	for i, n := range []int{0, 1, 7, 100, 32 << 10, outChunk - 1, outChunk + 1, 3*outChunk + 12345} {
		data := sample(n, uint64(n))
		for j, level := range levels {
			if raceEnabled && j != i%len(levels) {
				continue
			}
			in := gzipped(t, data, level)
			for name, wrap := range map[string]func(io.Reader) io.Reader{
				"whole":    func(r io.Reader) io.Reader { return r },
				"one byte": iotest.OneByteReader,
				"half":     iotest.HalfReader,
			} {
				if name == "one byte" && n > 200<<10 {
					continue
				}
				out, trailing, err := readAll(t, in, wrap)
				require.NoError(t, err, "n=%d level=%d %s", n, level, name)
				require.True(t, bytes.Equal(data, out), "n=%d level=%d %s: output differs", n, level, name)
				assert.Zero(t, trailing)
			}
		}
	}
}

func TestReaderMembersAndTrailing(t *testing.T) {
	a, b := sample(50000, 1), sample(70000, 2)
	za, zb := gzipped(t, a, 6), gzipped(t, b, 1)
	want := append(bytes.Clone(a), b...)
	for name, tc := range map[string]struct {
		in       []byte
		trailing int64
	}{
		"two members":    {append(bytes.Clone(za), zb...), 0},
		"one byte after": {append(append(bytes.Clone(za), zb...), 'x'), 1},
		"garbage after":  {append(append(bytes.Clone(za), zb...), bytes.Repeat([]byte("garbage!"), 100000)...), 800000},
		"zeros after":    {append(append(bytes.Clone(za), zb...), make([]byte, 512)...), 512},
		"empty member":   {append(append(bytes.Clone(za), gzipped(t, nil, 6)...), zb...), 0},
	} {
		out, trailing, err := readAll(t, tc.in, func(r io.Reader) io.Reader { return r })
		require.NoError(t, err, name)
		require.True(t, bytes.Equal(want, out), name)
		assert.Equal(t, tc.trailing, trailing, name)
	}
}

func TestReaderErrors(t *testing.T) {
	data := sample(100000, 3)
	in := gzipped(t, data, 6)
	for _, cut := range []int{10, 11, 20, len(in) / 2, len(in) - 9, len(in) - 8, len(in) - 1} {
		_, _, err := readAll(t, in[:cut], func(r io.Reader) io.Reader { return r })
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "cut at %d", cut)
	}
	bad := bytes.Clone(in)
	bad[len(bad)-6] ^= 1 // the CRC-32
	_, _, err := readAll(t, bad, func(r io.Reader) io.Reader { return r })
	assert.ErrorIs(t, err, ErrChecksum)
	bad = bytes.Clone(in)
	bad[len(bad)-2] ^= 1 // the length
	_, _, err = readAll(t, bad, func(r io.Reader) io.Reader { return r })
	assert.ErrorIs(t, err, ErrChecksum)
	_, err = NewReader(bytes.NewReader([]byte{0x1f, 0x8b, 1, 2, 3, 4, 5, 6, 7, 8}))
	assert.ErrorIs(t, err, ErrHeader)
	_, err = NewReader(bytes.NewReader([]byte{0x1f, 0x8b, 8}))
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	// Block type 3 is reserved.
	_, _, err = readAll(t, []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0, 0x07, 0, 0, 0, 0}, func(r io.Reader) io.Reader { return r })
	assert.ErrorIs(t, err, ErrCorrupt)
	// A source's read error comes through as it is.
	boom := errors.New("boom")
	z, err := NewReader(io.MultiReader(bytes.NewReader(in[:len(in)/2]), iotest.ErrReader(boom)))
	require.NoError(t, err)
	_, err = io.ReadAll(z)
	assert.ErrorIs(t, err, boom)
}

// TestReaderMTIALarge decodes the MTIA trace exactly as the standard library does.
func TestReaderMTIALarge(t *testing.T) {
	if raceEnabled {
		t.Skip("87 MB through one goroutine: run without -race")
	}
	in, err := os.ReadFile(mtiaGz)
	require.NoError(t, err, "testdata missing")
	sr, err := gzip.NewReader(bytes.NewReader(in))
	require.NoError(t, err)
	want, err := io.ReadAll(sr)
	require.NoError(t, err)
	got, _, err := readAll(t, in, func(r io.Reader) io.Reader { return r })
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got))
}

// BenchmarkInflateMTIA decodes the MTIA trace's gzip bytes from memory into io.Discard with
// this package's Reader and, side by side as the anchors, with klauspost/compress's gzip and
// the standard library's. MB/s is over the uncompressed size.
func BenchmarkInflateMTIA(b *testing.B) {
	in, err := os.ReadFile(mtiaGz)
	if err != nil {
		b.Fatalf("testdata missing: %v", err)
	}
	sr, err := gzip.NewReader(bytes.NewReader(in))
	require.NoError(b, err)
	n, err := io.Copy(io.Discard, sr)
	require.NoError(b, err)
	run := func(b *testing.B, decode func() (int64, error)) {
		b.SetBytes(n)
		for b.Loop() {
			got, err := decode()
			if err != nil || got != n {
				b.Fatalf("decoded %d bytes of %d: %v", got, n, err)
			}
		}
	}
	b.Run("gz", func(b *testing.B) {
		run(b, func() (int64, error) {
			z, err := NewReader(bytes.NewReader(in))
			if err != nil {
				return 0, err
			}
			return z.WriteTo(io.Discard)
		})
	})
	b.Run("klauspost", func(b *testing.B) {
		run(b, func() (int64, error) {
			z, err := kgzip.NewReader(bytes.NewReader(in))
			if err != nil {
				return 0, err
			}
			return z.WriteTo(io.Discard)
		})
	})
	b.Run("stdlib", func(b *testing.B) {
		run(b, func() (int64, error) {
			z, err := gzip.NewReader(bytes.NewReader(in))
			if err != nil {
				return 0, err
			}
			return io.Copy(io.Discard, z)
		})
	})
}

// emptyReader returns nothing, forever.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// TestReaderNoProgress: a source that keeps returning nothing is an error, not a hang.
func TestReaderNoProgress(t *testing.T) {
	in := gzipped(t, sample(1000, 4), 6)
	z, err := NewReader(io.MultiReader(bytes.NewReader(in[:20]), emptyReader{}))
	require.NoError(t, err)
	_, err = io.ReadAll(z)
	assert.ErrorIs(t, err, io.ErrNoProgress)
}
