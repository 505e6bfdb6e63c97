package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/text"
)

// listFlag is a comma-separated list of integers and inclusive ranges ("1,3-5").
type listFlag struct{ vals []int64 }

func (f *listFlag) String() string {
	if f == nil {
		return ""
	}
	s := make([]string, len(f.vals))
	for i, v := range f.vals {
		s[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, ",")
}

func (f *listFlag) Set(s string) error {
	var out []int64
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.ParseInt(lo, 10, 64)
		if err != nil {
			return errors.New("not a list of numbers and ranges like 1,3-5")
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(hi, 10, 64); err != nil || b < a {
				return errors.New("not a list of numbers and ranges like 1,3-5")
			}
			if b-a > 1<<20 {
				return errors.New("a range of more than 1048576 numbers")
			}
		}
		for v := a; v <= b; v++ {
			out = append(out, v)
		}
	}
	f.vals = out
	return nil
}

// nsFlag is a duration flag ("30us", "1.5ms") kept in ns, refusing negative values.
type nsFlag struct{ ns *int64 }

func (f nsFlag) String() string {
	if f.ns == nil {
		return ""
	}
	return time.Duration(*f.ns).String()
}

func (f nsFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration like 30us or 1.5ms")
	}
	if d < 0 {
		return errors.New("must be ≥ 0")
	}
	*f.ns = int64(d)
	return nil
}

const timelineUsage = `usage: orprof timeline [flags] TRACE...   (TRACE: a .json or .json.gz trace, a directory of them (one per rank), a summary (orprof timeline --format json, or orprof report --format json: its timeline), or - for stdin)

Where the device time went, per rank and across ranks: the views breakdown, idle, overlap,
launches, queue, steps and stragglers (definitions: docs/timeline.md).`

func runTimeline(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("timeline", timelineUsage, stderr)
	o := timeline.DefaultOptions()
	view := fs.String("view", "all", "`VIEWS` to print, comma-separated: "+strings.Join(timeline.Views, ", ")+", or all")
	format := fs.String("format", "text", "output format: text, markdown, csv or json")
	var steps, rankList listFlag
	fs.Var(&steps, "steps", "analyse only these ProfilerStep numbers (`LIST` like 2,4-6)")
	fs.StringVar(&o.Phase, "phase", "", "analyse only the device work of the phase `NAME` (the outermost user annotation so named, as orprof code --by phase) and its windows")
	fs.Var(&rankList, "ranks", "print only these ranks (`LIST` like 0,3-5)")
	fs.Var(nsFlag{&o.MicroIdleNs}, "micro-idle", "idle gaps shorter than this between kernels launched ahead are kernel waits (`DURATION`, default 30µs)")
	fs.Var(nsFlag{&o.ShortKernelNs}, "short-kernel", "launches whose device work is shorter are short kernels (`DURATION`, default 10µs)")
	fs.IntVar(&o.QueueLength, "queue-length", o.QueueLength, "report the time each stream spent with at least `N` launches outstanding")
	var link linkValue
	fs.Var(&link, "link", linkFlagUsage)
	rulesPath := fs.String("rules", "", "a `FILE` of category rules (lines: CATEGORY REGEXP), tried before the built-in ones, as orprof kernels --rules")
	pos, exit, stop := parseFlags(fs, args)
	if stop {
		return exit
	}
	if len(pos) == 0 {
		return fail(stderr, "timeline: need a TRACE argument")
	}
	views, err := timeline.ParseViews(*view)
	if err != nil {
		return fail(stderr, "timeline: --view %s: %v; run 'orprof timeline -h'", quoteArg(*view), err)
	}
	f := text.Format(*format)
	switch f {
	case text.Text, text.Markdown, text.CSV, text.JSON:
	default:
		return fail(stderr, "timeline: --format %s: must be text, markdown, csv or json; run 'orprof timeline -h'", quoteArg(*format))
	}
	if o.QueueLength < 1 {
		return fail(stderr, "timeline: --queue-length %d: must be ≥ 1; run 'orprof timeline -h'", o.QueueLength)
	}
	var rules *kernels.Rules
	if *rulesPath != "" {
		if rules, err = kernels.LoadRules(*rulesPath); err != nil {
			return fail(stderr, "timeline: --rules %v", err)
		}
	}
	o.Steps = steps.vals
	if o.Phase != "" && len(o.Steps) > 0 {
		return failFlag(stderr, "timeline", "--phase and --steps select different windows: give one")
	}
	if slices.Contains(pos, "-") && len(pos) > 1 {
		return fail(stderr, "timeline: - (stdin) can only be read alone")
	}
	ins, code := loadInputs(stderr, "timeline", pos, stdin, input.Trace, input.TimelineSummary, input.ReportSummary)
	if code != 0 {
		return code
	}
	sums := summaryNames(ins)
	if rules != nil && len(sums) == len(ins) {
		return failFlag(stderr, "timeline", "--rules applies to traces; the inputs are summaries, whose device work was classed when they were written (give the traces)")
	}
	if link.set {
		if len(sums) == len(ins) {
			if len(ins) == 1 && ins[0].Name == input.StdinName {
				return refuseLink(stderr, "timeline", "<stdin> is a summary; summaries")
			}
			return refuseLink(stderr, "timeline", "the inputs are summaries, which")
		}
		noteLinkSummaries(stderr, sums)
	}
	defer lazyGC(gcFloorFor(ins[0].Path))()
	s, warns, err := timeline.LoadInputs(ins, o, timeline.ReadOptions{Link: link.mode(), Rules: rules})
	var oe *timeline.OptionsError
	if errors.As(err, &oe) {
		// The analyses of a summary ran when it was written: the message names the summary,
		// the flags it was made with and those asked for (given or by default).
		if oe.Name != input.StdinName {
			oe.Name = quoteArg(oe.Name)
		}
		return failFlag(stderr, "timeline", "%v", oe)
	}
	if errors.Is(err, timeline.ErrNoPhase) {
		return failFlag(stderr, "timeline", "%v", err)
	}
	if err != nil {
		return fail(stderr, "timeline: %v", err)
	}
	printWarnings(stderr, warns)
	if dup := s.DuplicateRanks(); len(dup) > 0 {
		// As warnRanks words it for table and report.
		fmt.Fprintf(stderr, "orprof: warning: rank %d is claimed by more than one trace (%s); the stragglers view matches their collectives as different ranks'\n",
			dup[0], countNoun(len(dup), "rank repeats", "ranks repeat"))
	}
	if err := s.SelectRanks(rankList.vals); err != nil {
		return fail(stderr, "timeline: --ranks %s: %v; run 'orprof timeline -h'", quoteArg(rankList.String()), err)
	}
	if err := timeline.Write(stdout, f, s, views); err != nil {
		return fail(stderr, "timeline: %v", err)
	}
	if len(o.Steps) > 0 {
		for _, rs := range s.Steps {
			if len(rs.Steps) == 0 {
				fmt.Fprintf(stderr, "orprof: warning: rank %d has none of the steps --steps %s selects\n", rs.Rank, steps.String())
			}
		}
	}
	return 0
}
