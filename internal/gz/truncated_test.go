package gz

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// stdPrefix decodes in with compress/gzip, returning what it hands out before its error.
func stdPrefix(in []byte) ([]byte, error) {
	sr, err := gzip.NewReader(bytes.NewReader(in))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(sr)
}

// checkCut reads in[:cut] (in is whole gzip input that compress/gzip decodes) whole and one
// byte at a time and wants exactly compress/gzip's output, byte for byte (a true prefix of the
// data: no byte made up from past the end) and io.ErrUnexpectedEOF, or NewReader's failure
// where compress/gzip's NewReader fails too; a cut between members decodes without error.
func checkCut(t testing.TB, in []byte, cut int) {
	t.Helper()
	want, serr := stdPrefix(in[:cut])
	for _, wrap := range []func(io.Reader) io.Reader{
		func(r io.Reader) io.Reader { return r },
		iotest.OneByteReader,
	} {
		z, err := NewReader(wrap(bytes.NewReader(in[:cut])))
		if err != nil {
			if serr == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("cut at %d of %d: NewReader: %v (compress/gzip: %v)", cut, len(in), err, serr)
			}
			continue
		}
		got, err := io.ReadAll(z)
		if serr == nil {
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("cut at %d of %d: %d bytes and %v; compress/gzip decodes %d bytes", cut, len(in), len(got), err, len(want))
			}
			continue
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut at %d of %d: %d bytes and %v, want io.ErrUnexpectedEOF", cut, len(in), len(got), err)
		}
		if !bytes.Equal(got, want) {
			n := 0
			for n < min(len(got), len(want)) && got[n] == want[n] {
				n++
			}
			t.Fatalf("cut at %d of %d: %d bytes, compress/gzip %d (%v); they differ from byte %d", cut, len(in), len(got), len(want), serr, n)
		}
	}
}

// TestReaderTruncatedRealTrace: every cut point of a real .json.gz (a CPU-only Kineto trace
// in the repository's testdata, 2,464 bytes) hands out exactly what compress/gzip does and then
// io.ErrUnexpectedEOF; and every 97th of a larger one (the CUDA AlexNet trace), whose blocks
// are dynamic Huffman blocks. Before, 107 of 130 cut points of such a file handed out bytes
// decoded from the zeros that stand for the input past its end.
func TestReaderTruncatedRealTrace(t *testing.T) {
	for _, c := range []struct {
		file   string
		stride int
	}{{"cpu_only.json.gz", 1}, {"cuda_alexnet.json.gz", 97}} {
		in, err := os.ReadFile(filepath.Join("..", "..", "testdata", "kineto", c.file))
		require.NoError(t, err, "testdata missing")
		if raceEnabled {
			c.stride = c.stride*10 + 1 // every cut without the race detector
		}
		for cut := 0; cut < len(in); cut += c.stride {
			checkCut(t, in, cut)
		}
		// The last bytes, one by one: the final block's end and the trailer.
		last := 80
		if raceEnabled {
			last = 12
		}
		for cut := max(len(in)-last, 0); cut < len(in); cut++ {
			checkCut(t, in, cut)
		}
	}
}

// TestReaderTruncatedMembers: a cut inside the second member, its header included (one byte
// of it is not trailing garbage: compress/gzip reports it as a cut too).
func TestReaderTruncatedMembers(t *testing.T) {
	first := gzipped(t, sample(5000, 11), gzip.BestCompression)
	in := append(bytes.Clone(first), gzipped(t, sample(3000, 12), gzip.HuffmanOnly)...)
	step := 1
	if raceEnabled {
		step = 7
	}
	for cut := len(first) + 1; cut < len(in); cut += step {
		checkCut(t, in, cut)
	}
	for _, level := range []int{gzip.NoCompression, gzip.HuffmanOnly, gzip.BestSpeed, gzip.BestCompression} {
		in := gzipped(t, sample(40000, 13), level)
		cuts := 500
		if raceEnabled {
			cuts = 40
		}
		for cut := 0; cut < len(in); cut += 1 + len(in)/cuts {
			checkCut(t, in, cut)
		}
	}
}
