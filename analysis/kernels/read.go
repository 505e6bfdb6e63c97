package kernels

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/fanout"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace/tracefile"
)

// ReadOptions tune Load and Open.
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
	// AllowEmpty takes a trace without device activity as a rank without kernels; otherwise
	// reading one fails with a *NoDeviceError, which says why and how to record some.
	AllowEmpty bool
}

// Open reads one input ("-": o.Stdin): a kernels summary (Write's json), the kernels member of
// a report summary, or a trace, read in one pass for its kernels (tracefile.OpenConsumers),
// plain or gzip (package input identifies it). pos is the trace's position among the inputs,
// its rank when it names none. It returns the trace's warnings (tracefile's Data.Warnings,
// naming path). Another summary is refused (input.KindError), and so is a trace without
// device activity (*NoDeviceError) unless o.AllowEmpty.
func Open(path string, pos int, o ReadOptions) (*Summary, []string, error) {
	in, err := input.OpenArg(path, o.Stdin)
	if err != nil {
		return nil, nil, err
	}
	return readInput(in, pos, o)
}

// readInput reads one identified input.
func readInput(in *input.Input, pos int, o ReadOptions) (*Summary, []string, error) {
	switch in.Kind {
	case input.KernelsSummary:
		doc, err := in.Document()
		if err != nil {
			return nil, nil, err
		}
		s, err := ReadSummary(bytes.NewReader(doc), in.Name)
		return s, nil, err
	case input.ReportSummary:
		doc, err := in.Member("kernels")
		if err != nil {
			return nil, nil, err
		}
		s, err := ReadSummary(bytes.NewReader(doc), in.Name+": field kernels")
		return s, nil, err
	case input.Trace:
	default:
		return nil, nil, &input.KindError{Name: in.Name, Kind: in.Kind, Cmd: "kernels"}
	}
	c := NewCollector()
	opts := tracefile.Options{Link: o.Link, Position: pos, Consumers: append([]tracefile.Consumer{c}, o.Consumers...)}
	data, err := in.ReadConsumers(opts)
	if err != nil {
		return nil, nil, err
	}
	s, err := c.Summary()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	if len(s.Kernels) == 0 && !o.AllowEmpty {
		return nil, nil, &NoDeviceError{Name: in.Name, Device: data.DeviceName}
	}
	return s, data.Warnings(in.Name), nil
}

// Load reads the inputs at paths (traces, kernels summaries, report summaries' kernels,
// directories of them; "-" is o.Stdin) as LoadInputs does.
func Load(paths []string, o ReadOptions) (*Summary, []string, error) {
	stdin := o.Stdin
	if stdin == nil {
		stdin = os.Stdin
	}
	ins, warns, err := input.Load(paths, input.LoadOptions{Stdin: stdin, Workers: o.Workers})
	if err != nil {
		return nil, nil, err
	}
	s, w, err := LoadInputs(ins, o)
	return s, append(warns, w...), err
}

// LoadInputs reads the identified inputs ins (input.Load), Workers at a time, and merges them
// in order: the result does not depend on the order the reads finish in. It returns the
// warnings in order and the first error in order. Inputs without device activity are
// refused when no input has any (*NoDeviceError), each warned of otherwise, unless
// o.AllowEmpty.
func LoadInputs(ins []*input.Input, o ReadOptions) (*Summary, []string, error) {
	sums := make([]*Summary, len(ins))
	warns := make([][]string, len(ins))
	workers := o.Workers
	if len(o.Consumers) > 0 {
		workers = 1
	}
	each := o
	each.AllowEmpty = true
	errs := fanout.Each(len(ins), workers, func(k int) (err error) {
		sums[k], warns[k], err = readInput(ins[k], k, each)
		return err
	})
	if err := fanout.First(errs); err != nil {
		return nil, nil, err
	}
	if len(sums) == 0 {
		return nil, nil, fmt.Errorf("no input")
	}
	if !o.AllowEmpty {
		var empty []int
		for k, s := range sums {
			if len(s.Kernels) == 0 {
				empty = append(empty, k)
			}
		}
		if len(empty) == len(sums) {
			return nil, nil, &NoDeviceError{Name: ins[0].Name, Device: sums[0].Device}
		}
		for _, k := range empty {
			warns[k] = append(warns[k], (&NoDeviceError{Name: ins[k].Name, Device: sums[k].Device}).Error())
		}
	}
	all := slices.Concat(warns...)
	s, err := Merge(sums...)
	var me *MergeError
	if errors.As(err, &me) {
		return nil, nil, errors.New(me.Named(func(i int) string { return quote.String(ins[i].Name) }))
	}
	if err != nil {
		return nil, nil, err
	}
	return s, all, nil
}
