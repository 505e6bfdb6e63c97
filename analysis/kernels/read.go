package kernels

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/orprof/orprof/internal/sniff"

	"github.com/orprof/orprof/internal/fanout"
	"github.com/orprof/orprof/trace/tracefile"
)

// ReadOptions tune ReadAll and Open.
type ReadOptions struct {
	// Link selects the rules that charge device time to operators (tracefile.Options.Link).
	Link tracefile.LinkMode
	// Workers is the number of inputs read at once; 0 means GOMAXPROCS.
	Workers int
	// Consumers also receive every event of each trace read (several analyses, one read);
	// they are shared by the inputs, which are read one at a time when there are any, each
	// read beginning and finishing them once.
	Consumers []tracefile.Consumer
	// Stdin is what "-" reads (nil: os.Stdin).
	Stdin io.Reader
	// Embedded, when set, reads an input that holds a kernels summary as a member of a
	// document of another kind (a report summary: package report, which imports this
	// one, has the reader). It is handed the input's start (plain or gzip, the first 64 KiB
	// at least buffered) before anything else looks at it: when the input is such a document
	// it reads it and returns its kernels summary, or an error naming name (one without the
	// member among them), with ok true; otherwise ok false, and it has consumed nothing.
	Embedded func(br *bufio.Reader, name string) (s *Summary, ok bool, err error)
}

// Open reads one input: a kernels summary (Write's json, plain or gzip), a document holding
// one that o.Embedded reads (a report summary), or a trace, read in one pass for its kernels
// (tracefile.OpenConsumers). pos is the trace's position among the
// inputs, its rank when it names none. It returns the trace's warnings (tracefile's
// Data.Warnings, naming path).
func Open(path string, pos int, o ReadOptions) (*Summary, []string, error) {
	if path != "-" {
		if s, ok, err := openSummary(path, o.Embedded); ok || err != nil {
			return s, nil, err
		}
	}
	c := NewCollector()
	opts := tracefile.Options{Link: o.Link, Position: pos, Consumers: append([]tracefile.Consumer{c}, o.Consumers...)}
	var data *tracefile.Data
	var err error
	if path == "-" {
		stdin := o.Stdin
		if stdin == nil {
			stdin = os.Stdin
		}
		br, isSum := SniffSummary(stdin)
		if o.Embedded != nil {
			if s, ok, err := o.Embedded(br, "<stdin>"); ok {
				return s, nil, err
			}
		}
		if isSum {
			s, err := ReadSummaryFrom(br, "<stdin>")
			return s, nil, err
		}
		data, err = tracefile.ReadConsumers(br, "<stdin>", opts)
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
	s, err := c.Summary()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, data.Warnings(name), nil
}

// IsSummaryFile reports whether the file at path (plain or gzip) is a kernels summary rather
// than a trace. It reads only the start of the file.
func IsSummaryFile(path string) (bool, error) {
	head, err := sniff.FileHead(path, 64)
	return IsSummary(head), err
}

// sniffBytes is how much of an input SniffSummary looks at: enough compressed bytes for a gzip
// member's header and the first block that holds a summary's first key.
const sniffBytes = 64 << 10

// SniffSummary reports whether the input r (plain or gzip) is a kernels summary, looking at its
// start through the returned reader, which gives every byte of r: read the input from it,
// a summary with ReadSummaryFrom, a trace with the trace reader. For a stream (stdin) that
// cannot be opened twice.
func SniffSummary(r io.Reader) (*bufio.Reader, bool) {
	br := bufio.NewReaderSize(r, sniffBytes)
	head, _ := br.Peek(sniffBytes)
	return br, IsSummary(sniff.Head(bytes.NewReader(head), 64))
}

// ReadSummaryFrom is ReadSummary of an input plain or gzip (a summary file written with .gz).
func ReadSummaryFrom(r io.Reader, name string) (*Summary, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	if m, _ := br.Peek(2); sniff.IsGzip(m) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		defer gz.Close()
		br = bufio.NewReader(gz)
	}
	if b, _ := br.Peek(3); bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		br.Discard(3) // a byte order mark, which IsSummary allows and JSON does not
	}
	return ReadSummary(br, name)
}

// openSummary reads path as a kernels summary when it is one (ok), or as the document of
// another kind that embedded (when set) reads.
func openSummary(path string, embedded func(*bufio.Reader, string) (*Summary, bool, error)) (s *Summary, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	br, ok := SniffSummary(f)
	if embedded != nil {
		if s, isEmb, err := embedded(br, path); isEmb {
			return s, true, err
		}
	}
	if !ok {
		return nil, false, nil // a trace (or not valid gzip: the trace reader says so)
	}
	s, err = ReadSummaryFrom(br, path)
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
	if err := fanout.First(errs); err != nil {
		return nil, nil, err
	}
	all := slices.Concat(warns...)
	if len(sums) == 0 {
		return nil, nil, fmt.Errorf("no input")
	}
	s, err := Merge(sums...)
	if err != nil {
		return nil, nil, err
	}
	return s, all, nil
}
