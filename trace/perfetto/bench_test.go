package perfetto

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkConvert converts the 87 MB MTIA trace (gzip) to a .pftrace; bytes/s are of the
// uncompressed JSON. $CONVERT_BENCH_FILE names another trace (the raw JSON, say).
func BenchmarkConvert(b *testing.B) {
	path := filepath.Join("..", "..", "testdata", "kineto", "mtia_rank0.json.gz")
	if p := os.Getenv("CONVERT_BENCH_FILE"); p != "" {
		path = p
	}
	b.SetBytes(86940133)
	for b.Loop() {
		if _, err := Convert(io.Discard, []Input{FileInput(path)}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
