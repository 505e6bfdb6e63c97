package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/analysis/ranks"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/text"
)

// rowLimitFlag is --row-limit: an int that remembers it was given.
type rowLimitFlag tableFlags

// String is "" until the flag is set, so that -h prints the usage's own words on the
// format-dependent default rather than one number.
func (f *rowLimitFlag) String() string {
	if f == nil || !f.rowLimitSet {
		return ""
	}
	return strconv.Itoa(f.rowLimit)
}

// Set parses the value as flag.IntVar does, with the flag package's own error texts.
func (f *rowLimitFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return errors.New("value out of range")
		}
		return errors.New("parse error")
	}
	f.rowLimit, f.rowLimitSet = int(n), true
	return nil
}

// grouping is the key_averages grouping the flags ask for.
func (tf *tableFlags) grouping() events.AverageOptions {
	return events.AverageOptions{GroupByInputShape: tf.byShape, GroupByStackN: tf.byStackN}
}

// tableOptions are the table options the flags ask for (device and memory come from the
// summary). csv and json print every row unless --row-limit was given.
func (tf *tableFlags) tableOptions() optable.TableOptions {
	opts := optable.TableOptions{SortBy: tf.sortBy, RowLimit: tf.rowLimit, MaxNameColumnWidth: tf.maxNameWidth}
	f, _ := text.ParseFormat(tf.format)
	if !tf.rowLimitSet && (f == text.CSV || f == text.JSON) {
		opts.RowLimit = optable.RowLimitAll
	}
	if opts.RowLimit == 0 {
		opts.RowLimit = optable.RowLimitNone
	}
	if tf.target113 {
		opts.Target = optable.Target113
	}
	return opts
}

// writeSummary prints s in the chosen format; it returns the number of rows the row limit left
// out (the JSON says so itself; callers note it for CSV).
func (tf *tableFlags) writeSummary(w io.Writer, s *optable.Summary, byRank bool) (int, error) {
	f, _ := text.ParseFormat(tf.format)
	return optable.WriteSummary(w, f, s, tf.tableOptions(), optable.SummaryOutput{ByRank: byRank})
}

// noteCSV says on stderr what CSV output has no place for: how many rows a --row-limit left out
// and, for several ranks, where their numbers came from.
func (tf *tableFlags) noteCSV(stderr io.Writer, s *optable.Summary, left int) {
	if tf.format != string(text.CSV) {
		return
	}
	if left > 0 {
		fmt.Fprintf(stderr, "orprof: note: --row-limit %d left out %s of the CSV\n", tf.rowLimit, countNoun(left, "row", "rows"))
	}
	if len(s.Ranks) > 1 {
		fmt.Fprintf(stderr, "orprof: note: %d ranks (%s)\n", len(s.Ranks), s.RankSource())
	}
	if l := s.DeviceLinks(); l.Notable() {
		fmt.Fprintf(stderr, "orprof: note: %s\n", l.Line())
	}
}

// maxWarnings is how many trace warnings a command prints before it only counts the rest.
const maxWarnings = 5

// printWarnings prints the readers' warnings, one line each; past maxWarnings, one line counts
// the others.
func printWarnings(stderr io.Writer, warns []string) {
	for i, w := range warns {
		if i == maxWarnings {
			fmt.Fprintf(stderr, "orprof: warning: and %s like these (read a trace alone to see its own)\n", countNoun(len(warns)-maxWarnings, "more warning", "more warnings"))
			return
		}
		fmt.Fprintln(stderr, "orprof: warning: "+w)
	}
}

// warnRanks warns about rank numbers claimed by several traces.
func warnRanks(stderr io.Writer, s *optable.Summary) {
	if dup := s.DuplicateRanks(); len(dup) > 0 {
		repeat := countNoun(len(dup), "rank repeats", "ranks repeat")
		fmt.Fprintf(stderr, "orprof: warning: rank %d is claimed by more than one trace (%s); --by-rank shows each trace on its own line\n", dup[0], repeat)
	}
}

// noOperators is the message for a profile without a single row — an empty trace, or one of
// metadata only — naming its inputs, or "" when s has rows. An empty table would print
// nothing at all, which says nothing about why. The reading's warnings (events skipped) are
// the likely why: the first joins the line, so that it stays one line.
func noOperators(s *optable.Summary, names []string, warns []string) string {
	if len(s.Rows) > 0 {
		return ""
	}
	msg := fmt.Sprintf("no operators in any of the %d inputs (%s, …)", len(names), quoteArg(names[0]))
	if len(names) == 1 {
		msg = "no operators in " + quoteArg(names[0])
	}
	if len(warns) > 0 {
		msg += "; " + warns[0]
		if len(warns) > 1 {
			msg += " (and " + countNoun(len(warns)-1, "more warning", "more warnings") + ")"
		}
	}
	return msg
}

