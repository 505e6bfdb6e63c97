package tracefile

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInvalidUTF8Names: JSON text is UTF-8. A name that is not is read with U+FFFD for its
// invalid bytes, as JSON decoders read it, and not silently: a warning counts the distinct
// such names and quotes the first as it was. A parallel read counts a name repeated across
// its parts once.
func TestInvalidUTF8Names(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"traceEvents": [`)
	for i := range 3000 {
		name := "ok"
		switch i % 3 {
		case 1:
			name = "bad\xff"
		case 2:
			name = "also\xc3bad"
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1, "tid": 1, "ts": %d, "dur": 1}`, name, 10*i)
	}
	b.WriteString("]}")
	data := []byte(b.String())
	for _, par := range []parConfig{{workers: 1}, {workers: 2, segSize: 4096}} {
		td, err := readTrace(bytes.NewReader(data), "u.json", Options{}, par)
		require.NoError(t, err)
		assert.Equal(t, 2, td.BadNames, "%+v", par)
		assert.Equal(t, "bad\xff", td.BadNameFirst)
		names := map[string]int{}
		for _, e := range td.Events {
			names[e.Name]++
		}
		assert.Equal(t, map[string]int{"ok": 1000, "bad\uFFFD": 1000, "also\uFFFDbad": 1000}, names)
		w := td.Warnings("u.json")
		require.Len(t, w, 1)
		assert.Equal(t, `u.json: 2 event names are not valid UTF-8, as JSON must be (the first: "bad\xff"); shown with U+FFFD for the invalid bytes`, w[0])
	}
	one, err := readTrace(strings.NewReader(`[{"ph": "X", "name": "x`+"\x80"+`", "ts": 1, "dur": 1}]`), "l.json", Options{}, parConfig{workers: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{`l.json: 1 event name is not valid UTF-8, as JSON must be (the first: "x\x80"); shown with U+FFFD for the invalid bytes`},
		one.Warnings("l.json"))
}
