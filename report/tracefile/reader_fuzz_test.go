package tracefile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// FuzzReadTrace feeds arbitrary bytes to Read. It must never panic, every error must be a
// *Error, and reading the same bytes one byte at a time must give the same result (so a
// token split across buffer refills is read the same way).
func FuzzReadTrace(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(readerTestdata, "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		`[]`, `{}`, `{"traceEvents": []}`, `[{"name": "a", "ph": "X", "ts": 1, "dur": 2, "tid": 1}]`,
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1.5, "dur": 0.001, "args": {"External id": 1}}]}`,
		`{"traceEvents": [{"ph": "i", "name": "[memory]", "ts": 3, "args": {"Bytes": -4, "Device Type": 1}}]}`,
		`{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a\u00e9", "ts": 1, "dur": 1, "args": {"Input Dims": [[1], [[2]]]}}]}`,
		"\x1f\x8b", `[{"name": "a", "ph": "X", "ts": NaN}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		td, err := Read(bytes.NewReader(data), "fuzz.json", Options{})
		if err != nil {
			var te *Error
			require.ErrorAs(t, err, &te)
			require.Nil(t, td)
			return
		}
		for i := range td.Events {
			e := &td.Events[i]
			if e.EndUs < e.StartUs {
				t.Fatalf("event %d %q ends before it starts: %v < %v", i, e.Name, e.EndUs, e.StartUs)
			}
		}
		if len(data) > 4096 {
			return
		}
		td2, err := Read(iotest.OneByteReader(bytes.NewReader(data)), "fuzz.json", Options{})
		require.NoError(t, err)
		require.Equal(t, td, td2)
	})
}
