package tracefile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// kinetoLayoutSeed is a trace in Kineto's layout, so that the fuzzer starts from the members and
// args the reader reads by literal (kinetoLayouts, kinetoArgs).
const kinetoLayoutSeed = `{
  "schemaVersion": 1,
  "traceEvents": [
  {
    "ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 7, "tid": 8,
    "ts": 1000.250, "dur": 9.775,
    "args": {
      "External id": 2,"Record function id": 0, "Concrete Inputs": ["", ""], "Input type": ["float", "float"], "Input Strides": [[1], [1]], "Input Dims": [[4], [4]], "Ev Idx": 1
    }
  },
  {
    "ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 7, "tid": 8,
    "ts": 1001.000, "dur": 2.000,
    "args": {
      "External id": 3,"Record function id": 0, "Sequence number": 5, "Fwd thread id": 1, "Ev Idx": 2
    }
  },
  {
    "name": "process_labels", "ph": "M", "ts": 0.000, "pid": 7, "tid": 0,
    "args": {
      "labels": "MTIA 9"
    }
  },
  {
    "name": "thread_name", "ph": "M", "ts": 0.000, "pid": 7, "tid": 8,
    "args": {
      "name": "main"
    }
  },
  {
    "ph": "f", "id": 1, "pid": 7, "tid": 8, "ts": 1000.250,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  }
  ]
}`

// kinetoRepeatSeed repeats the seed's metadata events byte for byte, as Kineto does, so that the
// fuzzer starts from events the reader steps over as repeats (decoder.again).
var kinetoRepeatSeed = func() string {
	i := strings.Index(kinetoLayoutSeed, "  {\n    \"name\": ")
	j := strings.Index(kinetoLayoutSeed, "  {\n    \"ph\": \"f\"")
	return kinetoLayoutSeed[:j] + strings.Repeat(kinetoLayoutSeed[i:j], 2) + kinetoLayoutSeed[j:]
}()

// FuzzReadTrace feeds arbitrary bytes to Read. It must never panic, every error must be a
// *Error, and reading the same bytes one byte at a time must give the same result and the same
// error (so a token split across buffer refills is read the same way, and so is a layout read
// by literal, which the one-byte reader never has enough bytes buffered to match).
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
		"\x1f\x8b", `[{"name": "a", "ph": "X", "ts": NaN}]`, kinetoLayoutSeed,
		strings.Replace(kinetoLayoutSeed, `"dur": 9.775`, `"dur": -9.775`, 1),
		strings.Replace(kinetoLayoutSeed, `"pid": 7, "tid": 8,`, `"pid": 7, "tid": 8, "tid": 9,`, 1),
		strings.Replace(kinetoLayoutSeed, `"Ev Idx": 1`, `"Ev Idx": 1e`, 1),
		kinetoRepeatSeed, strings.Replace(kinetoRepeatSeed, `"labels": "MTIA 9"`, `"labels": "XPU 9"`, 2),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		td, err := Read(bytes.NewReader(data), "fuzz.json", Options{})
		if err != nil {
			var te *Error
			require.ErrorAs(t, err, &te)
			require.Nil(t, td)
			if len(data) <= 4096 {
				_, err2 := Read(iotest.OneByteReader(bytes.NewReader(data)), "fuzz.json", Options{})
				require.EqualError(t, err2, err.Error())
			}
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
