package kernels

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/text"
)

// TestSniffSummary: a kernels summary is told from a trace, plain or gzip, and the reader
// SniffSummary returns gives back every byte of the input either way (stdin is read once).
func TestSniffSummary(t *testing.T) {
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	var sb bytes.Buffer
	require.NoError(t, Write(&sb, text.JSON, NewCollector().Summary(Rank{}, ""), WriteOptions{}))
	sum := sb.String()
	big := `{"traceEvents": [` + strings.Repeat(`{"ph": "X", "name": "k", "ts": 1, "dur": 1},`, 5000) + `{}]}`
	for _, tc := range []struct {
		name, in string
		want     bool
	}{
		{"summary", sum, true},
		{"summary gzip", gz(sum), true},
		{"summary after spaces and a BOM", "\xef\xbb\xbf \n" + sum, true},
		{"trace", `{"traceEvents": []}`, false},
		{"large trace", big, false},
		{"large trace gzip", gz(big), false},
		{"empty", "", false},
		{"gzip magic, then garbage", "\x1f\x8bxxxx", false},
	} {
		br, ok := SniffSummary(strings.NewReader(tc.in))
		assert.Equal(t, tc.want, ok, tc.name)
		all, err := io.ReadAll(br)
		require.NoError(t, err, tc.name)
		assert.True(t, string(all) == tc.in, "%s: the reader gives every byte back", tc.name)
		if ok {
			br, _ = SniffSummary(strings.NewReader(tc.in))
			s, err := ReadSummaryFrom(br, "<stdin>")
			require.NoError(t, err, tc.name)
			assert.Len(t, s.Ranks, 1, tc.name)
		}
	}
	_, err := ReadSummaryFrom(strings.NewReader("\x1f\x8bxxxx"), "<stdin>")
	assert.ErrorContains(t, err, "<stdin>: ")
}
