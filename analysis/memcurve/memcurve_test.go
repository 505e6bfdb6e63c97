package memcurve_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/golden"

	"github.com/orprof/orprof/analysis/memcurve"
	"github.com/orprof/orprof/trace/tracefile"
)

// kineto is a Kineto trace with the given "[memory]" instants (args objects).
func kineto(mem ...string) string {
	var b strings.Builder
	b.WriteString(`{"schemaVersion":1,"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":0,"dur":100,"args":{}}`)
	for i, m := range mem {
		fmt.Fprintf(&b, `,{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":%d,"args":{%s}}`, 10*(i+1), m)
	}
	b.WriteString("]}")
	return b.String()
}

func curves(t *testing.T, trace string) *memcurve.Summary {
	t.Helper()
	c := memcurve.NewCollector()
	if _, err := tracefile.ReadConsumers(strings.NewReader(trace), "t.json", tracefile.Options{Consumers: []tracefile.Consumer{c}}); err != nil {
		t.Fatal(err)
	}
	return c.Summary()
}

// The allocator's totals are plotted as the trace reports them, per device type and index;
// without totals the curve is the running sum of the bytes, marked relative.
func TestCurves(t *testing.T) {
	s := curves(t, kineto(
		`"Device Type":1,"Device Id":0,"Addr":1,"Bytes":512,"Total Allocated":1536,"Total Reserved":4096`,
		`"Device Type":0,"Device Id":-1,"Addr":2,"Bytes":64`,
		`"Device Type":1,"Device Id":0,"Addr":3,"Bytes":1024,"Total Allocated":2560,"Total Reserved":4096`,
		`"Device Type":1,"Device Id":1,"Addr":4,"Bytes":100,"Total Allocated":100,"Total Reserved":2048`,
		`"Device Type":1,"Device Id":0,"Addr":1,"Bytes":-512,"Total Allocated":2048,"Total Reserved":4096`,
		`"Device Type":0,"Device Id":-1,"Addr":2,"Bytes":-64`,
	))
	if s == nil {
		t.Fatal("no curve")
	}
	got := fmt.Sprint(s.Devices)
	// The blocks live at each peak: CUDA 0's at its second record are the two allocated so
	// far (1024 bytes of its total were allocated before the profile: not listed).
	want := "[{CPU 0 -1 2 1 true false 64 0 20000 [[10 64 0] [50 0 0]] true 1 64 [{64 10 aten::empty}]} " +
		"{CUDA 0 1 0 3 2 false true 2560 4096 30000 [[0 1536 4096] [20 2560 4096] [40 2048 4096]] true 2 1536 [{1024 20 aten::empty} {512 0 aten::empty}]} " +
		"{CUDA 1 1 1 1 1 false true 100 2048 40000 [[30 100 2048]] true 1 100 [{100 30 aten::empty}]}]"
	if got != want {
		t.Errorf("curves\n got %s\nwant %s", got, want)
	}
	if s.StartNs != 10000 {
		t.Errorf("StartNs %d", s.StartNs)
	}
	if curves(t, kineto()) != nil {
		t.Error("a trace without memory records has a curve")
	}
}

// A long curve is cut to MaxPoints, its peak kept.
func TestCutKeepsPeak(t *testing.T) {
	var recs []string
	for i := 0; i < 20000; i++ {
		b := 1000
		if i%2 == 1 {
			b = -1000
		}
		if i == 12345 {
			b = 7777777
		}
		recs = append(recs, fmt.Sprintf(`"Device Type":1,"Device Id":0,"Addr":%d,"Bytes":%d`, i, b))
	}
	d := curves(t, kineto(recs...)).Devices[0]
	if len(d.Points) > memcurve.MaxPoints || len(d.Points) < memcurve.MaxPoints/2 {
		t.Errorf("%d points", len(d.Points))
	}
	top := 0.0
	for _, p := range d.Points {
		top = max(top, p[1])
	}
	if int64(top) != d.PeakAllocated || d.PeakAllocated != 7777777+2000 {
		t.Errorf("peak %d, the cut curve's top %v", d.PeakAllocated, top)
	}
}

func ExampleCollector() {
	trace := kineto(`"Device Type":1,"Device Id":0,"Bytes":4096,"Total Allocated":4096,"Total Reserved":2097152`,
		`"Device Type":1,"Device Id":0,"Bytes":-4096,"Total Allocated":0,"Total Reserved":2097152`)
	c := memcurve.NewCollector() // a tracefile.Consumer that needs the memory records
	if _, err := tracefile.ReadConsumers(strings.NewReader(trace), "t.json", tracefile.Options{Consumers: []tracefile.Consumer{c}}); err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range c.Summary().Devices {
		fmt.Printf("%s: peak %d allocated, %d reserved, %d records\n", d.Name, d.PeakAllocated, d.PeakReserved, d.Records)
	}
	// Output: CUDA 0: peak 4096 allocated, 2097152 reserved, 2 records
}

