package tracefile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/orprof/orprof/internal/tracetest"
	"github.com/stretchr/testify/require"
)

// TestLayoutsKineto: a trace re-saved by json.dump (", " and ": ") or minified reads into the same
// events, link report and warnings as Kineto's own layout, on every Kineto trace in testdata
// (event reads those layouts by literal too, as it reads Kineto's: layouts in reader_decode.go).
func TestLayoutsKineto(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedTestdata, "kineto", "*.json.gz"))
	require.NoError(t, err)
	files = append(files, "")
	for _, f := range files {
		name := filepath.Base(f)
		var raw []byte
		if f == "" {
			name, raw = "kinetoLayoutSeed", []byte(kinetoLayoutSeed)
		} else {
			if st, err := os.Stat(f); err == nil && st.Size() > 1<<20 && (testing.Short() || raceEnabled) {
				continue
			}
			raw = gunzipFile(t, f)
		}
		t.Run(name, func(t *testing.T) {
			want, err := Read(bytes.NewReader(raw), "t.json", Options{})
			require.NoError(t, err)
			for _, l := range []struct{ name, comma, colon string }{{"json.dump", ", ", ": "}, {"minified", ",", ":"}} {
				got, err := Read(bytes.NewReader(tracetest.Respace(raw, l.comma, l.colon)), "t.json", Options{})
				require.NoError(t, err, l.name)
				got.Bytes = want.Bytes
				require.Equal(t, want, got, l.name)
			}
		})
	}
}

// TestLayoutsReadByLiteral: the re-saved and minified layouts are recognised (event reads
// their members by literal) and their repeated metadata events are stepped over, as Kineto's
// are.
func TestLayoutsReadByLiteral(t *testing.T) {
	for _, l := range []struct {
		name, comma, colon string
		lay                int
	}{{"kineto", "", "", 0}, {"json.dump", ", ", ": ", 1}, {"minified", ",", ":", 2}} {
		in := []byte(kinetoRepeatSeed)
		if l.lay > 0 {
			in = tracetest.Respace(in, l.comma, l.colon)
		}
		d := newDecoder(bytes.NewReader(in), "t.json", Options{}, parConfig{workers: 1})
		require.NoError(t, d.run(), l.name)
		require.Equal(t, l.lay, d.lay, l.name)
		require.Positive(t, d.rep.hits, "%s: no metadata event stepped over as a repeat", l.name)
	}
}
