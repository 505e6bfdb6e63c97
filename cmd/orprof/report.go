package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/analysis/ranks"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/outfile"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/report"
	"github.com/orprof/orprof/report/html"
	"github.com/orprof/orprof/trace/tracefile"
)

const reportUsage = `usage: orprof report [flags] TRACE...          one profile: a trace, several (one per rank), a directory of traces or summaries, or - (stdin)
       orprof report [flags] --diff BEFORE AFTER   two profiles compared, regressions first
Writes one self-contained HTML file (-o; default beside the input, NAME.report.html), or with
--format json a report summary (NAME.report.json): every summary of the profile, which orprof
report reads back and merges (orprof report summaries/ of a large job).`

func runReport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("report", reportUsage, stderr)
	out := fs.String("o", "", "file to write (- for stdout; default beside the input: NAME.report.html, NAME.report.json)")
	diff := fs.Bool("diff", false, "compare two profiles: the arguments are BEFORE and AFTER")
	format := fs.String("format", "html", "html (the report) or json (a report summary: every summary of the profile, which orprof report reads back and merges)")
	byShape := fs.Bool("group-by-input-shape", false, "group operator rows by input shapes too (traces only)")
	byStackN := fs.Int("group-by-stack-n", 0, "group operator rows by the first `N` stack frames too (traces only)")
	noMetrics := fs.Bool("no-scope-metrics", false, noScopeMetricsUsage)
	rulesPath := fs.String("rules", "", "a `FILE` of kernel category rules (lines: CATEGORY REGEXP), tried before the built-in ones, as orprof kernels --rules (traces only)")
	var link linkValue
	fs.Var(&link, "link", linkFlagUsage+"; summaries were linked when they were written")
	pos, exit, stop := parseFlags(fs, args)
	if stop {
		return exit
	}
	asJSON := *format == "json"
	switch {
	case *format != "html" && !asJSON:
		return fail(stderr, "report: --format %s: must be html or json; run 'orprof report -h'", quote.String(*format))
	case *diff && asJSON:
		return fail(stderr, "report: --format json writes one profile's summaries; a --diff is rendered as html (write each profile's summary, then orprof report --diff BEFORE AFTER); run 'orprof report -h'")
	case *diff && len(pos) != 2:
		return fail(stderr, "report: --diff needs BEFORE and AFTER, got %d arguments", len(pos))
	case len(pos) == 0:
		return fail(stderr, "report: need a TRACE argument (a trace, a directory of traces or summaries, or -)")
	case *byStackN < 0:
		return fail(stderr, "report: --group-by-stack-n %d: must be ≥ 0", *byStackN)
	}
	g := events.AverageOptions{GroupByInputShape: *byShape, GroupByStackN: *byStackN}
	bo := report.Options{Grouping: g, SkipScopeMetrics: *noMetrics, Link: link.mode()}
	if *rulesPath != "" {
		r, err := kernels.LoadRules(*rulesPath)
		if err != nil {
			return fail(stderr, "report: --rules %v", err)
		}
		bo.Rules = r
	}
	stdinUsed := false
	for _, p := range pos {
		if p == "-" {
			if stdinUsed || len(pos) > 1 && !*diff {
				return fail(stderr, "report: - (stdin) can only be read alone")
			}
			stdinUsed = true
		}
	}
	if link.set {
		if code := checkReportLink(pos, stdin, &stdin, stderr); code != 0 {
			return code
		}
	}
	path := *out
	if path == "" {
		if stdinUsed {
			return fail(stderr, "report: reading stdin: give -o FILE (or -o - for stdout)")
		}
		path = defaultReportPath(pos, *diff, asJSON)
	}
	if path != "-" {
		if err := checkOutput(path, pos); err != nil {
			return fail(stderr, "report: %v", err)
		}
	}
	defer lazyGC(reportGCFloor(pos))()

	var m *html.Model
	var write func(w io.Writer) error
	if *diff {
		var sums [2]*optable.Summary
		var sides [2]*report.Bundle
		for i, p := range pos {
			pr, code := loadProfile(p, stdin, bo, stderr)
			if code != 0 {
				return code
			}
			if msg := noOperators(pr.b.Table, []string{p}, nil); msg != "" {
				return fail(stderr, "report: %s", msg)
			}
			sums[i], sides[i] = pr.b.Table, pr.b
			if i == 1 {
				m = pr.model()
				m.Rules = bo.Rules
			}
		}
		if err := optable.CheckDiff(sums[0], sums[1]); err != nil {
			var me *optable.MergeError
			if errors.As(err, &me) {
				return fail(stderr, "report: --diff: %s", me.Named(func(i int) string { return diffName(pos[i]) }))
			}
			return fail(stderr, "report: --diff: %v", err)
		}
		// Beside the operators, the diff compares each side's steps, device time breakdown and
		// kernels, where both sides were read from traces or report summaries.
		m.Diff = &html.Diff{BeforeName: pos[0], AfterName: pos[1], Before: sums[0], After: sums[1],
			BeforeSteps: sides[0].Steps, AfterSteps: sides[1].Steps, BeforeTimeline: sides[0].Timeline,
			AfterTimeline: sides[1].Timeline, BeforeKernels: sides[0].Kernels, AfterKernels: sides[1].Kernels}
		m.Title, m.Inputs, m.Start = pos[0]+" → "+pos[1], pos, "diff"
		if m.Flame == nil {
			m.FlameWhy = "No op tree: AFTER was read from table summaries, which keep only the rows (report summaries, orprof report --format json, keep every view)."
		}
		write = func(w io.Writer) error { return html.Write(w, m) }
	} else {
		var pr *loaded
		var code int
		if len(pos) == 1 {
			pr, code = loadProfile(pos[0], stdin, bo, stderr)
		} else {
			pr, code = loadRanks(pos, bo, stderr)
		}
		if code != 0 {
			return code
		}
		if msg := noOperators(pr.b.Table, pos, nil); msg != "" {
			return fail(stderr, "report: %s", msg)
		}
		if asJSON {
			write = func(w io.Writer) error { return report.Write(w, pr.b) }
		} else {
			m = pr.model()
			m.Rules = bo.Rules
			write = func(w io.Writer) error { return html.Write(w, m) }
		}
	}
	if path == "-" {
		ignoreSIGPIPE()
		bw := bufio.NewWriter(stdout)
		if err := write(bw); err != nil {
			return fail(stderr, "report: %v", err)
		}
		if err := bw.Flush(); err != nil {
			return fail(stderr, "report: writing stdout: %v", err)
		}
		return 0
	}
	if err := outfile.Write(path, write); err != nil {
		return fail(stderr, "report: -o %s: %v", quote.Clip(path), err)
	}
	what := "report"
	if asJSON {
		what = "report summary"
	}
	fmt.Fprintf(stderr, "orprof: %s written to %s\n", what, path)
	return 0
}

