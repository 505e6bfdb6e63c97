package input

import "testing"

// BenchmarkOpenMTIA is what identifying a large gzip trace costs: its first key only.
func BenchmarkOpenMTIA(b *testing.B) {
	for b.Loop() {
		in, err := Open("../testdata/kineto/mtia_rank0.json.gz")
		if err != nil || in.Kind != Trace {
			b.Fatal(in, err)
		}
	}
}
