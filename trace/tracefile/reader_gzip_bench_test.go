package tracefile

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	gunzip "github.com/orprof/orprof/internal/gz"
)

// BenchmarkReadGzipMTIA reads the MTIA trace from its gzip bytes in memory (decompression and
// parse) side by side with its anchors in one run: the plain read of the same trace, and
// decoding the gzip bytes alone into io.Discard with the Reader Read uses (internal/gz),
// klauspost/compress and the standard library. MB/s is over the uncompressed size, so the
// figures compare directly: on 2 busy cores the .gz read costs the plain read's CPU plus the
// decode-only figure's.
func BenchmarkReadGzipMTIA(b *testing.B) {
	z, err := os.ReadFile(filepath.Join(sharedTestdata, "kineto", "mtia_rank0.json.gz"))
	if err != nil {
		b.Fatalf("testdata missing: %v", err)
	}
	plain := loadGz(b, "mtia_rank0.json.gz")
	size := int64(len(plain))
	decode := func(b *testing.B, open func(io.Reader) (io.Reader, error)) {
		b.SetBytes(size)
		for b.Loop() {
			r, err := open(bytes.NewReader(z))
			if err != nil {
				b.Fatal(err)
			}
			if n, err := io.Copy(io.Discard, r); err != nil || n != size {
				b.Fatalf("decoded %d of %d bytes: %v", n, size, err)
			}
		}
	}
	b.Run("read=gz", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if _, err := Read(bytes.NewReader(z), "mtia_rank0.json.gz", Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read=plain", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if _, err := Read(bytes.NewReader(plain), "mtia_rank0.json", Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode=internal-gz", func(b *testing.B) {
		decode(b, func(r io.Reader) (io.Reader, error) { return gunzip.NewReader(r) })
	})
	b.Run("decode=klauspost", func(b *testing.B) {
		decode(b, func(r io.Reader) (io.Reader, error) { return kgzip.NewReader(r) })
	})
	b.Run("decode=stdlib", func(b *testing.B) {
		decode(b, func(r io.Reader) (io.Reader, error) { return stdgzip.NewReader(r) })
	})
}
