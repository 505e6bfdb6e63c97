package lanes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/orprof/orprof/analysis"
	"github.com/orprof/orprof/analysis/analysistest"
	"github.com/orprof/orprof/internal/golden"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

func kineto(name string) string { return filepath.Join("..", "..", "testdata", "kineto", name) }

// counter counts a trace's events per lane as the reader hands them over, and keeps its rank.
type counter struct {
	lanes map[string]int
	rank  trace.Rank
}

func (c *counter) Needs() tracefile.Needs { return 0 }
func (c *counter) Begin(info *tracefile.Info) {
	c.lanes, c.rank = map[string]int{}, info.Rank
}
func (c *counter) Event(ev *tracefile.Event) {
	switch k := ev.Kind; {
	case k.Host() || k == tracefile.KindRuntime:
		c.lanes[fmt.Sprintf("thread %d %d", ev.Pid, ev.Tid)]++
	case k.Device() && k != tracefile.KindScopeMetrics:
		c.lanes[fmt.Sprintf("stream %d %d", ev.Pid, ev.Stream)]++
	}
}
func (c *counter) Finish() {}

// read reads the trace at path at position pos into its lanes and its counts per lane.
func read(t testing.TB, path string, pos int) (*Summary, *counter) {
	t.Helper()
	c, n := NewCollector(), &counter{}
	if _, err := tracefile.Open(path, tracefile.Options{Consumers: []tracefile.Consumer{c, n}, Position: pos}); err != nil {
		t.Fatal(err)
	}
	return c.Summary(), n
}

// TestCountsPerLane: every lane holds as many events as the trace has on its thread or
// stream, kept or binned, and its bins count the binned ones; the summary checks.
func TestCountsPerLane(t *testing.T) {
	for _, name := range []string{"rocm_mi250_train.json.gz", "cuda_train_step.json.gz", "mtia_rank0.json.gz"} {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name == "mtia_rank0.json.gz" {
				t.Skip("a large trace")
			}
			s, n := read(t, kineto(name), 0)
			if err := s.Check(); err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			total := 0
			for _, l := range s.Ranks[0].Lanes {
				got[fmt.Sprintf("%s %d %d", l.Kind, l.Pid, l.ID)] = l.Events
				total += l.Events
			}
			if len(got) != len(n.lanes) {
				t.Errorf("%d lanes, the trace has %d threads and streams", len(got), len(n.lanes))
			}
			for k, want := range n.lanes {
				if got[k] != want {
					t.Errorf("%s: %d events, the trace has %d", k, got[k], want)
				}
			}
			if total != s.Events || s.Kept+s.Binned != s.Events {
				t.Errorf("events %d, kept %d + binned %d; the lanes have %d", s.Events, s.Kept, s.Binned, total)
			}
		})
	}
}

// TestMTIAKeepsEveryDeviceEvent: the budget keeps all of mtia_rank0's device events, bins
// the host events shorter than its threshold and keeps every longer one.
func TestMTIAKeepsEveryDeviceEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("a large trace")
	}
	s, _ := read(t, kineto("mtia_rank0.json.gz"), 0)
	dev := 0
	for _, l := range s.Ranks[0].Lanes {
		if l.Kind == "stream" {
			dev += l.Events
			if l.Binned != 0 {
				t.Errorf("stream %d: %d device events binned", l.ID, l.Binned)
			}
		}
	}
	if s.DeviceMinNs != 0 || dev < 25_000 {
		t.Errorf("device threshold %d ns, %d device events", s.DeviceMinNs, dev)
	}
	if s.HostMinNs == 0 || s.Binned == 0 || s.Kept-dev > HostBudget {
		t.Errorf("host threshold %d ns, binned %d, kept host %d", s.HostMinNs, s.Binned, s.Kept-dev)
	}
}

// TestGolden is the summary of a small trace.
func TestGolden(t *testing.T) {
	s, _ := read(t, kineto("rocm_mi250_train.json.gz"), 0)
	var b bytes.Buffer
	if err := Analysis.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", " "); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "rocm_mi250_train.golden.json"), out.Bytes())
}

// TestKindSmallBudgets runs package analysistest's checks with budgets so small that every
// merge bins events kept before: merges stay associative to the byte.
func TestKindSmallBudgets(t *testing.T) {
	for _, b := range [][3]int{{DeviceBudget, HostBudget, GapBudget}, {40, 150, 10}, {1, 1, 1}} {
		t.Run(fmt.Sprint(b), func(t *testing.T) {
			old := budgets
			budgets = b
			defer func() { budgets = old }()
			traces := []string{kineto("rocm_mi250_train.json.gz"), kineto("cuda_alexnet.json.gz"),
				filepath.Join("..", "..", "testdata", "kineto-extra", "hta_no_rank.json.gz")}
			reg := analysis.Registry{Analysis}
			err := analysistest.Check(reg, Analysis, func(i, pos int) (analysistest.Input, error) {
				s, n := read(t, traces[i], pos)
				return analysistest.Input{Summary: s, Ranks: []trace.Rank{n.rank}}, nil
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCheckRefuses: a summary with a figure no Collector makes is refused on reading.
func TestCheckRefuses(t *testing.T) {
	s, _ := read(t, kineto("rocm_mi250_train.json.gz"), 0)
	var b bytes.Buffer
	if err := Analysis.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(s *Summary){
		"threshold": func(s *Summary) { s.HostMinNs = 3 },
		"count":     func(s *Summary) { s.Ranks[0].Lanes[0].Events++ },
		"row":       func(s *Summary) { s.Ranks[0].Lanes[0].R[0] = 99 },
		"name":      func(s *Summary) { s.Ranks[0].Lanes[0].N[0] = -1 },
		"columns":   func(s *Summary) { s.Ranks[0].Lanes[0].D = s.Ranks[0].Lanes[0].D[1:] },
		"version":   func(s *Summary) { s.Version = 2 },
	} {
		t.Run(name, func(t *testing.T) {
			var c Summary
			if err := json.Unmarshal(b.Bytes(), &c); err != nil {
				t.Fatal(err)
			}
			edit(&c)
			data, _ := json.Marshal(&c)
			if _, err := Analysis.Read(data, "lanes"); err == nil {
				t.Error("read without an error")
			}
		})
	}
}

// TestMarshalIsStructs: Lane's MarshalJSON writes the bytes encoding/json writes of its struct.
func TestMarshalIsStructs(t *testing.T) {
	s, _ := read(t, kineto("cuda_train_step.json.gz"), 0)
	type plain Lane
	for i := range s.Ranks[0].Lanes {
		l := &s.Ranks[0].Lanes[i]
		got, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal((*plain)(l))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("lane %d:\n%s\n%s", i, got, want)
		}
	}
	sj, err := s.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	type plainSummary Summary
	if want, _ := json.Marshal((*plainSummary)(s)); !bytes.Equal(sj, want) {
		t.Fatalf("the summary:\n%s\n%s", sj, want)
	}
	var empty Summary
	if got, _ := empty.AppendJSON(nil); !bytes.Equal(got, must(json.Marshal((*plainSummary)(&empty)))) {
		t.Fatalf("an empty summary: %s", got)
	}
	var nilCols Lane
	got, _ := json.Marshal(&nilCols)
	want, _ := json.Marshal((*plain)(&nilCols))
	if !bytes.Equal(got, want) {
		t.Fatalf("an empty lane:\n%s\n%s", got, want)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