// loaded is what a report shows: every summary of the profile (its views), and why views
// are missing.
type loaded struct {
	b      *report.Bundle
	title  string
	inputs []string
	// fromTables says the table's rows were all that some input had (table summaries).
	fromTables bool
}

// model is the page of p.
func (p *loaded) model() *html.Model {
	b := p.b
	m := &html.Model{Title: p.title, Inputs: p.inputs, Summary: b.Table, Flame: b.Flame}
	m.UseBundle(b)
	if p.fromTables {
		m.FlameWhy = fmt.Sprintf("No op tree: of the %d ranks, some were read from table summaries (orprof table --format json), which keep only the rows; give the traces, or their report summaries (orprof report --format json TRACE), for every view.", len(b.Table.Ranks))
		m.TimelineWhy = "No device timeline: some inputs are table summaries, which carry only the table's rows; give the traces, or their report summaries (orprof report --format json TRACE), for the timeline analyses."
	}
	return m
}

// loadProfile reads one profile argument: a trace (one read feeding every summary), a report
// summary, or a table summary or directory (through loadRanks). Other summaries are refused
// saying which command reads them.
func loadProfile(p string, stdin io.Reader, o report.Options, stderr io.Writer) (*loaded, int) {
	if p != "-" && isDir(p) {
		return loadRanks([]string{p}, o, stderr)
	}
	in, err := input.OpenArg(p, stdin)
	if err != nil {
		return nil, fail(stderr, "report: %v", err)
	}
	if err := input.Check([]*input.Input{in}, "report", input.Trace, input.TableSummary, input.ReportSummary); err != nil {
		return nil, fail(stderr, "report: %v", err)
	}
	title, inputs := p, []string{p}
	if o.Rules != nil && in.Kind != input.Trace {
		return nil, failFlag(stderr, "report", rulesTracesOnly)
	}
	switch in.Kind {
	case input.TableSummary:
		if p != "-" {
			return loadRanks([]string{p}, o, stderr)
		}
		s, _, err := ranks.LoadInputs([]*input.Input{in}, ranks.ReadOptions{Grouping: o.Grouping, SkipScopeMetrics: o.SkipScopeMetrics, Link: o.Link})
		if err != nil {
			return nil, fail(stderr, "report: %v", err)
		}
		return checkGrouping(&loaded{b: &report.Bundle{Table: s}, title: title, inputs: inputs, fromTables: true}, o, stderr)
	case input.ReportSummary:
		b, err := report.ParseInput(in)
		if err != nil {
			return nil, fail(stderr, "report: %v", err)
		}
		if o.SkipScopeMetrics {
			b.Table.DropScopeMetrics()
		}
		return checkGrouping(&loaded{b: b, title: title, inputs: inputs}, o, stderr)
	}
	var b *report.Bundle
	var td *tracefile.Data
	if in.Held() {
		rc, _ := in.Stream()
		b, td, err = report.Read(rc, in.Name, 0, o)
	} else {
		b, td, err = report.Open(in.Path, 0, o)
	}
	if err != nil {
		return nil, fail(stderr, "report: %v", err)
	}
	printWarnings(stderr, td.Warnings(in.Name))
	return &loaded{b: b, title: title, inputs: inputs}, 0
}