// runTableRanks is `orprof table` over several traces or directories: every trace read in
// parallel, one table over all of them.
func runTableRanks(args []string, tf *tableFlags, byRank bool, stdout, stderr io.Writer) int {
	if slices.Contains(args, "-") {
		return fail(stderr, "table: - (stdin) can only be read alone")
	}
	ins, code := loadInputs(stderr, "table", args, nil, input.Trace)
	if code != 0 {
		return code
	}
	paths := inputNames(ins)
	defer lazyGC(tableGCFloor)()
	s, warns, err := ranks.LoadTraces(paths, tf.ranksOptions())
	if err != nil {
		return fail(stderr, "table: %v", err)
	}
	if msg := noOperators(s, paths, warns); msg != "" {
		return fail(stderr, "table: %s", msg)
	}
	printWarnings(stderr, warns)
	warnRanks(stderr, s)
	left, err := tf.writeSummary(stdout, s, byRank)
	if err != nil {
		return fail(stderr, "table: %v", err)
	}
	tf.noteCSV(stderr, s, left)
	return 0
}

// parseRanksCommand parses the arguments of a command that prints one table over the ranks of
// its inputs (table, merge): the table flags into tf, --by-rank, and at least one input, which
// need names when there is none. When stop is true the command returns exit at once (as after
// parseFlags; a missing input or a bad table flag has been reported).
func (tf *tableFlags) parseRanksCommand(name, usage, need string, args []string, stderr io.Writer) (pos []string, byRank *bool, exit int, stop bool) {
	fs := newFlagSet(name, usage, stderr)
	tf.register(fs)
	byRank = fs.Bool("by-rank", false, "add the per-rank totals and the slowest rank of each op")
	fs.Var(&tf.link, "link", linkFlagUsage)
	if name == "table" { // (a summary's rows cannot be split by phase: merge has no --phase)
		fs.StringVar(&tf.phase, "phase", "", "`NAME`: the rows of one phase, the ops under the outermost user annotation NAME (record_function; ProfilerStep#N aside) and their device time (docs/code.md)")
	}
	if pos, exit, stop = parseFlags(fs, args); stop {
		return nil, nil, exit, true
	}
	if len(pos) == 0 {
		return nil, nil, fail(stderr, "%s: need %s", name, need), true
	}
	if msg := tf.check(); msg != "" {
		return nil, nil, failFlag(stderr, name, "%s", msg), true
	}
	return pos, byRank, 0, false
}

func runMerge(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var tf tableFlags
	pos, byRank, exit, stop := tf.parseRanksCommand("merge", "usage: orprof merge [flags] SUMMARY...   (SUMMARY: orprof table --format json output, .gz allowed, a directory of them, or - for stdin alone; traces and report summaries are read too; orprof kernels --format json summaries merge into the kernels view)",
		"at least one SUMMARY argument", args, stderr)
	if stop {
		return exit
	}
	if tf.byShape || tf.byStackN > 0 {
		return failFlag(stderr, "merge", "--group-by-input-shape and --group-by-stack-n are chosen when the summaries are written (orprof table), not when they are merged")
	}
	if slices.Contains(pos, "-") && len(pos) > 1 {
		return fail(stderr, "merge: - (stdin) can only be read alone")
	}
	ins, code := loadInputs(stderr, "merge", pos, stdin, input.Trace, input.TableSummary, input.ReportSummary, input.KernelsSummary)
	if code != 0 {
		return code
	}
	if hasKind(ins, input.KernelsSummary) {
		return mergeKernels(ins, &tf, *byRank, stdout, stderr)
	}
	if tf.link.set {
		sums := summaryNames(ins)
		if len(sums) == len(ins) {
			return refuseLink(stderr, "merge", "the inputs are summaries, which")
		}
		noteLinkSummaries(stderr, sums)
	}
	s, warns, err := ranks.LoadInputs(ins, tf.ranksOptions())
	if err != nil {
		return fail(stderr, "merge: %v", err)
	}
	names := make([]string, len(ins))
	for i, in := range ins {
		names[i] = in.Name
	}
	return writeMerged(s, warns, names, &tf, *byRank, stdout, stderr)
}

// writeMerged prints the table of the merged summary s of the inputs names, with the reading's
// warnings.
func writeMerged(s *optable.Summary, warns, paths []string, tf *tableFlags, byRank bool, stdout, stderr io.Writer) int {
	if msg := noOperators(s, paths, warns); msg != "" {
		return fail(stderr, "merge: %s", msg)
	}
	printWarnings(stderr, warns)
	warnRanks(stderr, s)
	left, err := tf.writeSummary(stdout, s, byRank)
	if err != nil {
		return fail(stderr, "merge: %v", err)
	}
	tf.noteCSV(stderr, s, left)
	return 0
}

// isDir reports whether path names a directory.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
