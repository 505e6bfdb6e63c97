package export

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/orprof/orprof/analysis/flame"
	"github.com/orprof/orprof/analysis/pprof"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace/tracefile"
)

const testTraces = "../testdata/kineto/"

// devices counts a trace's device events and memory records as a plain consumer sees them.
type devices struct{ dev, mem int }

func (d *devices) Needs() tracefile.Needs { return tracefile.NeedMemory }
func (d *devices) Begin(*tracefile.Info)  {}
func (d *devices) Finish()                {}
func (d *devices) Event(ev *tracefile.Event) {
	switch {
	case ev.Kind == tracefile.KindMemory:
		d.mem++
	case ev.Kind.Device():
		d.dev++
	}
}

// TestKernelsOneRowPerDeviceEvent: the kernels table has one row per device event of the
// trace and the memory table one per "[memory]" record; every file carries its metadata.
func TestKernelsOneRowPerDeviceEvent(t *testing.T) {
	for _, name := range []string{"cuda_alexnet.json.gz", "rocm_mi250_train.json.gz", "cpu_only.json.gz"} {
		t.Run(name, func(t *testing.T) {
			path := testTraces + name
			var d devices
			data, err := tracefile.OpenConsumers(path, tracefile.Options{Consumers: []tracefile.Consumer{&d}})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			files, _, err := Export([]string{path}, dir, Options{Version: "test", OpsTree: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != len(Tables) {
				t.Fatalf("%d files, want %d", len(files), len(Tables))
			}
			rank := "0"
			if data.HasRank {
				rank = strconv.FormatInt(data.Rank, 10)
			}
			for _, f := range files {
				pf := openParquet(t, f.Path)
				want := map[string]string{"orprof.schema_version": "1", "orprof.version": "test", "orprof.table": f.Table,
					"orprof.source": path, "orprof.rank": rank}
				for k, v := range want {
					if got, _ := pf.Lookup(k); got != v {
						t.Errorf("%s: %s = %q, want %q", f.Table, k, got, v)
					}
				}
				if pf.NumRows() != f.Rows {
					t.Errorf("%s: %d rows in the file, %d reported", f.Table, pf.NumRows(), f.Rows)
				}
				switch f.Table {
				case TableKernels:
					if f.Rows != int64(d.dev) {
						t.Errorf("kernels: %d rows, the trace has %d device events", f.Rows, d.dev)
					}
				case TableMemory:
					if f.Rows != int64(d.mem) {
						t.Errorf("memory: %d rows, the trace has %d memory records", f.Rows, d.mem)
					}
				}
			}
		})
	}
}

func openParquet(t *testing.T, path string) *parquet.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

// TestExportFailureLeavesNothing: an input that fails leaves no file and no directory of the
// export behind, whatever the inputs before it wrote; two traces of one rank are refused.
func TestExportFailureLeavesNothing(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"traceEvents": [{"ph": "X", "ts": `), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		inputs []string
		names  string
	}{
		{"bad trace", []string{testTraces + "cpu_only.json.gz", bad}, "bad.json"},
		{"rank twice", []string{testTraces + "cuda_alexnet.json.gz", testTraces + "cuda_ns_resolution.json.gz"}, "both rank 0"},
		{"missing", []string{filepath.Join(t.TempDir(), "nope.json")}, "nope.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			for _, dir := range []string{filepath.Join(parent, "new"), parent} {
				_, _, err := Export(tc.inputs, dir, Options{})
				if err == nil || !strings.Contains(err.Error(), tc.names) {
					t.Fatalf("error %v, want one naming %q", err, tc.names)
				}
				if strings.Count(err.Error(), "\n") != 0 {
					t.Fatalf("error of several lines: %q", err)
				}
			}
			ents, err := os.ReadDir(parent)
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != 0 {
				t.Fatalf("left behind: %v", ents)
			}
		})
	}
}

// TestOpsTreeIsPprofTree: the ops_tree table (--ops-tree) has one row per node of the op tree
// `orprof pprof` builds from the trace's events (a list walk, not the streamed read the
// export makes), in depth-first order, each with its parent, depth, path and figures.
func TestOpsTreeIsPprofTree(t *testing.T) {
	for _, name := range []string{"cuda_alexnet.json.gz", "rocm_mi250_train.json.gz", "cuda_train_step.json.gz"} {
		t.Run(name, func(t *testing.T) {
			path := testTraces + name
			data, err := tracefile.Open(path, tracefile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := treeRows(0, flame.FromProfile(pprof.FromList(events.NewListOwned(data.Events, events.ListOptions{UseDevice: data.DeviceName}))))
			if len(want) == 0 {
				t.Fatal("no op tree")
			}
			dir := t.TempDir()
			files, _, err := Export([]string{path}, dir, Options{OpsTree: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []OpTreeRow
			for _, f := range files {
				if f.Table == TableOpsTree {
					if got, err = parquet.ReadFile[OpTreeRow](f.Path); err != nil {
						t.Fatal(err)
					}
					for i := range got {
						got[i].Rank = 0
					}
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d rows, pprof's tree has %d nodes", len(got), len(want))
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.Node != int64(i) || (w.Parent == nil) != (g.Parent == nil) || (w.Parent != nil && *w.Parent != *g.Parent) ||
					g.Depth != int64(len(g.Path)) || g.Path[len(g.Path)-1] != g.Name {
					t.Fatalf("row %d: node %d parent %v depth %d path %q name %q", i, g.Node, g.Parent, g.Depth, g.Path, g.Name)
				}
				g.Parent, w.Parent = nil, nil
				if !reflect.DeepEqual(g, w) {
					t.Fatalf("row %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
			// Without OpsTree no ops_tree file is written.
			dir = t.TempDir()
			if _, _, err := Export([]string{path}, dir, Options{}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(dir, TableOpsTree)); !os.IsNotExist(err) {
				t.Fatalf("ops_tree written without OpsTree: %v", err)
			}
		})
	}
}
