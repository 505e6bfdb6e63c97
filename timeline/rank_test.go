package timeline

import (
	"bytes"
	"path/filepath"
	"testing"
)

// SetRank renumbers every per-rank figure: the summary of a trace read as rank 0 and set to
// rank 3 is the summary of the same trace read as rank 3, view for view; a summary whose trace
// names its rank keeps it.
func TestSetRank(t *testing.T) {
	for _, name := range []string{"rocm_mi250_train.json.gz", "cuda_ns_resolution.json.gz"} {
		p := filepath.Join("..", "testdata", "kineto", name)
		got, _, err := OpenTrace(p, DefaultOptions(), 0)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := OpenTrace(p, DefaultOptions(), 3)
		if err != nil {
			t.Fatal(err)
		}
		hasRank := got.Ranks[0].HasRank
		got.SetRank(3)
		if hasRank {
			want, _, _ = OpenTrace(p, DefaultOptions(), 0)
		}
		var x, y bytes.Buffer
		if err := Write(&x, JSON, want, Views); err != nil {
			t.Fatal(err)
		}
		if err := Write(&y, JSON, got, Views); err != nil {
			t.Fatal(err)
		}
		if x.String() != y.String() {
			t.Errorf("%s (rank in the trace: %v): renumbered differs:\n%s", name, hasRank, diffLines(x.String(), y.String()))
		}
	}
}
