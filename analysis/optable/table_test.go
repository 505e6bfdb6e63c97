package optable

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	goldenfile "github.com/orprof/orprof/internal/golden"
)

// golden compares got with testdata/golden/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got)
}

// legacyEvent builds a legacy-path host event with one fake kernel of devUs.
func legacyEvent(id int64, name string, start, end, devUs float64) events.FunctionEvent {
	e := events.NewFunctionEvent(id, name, 1, start, end)
	e.InputShapes = "[]"
	if devUs > 0 {
		e.Kernels = []events.Kernel{{Name: name, DurationUs: devUs}}
		e.IsLegacy = true
	}
	return e
}

// TestTableDeviceColumns113 is reference §7.2: PyTorch 1.13's table for a legacy list with
// device time, verbatim.
func TestTableDeviceColumns113(t *testing.T) {
	evs := []events.FunctionEvent{
		legacyEvent(1, "outer", 0, 100, 90),
		legacyEvent(2, "aten::mm", 10, 60, 50),
		legacyEvent(3, "aten::relu", 60, 90, 25.5),
		legacyEvent(4, "aten::mm", 91, 99, 7.25),
	}
	l := events.NewList(evs, events.ListOptions{UseDevice: "cuda"})
	// EventList.table() on the raw list: one row per event.
	rows := make([]events.Avg, l.Len())
	for i := range rows {
		e := l.Event(i)
		rows[i] = events.Avg{Key: e.Name, NodeID: -1, IsLegacy: true, Count: 1,
			CPUTimeTotal: e.ElapsedUs(), SelfCPUTimeTotal: l.SelfCPUTimeTotal(i),
			DeviceTimeTotal: l.DeviceTimeTotal(i), SelfDeviceTimeTotal: l.SelfDeviceTimeTotal(i)}
	}
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, rows, TableOptions{UseDevice: "cuda", Target: Target113}))
	require.Equal(t, readGolden(t, "ref_7_2_device.txt"), buf.String())
}

// loadLegacy reads a PyTorch legacy array trace with encoding/json (test-only).
func loadLegacy(t *testing.T, path string) []events.FunctionEvent {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("testdata missing: %v", err)
	}
	var raw []struct {
		Name string  `json:"name"`
		Ph   string  `json:"ph"`
		Ts   float64 `json:"ts"`
		Dur  float64 `json:"dur"`
		Tid  int64   `json:"tid"`
	}
	require.NoError(t, json.Unmarshal(data, &raw))
	var out []events.FunctionEvent
	for i, r := range raw {
		if r.Ph != "X" {
			continue
		}
		e := events.NewFunctionEvent(int64(i+1), r.Name, r.Tid, r.Ts, r.Ts+r.Dur)
		e.InputShapes = "[]"
		e.DeviceType = devices.CPU
		out = append(out, e)
	}
	return out
}

func sections(text string) map[string]string {
	out := map[string]string{}
	cur := ""
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(line, "## ") {
			cur = strings.TrimSpace(line[3:])
			continue
		}
		if cur != "" {
			out[cur] += line
		}
	}
	return out
}

// TestTablesPyTorch113 rebuilds every table PyTorch 1.13 printed from the trace it wrote.
func TestTablesPyTorch113(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "pytorch-1.13")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatalf("testdata missing: %v", err)
	}
	for _, d := range dirs {
		evs := loadLegacy(t, filepath.Join(root, d.Name(), "trace.json"))
		tables, err := os.ReadFile(filepath.Join(root, d.Name(), "tables.txt"))
		require.NoError(t, err)
		l := events.NewList(evs, events.ListOptions{})
		rows := l.KeyAverages(events.AverageOptions{})
		for head, want := range sections(string(tables)) {
			t.Run(d.Name()+"/"+head, func(t *testing.T) {
				opts := TableOptions{}
				for _, kv := range strings.Fields(head) {
					k, v, _ := strings.Cut(kv, "=")
					switch k {
					case "sort_by":
						opts.SortBy = v
					case "row_limit":
						opts.RowLimit = atoi(t, v)
					}
				}
				var buf bytes.Buffer
				require.NoError(t, WriteTable(&buf, rows, opts))
				require.Equal(t, strings.TrimRight(want, "\n")+"\n", buf.String())
			})
		}
	}
}

func atoi(t *testing.T, s string) int {
	var n int
	for _, c := range s {
		require.True(t, c >= '0' && c <= '9' || c == '-')
	}
	if strings.HasPrefix(s, "-") {
		return -atoi(t, s[1:])
	}
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
