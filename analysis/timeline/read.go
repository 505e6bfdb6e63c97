package timeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/fanout"
	"github.com/orprof/orprof/trace/tracefile"
)

// ReadOptions say how Load and Read read their inputs, beside the analyses' Options. The
// zero value reads every trace with every link rule, GOMAXPROCS at a time.
type ReadOptions struct {
	// Link selects the rules that charge device time to operators in the traces read
	// (tracefile.Options.Link); a summary's were applied when it was written.
	Link tracefile.LinkMode
	// Workers is the number of inputs read at once; 0 means GOMAXPROCS.
	Workers int
	// Stdin is what "-" reads (nil: os.Stdin).
	Stdin io.Reader
	// Rules class the traces' device work (nil: kernels.Default); a summary's was classed when
	// it was written.
	Rules *kernels.Rules
}

// Load reads the inputs at paths ("-": ro.Stdin; directories expanded) as LoadInputs does.
func Load(paths []string, o Options, ro ReadOptions) (*Summary, []string, error) {
	stdin := ro.Stdin
	if stdin == nil {
		stdin = os.Stdin
	}
	ins, warns, err := input.Load(paths, input.LoadOptions{Stdin: stdin, Workers: ro.Workers})
	if err != nil {
		return nil, nil, err
	}
	s, w, err := LoadInputs(ins, o, ro)
	return s, append(warns, w...), err
}

// LoadInputs reads the identified inputs ins (input.Load), ro.Workers at a time: each a trace
// (read in one pass, as OpenTrace), a summary Write wrote as json (ReadSummary) or a report
// summary's timeline; a rank whose trace names none is numbered by its position among all
// the ranks of the inputs (MergeAll). The summaries are merged in order, so the result does
// not depend on the order the reads finish in. It returns the inputs' warnings in order and
// the first error in order. A summary made with other thresholds or steps than o is refused
// (ErrOtherOptions).
func LoadInputs(ins []*input.Input, o Options, ro ReadOptions) (*Summary, []string, error) {
	if err := o.Check(); err != nil {
		return nil, nil, err
	}
	sums := make([]*Summary, len(ins))
	warns := make([][]string, len(ins))
	errs := fanout.Each(len(ins), ro.Workers, func(k int) (err error) {
		sums[k], warns[k], err = readInput(ins[k], o, ro, k)
		return err
	})
	if err := fanout.First(errs); err != nil {
		return nil, nil, err
	}
	if len(sums) == 0 {
		return nil, nil, fmt.Errorf("no input")
	}
	// Inputs without device activity: refused when none has any, a warning each otherwise
	// (their ranks' figures are all zero).
	var empty []int
	for k, s := range sums {
		if !hasDevice(s) {
			empty = append(empty, k)
		}
	}
	if len(empty) == len(sums) {
		return nil, nil, checkDevice(sums[0], ins[0].Name)
	}
	for _, k := range empty {
		warns[k] = append(warns[k], checkDevice(sums[k], ins[k].Name).Error())
	}
	// Inputs that hold other views (written with --view): the merge holds the views all hold.
	for k, s := range sums {
		if s.Held != nil && slices.ContainsFunc(sums, func(o *Summary) bool { return !slices.Equal(o.Held, s.Held) }) {
			warns[k] = append(warns[k], fmt.Sprintf("%s holds only the views %s (it was written with --view): the merge holds only the views every input holds",
				ins[k].Name, viewList(s.Held)))
		}
	}
	all := slices.Concat(warns...)
	s := sums[0]
	// One derivation of the cross-rank figures for all the inputs, not one per input.
	if err := s.MergeAll(sums[1:]...); err != nil {
		k := 0
		if me, ok := err.(*MergeError); ok {
			k = me.Index
		}
		return nil, nil, fmt.Errorf("%s: %v", ins[k+1].Name, err)
	}
	return s, all, nil
}

