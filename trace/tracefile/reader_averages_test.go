package tracefile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/events"
)

// groupings are the key_averages groupings ReadAverages is checked under; the last groups by
// stack, which ReadAverages does by building the list.
var groupings = []events.AverageOptions{{}, {GroupByInputShape: true}, {GroupByOverloadName: true},
	{GroupByInputShape: true, GroupByOverloadName: true}, {GroupByStackN: 3}}

// averagesByList is what ReadAverages must give: Read's events, their list, its KeyAverages.
func averagesByList(t *testing.T, data []byte, g events.AverageOptions, par parConfig) (*Averages, error) {
	t.Helper()
	td, err := readTrace(bytes.NewReader(data), "t.json", Options{}, par)
	if err != nil {
		return nil, err
	}
	return AveragesOf(td, g), nil
}

// requireSameAverages checks that ReadAverages gives for data what the list gives, to the
// last bit of every float.
func requireSameAverages(t *testing.T, data []byte, g events.AverageOptions, par parConfig) {
	t.Helper()
	want, wantErr := averagesByList(t, data, g, par)
	got, err := readAverages(bytes.NewReader(data), "t.json", Options{}, par, g)
	if wantErr != nil {
		require.EqualError(t, err, wantErr.Error())
		return
	}
	require.NoError(t, err)
	if fmt.Sprintf("%+v", got.Rows) != fmt.Sprintf("%+v", want.Rows) {
		require.Equal(t, want.Rows, got.Rows, "grouping %+v", g)
	}
	require.Equal(t, want.Memory, got.Memory)
	require.Equal(t, want.Data, got.Data)
}

// Every real trace the repository holds, in every grouping, read sequentially and in parallel:
// those under 1 MB here, the others in TestReadAveragesMatchesListLarge. Under -race the
// sequential read is checked in the first grouping only; .ci/run runs the test whole without
// -race (it names it).
func TestReadAveragesMatchesList(t *testing.T) {
	checkAveragesOfTraces(t, 0, 1<<20)
}

// TestReadAveragesMatchesListLarge is TestReadAveragesMatchesList for the traces of 1 MB and
// more (the 87 MB MTIA trace among them).
func TestReadAveragesMatchesListLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large traces: too slow under -race or -short (.ci/run runs this test without -race)")
	}
	checkAveragesOfTraces(t, 1<<20, 1<<40)
}

// checkAveragesOfTraces checks ReadAverages against the list on the repository's traces whose
// uncompressed size is in [lo, hi).
func checkAveragesOfTraces(t *testing.T, lo, hi int) {
	var files []string
	for _, pat := range []string{"kineto/*.json.gz", "kineto-extra/*.json.gz", "pytorch-1.13/*/trace.json"} {
		m, err := filepath.Glob(filepath.Join(sharedTestdata, pat))
		require.NoError(t, err)
		files = append(files, m...)
	}
	local, err := filepath.Glob(filepath.Join(readerTestdata, "*.json"))
	require.NoError(t, err)
	files = append(files, local...)
	require.GreaterOrEqual(t, len(files), 20, "the repository's traces are missing")
	checked := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			data = gunzipFile(t, file)
		}
		if len(data) < lo || len(data) >= hi {
			continue
		}
		checked++
		t.Run(filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), func(t *testing.T) {
			for k, g := range groupings {
				if len(data) > 8<<20 && k > 1 {
					break // the 87 MB MTIA trace: two groupings are enough
				}
				if k == 0 || !raceEnabled { // under -race the parallel read in every grouping
					requireSameAverages(t, data, g, parConfig{workers: 1})
				}
				requireSameAverages(t, data, g, parConfig{workers: 2, segSize: 64 << 10})
			}
		})
	}
	require.Positive(t, checked, "no trace in the size range")
}

// FuzzReadAverages checks ReadAverages against Read and the list on arbitrary input: the same
// error, or the same rows bit for bit.
func FuzzReadAverages(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(readerTestdata, "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil && len(data) < 64<<10 {
			f.Add(data, uint8(0))
		}
	}
	f.Add([]byte(`[{"name": "a", "ph": "X", "ts": 1, "dur": 9, "tid": 1}, {"name": "a", "ph": "X", "ts": 2, "dur": 3, "tid": 1}]`), uint8(1))
	f.Add([]byte(`{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 9, "args": {"External id": 1}}, `+
		`{"ph": "X", "cat": "kernel", "name": "k", "ts": 3, "dur": 2, "args": {"External id": 1}}, `+
		`{"ph": "i", "name": "[memory]", "ts": 3, "args": {"Bytes": 4, "Device Type": 0}}]}`), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, grouping uint8) {
		g := groupings[int(grouping)%len(groupings)]
		requireSameAverages(t, data, g, parConfig{workers: 1})
	})
}
