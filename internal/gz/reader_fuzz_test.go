package gz

import (
	"bytes"
	"compress/gzip"
	"errors"
	"hash/crc32"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzReader decodes a gzip member header followed by arbitrary bytes (DEFLATE data, trailer,
// more members, garbage) and checks the Reader against the standard library: it never
// panics; whatever compress/gzip decodes without error it decodes to the same bytes with no
// trailing bytes; whatever it decodes, compress/gzip gives a prefix of (all of it unless
// compress/gzip stopped at a header it rejects: trailing garbage, say); its errors are one of
// its own or io.ErrUnexpectedEOF; and reading the input one byte at a time gives the same
// result as reading it whole. Input that compress/gzip decodes whole is also cut short (at
// four points: the trailer, its last DEFLATE byte, the middle, one chosen by the input's hash):
// each cut decodes to compress/gzip's bytes exactly, then io.ErrUnexpectedEOF (checkCut) —
// never a byte decoded from past the end.
func FuzzReader(f *testing.F) {
	strip := func(z []byte) []byte { return z[10:] }
	for i, data := range [][]byte{nil, []byte("a"), sample(3000, 1), sample(20000, 2)} {
		for _, level := range []int{gzip.NoCompression, gzip.HuffmanOnly, gzip.BestSpeed, gzip.BestCompression} {
			if i < 3 || level == gzip.BestSpeed {
				f.Add(strip(gzipped(f, data, level)))
			}
		}
	}
	// 2.6 MB in 3 kB: the output buffer slides twice.
	f.Add(strip(gzipped(f, bytes.Repeat([]byte(`{"ph": "X", "ts": 1}, `), 120000), gzip.BestCompression)))
	two := append(gzipped(f, []byte("first "), 6), gzipped(f, []byte("second"), 1)...)
	f.Add(strip(two))
	f.Add(append(strip(gzipped(f, []byte("x"), 6)), "garbage"...))
	f.Add([]byte{0x07, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		// Up to 1 MiB of output is compared; a few fuzzed bits can stand for megabytes, which
		// would stall the fuzzer.
		const limit = 1 << 20
		in := append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, data...)
		read := func(wrap func(io.Reader) io.Reader) ([]byte, int64, error) {
			z, err := NewReader(wrap(bytes.NewReader(in)))
			if err != nil {
				return nil, 0, err
			}
			out, err := io.ReadAll(io.LimitReader(z, limit))
			return out, z.TrailingBytes(), err
		}
		got, trailing, err := read(func(r io.Reader) io.Reader { return r })
		got1, trailing1, err1 := read(iotest.OneByteReader)
		if (err == nil) != (err1 == nil) || !bytes.Equal(got, got1) || trailing != trailing1 {
			t.Fatalf("whole: %d bytes, %d trailing, %v; one byte at a time: %d bytes, %d trailing, %v",
				len(got), trailing, err, len(got1), trailing1, err1)
		}
		if err != nil && !errors.Is(err, ErrHeader) && !errors.Is(err, ErrCorrupt) &&
			!errors.Is(err, ErrChecksum) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("unexpected error %v", err)
		}
		sr, serr := gzip.NewReader(bytes.NewReader(in))
		var want []byte
		if serr == nil {
			want, serr = io.ReadAll(io.LimitReader(sr, limit))
		}
		if len(got) == limit || len(want) == limit {
			if !bytes.Equal(got, want) {
				t.Fatalf("the first MiB differs from compress/gzip's")
			}
			return
		}
		if serr == nil {
			if err != nil || !bytes.Equal(got, want) || trailing != 0 {
				t.Fatalf("compress/gzip decodes %d bytes; got %d bytes, %d trailing, %v", len(want), len(got), trailing, err)
			}
			// A few cuts: a Reader costs ~1 MB of buffers, and every cut point of real
			// traces is checked by TestReaderTruncatedRealTrace.
			for _, cut := range []int{len(in) - 1, len(in) - 9, len(in) / 2, 10 + int(crc32.ChecksumIEEE(data))%len(data)} {
				if cut > 0 {
					checkCut(t, in, cut)
				}
			}
			return
		}
		if err == nil {
			if !bytes.HasPrefix(got, want) || !errors.Is(serr, gzip.ErrHeader) && !bytes.Equal(got, want) {
				t.Fatalf("decoded %d bytes (%d trailing); compress/gzip %d bytes and %v", len(got), trailing, len(want), serr)
			}
		}
	})
}
