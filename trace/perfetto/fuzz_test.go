package perfetto

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzConvert: any input either fails with an error or converts to a trace the tests' decoder
// reads, whose slices nest on every track, and to valid JSON; never a panic.
func FuzzConvert(f *testing.F) {
	f.Add([]byte(`{"traceEvents": [{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 1, "ts": 1.5, "dur": 2, "args": {"k": [1, {"x": null}]}}]}`))
	f.Add([]byte(`[{"ph": "X", "name": "a", "pid": "p", "tid": "t", "ts": 1, "dur": 5}, {"ph": "X", "name": "b", "pid": "p", "tid": "t", "ts": 3, "dur": 5}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		if _, err := Convert(&out, []Input{bytesInput("fuzz.json", data)}, Options{}); err != nil {
			return
		}
		replayTrace(t, decode(t, out.Bytes()))
		out.Reset()
		if _, err := ConvertJSON(&out, []Input{bytesInput("fuzz.json", data)}, Options{}); err != nil {
			t.Fatalf("the protobuf conversion passed, the JSON one failed: %v", err)
		}
		if !json.Valid(out.Bytes()) {
			t.Fatalf("the JSON output is not JSON:\n%s", out.Bytes())
		}
	})
}
