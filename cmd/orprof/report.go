package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/outfile"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/kernels"
	"github.com/orprof/orprof/memcurve"
	"github.com/orprof/orprof/report"
	"github.com/orprof/orprof/report/flame"
	"github.com/orprof/orprof/report/html"
	"github.com/orprof/orprof/report/ranks"
	"github.com/orprof/orprof/report/tracefile"
	"github.com/orprof/orprof/tbsteps"
	"github.com/orprof/orprof/timeline"
)

const reportUsage = `usage: orprof report [flags] TRACE...          one profile: a trace, several (one per rank), a directory of traces or summaries, or - (stdin)
       orprof report [flags] --diff BEFORE AFTER   two profiles compared, regressions first
Writes one self-contained HTML file (-o; default beside the input, NAME.report.html).`

func runReport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("report", reportUsage, stderr)
	out := fs.String("o", "", "HTML file to write (- for stdout; default beside the input: NAME.report.html)")
	diff := fs.Bool("diff", false, "compare two profiles: the arguments are BEFORE and AFTER")
	byShape := fs.Bool("group-by-input-shape", false, "group operator rows by input shapes too (traces only)")
	byStackN := fs.Int("group-by-stack-n", 0, "group operator rows by the first `N` stack frames too (traces only)")
	noMetrics := fs.Bool("no-scope-metrics", false, noScopeMetricsUsage)
	pos, exit, stop := parseFlags(fs, args)
	if stop {
		return exit
	}
	switch {
	case *diff && len(pos) != 2:
		return fail(stderr, "report: --diff needs BEFORE and AFTER, got %d arguments", len(pos))
	case len(pos) == 0:
		return fail(stderr, "report: need a TRACE argument (a trace, a directory of traces or summaries, or -)")
	case *byStackN < 0:
		return fail(stderr, "report: --group-by-stack-n %d: must be ≥ 0", *byStackN)
	}
	g := events.AverageOptions{GroupByInputShape: *byShape, GroupByStackN: *byStackN}
	ro := ranks.Options{Grouping: g, SkipScopeMetrics: *noMetrics}
	stdinUsed := false
	for _, p := range pos {
		if p == "-" {
			if stdinUsed || len(pos) > 1 && !*diff {
				return fail(stderr, "report: - (stdin) can only be read alone")
			}
			stdinUsed = true
		}
	}
	path := *out
	if path == "" {
		if stdinUsed {
			return fail(stderr, "report: reading stdin: give -o FILE (or -o - for stdout)")
		}
		path = defaultReportPath(pos[len(pos)-1], *diff)
	}
	if path != "-" {
		if err := checkOutput(path, pos); err != nil {
			return fail(stderr, "report: %v", err)
		}
	}
	defer lazyGC(tableGCFloor)()

	var m *html.Model
	if *diff {
		var sums [2]*report.Summary
		for i, p := range pos {
			s, code := loadProfile(p, stdin, ro, stderr)
			if code != 0 {
				return code
			}
			if msg := noOperators(s.Summary, []string{p}, nil); msg != "" {
				return fail(stderr, "report: %s", msg)
			}
			sums[i] = s.Summary
			if i == 1 {
				m = s
			}
		}
		if err := report.CheckDiff(sums[0], sums[1]); err != nil {
			var me *report.MergeError
			if errors.As(err, &me) {
				return fail(stderr, "report: --diff: %s", me.Named(func(i int) string { return diffName(pos[i]) }))
			}
			return fail(stderr, "report: --diff: %v", err)
		}
		m.Diff = &html.Diff{BeforeName: pos[0], AfterName: pos[1], Before: sums[0], After: sums[1]}
		m.Title, m.Inputs, m.Start = pos[0]+" → "+pos[1], pos, "diff"
		if m.Flame == nil {
			m.FlameWhy = "No op tree: the icicle is drawn for a single trace (AFTER was read from summaries)."
		}
	} else {
		var code int
		if len(pos) == 1 {
			m, code = loadProfile(pos[0], stdin, ro, stderr)
		} else {
			m, code = loadRanks(pos, ro, stderr)
		}
		if code != 0 {
			return code
		}
		if msg := noOperators(m.Summary, pos, nil); msg != "" {
			return fail(stderr, "report: %s", msg)
		}
	}
	write := func(w io.Writer) error { return html.Write(w, m) }
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
	fmt.Fprintf(stderr, "orprof: report written to %s\n", path)
	return 0
}

