package kernels

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/orprof/orprof/internal/fanout"
	"github.com/orprof/orprof/report/tracefile"
)

// ReadOptions tune ReadAll and Open.
type ReadOptions struct {
	// Link selects the rules that charge device time to operators (tracefile.Options.Link).
	Link tracefile.LinkMode
	// Workers is the number of inputs read at once; 0 means GOMAXPROCS.
	Workers int
	// Consumers also receive every event of each trace read (several analyses, one read);
	// they are shared by the inputs, which are read one at a time when there are any.
	Consumers []tracefile.Consumer
	// Stdin is what "-" reads (nil: os.Stdin).
	Stdin io.Reader
}

// Open reads one input: a kernels summary (Write's json, plain or gzip) or a trace, read in
// one pass for its kernels (tracefile.OpenConsumers). pos is the trace's position among the
// inputs, its rank when it names none. It returns the trace's warnings (tracefile's
// Data.Warnings, naming path).
func Open(path string, pos int, o ReadOptions) (*Summary, []string, error) {
	if path != "-" {
		if s, ok, err := openSummary(path); ok || err != nil {
			return s, nil, err
		}
	}
	c := NewCollector()
	opts := tracefile.Options{Link: o.Link, Consumers: append([]tracefile.Consumer{c}, o.Consumers...)}
	var data *tracefile.Data
	var err error
	if path == "-" && o.Stdin != nil {
		data, err = tracefile.ReadConsumers(o.Stdin, "<stdin>", opts)
	} else {
		data, err = tracefile.OpenConsumers(path, opts)
	}
	if err != nil {
		return nil, nil, err
	}
	name := path
	if name == "-" {
		name = "<stdin>"
	}
	if err := c.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	r := Rank{Rank: int64(pos), File: name}
	if data.HasRank {
		r.Rank, r.FromTrace = data.Rank, true
	}
	return c.Summary(r, data.DeviceName), data.Warnings(name), nil
}

// IsSummaryFile reports whether the file at path (plain or gzip) is a kernels summary rather
// than a trace. It reads only the start of the file.
func IsSummaryFile(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r *bufio.Reader = br
	if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return false, nil
		}
		defer gz.Close()
		r = bufio.NewReader(gz)
	}
	head, _ := r.Peek(64)
	return IsSummary(head), nil
}

// openSummary reads path as a kernels summary when it is one (ok).
func openSummary(path string) (s *Summary, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, false, nil // not valid gzip: the trace reader says so
		}
		defer gz.Close()
		r = bufio.NewReader(gz)
	}
	head, _ := r.(*bufio.Reader).Peek(64)
	if !IsSummary(head) {
		return nil, false, nil
	}
	s, err = ReadSummary(r, path)
	return s, true, err
}

// ReadAll reads the inputs at paths (traces or kernels summaries), Workers at a time, and
// merges them in path order: the result does not depend on the order the reads finish in. It
// returns the warnings in path order and the first error in path order.
func ReadAll(paths []string, o ReadOptions) (*Summary, []string, error) {
	sums := make([]*Summary, len(paths))
	warns := make([][]string, len(paths))
	workers := o.Workers
	if len(o.Consumers) > 0 {
		workers = 1
	}
	errs := fanout.Each(len(paths), workers, func(k int) (err error) {
		sums[k], warns[k], err = Open(paths[k], k, o)
		return err
	})
	var all []string
	for k := range paths {
		if errs[k] != nil {
			return nil, nil, errs[k]
		}
		all = append(all, warns[k]...)
	}
	if len(sums) == 0 {
		return nil, nil, fmt.Errorf("no input")
	}
	s, err := Merge(sums...)
	if err != nil {
		return nil, nil, err
	}
	return s, all, nil
}
