package tracefile

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// ReadKeepEach gives Read's events and hands over ReadEach's TimedEvents, in one read.
func TestOpenKeepEach(t *testing.T) {
	for _, name := range []string{"rocm_mi250_train.json.gz", "cuda_ns_resolution.json.gz", "mtia_rank0.json.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(sharedTestdata, "kineto", name)
			collect := func(mu *sync.Mutex, out *[]TimedEvent) func() func(*TimedEvent) {
				return func() func(*TimedEvent) {
					return func(e *TimedEvent) { mu.Lock(); *out = append(*out, *e); mu.Unlock() }
				}
			}
			var mu sync.Mutex
			var each, keep []TimedEvent
			if _, err := OpenEach(path, Options{}, collect(&mu, &each)); err != nil {
				t.Fatal(err)
			}
			full, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			td, err := OpenKeepEach(path, Options{}, collect(&mu, &keep))
			if err != nil {
				t.Fatal(err)
			}
			if len(td.Events) != len(full.Events) {
				t.Fatalf("%d events, Read has %d", len(td.Events), len(full.Events))
			}
			for i := range full.Events {
				a, b := full.Events[i], td.Events[i]
				if a.Name != b.Name || a.StartUs != b.StartUs || a.EndUs != b.EndUs || a.Thread != b.Thread ||
					a.ID != b.ID || len(a.Kernels) != len(b.Kernels) || a.InputShapes != b.InputShapes {
					t.Fatalf("event %d: %+v, Read's %+v", i, b, a)
				}
			}
			cmp := func(x, y TimedEvent) int {
				if x.StartNs != y.StartNs {
					return int(x.StartNs - y.StartNs)
				}
				if x.Name != y.Name {
					if x.Name < y.Name {
						return -1
					}
					return 1
				}
				return int(x.EndNs-y.EndNs) + int(x.Tid-y.Tid)
			}
			slices.SortFunc(each, cmp)
			slices.SortFunc(keep, cmp)
			if len(each) == 0 || !slices.Equal(each, keep) {
				t.Fatalf("%d TimedEvents, ReadEach handed %d (or they differ)", len(keep), len(each))
			}
		})
	}
}
