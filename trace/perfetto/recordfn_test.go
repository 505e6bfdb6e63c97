package perfetto

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRecordFunctionIDArgs: a cpu_op's "Record function id" and "Ev Idx" (Kineto 2025–26)
// are kept as debug annotations of its slice under their names, typed as the file writes
// them, so that an op can be looked up by them in Perfetto (args."Record function id").
func TestRecordFunctionIDArgs(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"typed_numbers.json", []string{
			"aten::mm Record function id=i:0 Ev Idx=i:0",
			"MmBackward0 Record function id=i:0 Ev Idx=i:1",
			"record_param_comms Record function id=i:0 Ev Idx=i:2",
		}},
		{"typed_strings.json", []string{
			"aten::mm Record function id=s:0 Ev Idx=s:0",
			"MmBackward0 Record function id=s:0 Ev Idx=s:1",
			"record_param_comms Record function id=s:0 Ev Idx=s:2",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			out, _ := convertBytes(t, Options{}, false, filepath.Join("..", "..", "testdata", "kineto-2026", tc.file))
			var got []string
			for _, ev := range decode(t, out).events {
				line := []string{ev.name}
				for _, a := range ev.args {
					if strings.HasPrefix(a, "Record function id=") || strings.HasPrefix(a, "Ev Idx=") {
						line = append(line, a)
					}
				}
				if len(line) > 1 {
					got = append(got, strings.Join(line, " "))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
