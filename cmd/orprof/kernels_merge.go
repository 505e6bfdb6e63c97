package main

import (
	"io"
	"slices"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/text"
)

// mergeKernels is `orprof merge` of kernels summaries: the kernels view of all their ranks.
func mergeKernels(ins []*input.Input, tf *tableFlags, byRank bool, stdout, stderr io.Writer) int {
	for _, in := range ins {
		if in.Kind != input.KernelsSummary {
			return fail(stderr, "merge: %s is %s, %s is a kernels summary: merge kernels summaries (orprof kernels --format json) or table summaries, not both",
				quote.String(in.Name), in.Kind, quote.String(ins[slices.IndexFunc(ins, func(in *input.Input) bool { return in.Kind == input.KernelsSummary })].Name))
		}
	}
	if code := checkKernelsMergeFlags(tf, byRank, stderr); code != 0 {
		return code
	}
	s, _, err := kernels.LoadInputs(ins, kernels.ReadOptions{})
	if err != nil {
		return fail(stderr, "merge: %v", err)
	}
	return writeKernelsMerge(s, tf, stdout, stderr)
}

// checkKernelsMergeFlags refuses the table flags a merge of kernels summaries cannot honour: it
// returns the exit code, 0 when none was given.
func checkKernelsMergeFlags(tf *tableFlags, byRank bool, stderr io.Writer) int {
	switch {
	case tf.sortBy != "":
		return failFlag(stderr, "merge", "--sort-by does not apply to kernels summaries (their rows come largest total first)")
	case byRank:
		return failFlag(stderr, "merge", "--by-rank does not apply to kernels summaries")
	case tf.target113:
		return failFlag(stderr, "merge", "--pytorch-1.13 does not apply to kernels summaries")
	case tf.noScopeMetrics:
		return failFlag(stderr, "merge", "--no-scope-metrics does not apply to kernels summaries (they have no \"metrics: …\" rows)")
	case tf.link.set:
		return refuseLink(stderr, "merge", "kernels summaries")
	case tf.byShape || tf.byStackN > 0:
		return failFlag(stderr, "merge", "--group-by-input-shape and --group-by-stack-n do not apply to kernels summaries (their rows are kernels)")
	}
	return 0
}

// writeKernelsMerge prints the kernels view of the merged summary s.
func writeKernelsMerge(s *kernels.Summary, tf *tableFlags, stdout, stderr io.Writer) int {
	limit := tf.rowLimit
	if !tf.rowLimitSet {
		limit = 50
	}
	f, _ := text.ParseFormat(tf.format)
	if err := kernels.Write(stdout, f, s, kernels.WriteOptions{RowLimit: rowLimitOf(limit), MaxNameWidth: tf.maxNameWidth}); err != nil {
		return fail(stderr, "merge: %v", err)
	}
	return 0
}

// diffKernels is `orprof diff` of two kernels summaries: kernel by kernel, largest increase
// first.
func diffKernels(sides [2][]*input.Input, format string, rowLimit, nameWidth int, stdout, stderr io.Writer) int {
	var sums [2]*kernels.Summary
	for i, ins := range sides {
		s, _, err := kernels.LoadInputs(ins, kernels.ReadOptions{})
		if err != nil {
			return fail(stderr, "diff: %v", err)
		}
		sums[i] = s
	}
	f, _ := text.ParseFormat(format)
	rows := kernels.Diff(sums[0], sums[1], nil)
	if rowLimit == 0 {
		rows = nil // --row-limit 0: no rows, the totals still
	}
	if err := kernels.WriteDiff(stdout, f, rows, sums[0], sums[1], max(rowLimit, 0), nameWidth); err != nil {
		return fail(stderr, "diff: %v", err)
	}
	return 0
}

// rowLimitOf is a --row-limit value as the writers take it: 0 is text.RowLimitNone (no rows, as
// in every command), -1 text.RowLimitAll.
func rowLimitOf(n int) int {
	if n == 0 {
		return text.RowLimitNone
	}
	return n
}
