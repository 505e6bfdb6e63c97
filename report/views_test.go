package report

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/text"
)

// TestReadViews: ReadKernels and ReadTimeline (what orprof kernels and orprof timeline read
// report summaries through) give a report summary's members, plain or gzip, written as they
// were; a report summary without the member is one line naming the input and the member;
// anything else (a trace, the command's own summary, a table summary) is not theirs and is
// left unread: every byte of it still comes out of the reader.
func TestReadViews(t *testing.T) {
	b, _, err := Open("../testdata/kineto/rocm_mi250_train.json.gz", 0, Options{})
	require.NoError(t, err)
	var doc, kj, tj, tableOnly bytes.Buffer
	require.NoError(t, Write(&doc, b))
	require.NoError(t, kernels.Write(&kj, text.JSON, b.Kernels, kernels.WriteOptions{}))
	require.NoError(t, timeline.Write(&tj, text.JSON, b.Timeline, nil))
	require.NoError(t, Write(&tableOnly, &Bundle{Table: b.Table}))
	gz := func(p []byte) []byte {
		var out bytes.Buffer
		w := gzip.NewWriter(&out)
		w.Write(p)
		require.NoError(t, w.Close())
		return out.Bytes()
	}
	trace := `{"traceEvents": [` + strings.Repeat(`{"ph": "X", "name": "k", "ts": 1, "dur": 1},`, 3000) + `{}]}`
	for _, tc := range []struct {
		name    string
		in      []byte
		isOurs  bool
		wantErr string // "": the members, when ours
	}{
		{"report summary", doc.Bytes(), true, ""},
		{"gzip report summary", gz(doc.Bytes()), true, ""},
		{"no kernels or timeline", tableOnly.Bytes(), true, "field %s: null: this report summary has no %s summary"},
		{"bad report summary", doc.Bytes()[:doc.Len()/2], true, "not a valid report summary"},
		{"trace", []byte(trace), false, ""},
		{"gzip trace", gz([]byte(trace)), false, ""},
		{"kernels summary", kj.Bytes(), false, ""},
		{"timeline summary", tj.Bytes(), false, ""},
		{"table summary", []byte(`{"self_cpu_time_total": 0, "rows": []}`), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(member string, read func(*bufio.Reader) (any, bool, error), want []byte, write func(any) []byte) {
				br := bufio.NewReaderSize(bytes.NewReader(tc.in), 64<<10)
				s, ok, err := read(br)
				assert.Equal(t, tc.isOurs, ok, member)
				if !tc.isOurs {
					assert.NoError(t, err)
					rest, _ := io.ReadAll(br)
					assert.Equal(t, tc.in, rest, "%s: the input is left as it was", member)
					return
				}
				if tc.wantErr != "" {
					want := tc.wantErr
					if strings.Contains(want, "%s") {
						want = strings.ReplaceAll(want, "%s", member)
					}
					require.Error(t, err, member)
					assert.Contains(t, err.Error(), "r.json: ")
					assert.Contains(t, err.Error(), want)
					assert.NotContains(t, err.Error(), "\n")
					return
				}
				require.NoError(t, err, member)
				assert.Equal(t, string(want), string(write(s)), "%s member", member)
			}
			check("kernels", func(br *bufio.Reader) (any, bool, error) { return ReadKernels(br, "r.json") }, kj.Bytes(), func(s any) []byte {
				var out bytes.Buffer
				require.NoError(t, kernels.Write(&out, text.JSON, s.(*kernels.Summary), kernels.WriteOptions{}))
				return out.Bytes()
			})
			check("timeline", func(br *bufio.Reader) (any, bool, error) { return ReadTimeline(br, "r.json") }, tj.Bytes(), func(s any) []byte {
				var out bytes.Buffer
				require.NoError(t, timeline.Write(&out, text.JSON, s.(*timeline.Summary), nil))
				return out.Bytes()
			})
		})
	}
}
