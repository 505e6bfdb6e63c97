package export

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace/tracefile"
)

// BenchmarkExportMTIA exports the MTIA trace (87 MB of JSON, gzipped) beside its anchor, the
// table's read of the same file (ReadAverages); scripts/bench-export.sh runs the CLI's.
func BenchmarkExportMTIA(b *testing.B) {
	path := testTraces + "mtia_rank0.json.gz"
	b.Run("table", func(b *testing.B) {
		for b.Loop() {
			if _, err := tracefile.OpenAverages(path, tracefile.Options{NoShapes: true, NoStacks: true}, events.AverageOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("export", func(b *testing.B) {
		dir := b.TempDir()
		for b.Loop() {
			out := filepath.Join(dir, "out")
			if _, _, err := Export([]string{path}, out, Options{}); err != nil {
				b.Fatal(err)
			}
			os.RemoveAll(out)
		}
	})
}
