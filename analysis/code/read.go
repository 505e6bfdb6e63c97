package code

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/orprof/orprof/internal/fanout"
	"github.com/orprof/orprof/internal/sniff"
	"github.com/orprof/orprof/trace/tracefile"
)

// ReadOptions tune Open and ReadAll.
type ReadOptions struct {
	// By is what a row stands for.
	By By
	// Link selects the rules that charge device time to operators (tracefile.Options.Link).
	Link tracefile.LinkMode
	// Stdin is what "-" reads (nil: os.Stdin).
	Stdin io.Reader
}

// sniffBytes is how much of an input is looked at to tell a summary from a trace.
const sniffBytes = 64 << 10

// Open reads one input: a code summary (WriteJSON's, plain or gzip) or a trace, read once
// for its ops, device events and Python layer, and attributed. pos is the trace's position
// among the inputs, its rank when it names none. It returns the trace's warnings. A trace
// without what o.By needs (python_function events; nn.Module calls for ByModule; functions
// of the user's code for ByLine) is an error saying so, not an empty summary.
func Open(path string, pos int, o ReadOptions) (*Summary, []string, error) {
	name := path
	c := NewCollector()
	opts := tracefile.Options{Link: o.Link, Consumers: []tracefile.Consumer{c}}
	var data *tracefile.Data
	var err error
	if path == "-" {
		name = "<stdin>"
		r := o.Stdin
		if r == nil {
			r = os.Stdin
		}
		br := bufio.NewReaderSize(r, sniffBytes)
		head, _ := br.Peek(sniffBytes)
		if IsSummary(sniff.Head(bytes.NewReader(head), 64)) {
			return readSummaryBy(br, name, o.By)
		}
		data, err = tracefile.ReadConsumers(br, name, opts)
	} else {
		head, herr := sniff.FileHead(path, 64)
		if herr == nil && IsSummary(head) {
			f, err := os.Open(path)
			if err != nil {
				return nil, nil, err
			}
			defer f.Close()
			return readSummaryBy(f, name, o.By)
		}
		// A trace is opened by the reader itself, which maps a file and inflates gzip on
		// every core.
		data, err = tracefile.OpenConsumers(path, opts)
	}
	if err != nil {
		return nil, nil, err
	}
	in := c.Input()
	if err := sufficient(in, o.By); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	s := Attribute(in, o.By)
	s.Version = SummaryVersion
	t := Trace{File: name, Rank: int64(pos)}
	if data.HasRank {
		t.Rank, t.FromTrace = data.Rank, true
	}
	s.Traces = []Trace{t}
	return s, data.Warnings(name), nil
}

// readSummaryBy reads a summary that must be by by.
func readSummaryBy(r io.Reader, name string, by By) (*Summary, []string, error) {
	s, err := ReadSummary(r, name)
	if err == nil && s.By != by.String() {
		return nil, nil, fmt.Errorf("%s: a code summary by %s, not by %s", name, s.By, by)
	}
	return s, nil, err
}

// sufficient says why in cannot be attributed by by, if it cannot.
func sufficient(in *Input, by By) error {
	if len(in.Spans) == 0 {
		return fmt.Errorf("the trace has no python_function events, so no module or source line to charge: " +
			"record it with torch.profiler.profile(with_stack=True)")
	}
	for i := range in.Spans {
		n := in.Spans[i].Name
		if by == ByModule && strings.HasPrefix(n, modulePrefix) || by == ByLine && userFrame(n) {
			return nil
		}
	}
	if by == ByModule {
		return fmt.Errorf("the trace's %d python_function events hold no nn.Module call (\"nn.Module: NAME\"); --by line charges source lines",
			len(in.Spans))
	}
	return fmt.Errorf("the trace's %d python_function events hold no Python function outside torch's own files", len(in.Spans))
}

// ReadAll reads every input (Open), up to GOMAXPROCS at once, and merges them in input
// order; the warnings are every trace's, in that order.
func ReadAll(paths []string, o ReadOptions) (*Summary, []string, error) {
	sums := make([]*Summary, len(paths))
	warns := make([][]string, len(paths))
	errs := fanout.Each(len(paths), 0, func(k int) error {
		var err error
		sums[k], warns[k], err = Open(paths[k], k, o)
		return err
	})
	if err := fanout.First(errs); err != nil {
		return nil, nil, err
	}
	var all []string
	for _, w := range warns {
		all = append(all, w...)
	}
	s, err := Merge(sums...)
	return s, all, err
}
