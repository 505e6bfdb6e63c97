package input

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// FuzzIdentify: identifying never panics, a stream gives every byte back, and the kind does
// not depend on what JSON does not mean: a document of one object with exactly one of the
// keys that name kinds is identified alike once re-encoded (keys sorted, no whitespace).
func FuzzIdentify(f *testing.F) {
	for _, s := range []string{timelineDoc, `{"traceEvents": []}`, `[{"ph": "X"}]`, `{"orprof_report": 1, "table": {}}`,
		`{"rows": [], "self_cpu_time_total": 0}`, `{"kernels": [{"name": "}"}], "orprof_kernels": 2}`, "\uFEFF{\"a\\\"\": 1}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k := IdentifyBytes(data)
		in, err := Read(bytes.NewReader(data), "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		if in.Kind != k {
			t.Fatalf("Read says %v, IdentifyBytes %v", in.Kind, k)
		}
		rc, _ := in.Stream()
		all, _ := io.ReadAll(rc)
		if !bytes.Equal(all, data) {
			t.Fatal("the stream does not give every byte back")
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil {
			return
		}
		named := 0
		for key := range m {
			if _, ok := kindKeys[key]; ok {
				named++
			}
		}
		if named != 1 || bytes.HasPrefix(data, utf8BOM) {
			return
		}
		again, err := json.Marshal(m)
		if err != nil {
			return
		}
		if k2 := IdentifyBytes(again); k2 != k {
			t.Fatalf("%v, re-encoded %v: %q", k, k2, again)
		}
	})
}
