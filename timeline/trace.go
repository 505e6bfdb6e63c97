package timeline

import (
	"io"

	"github.com/orprof/orprof/report/tracefile"
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
		name = "<stdin>"
	}
	return c.Finish(td, RankInfo{Rank: int64(pos), Trace: name}), td.ReadWarnings(name), nil
}

// ReadTrace is OpenTrace of a trace read from r (plain or gzip), named name in the summary and
// the warnings: `orprof timeline -` reads its standard input through it.
func ReadTrace(r io.Reader, name string, o Options, pos int) (*Summary, []string, error) {
	if err := o.Check(); err != nil {
		return nil, nil, err
	}
	c := NewConsumer(o, nil)
	td, err := tracefile.ReadConsumers(r, name, tracefile.Options{Consumers: []tracefile.Consumer{c}})
	if err != nil {
		return nil, nil, err
	}
	return c.Finish(td, RankInfo{Rank: int64(pos), Trace: name}), td.ReadWarnings(name), nil
}