// The Collector as a consumer of a read shared with the table's Averager (what orprof report
// does) gives, on every trace in testdata, the curves in testdata/traces: written by the
// Collector's former form, fed by the reader's converting goroutines (tracefile.ReadEach), so
// the figures did not change when it became a tracefile.Consumer.
func TestConsumerOnTestdata(t *testing.T) {
	n := 0
	for _, pat := range []string{"../../testdata/kineto/*.json.gz", "../../testdata/kineto-extra/*.json.gz",
		"../../testdata/pytorch-1.13/*/trace.json", "../../trace/tracefile/testdata/reader/*.json"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			n++
			name := filepath.Base(filepath.Dir(p)) + "_" + filepath.Base(p) + ".golden"
			if st, err := os.Stat(p); err == nil && st.Size() > 1<<20 && (raceEnabled || testing.Short()) {
				continue // the 87 MB trace: too slow under -race
			}
			t.Run(name, func(t *testing.T) {
				c := memcurve.NewCollector()
				if _, err := tracefile.OpenAverages(p, tracefile.Options{Consumers: []tracefile.Consumer{c}}, events.AverageOptions{}); err != nil {
					t.Fatal(err)
				}
				b, err := json.MarshalIndent(c.Summary(), "", " ")
				if err != nil {
					t.Fatal(err)
				}
				golden.Check(t, filepath.Join("testdata", "traces", name), append(b, '\n'))
			})
		}
	}
	if n < 20 {
		t.Fatalf("%d traces: the repository's traces are missing", n)
	}
}

// Merge keeps each rank's devices, named after the rank once, their points re-based to the
// earliest start; Check refuses what no Collector makes.
func TestMergeCheck(t *testing.T) {
	a := curves(t, kineto(`"Device Type":1,"Device Id":0,"Bytes":512,"Total Allocated":512,"Total Reserved":1024`))
	b := curves(t, kineto(`"Device Type":1,"Device Id":0,"Bytes":64,"Total Allocated":64,"Total Reserved":1024`,
		`"Device Type":1,"Device Id":0,"Bytes":64,"Total Allocated":128,"Total Reserved":1024`))
	b.StartNs += 5000 // 5 µs later
	m := memcurve.Merge([]int64{0, 7}, []*memcurve.Summary{a, nil, b}[0:1:1])
	if m.Devices[0].Name != "rank 0 · CUDA 0" {
		t.Errorf("one summary: %q", m.Devices[0].Name)
	}
	m = memcurve.Merge([]int64{3, 7}, []*memcurve.Summary{curves(t, kineto(`"Device Type":1,"Device Id":0,"Bytes":512,"Total Allocated":512,"Total Reserved":1024`)), b})
	if got := fmt.Sprint(m.Devices[0].Name, m.Devices[1].Name, m.Devices[1].Points); got != "rank 3 · CUDA 0rank 7 · CUDA 0[[5 64 1024] [15 128 1024]]" {
		t.Errorf("merged: %s", got)
	}
	again := memcurve.Merge([]int64{0}, []*memcurve.Summary{m})
	if again.Devices[1].Name != "rank 7 · CUDA 0" {
		t.Errorf("merged twice: %q", again.Devices[1].Name)
	}
	if err := m.Check(); err != nil {
		t.Errorf("a merge fails Check: %v", err)
	}
	for _, c := range []struct {
		edit func(d *memcurve.Device)
		want string
	}{
		{func(d *memcurve.Device) { d.Records = 0 }, "records"},
		{func(d *memcurve.Device) { d.PeakAllocated = -1 }, "negative peak"},
		{func(d *memcurve.Device) { d.Points[1][0] = -1 }, "out of order"},
	} {
		bad := curves(t, kineto(`"Device Type":1,"Device Id":0,"Bytes":64,"Total Allocated":64`, `"Device Type":1,"Device Id":0,"Bytes":64,"Total Allocated":128`))
		c.edit(&bad.Devices[0])
		if err := bad.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check: %v, want %q", err, c.want)
		}
	}
}

// Renumber renames a merged summary's devices after their ranks' new numbers, all at once (0→1
// and 1→2 do not make 0 into 2), and leaves the devices of other ranks, and a one-rank
// summary's (not named after a rank), as they are.
func TestRenumber(t *testing.T) {
	dev := func(names ...string) *memcurve.Summary {
		s := &memcurve.Summary{}
		for _, n := range names {
			s.Devices = append(s.Devices, memcurve.Device{Name: n})
		}
		return s
	}
	for _, c := range []struct {
		name string
		in   *memcurve.Summary
		nums map[int64]int64
		want string
	}{
		{"moved along", dev("rank 0 · CUDA 0", "rank 1 · CUDA 0", "rank 1 · CPU"), map[int64]int64{0: 1, 1: 2},
			"[rank 1 · CUDA 0 rank 2 · CUDA 0 rank 2 · CPU]"},
		{"a named rank's device stays", dev("rank 7 · CUDA 0", "rank 1 · CUDA 1"), map[int64]int64{1: 5}, "[rank 7 · CUDA 0 rank 5 · CUDA 1]"},
		{"a one-rank summary's devices", dev("CUDA 0"), map[int64]int64{0: 3}, "[CUDA 0]"},
		{"not a rank number", dev("rank x · CUDA 0", "rank 0"), map[int64]int64{0: 3}, "[rank x · CUDA 0 rank 0]"},
		{"nothing moves", dev("rank 0 · CUDA 0"), nil, "[rank 0 · CUDA 0]"},
		{"no summary", nil, map[int64]int64{0: 1}, "[]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.in.Renumber(c.nums)
			var names []string
			if c.in != nil {
				for _, d := range c.in.Devices {
					names = append(names, d.Name)
				}
			}
			if got := fmt.Sprint(names); got != c.want {
				t.Errorf("%s, want %s", got, c.want)
			}
		})
	}
}
