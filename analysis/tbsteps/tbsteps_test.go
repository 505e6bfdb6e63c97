package tbsteps_test

import (
	"encoding/json"
	"fmt"
	"github.com/orprof/orprof/trace"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orprof/orprof/analysis/tbsteps"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/golden"
	"github.com/orprof/orprof/trace/tracefile"
)

// ev is an event as the reader hands it over, its times in ns.
func ev(kind tracefile.Kind, name string, s, e, corr int64) tracefile.Event {
	return tracefile.Event{Kind: kind, Name: name, StartNs: s, EndNs: e, Correlation: corr}
}

// Two steps by hand: the priorities, a kernel running past its step's host end (the next step
// starts after it), DataLoader and runtime time, Other for what nothing covers.
func TestBreakdownByHand(t *testing.T) {
	h, r, d := tracefile.KindOp, tracefile.KindRuntime, tracefile.KindKernel
	evs := []tracefile.Event{
		ev(h, "ProfilerStep#1", 0, 100, 0),
		ev(h, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 20, 0),
		ev(h, "aten::mm", 20, 60, 0),
		ev(r, "cudaLaunchKernel", 30, 40, 7),
		ev(d, "gemm", 50, 130, 7),                              // runs past step 1's host end: step 1 ends at 130
		ev(tracefile.KindMemset, "Memset (Device)", 60, 70, 0), // under the kernel: counted as Kernel
		ev(h, "ProfilerStep#2", 100, 200, 0),
		ev(r, "cudaMemcpyAsync", 140, 150, 8),
		ev(tracefile.KindMemcpy, "Memcpy HtoD (Pageable -> Device)", 150, 170, 8),
		ev(h, "aten::add", 170, 180, 0),
	}
	c := tbsteps.NewCollector()
	for i := range evs {
		c.Event(&evs[i])
	}
	s := finish(c, "t")
	got := fmt.Sprint(s.Ranks[0].Steps)
	// Step 1 [0,130): DataLoader 0-20, CPU Exec 20-30 and 40-50, Runtime 30-40, Kernel 50-130.
	// Step 2 [130,200): Memcpy 150-170, Runtime 140-150, CPU Exec 170-180, Other 130-140, 180-200.
	want := "[{1 0 130 130 [80 0 0 0 10 20 20 0]} {2 130 200 70 [0 20 0 0 10 0 10 30]}]"
	if got != want {
		t.Errorf("steps\n got %s\nwant %s", got, want)
	}
	r0 := s.Ranks[0]
	if r0.AverageTotalNs != 100 || r0.AverageNs[tbsteps.Kernel] != 40 || !r0.HasDevice || r0.HasCommunication {
		t.Errorf("average %v of %v, device %v, communication %v", r0.AverageNs, r0.AverageTotalNs, r0.HasDevice, r0.HasCommunication)
	}
}

// On every trace in testdata: each step's categories sum to its length, none is negative,
// steps do not overlap.
func TestInvariantsOnTestdata(t *testing.T) {
	n := 0
	filepath.WalkDir(filepath.Join("..", "..", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json.gz") && !strings.HasSuffix(p, "trace.json") {
			return nil
		}
		c := tbsteps.NewCollector()
		if _, err := tracefile.OpenConsumers(p, tracefile.Options{Consumers: []tracefile.Consumer{c}}); err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		s := named(c, p)
		prev := int64(-1 << 62)
		for _, st := range s.Ranks[0].Steps {
			var sum int64
			for k, v := range st.Ns {
				if v < 0 {
					t.Errorf("%s step %s: %s %d", p, st.Name, tbsteps.Names[k], v)
				}
				sum += v
			}
			if sum != st.TotalNs || st.TotalNs != st.EndNs-st.StartNs || st.StartNs < prev {
				t.Errorf("%s step %s: categories %v sum to %d of %d; starts %d after %d", p, st.Name, st.Ns, sum, st.TotalNs, st.StartNs, prev)
			}
			prev = st.EndNs
		}
		n++
		return nil
	})
	if n < 10 {
		t.Errorf("only %d traces", n)
	}
}

