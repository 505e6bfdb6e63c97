package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/internal/outfile"
	"github.com/orprof/orprof/internal/quote"
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
	if metrics != "" && metricsOut == "" && format == string(optable.FormatCSV) {
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
	format, _ := optable.ParseFormat(tf.format)
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
	if format == optable.FormatJSON {
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
func writeMetrics(w io.Writer, format optable.Format, scopes []xpu.Scope) error {
	switch format {
	case optable.FormatCSV:
		return writeMetricsCSV(w, summarizeMetrics(scopes))
	case optable.FormatJSON:
		return writeMetricsJSON(w, summarizeMetrics(scopes))
	case optable.FormatMarkdown:
		return writeMetricsMarkdown(w, summarizeMetrics(scopes))
	}
	return xpu.WriteMetricsTable(w, scopes, nil)
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
