package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rawMTIA writes testdata's mtia_rank0 trace uncompressed into a temporary directory.
func rawMTIA(b *testing.B) string {
	b.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "kineto", "mtia_rank0.json.gz"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	raw := filepath.Join(b.TempDir(), "mtia_rank0.json")
	out, err := os.Create(raw)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		b.Fatal(err)
	}
	out.Close()
	return raw
}

// BenchmarkReportVsTable runs `orprof report` and its anchor `orprof table` on the raw
// mtia_rank0 trace, interleaved (the target: report within 1.3× of table).
func BenchmarkReportVsTable(b *testing.B) {
	raw := rawMTIA(b)
	out := filepath.Join(b.TempDir(), "r.html")
	for _, c := range []struct {
		name string
		args []string
	}{{"table", []string{"table", raw}}, {"report", []string{"report", "-o", out, raw}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if code := dispatch(c.args, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
