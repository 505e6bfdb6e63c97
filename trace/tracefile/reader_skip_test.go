package tracefile

import (
	"path/filepath"
	"testing"

	"github.com/orprof/orprof/events"
)

// NoShapes and NoStacks leave only the shapes and stacks out: every other field of every event
// is what a full read gives, and the rows grouped by neither are the same.
func TestOpenNoShapesNoStacks(t *testing.T) {
	path := filepath.Join(sharedTestdata, "kineto", "rocm_mi250_train.json.gz")
	full, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lean, err := Open(path, Options{NoShapes: true, NoStacks: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Events) != len(lean.Events) {
		t.Fatalf("%d events, %d without shapes", len(full.Events), len(lean.Events))
	}
	shapes := 0
	for i := range full.Events {
		f, l := full.Events[i], lean.Events[i]
		if f.InputShapes != "" && f.InputShapes != "[]" {
			shapes++
		}
		if l.InputShapes != "" && l.InputShapes != "[]" || len(l.Stack) != 0 {
			t.Fatalf("event %d (%s) keeps shapes %q or stack %v", i, l.Name, l.InputShapes, l.Stack)
		}
		f.InputShapes, l.InputShapes, f.Stack, l.Stack = "", "", nil, nil
		f.Kernels, l.Kernels = nil, nil
		if f.Name != l.Name || f.StartUs != l.StartUs || f.EndUs != l.EndUs || f.ID != l.ID {
			t.Fatalf("event %d differs: %+v vs %+v", i, full.Events[i], lean.Events[i])
		}
	}
	if shapes == 0 {
		t.Fatal("the trace has no shapes: the test proves nothing")
	}
	a := events.NewList(full.Events, events.ListOptions{}).KeyAverages(events.AverageOptions{})
	b := events.NewList(lean.Events, events.ListOptions{}).KeyAverages(events.AverageOptions{})
	if len(a) != len(b) {
		t.Fatalf("%d rows, %d without shapes", len(a), len(b))
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].SelfCPUTimeTotal != b[i].SelfCPUTimeTotal || a[i].Count != b[i].Count {
			t.Errorf("row %d: %+v vs %+v", i, a[i], b[i])
		}
	}
}
