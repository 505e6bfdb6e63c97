package lanes_test

import (
	"fmt"
	"path/filepath"

	"github.com/orprof/orprof/analysis/lanes"
	"github.com/orprof/orprof/trace/tracefile"
)

// A Collector is one consumer of a read; its summary has a lane per thread and stream.
func ExampleCollector() {
	c := lanes.NewCollector()
	path := filepath.Join("..", "..", "testdata", "kineto", "rocm_mi250_train.json.gz")
	if _, err := tracefile.Open(path, tracefile.Options{Consumers: []tracefile.Consumer{c}}); err != nil {
		fmt.Println(err)
		return
	}
	s := c.Summary()
	fmt.Println("events", s.Events, "kept", s.Kept, "binned", s.Binned)
	for _, l := range s.Ranks[0].Lanes {
		fmt.Println(l.Kind, l.ID, l.Events)
	}
	// Output:
	// events 112 kept 112 binned 0
	// thread 597913 51
	// thread 598009 43
	// stream 0 18
}
