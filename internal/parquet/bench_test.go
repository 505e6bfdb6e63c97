package parquet

import (
	"fmt"
	"io"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// kernelRow is a row like the export's kernels table: times, ids, a nullable step and
// dictionary-encoded names.
type kernelRow struct {
	Rank     int64  `parquet:"rank"`
	Device   int64  `parquet:"device"`
	Stream   int64  `parquet:"stream"`
	StartNs  int64  `parquet:"start_ns"`
	DurNs    int64  `parquet:"dur_ns"`
	Name     string `parquet:"name,dict"`
	Kind     string `parquet:"kind,dict"`
	DevTime  bool   `parquet:"device_time"`
	Category string `parquet:"category,dict"`
	Op       string `parquet:"op,dict"`
	Corr     int64  `parquet:"correlation"`
	Step     *int64 `parquet:"step,optional"`
}

func kernelRows(n int) []kernelRow {
	rows := make([]kernelRow, n)
	for i := range rows {
		step := int64(i / 5000)
		rows[i] = kernelRow{Stream: int64(7 + i%4), StartNs: 1_700_000_000_000 + int64(i)*1733, DurNs: int64(500 + i*37%9000),
			Name: fmt.Sprintf("void gemm_kernel<float, %d>(float const*, float*)", i%211), Kind: "kernel", DevTime: true,
			Category: []string{"gemm", "elementwise", "reduction", "communication"}[i%4], Op: fmt.Sprintf("aten::op%d", i%97),
			Corr: int64(i) * 3, Step: &step}
	}
	return rows
}

// pqCodec is the export's codec as parquet-go takes one.
type pqCodec struct{ *Zstd }

func (pqCodec) String() string                            { return "ZSTD" }
func (pqCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }
func (pqCodec) Decode(dst, src []byte) ([]byte, error)    { panic("not read") }

// rowWriter is what both writers of BenchmarkWrite are.
type rowWriter interface {
	Write([]kernelRow) (int, error)
	Close() error
}

// writeAll writes rows to w in batches of 4096, as the export does, and closes it.
func writeAll(b *testing.B, w rowWriter, rows []kernelRow) {
	for i := 0; i < len(rows); i += 4096 {
		if _, err := w.Write(rows[i:min(i+4096, len(rows))]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWrite writes 1,000,000 kernel rows with this package and with parquet-go, the
// library the export used before, at the same page size, row group and codec.
func BenchmarkWrite(b *testing.B) {
	rows := kernelRows(1_000_000)
	codec := &Zstd{Window: 64 << 10} // the export's
	for _, c := range []struct {
		name string
		new  func(io.Writer) (rowWriter, error)
	}{
		{"orprof", func(w io.Writer) (rowWriter, error) {
			return NewWriter[kernelRow](w, Options{Codec: codec, PageBytes: 64 << 10, RowGroupRows: 1 << 17})
		}},
		{"parquet-go", func(w io.Writer) (rowWriter, error) {
			return pq.NewGenericWriter[kernelRow](w, pq.Compression(pqCodec{codec}), pq.PageBufferSize(64<<10), pq.MaxRowsPerRowGroup(1<<17)), nil
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var size int64
			for b.Loop() {
				cw := &countWriter{w: io.Discard}
				w, err := c.new(cw)
				if err != nil {
					b.Fatal(err)
				}
				writeAll(b, w, rows)
				size = cw.n
			}
			b.ReportMetric(float64(size), "bytes")
		})
	}
}
