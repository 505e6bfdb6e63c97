package main

import (
	"io"
	"slices"

	"github.com/orprof/orprof/analysis/code"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/quote"
)

const codeUsage = `usage: orprof code [flags] TRACE...   (TRACE: a .json or .json.gz trace recorded with_stack=True, a directory of them (one per rank), a summary (orprof code --format json), or - for stdin)

Where in the code the time went: one row per nn.Module (its path of instance names) or, with
--by line, per innermost Python function of the user's code, with its calls, forward and
backward CPU time, forward and backward device time, and its top kernels. Each op counts for
one row; backward ops count for the module of the forward op that made them. The rows and
the "(no module)" row sum to the trace's CPU op time and its linked device time
(definitions: docs/code.md).`

func runCode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("code", codeUsage, stderr)
	by := fs.String("by", "module", "what a row is: module (an nn.Module's path), line (a function of the user's code) or phase (the outermost user annotation holding the op: record_function(\"decode\"), ProfilerStep#N aside)")
	format := fs.String("format", "text", "output format: text, markdown, csv or json (json is a summary that orprof code reads and merges)")
	rowLimit := fs.Int("row-limit", 50, "rows text and markdown print, largest first; 0 none (the totals still print), -1 all (csv and json print all)")
	nameWidth := fs.Int("max-name-column-width", 60, "width cap of the name columns of text")
	var link linkValue
	fs.Var(&link, "link", linkFlagUsage)
	pos, exit, stop := parseFlags(fs, args)
	if stop {
		return exit
	}
	if len(pos) == 0 {
		return fail(stderr, "code: need a TRACE argument")
	}
	b, ok := code.ParseBy(*by)
	if !ok {
		return fail(stderr, "code: --by %s: must be module, line or phase; run 'orprof code -h'", quote.String(*by))
	}
	f, ok := code.ParseFormat(*format)
	if !ok {
		return fail(stderr, "code: --format %s: must be text, markdown, csv or json; run 'orprof code -h'", quote.String(*format))
	}
	if *rowLimit < -1 {
		return fail(stderr, "code: --row-limit %d: must be -1 (all), 0 (none) or a count; run 'orprof code -h'", *rowLimit)
	}
	if *nameWidth < 4 {
		return fail(stderr, "code: --max-name-column-width %d: must be at least 4; run 'orprof code -h'", *nameWidth)
	}
	if slices.Contains(pos, "-") && len(pos) > 1 {
		return fail(stderr, "code: - (stdin) can only be read alone")
	}
	ins, exit := loadInputs(stderr, "code", pos, stdin, input.Trace, input.CodeSummary)
	if exit != 0 {
		return exit
	}
	if link.set {
		sums := summaryNames(ins)
		if len(sums) == len(ins) {
			return refuseLink(stderr, "code", "the inputs are code summaries, which")
		}
		noteLinkSummaries(stderr, sums)
	}
	defer lazyGC(gcFloorFor(ins[0].Path))()
	s, warns, err := code.LoadInputs(ins, code.ReadOptions{By: b, Link: link.mode()})
	if err != nil {
		return fail(stderr, "code: %v", err)
	}
	printWarnings(stderr, warns)
	if err := code.Write(stdout, f, s, code.WriteOptions{RowLimit: rowLimitOf(*rowLimit), MaxNameWidth: *nameWidth}); err != nil {
		return fail(stderr, "code: %v", err)
	}
	return 0
}
