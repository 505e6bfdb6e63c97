package code

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/fanout"
	"github.com/orprof/orprof/trace/tracefile"
)

// ReadOptions tune Open and Load.
type ReadOptions struct {
	// By is what a row stands for.
	By By
	// Link selects the rules that charge device time to operators (tracefile.Options.Link).
	Link tracefile.LinkMode
	// Stdin is what "-" reads (nil: os.Stdin).
	Stdin io.Reader
}

// Open reads one input ("-": o.Stdin): a code summary (WriteJSON's, plain or gzip) or a
// trace, read once for its ops, device events and Python layer, and attributed. pos is the
// trace's position among the inputs, its rank when it names none. It returns the trace's
// warnings. A trace without what o.By needs (python_function events; nn.Module calls for
// ByModule; functions of the user's code for ByLine) is an error saying so, not an empty
// summary; another summary is refused (input.KindError).
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
	case input.CodeSummary:
		doc, err := in.Document()
		if err != nil {
			return nil, nil, err
		}
		return readSummaryBy(bytes.NewReader(doc), in.Name, o.By)
	case input.Trace:
	default:
		return nil, nil, &input.KindError{Name: in.Name, Kind: in.Kind, Cmd: "code"}
	}
	c := newCollectorFor(o.By)
	opts := tracefile.Options{Link: o.Link, Position: pos, Consumers: []tracefile.Consumer{c}}
	data, err := in.ReadConsumers(opts)
	if err != nil {
		return nil, nil, err
	}
	cin := c.Input()
	if err := sufficient(cin, o.By); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", in.Name, err)
	}
	s := Attribute(cin, o.By)
	s.Version = SummaryVersion
	r := c.Rank()
	r.Trace = in.Name
	s.Traces = []Trace{{r}}
	return s, data.Warnings(in.Name), nil
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
	if by == ByPhase {
		for i := range in.Ops {
			if isPhase(&in.Ops[i]) {
				return nil
			}
		}
		return fmt.Errorf("the trace has no user annotation naming a phase (record_function(\"decode\") and the like; ProfilerStep#N aside)")
	}
	py := max(in.Python, len(in.Spans))
	if py == 0 {
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
			py)
	}
	return fmt.Errorf("the trace's %d python_function events hold no Python function outside torch's own files", py)
}

// Load reads the inputs at paths (traces, code summaries, directories of them; "-" is
// o.Stdin) as LoadInputs does.
func Load(paths []string, o ReadOptions) (*Summary, []string, error) {
	stdin := o.Stdin
	if stdin == nil {
		stdin = os.Stdin
	}
	ins, warns, err := input.Load(paths, input.LoadOptions{Stdin: stdin})
	if err != nil {
		return nil, nil, err
	}
	s, w, err := LoadInputs(ins, o)
	return s, append(warns, w...), err
}

// LoadInputs reads the identified inputs ins (input.Load), up to GOMAXPROCS at once, and
// merges them in input order; the warnings are every trace's, in that order.
func LoadInputs(ins []*input.Input, o ReadOptions) (*Summary, []string, error) {
	sums := make([]*Summary, len(ins))
	warns := make([][]string, len(ins))
	errs := fanout.Each(len(ins), 0, func(k int) error {
		var err error
		sums[k], warns[k], err = readInput(ins[k], k, o)
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