// rulesTracesOnly refuses --rules for summaries: their kernels were classed when written.
const rulesTracesOnly = "--rules applies to traces; summaries were classed when they were written (give the traces)"

// checkGrouping refuses grouping flags a summary was not written with: summaries are grouped
// when they are written.
func checkGrouping(p *loaded, o report.Options, stderr io.Writer) (*loaded, int) {
	g, s := o.Grouping, p.b.Table
	if (g.GroupByInputShape || g.GroupByStackN > 0) && (s.GroupByInputShape != g.GroupByInputShape || s.GroupByStackN != g.GroupByStackN) {
		return nil, failFlag(stderr, "report", "--group-by-input-shape and --group-by-stack-n are chosen when summaries are written (orprof table, orprof report --format json), not when a report reads them")
	}
	return p, 0
}

// loadRanks reads several profiles (traces, report or table summaries, directories of them)
// into one bundle: each trace read once, feeding every summary, in parallel, and the bundles
// merged in order (report.LoadAll). Table summaries carry only the rows: with one among the
// inputs, the report has the table's views alone.
func loadRanks(args []string, o report.Options, stderr io.Writer) (*loaded, int) {
	if slices.Contains(args, "-") {
		return nil, fail(stderr, "report: - (stdin) can only be read alone")
	}
	ins, code := loadInputs(stderr, "report", args, nil, input.Trace, input.TableSummary, input.ReportSummary)
	if code != 0 {
		return nil, code
	}
	if o.Rules != nil && slices.ContainsFunc(ins, func(in *input.Input) bool { return in.Kind != input.Trace }) {
		return nil, failFlag(stderr, "report", rulesTracesOnly)
	}
	b, warns, err := report.LoadAll(inputNames(ins), o)
	if err != nil {
		return nil, fail(stderr, "report: %v", err)
	}
	printWarnings(stderr, warns)
	warnRanks(stderr, b.Table)
	pr := &loaded{b: b, title: strings.Join(args, " "), inputs: args, fromTables: b.Flame == nil}
	return checkGrouping(pr, o, stderr)
}