// Read reads one input from r (standard input): a trace, plain or gzip, read in one pass, or
// a summary (Write's json, or a report summary's timeline), named name in the summary and
// the warnings. pos is a trace's rank when it names none. One without device activity is
// refused (*kernels.NoDeviceError).
func Read(r io.Reader, name string, o Options, pos int, ro ReadOptions) (*Summary, []string, error) {
	if err := o.Check(); err != nil {
		return nil, nil, err
	}
	in, err := input.Read(r, name)
	if err != nil {
		return nil, nil, err
	}
	s, warns, err := readInput(in, o, ro, pos)
	if err == nil {
		err = checkDevice(s, in.Name)
	}
	if err != nil {
		return nil, nil, err
	}
	return s, warns, nil
}

// readInput reads one identified input: a summary's options must be o's thresholds and steps.
func readInput(in *input.Input, o Options, ro ReadOptions, pos int) (*Summary, []string, error) {
	var doc []byte
	var err error
	switch in.Kind {
	case input.Trace:
		return readTrace(in, o, pos, ro.Link, ro.Rules)
	case input.TimelineSummary:
		doc, err = in.Document()
	case input.ReportSummary:
		doc, err = in.Member("timeline")
	default:
		return nil, nil, &input.KindError{Name: in.Name, Kind: in.Kind, Cmd: "timeline"}
	}
	if err != nil {
		return nil, nil, err
	}
	s, err := ReadSummary(bytes.NewReader(doc))
	if err != nil {
		if in.Kind == input.ReportSummary {
			return nil, nil, fmt.Errorf("%s: field timeline: %v", in.Name, err)
		}
		return nil, nil, fmt.Errorf("%s: %v", in.Name, err)
	}
	// A summary's analyses ran when it was written: one made with other options than asked
	// is named with both (the traces are analysed with those asked).
	if !s.Options.sameThresholds(o) {
		return nil, nil, &OptionsError{Name: in.Name, Its: s.Options, Asked: o}
	}
	return s, nil, nil
}

// ErrOtherOptions is Load's error for summaries made with other thresholds or steps than
// the Options asked for: their analyses ran when they were written.
var ErrOtherOptions = errors.New("a summary made with other thresholds or steps than asked")

// SelectRanks keeps the ranks listed (by Rank) and derives the cross-rank figures again; it
// names a listed rank that no input has.
func (s *Summary) SelectRanks(ranks []int64) error {
	if len(ranks) == 0 {
		return nil
	}
	for _, r := range ranks {
		if !slices.ContainsFunc(s.Ranks, func(i RankInfo) bool { return i.Number == r }) {
			return fmt.Errorf("no rank %d in the inputs", r)
		}
	}
	keep := func(r int64) bool { return slices.Contains(ranks, r) }
	s.Ranks = slices.DeleteFunc(s.Ranks, func(x RankInfo) bool { return !keep(x.Number) })
	s.Breakdown = slices.DeleteFunc(s.Breakdown, func(x RankBreakdown) bool { return !keep(x.Rank) })
	s.Idle = slices.DeleteFunc(s.Idle, func(x StreamIdle) bool { return !keep(x.Rank) })
	s.Overlap = slices.DeleteFunc(s.Overlap, func(x Overlap) bool { return !keep(x.Rank) })
	s.Launches = slices.DeleteFunc(s.Launches, func(x Launches) bool { return !keep(x.Rank) })
	s.Queue = slices.DeleteFunc(s.Queue, func(x StreamQueue) bool { return !keep(x.Rank) })
	s.Steps = slices.DeleteFunc(s.Steps, func(x RankSteps) bool { return !keep(x.Rank) })
	s.Stragglers.Collectives = slices.DeleteFunc(s.Stragglers.Collectives, func(x RankCollectives) bool { return !keep(x.Rank) })
	s.derive()
	return nil
}

// viewList names views for a message ("none" for none).
func viewList(views []string) string {
	if len(views) == 0 {
		return "none"
	}
	return strings.Join(views, ", ")
}
