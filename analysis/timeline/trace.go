package timeline

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/trace/tracefile"
)

// OpenTrace reads the trace at path in one pass ("-": standard input) for the analyses alone
// (tracefile.OpenConsumers, a Consumer: no event is kept) and returns the summary of its rank:
// the trace's distributedInfo rank, else pos. The warnings are the reader's.
func OpenTrace(path string, o Options, pos int) (*Summary, []string, error) {
	return openTrace(path, o, pos, tracefile.LinkAll, nil)
}

// openTrace is OpenTrace with the link rules link and the category rules rules.
func openTrace(path string, o Options, pos int, link tracefile.LinkMode, rules *kernels.Rules) (*Summary, []string, error) {
	c := NewConsumer(o, rules)
	td, err := tracefile.OpenConsumers(path, tracefile.Options{Consumers: []tracefile.Consumer{c}, Link: link})
	if err != nil {
		return nil, nil, err
	}
	name := path
	if name == "-" {
		name = "<stdin>"
	}
	return c.Finish(td, RankInfo{Rank: int64(pos), Trace: name}), td.ReadWarnings(name), nil
}

// ReadTrace is OpenTrace of a trace read from r (plain or gzip), or the summary r holds (Write's
// json, plain or gzip), named name in the summary and the warnings: `orprof timeline -` reads
// its standard input through it. A summary made with other thresholds or steps than o is
// refused (ErrOtherOptions), as ReadAll refuses it.
func ReadTrace(r io.Reader, name string, o Options, pos int) (*Summary, []string, error) {
	return ReadStream(r, name, o, pos, ReadOptions{})
}

// ReadStream is ReadTrace with the ReadOptions ro: a trace read with ro.Link, a document
// ro.Embedded reads taken as a summary (its options checked as a summary's).
func ReadStream(r io.Reader, name string, o Options, pos int, ro ReadOptions) (*Summary, []string, error) {
	if err := o.Check(); err != nil {
		return nil, nil, err
	}
	br := bufio.NewReaderSize(r, sniffBytes)
	if ro.Embedded != nil {
		if s, ok, err := ro.Embedded(br, name); ok {
			if err != nil {
				return nil, nil, err
			}
			if !s.Options.sameThresholds(o) {
				return nil, nil, fmt.Errorf("%s: %w (its options: %+v)", name, ErrOtherOptions, s.Options)
			}
			return s, nil, nil
		}
	}
	var head io.Reader = br
	if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
		peek, _ := br.Peek(br.Size())
		if gz, err := gzip.NewReader(bytes.NewReader(peek)); err == nil {
			head = gz
		}
	} else {
		peek, _ := br.Peek(len(summaryMark))
		head = bytes.NewReader(peek)
	}
	mark := make([]byte, len(summaryMark))
	if n, _ := io.ReadFull(head, mark); n == len(mark) && bytes.Equal(mark, summaryMark) {
		var in io.Reader = br
		if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
			gz, err := gzip.NewReader(br)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %v", name, err)
			}
			in = gz
		}
		s, err := Load(in)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", name, err)
		}
		if !s.Options.sameThresholds(o) {
			return nil, nil, fmt.Errorf("%s: %w (its options: %+v)", name, ErrOtherOptions, s.Options)
		}
		return s, nil, nil
	}
	r = br
	c := NewConsumer(o, ro.Rules)
	td, err := tracefile.ReadConsumers(r, name, tracefile.Options{Consumers: []tracefile.Consumer{c}, Link: ro.Link})
	if err != nil {
		return nil, nil, err
	}
	return c.Finish(td, RankInfo{Rank: int64(pos), Trace: name}), td.ReadWarnings(name), nil
}
