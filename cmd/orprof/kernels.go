package main

import (
	"io"
	"slices"

	"github.com/orprof/orprof/analysis/code"
	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/text"
)

const kernelsUsage = `usage: orprof kernels [flags] TRACE...   (TRACE: a .json or .json.gz trace, a directory of them (one per rank), a summary (orprof kernels --format json, or orprof report --format json: its kernels), or - for stdin)

The device-side view: per kernel name (and copy, fill), calls, total, share of the device time,
mean, median, min, max, standard deviation, streams, the operator that launched most of it
and how many did, and a category (definitions and the rules file: docs/kernels.md).`

func runKernels(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("kernels", kernelsUsage, stderr)
	format := fs.String("format", "text", "output format: text, markdown, csv or json (json is a summary that orprof kernels reads and merges)")
	rowLimit := fs.Int("row-limit", 50, "kernels (or, with --by-op, operators) text and markdown print; -1 prints all, 0 none (csv and json print all)")
	byOp := fs.Bool("by-op", false, "group the kernels under the operators that launched them")
	by := fs.String("by", "", "group the kernels under the nn.Module (module) or source line (line) that ran their ops, from a trace recorded with_stack=True, or under the phase (phase: the outermost user annotation) that holds their ops (docs/code.md)")
	rulesPath := fs.String("rules", "", "a `FILE` of category rules (lines: CATEGORY REGEXP), tried before the built-in ones")
	nameWidth := fs.Int("max-name-column-width", 55, "width cap of the name columns of text")
	var link linkValue
	fs.Var(&link, "link", linkFlagUsage)
	pos, exit, stop := parseFlags(fs, args)
	if stop {
		return exit
	}
	if len(pos) == 0 {
		return fail(stderr, "kernels: need a TRACE argument")
	}
	f, ok := text.ParseFormat(*format)
	if !ok {
		return fail(stderr, "kernels: --format %s: must be text, markdown, csv or json; run 'orprof kernels -h'", quote.String(*format))
	}
	if *rowLimit < -1 {
		return fail(stderr, "kernels: --row-limit %d: must be -1 (all), 0 (none) or a count ≥ 1; run 'orprof kernels -h'", *rowLimit)
	}
	if *nameWidth < 4 {
		return fail(stderr, "kernels: --max-name-column-width %d: must be at least 4; run 'orprof kernels -h'", *nameWidth)
	}
	var rules *kernels.Rules
	if *rulesPath != "" {
		r, err := kernels.LoadRules(*rulesPath)
		if err != nil {
			return fail(stderr, "kernels: --rules %v", err)
		}
		rules = r
	}
	if slices.Contains(pos, "-") && len(pos) > 1 {
		return fail(stderr, "kernels: - (stdin) can only be read alone")
	}
	if *by != "" {
		return runKernelsByCode(stdin, stdout, stderr, pos, *by, f, link, *byOp, *rulesPath != "", *rowLimit, *nameWidth)
	}
	ins, code := loadInputs(stderr, "kernels", pos, stdin, input.Trace, input.KernelsSummary, input.ReportSummary)
	if code != 0 {
		return code
	}
	if link.set {
		sums := summaryNames(ins)
		if len(sums) == len(ins) {
			if len(ins) == 1 && ins[0].Name == input.StdinName {
				return refuseLink(stderr, "kernels", "<stdin> is "+ins[0].Kind.String()+"; summaries")
			}
			return refuseLink(stderr, "kernels", "the inputs are summaries, which")
		}
		noteLinkSummaries(stderr, sums)
	}
	defer lazyGC(gcFloorFor(ins[0].Path))()
	s, warns, err := kernels.LoadInputs(ins, kernels.ReadOptions{Link: link.mode()})
	if err != nil {
		return fail(stderr, "kernels: %v", err)
	}
	printWarnings(stderr, warns)
	o := kernels.WriteOptions{Rules: rules, RowLimit: rowLimitOf(*rowLimit), ByOp: *byOp, MaxNameWidth: *nameWidth}
	if err := kernels.Write(stdout, f, s, o); err != nil {
		return fail(stderr, "kernels: %v", err)
	}
	return 0
}

// runKernelsByCode is orprof kernels --by module|line: the kernels of each row of orprof code,
// read from traces (a kernels or report summary has no python stacks: refused).
func runKernelsByCode(stdin io.Reader, stdout, stderr io.Writer, paths []string, by string, f text.Format, link linkValue,
	byOp, rules bool, rowLimit, nameWidth int) int {
	b, ok := code.ParseBy(by)
	if !ok {
		return failFlag(stderr, "kernels", "--by %s: must be module, line or phase", quote.String(by))
	}
	switch {
	case byOp:
		return failFlag(stderr, "kernels", "--by and --by-op: choose one grouping")
	case rules:
		return failFlag(stderr, "kernels", "--rules: the categories are not shown with --by")
	case f == text.JSON:
		return failFlag(stderr, "kernels", "--format json with --by: orprof code --format json writes that summary")
	}
	cf, _ := code.ParseFormat(string(f))
	ins, warns, err := input.Load(paths, input.LoadOptions{Stdin: stdin})
	if err != nil {
		return fail(stderr, "kernels: %v", err)
	}
	for _, in := range ins {
		if in.Kind != input.Trace {
			return failFlag(stderr, "kernels", "--by: %s is %s, which holds no python stacks (give the traces)", quote.String(in.Name), in.Kind)
		}
	}
	printWarnings(stderr, warns)
	s, warns, err := code.LoadInputs(ins, code.ReadOptions{By: b, Link: link.mode()})
	if err != nil {
		return fail(stderr, "kernels: %v", err)
	}
	printWarnings(stderr, warns)
	if err := code.WriteKernels(stdout, cf, s, code.WriteOptions{RowLimit: rowLimitOf(rowLimit), MaxNameWidth: nameWidth}); err != nil {
		return fail(stderr, "kernels: %v", err)
	}
	return 0
}
