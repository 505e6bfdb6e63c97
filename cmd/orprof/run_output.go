package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/internal/outfile"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/report"
	"github.com/orprof/orprof/report/html"
	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/perfetto"
	"github.com/orprof/orprof/trace/tracefile"
	"github.com/orprof/orprof/xpu"
)

// checkRunOutputs checks the flags of `orprof run` that choose its outputs; it returns a
// message naming the bad flag, or "".
func checkRunOutputs(tracePath, activities, metrics, metricsOut, format string) string {
	if activities != "" && strings.Trim(activities, ", \t") == "" {
		return fmt.Sprintf("--activities %s: names no activity type (leave the flag out for Kineto's default set)", quote.String(activities))
	}
	if metricsOut != "" && metrics == "" {
		return "--metrics-out: needs --metrics"
	}
	if metrics != "" && metricsOut == "" && format == string(text.CSV) {
		return "--metrics with --format csv: a CSV file holds one table; pass --metrics-out FILE for the metrics table"
	}
	return ""
}

// checkRunTraceFlags refuses the flags that shape the trace when no trace is written: --trace ""
// without --schedule's --trace-dir or --http's clients. It returns the message, or "".
func checkRunTraceFlags(fs *flag.FlagSet, tracePath string, sf *stepFlags) string {
	if f := fs.Lookup("legacy-trace"); f != nil && f.Value.String() == "true" && perfetto.IsPerfettoName(tracePath) {
		return "--legacy-trace: --trace " + quote.String(tracePath) + " is a Perfetto trace (protobuf), not a JSON array"
	}
	if tracePath != "" || sf.schedule != "" || sf.http != "" {
		return ""
	}
	for _, name := range []string{"no-spans", "legacy-trace"} {
		if f := fs.Lookup(name); f != nil && f.Value.String() == "true" {
			return "--" + name + `: --trace "" writes no trace for it to shape`
		}
	}
	return ""
}

// checkTraceDir says why --trace-dir DIR cannot take the traces, before the workload runs: DIR
// (or its nearest existing parent, where orprof.WriteTraceFile would create it) is not a
// directory, or no file or directory can be created there (one is created and removed to
// find out). It returns the message naming the flag, or "".
func checkTraceDir(dir string) string {
	if dir == "" {
		return ""
	}
	at := filepath.Clean(dir)
	for {
		fi, err := os.Stat(at)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Sprintf("--trace-dir %s: %s is not a directory", quote.String(dir), quote.String(at))
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Sprintf("--trace-dir %s: %v", quote.String(dir), err)
		}
		parent := filepath.Dir(at)
		if parent == at {
			break
		}
		at = parent
	}
	probe, err := os.MkdirTemp(at, ".orprof-check-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		what := "the traces"
		if at != filepath.Clean(dir) {
			what = "the directory"
		}
		return fmt.Sprintf("--trace-dir %s: cannot create %s in %s: %v", quote.String(dir), what, quote.String(at), err)
	}
	os.Remove(probe)
	return ""
}

// runFiles lists the files a run reads and writes, named by their flags, for outfile.Check:
// outputs the run mode does not write are left out (with --schedule or --http no --trace file
// is written, whatever its default; --pprof is refused there).
func runFiles(tracePath, pprofPath, metricsOut, configPath string, sf *stepFlags) (outs, ins []outfile.File) {
	if sf.schedule != "" || sf.http != "" {
		tracePath, pprofPath = "", ""
	}
	outs = []outfile.File{
		{Name: "--trace", Path: tracePath},
		{Name: "--pprof", Path: pprofPath},
		{Name: "--metrics-out", Path: metricsOut},
	}
	ins = []outfile.File{{Name: "--config", Path: configPath}}
	return outs, ins
}