// loadProfile reads one profile argument into a Model: a single trace gives the operator
// summary and the op tree from one read; a summary file or a directory gives the merged
// summaries (no tree).
func loadProfile(p string, stdin io.Reader, ro ranks.Options, stderr io.Writer) (*html.Model, int) {
	g := ro.Grouping
	if p != "-" {
		if isDir(p) {
			return loadRanks([]string{p}, ro, stderr)
		}
		isSum, err := ranks.IsSummaryFile(p)
		if err != nil {
			return nil, fail(stderr, "report: %v", err)
		}
		if isSum {
			return loadRanks([]string{p}, ro, stderr)
		}
	}
	name := p
	if p == "-" {
		name = "<stdin>"
	}
	// One read, no event kept: the table's Averager makes the rows and walks the op tree as
	// the events stream through it, and the kernel view, the timeline analyses, the step
	// breakdown and the memory curve consume the same events (tracefile.Consumer). The report
	// groups as the table does: shapes are read only when grouped by them.
	kc, tc := kernels.NewCollector(), timeline.NewConsumer(timeline.DefaultOptions(), nil)
	steps, memory := tbsteps.NewCollector(), memcurve.NewCollector()
	tree := flame.NewBuilder()
	opts := tracefile.Options{NoShapes: !g.GroupByInputShape, NoStacks: g.GroupByStackN == 0,
		Consumers: []tracefile.Consumer{kc, tc, steps, memory}, Tree: tree.Add,
		SkipScopeMetrics: ro.SkipScopeMetrics, Link: ro.Link}
	var av *tracefile.Averages
	var err error
	if p == "-" {
		av, err = tracefile.ReadAverages(stdin, name, opts, g)
	} else {
		av, err = tracefile.OpenAverages(p, opts, g)
	}
	if err == nil && kc.Err() != nil {
		err = fmt.Errorf("%s: %w", name, kc.Err())
	}
	if err != nil {
		return nil, fail(stderr, "report: %v", err)
	}
	data := av.Data
	printWarnings(stderr, data.Warnings(name))
	rank := report.RankInfo{File: p}
	info := timeline.RankInfo{Trace: name, Device: data.DeviceName}
	if data.HasRank {
		rank.Rank, rank.FromTrace = data.Rank, true
		info.Rank, info.HasRank = data.Rank, true
	}
	m := html.RowsModel(av.Rows, tree.Tree(), rank, data.DeviceName, av.Memory, g)
	m.Timeline, m.Steps, m.Memory = tc.Finish(data, info), steps.Finish(info.Rank, name), memory.Finish()
	m.Kernels = kc.Summary(kernels.Rank{File: name, Rank: info.Rank, FromTrace: data.HasRank}, data.DeviceName)
	return m, 0
}

// loadRanks reads several profiles (traces, summaries, directories of them) into one merged
// summary, as `orprof table A B …` and `orprof merge` do.
func loadRanks(args []string, ro ranks.Options, stderr io.Writer) (*html.Model, int) {
	g := ro.Grouping
	paths, err := ranks.Expand(args)
	if err != nil {
		return nil, fail(stderr, "report: %v", err)
	}
	for _, p := range paths {
		if p == "-" {
			return nil, fail(stderr, "report: - (stdin) can only be read alone")
		}
	}
	s, warns, err := ranks.LoadAll(paths, ro)
	if err != nil {
		return nil, fail(stderr, "report: %v", err)
	}
	if (g.GroupByInputShape || g.GroupByStackN > 0) && (s.GroupByInputShape != g.GroupByInputShape || s.GroupByStackN != g.GroupByStackN) {
		return nil, fail(stderr, "report: --group-by-input-shape and --group-by-stack-n are chosen when summaries are written (orprof table), not when a report reads them")
	}
	printWarnings(stderr, warns)
	warnRanks(stderr, s)
	m := &html.Model{Title: strings.Join(args, " "), Inputs: args, Summary: s,
		FlameWhy: fmt.Sprintf("No op tree: the icicle is drawn for a single trace; this report merges %d ranks' summaries, which keep only the rows.", len(s.Ranks))}
	// Traces (not summaries) of several ranks get the timeline analyses too: per-rank
	// breakdown, overlap, stragglers. It is a second read of each trace (orprof timeline's),
	// in parallel, until the table's read can feed the analyses itself.
	traces := true
	for _, p := range paths {
		if isSum, err := ranks.IsSummaryFile(p); err != nil || isSum {
			traces = false
			break
		}
	}
	if traces {
		tl, _, err := timeline.ReadAll(paths, timeline.DefaultOptions(), 0)
		if err != nil {
			return nil, fail(stderr, "report: %v", err)
		}
		ks, _, err := kernels.ReadAll(paths, kernels.ReadOptions{})
		if err != nil {
			return nil, fail(stderr, "report: %v", err)
		}
		m.Timeline, m.Kernels = tl, ks
	} else {
		m.TimelineWhy = "No device timeline: summaries carry only the table's rows; give the traces (orprof report TRACE...) for the timeline analyses."
	}
	return m, 0
}

// defaultReportPath is the report's name beside its input: x.json.gz → x.report.html, a
// directory d → d.report.html beside it; a diff's beside AFTER, x.diff.report.html.
func defaultReportPath(in string, diff bool) string {
	in = filepath.Clean(in)
	stem := in
	for _, ext := range []string{".gz", ".json"} {
		stem = strings.TrimSuffix(stem, ext)
	}
	if stem == "" || stem == "." || stem == string(filepath.Separator) {
		stem = "orprof"
	}
	if diff {
		return stem + ".diff.report.html"
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
			files, err := ranks.Expand([]string{in})
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
		return "--report: a report is of one profile; with --steps, --schedule or --loop use the httpprof endpoint (--http ADDR, GET /debug/orprof/report?steps=N)"
	case path == "-":
		return "--report -: stdout has the table; give a file"
	}
	return ""
}