func ExampleCollector() {
	evs := []tracefile.Event{
		{Kind: tracefile.KindUserAnnotation, Name: "ProfilerStep#3", StartNs: 0, EndNs: 1000},
		{Kind: tracefile.KindOp, Name: "aten::relu", StartNs: 100, EndNs: 400},
		{Kind: tracefile.KindRuntime, Name: "cudaLaunchKernel", StartNs: 200, EndNs: 300, Correlation: 1},
		{Kind: tracefile.KindKernel, Name: "relu_kernel", StartNs: 350, EndNs: 750, Correlation: 1},
	}
	c := tbsteps.NewCollector() // a tracefile.Consumer: Options{Consumers: …} of a read
	for i := range evs {
		c.Event(&evs[i])
	}
	c.Finish()
	st := c.Summary().Ranks[0].Steps[0]
	for k, ns := range st.Ns {
		if ns > 0 {
			fmt.Printf("%-8s %4d ns\n", tbsteps.Names[k], ns)
		}
	}
	// Output:
	// Kernel    400 ns
	// Runtime   100 ns
	// CPU Exec  150 ns
	// Other     350 ns
}

// A step that mostly waits for its data says so; one that does not, says nothing.
func TestFindings(t *testing.T) {
	for _, c := range []struct {
		loader int64
		want   string
	}{{80, "data loading takes 80.0% of the average step"}, {5, ""}} {
		evs := []tracefile.Event{
			ev(tracefile.KindUserAnnotation, "ProfilerStep#1", 0, 100, 0),
			ev(tracefile.KindUserAnnotation, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 0, c.loader, 0),
		}
		col := tbsteps.NewCollector()
		for i := range evs {
			col.Event(&evs[i])
		}
		f := finish(col, "t").Findings()
		got := ""
		if len(f) > 0 {
			got = f[0].Text
		}
		if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want) {
			t.Errorf("DataLoader %d ns of 100: finding %q, want %q", c.loader, got, c.want)
		}
	}
}

// testTraces are every trace the repository holds, with the names of their golden files.
func testTraces(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, pat := range []string{"../../testdata/kineto/*.json.gz", "../../testdata/kineto-extra/*.json.gz",
		"../../testdata/pytorch-1.13/*/trace.json", "../../trace/tracefile/testdata/reader/*.json"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			out[p] = filepath.Base(filepath.Dir(p)) + "_" + filepath.Base(p) + ".golden"
		}
	}
	if len(out) < 20 {
		t.Fatalf("%d traces: the repository's traces are missing", len(out))
	}
	return out
}

// The Collector as a consumer of a read shared with the table's Averager (what orprof report
// does) gives, on every trace in testdata, the summary in testdata/traces: written by the
// Collector's former form, fed by the reader's converting goroutines (tracefile.ReadEach), so
// the figures did not change when it became a tracefile.Consumer.
func TestConsumerOnTestdata(t *testing.T) {
	for p, name := range testTraces(t) {
		if st, err := os.Stat(p); err == nil && st.Size() > 1<<20 && (raceEnabled || testing.Short()) {
			continue // the 87 MB trace: too slow under -race
		}
		t.Run(name, func(t *testing.T) {
			c := tbsteps.NewCollector()
			if _, err := tracefile.OpenAverages(p, tracefile.Options{Consumers: []tracefile.Consumer{c}}, events.AverageOptions{}); err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(named(c, "t"), "", " ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "traces", name), append(b, '\n'))
		})
	}
}

// finish finishes a Collector fed by hand and names its rank 0 of trace name.
func finish(c *tbsteps.Collector, name string) *tbsteps.Summary {
	c.Finish()
	return named(c, name)
}

// named is the summary of a finished Collector as rank 0 of trace name.
func named(c *tbsteps.Collector, name string) *tbsteps.Summary {
	s := c.Summary()
	s.Ranks[0].Rank = trace.Rank{Trace: name}
	return s
}
