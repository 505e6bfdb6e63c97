package timeline

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/text"
)

// TestReadTraceStdinForms: Read (what `orprof timeline -` reads) takes a trace, plain or
// gzip, and a summary, plain or gzip, giving the summary OpenTrace and Load give; a summary
// made with other thresholds is ErrOtherOptions, as Load refuses it.
func TestReadTraceStdinForms(t *testing.T) {
	const path = "../../testdata/kineto/rocm_mi250_train.json.gz"
	o := DefaultOptions()
	want, _, err := OpenTrace(path, o, 0)
	require.NoError(t, err)
	var sum bytes.Buffer
	require.NoError(t, Write(&sum, text.JSON, want, nil))
	gz, err := os.ReadFile(path)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	require.NoError(t, err)
	var plain bytes.Buffer
	_, err = plain.ReadFrom(zr)
	require.NoError(t, err)
	gzSum := func() []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(sum.Bytes())
		require.NoError(t, zw.Close())
		return b.Bytes()
	}()
	other := o
	other.QueueLength = 2
	for _, tc := range []struct {
		name  string
		in    []byte
		o     Options
		other bool // ErrOtherOptions
	}{
		{"trace", plain.Bytes(), o, false},
		{"gzip trace", gz, o, false},
		{"summary", sum.Bytes(), o, false},
		{"gzip summary", gzSum, o, false},
		{"summary, other thresholds", sum.Bytes(), other, true},
		{"gzip summary, other thresholds", gzSum, other, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := Read(bytes.NewReader(tc.in), "<stdin>", tc.o, 0, ReadOptions{})
			if tc.other {
				assert.True(t, errors.Is(err, ErrOtherOptions), "%v", err)
				return
			}
			require.NoError(t, err)
			var a, b bytes.Buffer
			require.NoError(t, Write(&a, text.JSON, want, nil))
			require.NoError(t, Write(&b, text.JSON, got, nil))
			// Read as a trace, it is named <stdin> (JSON escapes the brackets).
			assert.Equal(t, a.String(), strings.ReplaceAll(b.String(), `\u003cstdin\u003e`, path))
		})
	}
}
