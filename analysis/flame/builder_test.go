package flame_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orprof/orprof/analysis/flame"
	"github.com/orprof/orprof/analysis/pprof"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace/tracefile"
)

// traces are every trace the repository holds: the real ones in testdata and the reader's own.
func traces(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"../../testdata/kineto/*.json.gz", "../../testdata/kineto-extra/*.json.gz",
		"../../testdata/pytorch-1.13/*/trace.json", "../../trace/tracefile/testdata/reader/*.json"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("%d traces: the repository's traces are missing", len(files))
	}
	return files
}

func treeJSON(t *testing.T, tr *flame.Tree) string {
	t.Helper()
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The op tree made while the trace streams through the table's Averager (tracefile.Options.Tree,
// no event kept; what orprof report does), the one Open hands Options.Tree, and the one a
// Builder makes of a List's walk (FromList), are the tree folded from `orprof pprof`'s profile of the same events (the oracle:
// FromProfile(pprof.FromList)), node for node and nanosecond for nanosecond, on every trace in
// testdata, in every grouping ReadAverages takes (grouping by stack reads through a List).
func TestStreamedTreeIsPprofTree(t *testing.T) {
	groupings := []events.AverageOptions{{}, {GroupByInputShape: true}, {GroupByStackN: 2}}
	for _, path := range traces(t) {
		if st, err := os.Stat(path); err == nil && st.Size() > 1<<20 && (raceEnabled || testing.Short()) {
			continue // the 87 MB trace (9 MB gzip): too slow under -race
		}
		name, _ := filepath.Rel("../..", path)
		t.Run(name, func(t *testing.T) {
			data, err := tracefile.Open(path, tracefile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			l := events.NewListOwned(data.Events, events.ListOptions{UseDevice: data.DeviceName})
			want := treeJSON(t, flame.FromProfile(pprof.FromList(l)))
			if got := treeJSON(t, flame.FromList(l)); got != want {
				t.Errorf("FromList (the List's walk) differs from pprof's tree:\n got %.600s\nwant %.600s", got, want)
			}
			b := flame.NewBuilder()
			if _, err := tracefile.Open(path, tracefile.Options{Tree: b.Add}); err != nil {
				t.Fatal(err)
			}
			if got := treeJSON(t, b.Tree()); got != want {
				t.Errorf("Open with Options.Tree: the tree differs from pprof's:\n got %.600s\nwant %.600s", got, want)
			}
			for _, g := range groupings {
				b := flame.NewBuilder()
				av, err := tracefile.OpenAverages(path, tracefile.Options{NoShapes: true, NoStacks: true, Tree: b.Add}, g)
				if err != nil {
					t.Fatal(err)
				}
				if len(av.Rows) == 0 && len(l.KeyAverages(events.AverageOptions{})) != 0 {
					t.Fatal("no rows")
				}
				if got := treeJSON(t, b.Tree()); got != want {
					t.Errorf("grouping %+v: the streamed tree differs from pprof's:\n got %.600s\nwant %.600s", g, got, want)
				}
			}
		})
	}
}

// ReadConsumers makes no events: it refuses Options.Tree rather than ignore it.
func TestReadConsumersRefusesTree(t *testing.T) {
	_, err := tracefile.OpenConsumers("../../trace/tracefile/testdata/reader/link.json", tracefile.Options{Tree: flame.NewBuilder().Add})
	if err == nil || !strings.Contains(err.Error(), "Options.Tree") {
		t.Fatalf("err = %v, want a refusal naming Options.Tree", err)
	}
}

// TestBuilderCases: the rules the tree keeps, each on a few events, against pprof's tree of the
// same list: same-name collapse (the parent carries its child's kernels), a fallback-mode op
// (its device time its own), a kernel named like a device-side annotation (left out), device
// work no op took (under the root), an async op (at the root).
func TestBuilderCases(t *testing.T) {
	cpu := func(name string, s, e float64, tid int64, ks ...events.Kernel) events.FunctionEvent {
		return events.FunctionEvent{Name: name, StartUs: s, EndUs: e, Thread: tid, NodeID: -1, InputShapes: "[]", Kernels: ks}
	}
	dev := func(name string, s, e float64) events.FunctionEvent {
		return events.FunctionEvent{Name: name, StartUs: s, EndUs: e, DeviceType: 1, Thread: 7, NodeID: -1}
	}
	k := func(name string, us float64) events.Kernel { return events.Kernel{Name: name, DurationUs: us} }
	legacy := cpu("fallback", 60, 70, 1, k("fallback", 3.25))
	legacy.IsLegacy = true
	async := cpu("async", 0, 100, 2, k("gemm", 1))
	async.IsAsync = true
	annot := dev("span", 10, 40)
	annot.IsUserAnnotation = true
	cases := []struct {
		name string
		evs  []events.FunctionEvent
	}{
		{"collapse", []events.FunctionEvent{cpu("aten::add", 0, 10, 1, k("k0", 1)), cpu("aten::add", 1, 9, 1, k("k1", 2)),
			dev("k0", 20, 21), dev("k1", 22, 24)}},
		{"fallback and nesting", []events.FunctionEvent{cpu("step", 0, 100, 1), cpu("mm", 10, 50, 1, k("gemm", 4.5), k("gemm", 0.1)),
			cpu("mm", 55, 58, 1, k("gemm", 1)), legacy, dev("gemm", 11, 15.5), dev("gemm", 16, 16.1), dev("gemm", 56, 57)}},
		{"annotation and unlinked", []events.FunctionEvent{cpu("op", 0, 50, 1, k("span", 30), k("copy", 2)), annot,
			dev("copy", 41, 43), dev("copy", 44, 47), dev("other", 48, 49)}},
		{"async", []events.FunctionEvent{async, cpu("op", 10, 20, 1), dev("gemm", 30, 31)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := events.NewList(c.evs, events.ListOptions{UseDevice: "cuda"})
			want := treeJSON(t, flame.FromProfile(pprof.FromList(l)))
			if got := treeJSON(t, flame.FromList(l)); got != want {
				t.Errorf("List walk:\n got %s\nwant %s", got, want)
			}
			a, _ := events.NewAverager(len(c.evs), events.AverageOptions{})
			b := flame.NewBuilder()
			a.WalkTree(b.Add)
			for i := range c.evs {
				e := c.evs[i]
				ks := e.Kernels
				e.Kernels = nil
				if e.IsLegacy {
					e.Kernels = ks // set with the event, as the reader sets a fallback op's
					ks = nil
				}
				a.Set(i, &e)
				for _, kn := range ks {
					a.AddNamedKernel(i, kn)
				}
			}
			a.Averages()
			if got := treeJSON(t, b.Tree()); got != want {
				t.Errorf("Averager walk:\n got %s\nwant %s", got, want)
			}
		})
	}
}
