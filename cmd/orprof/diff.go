package main

import (
	"errors"
	"io"
	"slices"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/analysis/ranks"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/text"
)

func runDiff(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("diff", "usage: orprof diff [flags] BEFORE AFTER   (each a trace, an orprof table, kernels or report --format json summary, .gz allowed, a directory of them: all its ranks, or - for stdin)", stderr)
	format := fs.String("format", "text", "output format: text, markdown, csv or json")
	rowLimit := fs.Int("row-limit", -1, "ops to print, largest regression first; -1 prints all, 0 none")
	nameWidth := fs.Int("max-name-column-width", 55, "width cap of the Name column")
	var link linkValue
	fs.Var(&link, "link", linkFlagUsage)
	noMetrics := fs.Bool("no-scope-metrics", false, noScopeMetricsUsage)
	pos, exit, stop := parseFlags(fs, args)
	if stop {
		return exit
	}
	if len(pos) != 2 {
		if len(pos) == 1 {
			return fail(stderr, "diff: need BEFORE and AFTER, got 1 argument")
		}
		return fail(stderr, "diff: need BEFORE and AFTER, got %d arguments", len(pos))
	}
	f, ok := text.ParseFormat(*format)
	if !ok {
		return failFlag(stderr, "diff", "--format %s: must be text, markdown, csv or json", quoteArg(*format))
	}
	if *rowLimit < -1 {
		return failFlag(stderr, "diff", "--row-limit %d: must be -1 (all), 0 (none) or a count ≥ 1", *rowLimit)
	}
	if *nameWidth < 4 {
		return failFlag(stderr, "diff", "--max-name-column-width %d: must be at least 4", *nameWidth)
	}
	defer lazyGC(tableGCFloor)()
	if pos[0] == "-" && pos[1] == "-" {
		return fail(stderr, "diff: - (stdin) can be only one of BEFORE and AFTER")
	}
	var sides [2][]*input.Input
	for i, p := range pos {
		ins, code := loadInputs(stderr, "diff", []string{p}, stdin, input.Trace, input.TableSummary, input.ReportSummary, input.KernelsSummary)
		if code != 0 {
			return code
		}
		sides[i] = ins
	}
	k0, k1 := hasKind(sides[0], input.KernelsSummary), hasKind(sides[1], input.KernelsSummary)
	if k0 || k1 {
		if !k0 || !k1 || !allKind(sides[0], input.KernelsSummary) || !allKind(sides[1], input.KernelsSummary) {
			return fail(stderr, "diff: one of %s and %s is a kernels summary and the other is not: compare two kernels summaries (orprof kernels --format json) or two table profiles",
				quoteArg(pos[0]), quoteArg(pos[1]))
		}
		if *noMetrics {
			return failFlag(stderr, "diff", "--no-scope-metrics does not apply to kernels summaries (they have no \"metrics: …\" rows)")
		}
		if link.set {
			return refuseLink(stderr, "diff", "kernels summaries")
		}
		return diffKernels(sides, *format, *rowLimit, *nameWidth, stdout, stderr)
	}
	if link.set {
		// Each side's inputs: --link needs a trace among them.
		all := append(slices.Clone(sides[0]), sides[1]...)
		sums := summaryNames(all)
		if len(sums) == len(all) {
			return refuseLink(stderr, "diff", "BEFORE and AFTER are summaries, which")
		}
		noteLinkSummaries(stderr, sums)
	}
	ro := ranks.ReadOptions{Link: link.mode(), SkipScopeMetrics: *noMetrics}
	var sums [2]*optable.Summary
	var warns [2][]string
	var errs [2]error
	done := make(chan int, 2)
	for i, ins := range sides {
		go func() {
			sums[i], warns[i], errs[i] = ranks.LoadInputs(ins, ro)
			done <- i
		}()
	}
	<-done
	<-done
	for _, err := range errs {
		if err != nil {
			return fail(stderr, "diff: %v", err)
		}
	}
	for i, s := range sums {
		name := pos[i]
		if name == "-" {
			name = "<stdin>"
		}
		if msg := noOperators(s, []string{name}, warns[i]); msg != "" {
			return fail(stderr, "diff: %s", msg)
		}
	}
	printWarnings(stderr, append(warns[0], warns[1]...))
	if err := optable.CheckDiff(sums[0], sums[1]); err != nil {
		var me *optable.MergeError
		if errors.As(err, &me) {
			return fail(stderr, "diff: %s", me.Named(func(i int) string { return diffName(pos[i]) }))
		}
		return fail(stderr, "diff: %v", err)
	}
	// Each side is labelled with its own device; one without a device name (a CPU-only
	// profile, an old summary) takes the other's.
	dev, devAfter := sums[0].Device, sums[1].Device
	if dev == "" {
		dev = devAfter
	}
	if devAfter == "" {
		devAfter = dev
	}
	rows := optable.Diff(sums[0], sums[1])
	tot := [2]optable.Totals{sums[0].Totals(), sums[1].Totals()}
	if err := optable.WriteDiff(stdout, f, rows, optable.DiffOptions{RowLimit: rowLimitOf(*rowLimit), Device: dev, AfterDevice: devAfter,
		MaxNameColumnWidth: *nameWidth, Totals: &tot}); err != nil {
		return fail(stderr, "diff: %v", err)
	}
	return 0
}

// diffName names an argument of diff in an error line.
func diffName(p string) string {
	if p == "-" {
		return "<stdin>"
	}
	return quote.String(p) // as merge names its summaries
}
