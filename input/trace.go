package input

import (
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace/tracefile"
)

// ReadConsumers reads the trace in for opts.Consumers alone: a file through
// tracefile.OpenConsumers (mapped, gzip inflated on every core), a held input through
// tracefile.ReadConsumers of its stream.
func (in *Input) ReadConsumers(opts tracefile.Options) (*tracefile.Data, error) {
	if !in.Held() {
		return tracefile.OpenConsumers(in.Path, opts)
	}
	rc, err := in.Stream()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return tracefile.ReadConsumers(rc, in.Name, opts)
}

// ReadAverages reads the trace in for the table's rows, as ReadConsumers reads it for
// consumers (tracefile.OpenAverages, ReadAverages).
func (in *Input) ReadAverages(opts tracefile.Options, g events.AverageOptions) (*tracefile.Averages, error) {
	if !in.Held() {
		return tracefile.OpenAverages(in.Path, opts, g)
	}
	rc, err := in.Stream()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return tracefile.ReadAverages(rc, in.Name, opts, g)
}