// reportGCFloor is lazyGC's floor for a report of inputs: the table's for the first input
// (gcFloorFor), and half more, at least 108 MiB. Beside the table's rows the report's one
// read keeps the op tree, the kernel, timeline, step, memory and lanes consumers' records,
// and the page holds the Timeline's events: under the table's floor the collector runs once
// at the peak and, its pacing restored on a heap of a few MB, many times more while the
// summaries finish.
func reportGCFloor(inputs []string) int64 {
	floor := int64(tableGCFloor)
	if len(inputs) > 0 && inputs[0] != "-" {
		floor = gcFloorFor(inputs[0])
	}
	return max(floor+floor/2, 108<<20)
}

// defaultReportPath is the report's name beside its first input: x.json.gz → x.report.html (a
// report summary's x.report.json), a directory d → d.report.html beside it. Several inputs
// are named after the first and how many follow it, x.and-3-more.report.html, so that the
// report of a job is not taken for the report of its first rank. A diff's goes beside AFTER,
// x.diff.report.html.
func defaultReportPath(inputs []string, diff, json bool) string {
	in := inputs[0]
	if diff {
		in = inputs[len(inputs)-1]
	}
	in = filepath.Clean(in)
	stem := in
	for _, ext := range []string{".gz", ".json"} {
		stem = strings.TrimSuffix(stem, ext)
	}
	if stem == "" || stem == "." || stem == string(filepath.Separator) {
		stem = "orprof"
	}
	if !diff && len(inputs) > 1 {
		stem += fmt.Sprintf(".and-%d-more", len(inputs)-1)
	}
	switch {
	case diff:
		return stem + ".diff.report.html"
	case json:
		return stem + ".report.json"
	}
	return stem + ".report.html"
}

// checkOutput checks -o before anything is read: not a directory, and no input by any name
// (outfile.Check: ./x, symbolic and hard links), and writable, the files of input directories
// included.
func checkOutput(path string, inputs []string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("-o %s: is a directory", quote.String(path))
	}
	var ins []outfile.File
	for _, in := range inputs {
		if in == "-" {
			continue
		}
		if isDir(in) {
			files, _, err := input.Expand([]string{in})
			if err == nil {
				for _, f := range files {
					ins = append(ins, outfile.File{Name: "the input", Path: f})
				}
				continue
			}
		}
		ins = append(ins, outfile.File{Name: "the input", Path: in})
	}
	return outfile.Check([]outfile.File{{Name: "-o", Path: path}}, ins)
}

// checkRunReport checks the mode of `orprof run --report FILE` before the workload runs: the
// report is of one profile (the step modes print a table per cycle; httpprof serves a report
// per capture), and stdout has the table. Clashes with the run's other files are
// outfile.CheckDistinct's.
func checkRunReport(path string, steps bool) string {
	switch {
	case path == "":
		return ""
	case steps:
		return "--report: a report is of one profile; with --schedule, --http or --loop use the httpprof endpoint (--http ADDR, GET /debug/orprof/report?steps=N)"
	case path == "-":
		return "--report -: stdout has the table; give a file"
	}
	return ""
}

// checkReportLink refuses --link when no input of the report (with --diff: of either side) is a
// trace: summaries had their device time charged to operators when they were written. With
// traces among the inputs, a note names the summaries it does not apply to. Standard input is
// peeked at, and *stdinOut replaced by a reader that still has every byte.
func checkReportLink(pos []string, stdin io.Reader, stdinOut *io.Reader, stderr io.Writer) int {
	var all []*input.Input
	for _, p := range pos {
		ins, _, err := input.Load([]string{p}, input.LoadOptions{Stdin: stdin})
		if err != nil {
			return fail(stderr, "report: %v", err)
		}
		if p == "-" {
			*stdinOut = stdinOf(ins)
		}
		all = append(all, ins...)
	}
	sums := summaryNames(all)
	if len(sums) == len(all) {
		return refuseLink(stderr, "report", "the inputs are summaries, which")
	}
	noteLinkSummaries(stderr, sums)
	return 0
}
