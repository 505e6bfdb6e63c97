package tracetest

import (
	"bufio"
	"os"
	"testing"

	"github.com/orprof/orprof/trace"
)

// TestLongKernelNames: 5,000 kernels with distinct names of the asked length; with
// ORPROF_LONG_NAMES_TRACE=FILE it writes the trace docs/performance.md times there.
func TestLongKernelNames(t *testing.T) {
	tr := LongKernelNames(5000, 2048)
	seen := map[string]bool{}
	for _, e := range tr.Events {
		if e.Cat != "kernel" {
			continue
		}
		if len(e.Name) != 2048 || seen[e.Name] {
			t.Fatalf("kernel name of %d bytes, seen before: %v", len(e.Name), seen[e.Name])
		}
		seen[e.Name] = true
	}
	if len(seen) != 5000 {
		t.Fatalf("%d kernels", len(seen))
	}
	p := os.Getenv("ORPROF_LONG_NAMES_TRACE")
	if p == "" {
		return
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := trace.Write(w, tr); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
