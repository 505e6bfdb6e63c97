package report

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/text"
)

// TestReadViews: orprof kernels and orprof timeline read a report summary's members,
// plain or gzip, as they were written (kernels.Load, timeline.Read: package input hands out
// the member); a report summary without the member is one line naming the input and the
// member.
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
	for _, tc := range []struct {
		name    string
		in      []byte
		wantErr string // "": the members
	}{
		{"report summary", doc.Bytes(), ""},
		{"gzip report summary", gz(doc.Bytes()), ""},
		{"no kernels or timeline", tableOnly.Bytes(), "field %s: null: this report summary has no %s summary"},
		{"bad report summary", doc.Bytes()[:doc.Len()/2], "not a valid report summary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(member string, read func(io.Reader) (any, error), want []byte, write func(any) []byte) {
				s, err := read(bytes.NewReader(tc.in))
				if tc.wantErr != "" {
					want := strings.ReplaceAll(tc.wantErr, "%s", member)
					require.Error(t, err, member)
					assert.Contains(t, err.Error(), "r.json: ")
					assert.Contains(t, err.Error(), want)
					assert.NotContains(t, err.Error(), "\n")
					return
				}
				require.NoError(t, err, member)
				assert.Equal(t, string(want), string(write(s)), "%s member", member)
			}
			check("kernels", func(r io.Reader) (any, error) {
				in, err := input.Read(r, "r.json")
				require.NoError(t, err)
				doc, err := in.Member("kernels")
				if err != nil {
					return nil, err
				}
				return kernels.ReadSummary(bytes.NewReader(doc), "r.json")
			}, kj.Bytes(), func(s any) []byte {
				var out bytes.Buffer
				require.NoError(t, kernels.Write(&out, text.JSON, s.(*kernels.Summary), kernels.WriteOptions{}))
				return out.Bytes()
			})
			check("timeline", func(r io.Reader) (any, error) {
				s, _, err := timeline.Read(r, "r.json", timeline.DefaultOptions(), 0, timeline.ReadOptions{})
				return s, err
			}, tj.Bytes(), func(s any) []byte {
				var out bytes.Buffer
				require.NoError(t, timeline.Write(&out, text.JSON, s.(*timeline.Summary), nil))
				return out.Bytes()
			})
		})
	}
}
