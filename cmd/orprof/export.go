package main

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/export"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/outfile"
	"github.com/orprof/orprof/internal/quote"
)

const exportUsage = `usage: orprof export -o DIR [flags] TRACE...   (TRACE: a .json or .json.gz trace, a directory of them (one per rank), or - for stdin (alone))

Writes Parquet tables of the traces for SQL engines (DuckDB, Polars, Spark, BigQuery): one
directory per table under DIR (kernels, ops, steps, collectives, idle, memory; ops_tree with
--ops-tree), one file per rank in each, DIR/TABLE/rank-NNNNN.parquet. The schema is docs/schema.md; queries, docs/fleet.md.`

func runExport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("export", exportUsage, stderr)
	out := fs.String("o", "", "the `DIR` to write the tables under (created when missing; other ranks' files in it are kept)")
	byShape := fs.Bool("group-by-input-shape", false, "group the ops table's rows by input shapes too")
	byStackN := fs.Int("group-by-stack-n", 0, "group the ops table's rows by the first `N` stack frames too")
	noMetrics := fs.Bool("no-scope-metrics", false, noScopeMetricsUsage)
	rulesPath := fs.String("rules", "", "a `FILE` of kernel category rules (lines: CATEGORY REGEXP), tried before the built-in ones")
	opsTree := fs.Bool("ops-tree", false, "write the ops_tree table too: one row per op call path (PyTorch's tree) with its CPU and device time, self and total (more CPU and memory)")
	quiet := fs.Bool("quiet", false, "print nothing but errors and warnings (default: one line per table written)")
	var link linkValue
	fs.Var(&link, "link", linkFlagUsage)
	pos, exit, stop := parseFlags(fs, args)
	if stop {
		return exit
	}
	switch {
	case *out == "":
		return fail(stderr, "export: need -o DIR; run 'orprof export -h'")
	case *out == "-":
		return fail(stderr, "export: -o -: the tables are files in a directory, not a stream; give -o DIR")
	case len(pos) == 0:
		return fail(stderr, "export: need a TRACE argument (a trace or a directory of traces)")
	case *byStackN < 0:
		return fail(stderr, "export: --group-by-stack-n %d: must be ≥ 0", *byStackN)
	}
	if slices.Contains(pos, "-") && len(pos) > 1 {
		return fail(stderr, "export: - (stdin) can only be read alone")
	}
	var rules *kernels.Rules
	if *rulesPath != "" {
		r, err := kernels.LoadRules(*rulesPath)
		if err != nil {
			return fail(stderr, "export: --rules %v", err)
		}
		rules = r
	}
	for _, in := range pos {
		if in != "-" && outfile.Same(in, *out) {
			return fail(stderr, "export: -o %s: the same as the input %s: the tables go in a directory of their own", quote.Clip(*out), quote.String(in))
		}
	}
	paths, warns, err := input.Expand(pos)
	if err != nil {
		return fail(stderr, "export: %v", err)
	}
	printWarnings(stderr, warns)
	for _, in := range paths {
		if in != "-" && outfile.Same(in, *out) {
			return fail(stderr, "export: -o %s: the same as the input %s: the tables go in a directory of their own", quote.Clip(*out), quote.String(in))
		}
	}
	gc := exportGC(exportGCLimit(paths, runtime.GOMAXPROCS(0)))
	defer gc.Done()
	files, warns, err := export.Export(paths, *out, export.Options{
		Grouping:         events.AverageOptions{GroupByInputShape: *byShape, GroupByStackN: *byStackN},
		SkipScopeMetrics: *noMetrics, Link: link.mode(), Rules: rules, Version: versionLine(debug.ReadBuildInfo()), Stdin: stdin,
		OpsTree: *opsTree, Linking: gc.Linking,
	})
	if err != nil {
		return fail(stderr, "export: %v", err)
	}
	printWarnings(stderr, warns)
	if !*quiet {
		rows := map[string]int64{}
		for _, f := range files {
			rows[f.Table] += f.Rows
		}
		for _, t := range export.Tables {
			if t == export.TableOpsTree && !*opsTree {
				continue
			}
			ranks := "ranks"
			if len(paths) == 1 {
				ranks = "rank"
			}
			fmt.Fprintf(stdout, "%s: %d rows of %d %s in %s\n", t, rows[t], len(paths), ranks, filepath.Join(*out, t))
		}
	}
	return 0
}
