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
// the trace's distributedInfo rank, else pos. The warnings are the reader's. A trace without
// device activity is refused (*kernels.NoDeviceError).
func OpenTrace(path string, o Options, pos int) (*Summary, []string, error) {
	s, warns, err := openTrace(path, o, pos, tracefile.LinkAll)
	if err == nil {
		err = checkDevice(s, s.Ranks[0].Trace)
	}
	if err != nil {
		return nil, nil, err
	}
	return s, warns, nil
}

// openTrace is OpenTrace with the link rules link.
func openTrace(path string, o Options, pos int, link tracefile.LinkMode) (*Summary, []string, error) {
	c := NewConsumer(o, nil)
	td, err := tracefile.OpenConsumers(path, tracefile.Options{Consumers: []tracefile.Consumer{c}, Link: link, Position: pos})
	if err != nil {
		return nil, nil, err
	}
	name := path
	if name == "-" {
		name = "<stdin>"
	}
	return c.Summary(), td.ReadWarnings(name), nil
}

// hasDevice reports whether any rank of s read a device event.
func hasDevice(s *Summary) bool {
	for _, r := range s.Ranks {
		if r.DeviceEvents > 0 {
			return true
		}
	}
	return false
}

// checkDevice refuses a summary none of whose ranks read a device event (a CPU-only or
// fallback-mode trace, or a report summary of one), named name: *kernels.NoDeviceError says
// why and how to record some, where the analyses would show a device idle all along.
func checkDevice(s *Summary, name string) error {
	if hasDevice(s) {
		return nil
	}
	dev := ""
	if len(s.Ranks) > 0 {
		dev = s.Ranks[0].Device
	}
	return &kernels.NoDeviceError{Name: name, Device: dev}
}

// ReadTrace is OpenTrace of a trace read from r (plain or gzip), or the summary r holds (Write's
// json, plain or gzip), named name in the summary and the warnings: `orprof timeline -` reads
// its standard input through it. A summary made with other thresholds or steps than o is
// refused (ErrOtherOptions), as ReadAll refuses it.
func ReadTrace(r io.Reader, name string, o Options, pos int) (*Summary, []string, error) {
	return ReadStream(r, name, o, pos, ReadOptions{})
}

// ReadStream is ReadTrace with the ReadOptions ro: a trace read with ro.Link, a document
// ro.Embedded reads taken as a summary (its options checked as a summary's). Either is
// refused without device activity (*kernels.NoDeviceError).
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
				return nil, nil, &OptionsError{Name: name, Its: s.Options, Asked: o}
			}
			if err := checkDevice(s, name); err != nil {
				return nil, nil, err
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
			return nil, nil, &OptionsError{Name: name, Its: s.Options, Asked: o}
		}
		return s, nil, nil
	}
	r = br
	c := NewConsumer(o, nil)
	td, err := tracefile.ReadConsumers(r, name, tracefile.Options{Consumers: []tracefile.Consumer{c}, Link: ro.Link, Position: pos})
	if err != nil {
		return nil, nil, err
	}
	s := c.Summary()
	if err := checkDevice(s, name); err != nil {
		return nil, nil, err
	}
	return s, td.ReadWarnings(name), nil
}
