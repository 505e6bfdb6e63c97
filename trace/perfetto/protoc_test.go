package perfetto

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProtocDecodes decodes a converted trace with protoc against a schema written for the
// tests (testdata/perfetto_min.proto): every field the encoder writes is one the schema
// declares with its type (an unknown field would print as a bare number), and the slices,
// tracks and flows are those of the input.
func TestProtocDecodes(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		t.Skip("protoc is not installed (Debian: apt-get install protobuf-compiler); the wire-level tests still run")
	}
	out, _ := convertBytes(t, Options{}, false, filepath.Join("testdata", "overlaps.json"))
	cmd := exec.Command(protoc, "--decode=orprof.perfettotest.Trace", "-I", "testdata", "perfetto_min.proto")
	cmd.Stdin = bytes.NewReader(out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	text, err := cmd.Output()
	if err != nil {
		t.Fatalf("protoc: %v: %s", err, stderr.String())
	}
	s := string(text)
	if m := regexp.MustCompile(`(?m)^\s*\d+:`).FindString(s); m != "" {
		t.Errorf("protoc found a field the schema does not declare: %q", m)
	}
	for _, want := range []struct {
		what string
		n    int
	}{
		{"type: TYPE_SLICE_BEGIN", 10},
		{"type: TYPE_SLICE_END", 10},
		{"type: TYPE_INSTANT", 1},
		{"type: TYPE_COUNTER", 4},
		{" flow_ids:", 2},
		{"terminating_flow_ids:", 2},
		{"unit: UNIT_SIZE_BYTES", 2},
		{"child_ordering: EXPLICIT", 2},
		{"sequence_flags: 1\n", 2}, // the main sequence and the one segment's
		{`uint_value: 18446744073709551615`, 1},
		{`int_value: -5`, 1},
		{`double_value: 0.25`, 1},
		{`bool_value: false`, 1},
		{`legacy_json_value: "null"`, 1},
		{`legacy_json_value: "[]"`, 2}, // the empty array, and the third Input Dims
		{`legacy_json_value: "{}"`, 1},
	} {
		if got := strings.Count(s, want.what); got != want.n {
			t.Errorf("%q appears %d times, want %d", want.what, got, want.n)
		}
	}
	seqs := map[string]bool{}
	for _, m := range regexp.MustCompile(`trusted_packet_sequence_id: (\d+)`).FindAllStringSubmatch(s, -1) {
		seqs[m[1]] = true
	}
	if len(seqs) != 2 {
		t.Errorf("sequences %v: want the main one and the segment's", seqs)
	}
	for _, name := range []string{`stream 7 \302\267 overlap 1`, `rank 3 \302\267 GPU 0`, `rank 3 \302\267 host`} {
		if !strings.Contains(s, `name: "`+name+`"`) {
			t.Errorf("no track named %q", name)
		}
	}
}