// writeRunTables prints the operator table of a run in the chosen format and, when the scope
// profiler measured kernels, the metrics table: after the text or markdown table, inside the
// JSON document ("metrics"), or in metricsOut (in the same format) when it is set.
func writeRunTables(w io.Writer, tf *tableFlags, res *orprof.Result, profileMemory bool, scopes []xpu.Scope, metricsOut string) error {
	format, _ := text.ParseFormat(tf.format)
	if len(scopes) == 0 && metricsOut == "" {
		return tf.write(w, res.Events, res.Device, profileMemory)
	}
	if metricsOut != "" {
		if err := tf.write(w, res.Events, res.Device, profileMemory); err != nil {
			return err
		}
		err := outfile.Write(metricsOut, func(f io.Writer) error { return writeMetrics(f, format, scopes) })
		if err != nil {
			return fmt.Errorf("--metrics-out %s: %w", quote.Clip(metricsOut), err)
		}
		return nil
	}
	if format == text.JSON {
		var table bytes.Buffer
		if err := tf.write(&table, res.Events, res.Device, profileMemory); err != nil {
			return err
		}
		doc, err := withMetricsJSON(table.Bytes(), summarizeMetrics(scopes))
		if err != nil {
			return err
		}
		_, err = w.Write(doc)
		return err
	}
	if err := tf.write(w, res.Events, res.Device, profileMemory); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return writeMetrics(w, format, scopes)
}

// writeMetrics writes the metrics table of scopes in format.
func writeMetrics(w io.Writer, format text.Format, scopes []xpu.Scope) error {
	switch format {
	case text.CSV:
		return writeMetricsCSV(w, summarizeMetrics(scopes))
	case text.JSON:
		return writeMetricsJSON(w, summarizeMetrics(scopes))
	case text.Markdown:
		return writeMetricsMarkdown(w, summarizeMetrics(scopes))
	}
	return xpu.WriteMetricsTable(w, scopes, nil)
}

// runTitle is the title of a run's report.
func runTitle(workload, device string) string {
	return "orprof run --workload " + workload + " --device " + device
}

// writeRunReport writes the --report of a run's result (a plain run's, or --steps N's one
// cycle) to path: the HTML report (orprof report), or with --format json the report summary
// (orprof report --format json's document, which orprof report reads back). The HTML page's
// table and op tree come from the run's events, as its table; the timeline, kernel, step and
// memory views from its trace, read back as a file.
func writeRunReport(path string, res *orprof.Result, title string, tf *tableFlags, profileMemory bool) error {
	b, _, err := report.FromTrace(res.Trace(), "orprof run", report.Options{SkipScopeMetrics: tf.noScopeMetrics, Grouping: tf.grouping()})
	if err != nil {
		return err
	}
	if tf.format == string(text.JSON) {
		return outfile.Write(path, func(w io.Writer) error { return report.Write(w, b) })
	}
	m := html.ListModel(res.Events, optable.RankInfo{}, res.Device, profileMemory, tf.grouping())
	m.Title = title
	if tf.noScopeMetrics {
		m.Summary.DropScopeMetrics()
	}
	m.UseBundle(b)
	return outfile.Write(path, func(w io.Writer) error { return html.Write(w, m) })
}

// writeTraceOutput writes the trace of a run to path: "-" is stdout; otherwise through
// outfile (a regular file replaced only once complete, special files and symbolic links written
// through). A path ending in .gz is gzip-compressed.
func writeTraceOutput(path string, stdout io.Writer, res *orprof.Result, legacy bool) error {
	write := func(w io.Writer, gz bool) error {
		var zw io.WriteCloser
		if gz {
			zw = newGzipWriter(w)
			w = zw
		}
		var err error
		switch {
		case perfetto.IsPerfettoName(path):
			err = perfetto.WriteTrace(w, res.Trace())
		case legacy:
			err = tracefile.WriteLegacy(w, res.Events, res.Device)
		default:
			err = trace.Write(w, res.Trace())
		}
		if zw != nil {
			if cerr := zw.Close(); err == nil {
				err = cerr
			}
		}
		return err
	}
	if path == "-" {
		ignoreSIGPIPE() // a closed pipe is a write error (exit 2), not a silent death
		res.Trace().TraceName = "-"
		return write(stdout, false)
	}
	res.Trace().TraceName = filepath.Base(path)
	return outfile.Write(path, func(w io.Writer) error { return write(w, strings.HasSuffix(path, ".gz")) })
}
