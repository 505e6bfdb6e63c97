package tracefile

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
)

// Kineto writes the same metadata events over and over; the reader steps over an event that is
// byte for byte one it read last (decoder.again). These tests make sure a repeat does what the
// event does, and that an event that differs from one of them anywhere is read.

// kinetoMeta writes a metadata event as Kineto lays it out.
func kinetoMeta(b *strings.Builder, name string, pid, tid int, arg string) {
	fmt.Fprintf(b, ",\n  {\n    \"name\": %q, \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": %d,\n    \"args\": {\n      %s\n    }\n  }", name, pid, tid, arg)
}

// repeatTrace is a Kineto-layout trace whose metadata cycles through 11 distinct events, with
// an operator after each cycle, and with last appended at the end.
func repeatTrace(cycles int, last func(*strings.Builder)) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"first\", \"pid\": 1, \"tid\": 1,\n    \"ts\": 1.000, \"dur\": 1.000,\n    \"args\": {\n      \"External id\": 1\n    }\n  }")
	for c := range cycles {
		kinetoMeta(&b, "process_name", 9, 0, `"name": "MTIA 9"`)
		kinetoMeta(&b, "process_labels", 9, 0, `"labels": "GPU 9"`)
		kinetoMeta(&b, "process_sort_index", 9, 0, `"sort_index": 5000009`)
		for tid := range 4 {
			kinetoMeta(&b, "thread_name", 9, tid, `"name": "stream"`)
			kinetoMeta(&b, "thread_sort_index", 9, tid, fmt.Sprintf(`"sort_index": %d`, tid))
		}
		fmt.Fprintf(&b, ",\n  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1,\n    \"ts\": %d.000, \"dur\": 1.000,\n    \"args\": {\n      \"External id\": %d\n    }\n  }", 10+c, 2+c)
	}
	if last != nil {
		last(&b)
	}
	b.WriteString("\n  ]\n}\n")
	return []byte(b.String())
}

func TestReaderRepeatedMetadata(t *testing.T) {
	tests := []struct {
		name string
		last func(*strings.Builder)
		dev  devices.Type
	}{
		{"repeats alone", nil, devices.CPU},
		// The same bytes as the repeated "GPU 9" label up to its last line: only the label differs.
		{"a label that differs", func(b *strings.Builder) { kinetoMeta(b, "process_labels", 9, 0, `"labels": "MTIA 9"`) }, devices.MTIA},
		{"a label in another layout", func(b *strings.Builder) {
			b.WriteString(`, {"name": "process_labels", "ph": "M", "pid": 9, "tid": 0, "args": {"labels": "MTIA 9"}}`)
		}, devices.MTIA},
		// Byte for byte a repeat but for a member the reader does not know: read, and its
		// label counts.
		{"an extra member", func(b *strings.Builder) {
			b.WriteString(",\n  {\n    \"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": 9, \"tid\": 0,\n    \"args\": {\n      \"labels\": \"XPU 9\"\n    }, \"x\": 1\n  }")
		}, devices.XPU},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := repeatTrace(200, tt.last)
			td, err := seqRead(data, "r.json")
			require.NoError(t, err)
			assert.Equal(t, tt.dev, td.Device)
			assert.Len(t, td.Events, 201)
			hits, _ := stepped(t, data)
			assert.Greater(t, hits, 2100, "repeats stepped over (2,189 but for those cut by a buffer end)")
			requireSameAsGeneric(t, data, "r.json")
			for _, seg := range []int{333, 4096} {
				requireSameRead(t, data, "r.json", parConfig{workers: 2, segSize: seg})
			}
		})
	}
}

// TestReaderRepeatedLabel: a label that names the device, repeated through a trace read in
// many small segments, names it whichever segments see the first one.
func TestReaderRepeatedLabel(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n  \"traceEvents\": [\n  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"first\", \"pid\": 1, \"tid\": 1,\n    \"ts\": 1.000, \"dur\": 1.000,\n    \"args\": {\n      \"External id\": 1\n    }\n  }")
	for range 2000 {
		kinetoMeta(&b, "process_labels", 9, 0, `"labels": "MTIA 9"`)
	}
	b.WriteString("\n  ]\n}\n")
	data := []byte(b.String())
	for _, seg := range []int{0, 97, 4096} {
		cfg := parConfig{workers: 1}
		if seg > 0 {
			cfg = parConfig{workers: 2, segSize: seg}
		}
		td, err := parRead(data, "l.json", cfg)
		require.NoError(t, err)
		assert.Equal(t, devices.MTIA, td.Device, "segments of %d bytes", seg)
	}
}

// TestReaderRepeatsSteppedLarge makes sure the repeats are stepped over where Kineto writes
// them: the MTIA trace has 310,050 metadata events, 28 of them distinct.
func TestReaderRepeatsSteppedLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large trace: too slow under -race or -short (.ci/run runs this test without -race)")
	}
	data := gunzipFile(t, filepath.Join(requireShared(t, "kineto"), "mtia_rank0.json.gz"))
	hits, adds := stepped(t, data)
	assert.Greater(t, hits, 309_000)
	assert.Less(t, adds, 1000)
}

// stepped reads data on one goroutine and returns how many metadata events were stepped over
// as repeats, and how many were remembered.
func stepped(t *testing.T, data []byte) (hits, adds int) {
	t.Helper()
	d := newDecoder(bytes.NewReader(data), "t.json", Options{}, parConfig{workers: 1})
	require.NoError(t, d.run())
	return d.rep.hits, d.rep.adds
}
