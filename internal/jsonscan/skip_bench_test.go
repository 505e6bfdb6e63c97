package jsonscan

import (
	"strings"
	"testing"
)

// kinetoArgValues are argument values as Kineto writes them for operators ("Concrete Inputs",
// "Input type", "Input Dims", "Input Strides", ids), the values the trace reader skips most.
var kinetoArgValues = []string{
	`["", "", "", ""]`, `["float", "", "", ""]`, `[[], [], [], []]`, `["", "0"]`, `["float", "Scalar"]`,
	`[[1], [], []]`, `[[64, 128], [128, 256], [256]]`, `[[128, 1], [1]]`, `0`, `33283`,
	`["", "", "False"]`, `["c10::BFloat16", "c10::BFloat16", "", "", "", ""]`,
}

// BenchmarkSkipArgs skips each of kinetoArgValues, in an object as the reader sees them.
func BenchmarkSkipArgs(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("{")
	for i, v := range kinetoArgValues {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(`"k": `)
		sb.WriteString(v)
	}
	sb.WriteString("}")
	data := []byte(sb.String())
	s := NewBytes(data, 0, "bench")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s.Reset(data, 0)
		it := s.Object()
		for it.Next() {
			if err := s.Skip(); err != nil {
				b.Fatal(err)
			}
		}
		if it.Err() != nil {
			b.Fatal(it.Err())
		}
	}
}
