package timeline

import (
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/trace/tracefile"
)

// OpenTrace reads the trace at path in one pass ("-": standard input) for the analyses alone
// (tracefile.OpenConsumers, a Consumer: no event is kept) and returns the summary of its rank:
// the trace's distributedInfo rank, else pos. The warnings are the reader's.
func OpenTrace(path string, o Options, pos int) (*Summary, []string, error) {
	c := NewConsumer(o, nil)
	td, err := tracefile.OpenConsumers(path, tracefile.Options{Consumers: []tracefile.Consumer{c}})
	if err != nil {
		return nil, nil, err
	}
	name := path
	if name == "-" {
		name = input.StdinName
	}
	return c.Finish(td, RankInfo{Rank: int64(pos), Trace: name}), td.ReadWarnings(name), nil
}

// readTrace reads the trace in with the link rules link.
func readTrace(in *input.Input, o Options, pos int, link tracefile.LinkMode) (*Summary, []string, error) {
	c := NewConsumer(o, nil)
	opts := tracefile.Options{Consumers: []tracefile.Consumer{c}, Link: link}
	var td *tracefile.Data
	var err error
	if in.Held() {
		rc, _ := in.Stream()
		td, err = tracefile.ReadConsumers(rc, in.Name, opts)
	} else {
		td, err = tracefile.OpenConsumers(in.Path, opts)
	}
	if err != nil {
		return nil, nil, err
	}
	return c.Finish(td, RankInfo{Rank: int64(pos), Trace: in.Name}), td.ReadWarnings(in.Name), nil
}
