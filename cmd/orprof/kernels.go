package main

import (
	"bytes"
	"io"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/input/ranks"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/report"
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
	paths, err := ranks.Expand(pos)
	if err != nil {
		return fail(stderr, "kernels: %v", err)
	}
	for _, p := range paths {
		if p == "-" && len(paths) > 1 {
			return fail(stderr, "kernels: - (stdin) can only be read alone")
		}
	}
	var in io.Reader = stdin
	var stdinHead []byte
	if paths[0] == "-" {
		br, isSum := kernels.SniffSummary(stdin)
		stdinHead, _ = br.Peek(br.Size())
		if isSum && link.set {
			return refuseLink(stderr, "kernels", "<stdin> is a kernels summary; summaries")
		}
		if link.set && ranks.KindOf(bytes.NewReader(stdinHead)) == ranks.KindReportSummary {
			return refuseLink(stderr, "kernels", "<stdin> is a report summary; summaries")
		}
		in = br
	}
	if code := refuseForeign(stderr, "kernels", paths, stdinHead); code != 0 {
		return code
	}
	if link.set && paths[0] != "-" {
		sums := summaryInputs(paths)
		if len(sums) == len(paths) {
			return refuseLink(stderr, "kernels", "the inputs are summaries, which")
		}
		noteLinkSummaries(stderr, sums)
	}
	defer lazyGC(gcFloorFor(paths[0]))()
	s, warns, err := kernels.ReadAll(paths, kernels.ReadOptions{Link: link.mode(), Stdin: in, Embedded: report.ReadKernels})
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
