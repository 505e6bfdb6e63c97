// Command orprof profiles workloads on orprof's device backends, prints PyTorch's operator
// summary table for any trace, checks a backend's stubs, and lists Kineto plugins.
//
//	orprof run [--workload NAME] [--device openreg] [--trace FILE] ...
//	orprof table [--sort-by KEY] [--row-limit N] [--by-rank] ... TRACE...
//	orprof merge [--by-rank] ... SUMMARY...
//	orprof diff [--format F] BEFORE AFTER
//	orprof pprof TRACE -o FILE
//	orprof convert -o OUT.pftrace|OUT.json TRACE...
//	orprof timeline [--view V] [--format F] [--steps LIST] ... TRACE...
//	orprof code [--by module|line|phase] [--format F] ... TRACE...
//	orprof report [-o FILE] TRACE... | --diff BEFORE AFTER
//	orprof export -o DIR TRACE...
//	orprof conformance (--lib PATH.so | --device NAME)
//	orprof plugins [--dir DIR]
//	orprof version
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/orprof/orprof/internal/quote"
)

const usage = `usage: orprof <command> [flags]

commands:
  run          profile a built-in workload, print the table, write the trace
  table        print the operator summary table of one trace, or of several (one per rank)
  merge        merge table summaries (orprof table --format json) into one table
  diff         compare two profiles (traces or summaries) op by op
  pprof        convert a trace to a pprof profile (go tool pprof)
  convert      write traces (every rank) as one Perfetto trace (.pftrace) or overlap-free Kineto JSON
  kernels      the device-side view: per kernel calls, time, streams, launching op, category
  timeline     where the device time went: breakdown, idle, overlap, launches, queue, steps, stragglers
  code         where in the code: time per nn.Module or source line, forward and backward, CPU and device
  report       write one offline HTML report of a profile (or a diff of two): tables, flame graph, charts
  export       write Parquet tables of traces (kernels, ops, steps, collectives, idle, memory) for SQL engines
  conformance  check a device backend's profiler stubs
  plugins      list the Kineto plugins found and why any was refused
  version      print the module version and VCS revision of this binary

Run 'orprof <command> -h' for a command's flags.
`

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "run":
		return runRun(args[1:], stdout, stderr)
	case "table":
		return runTable(args[1:], stdin, stdout, stderr)
	case "merge":
		return runMerge(args[1:], stdin, stdout, stderr)
	case "diff":
		return runDiff(args[1:], stdin, stdout, stderr)
	case "pprof":
		return runPprof(args[1:], stdin, stdout, stderr)
	case "convert":
		return runConvert(args[1:], stdin, stdout, stderr)
	case "kernels":
		return runKernels(args[1:], stdin, stdout, stderr)
	case "timeline":
		return runTimeline(args[1:], stdin, stdout, stderr)
	case "code":
		return runCode(args[1:], stdin, stdout, stderr)
	case "report":
		return runReport(args[1:], stdin, stdout, stderr)
	case "export":
		return runExport(args[1:], stdin, stdout, stderr)
	case "conformance":
		return runConformance(args[1:], stdout, stderr)
	case "plugins":
		return runPlugins(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		return runVersion(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "orprof: unknown command %s; run 'orprof -h' for the commands\n", quoteArg(args[0]))
	return 2
}

// newFlagSet returns the flag set of `orprof name`: -h prints usage (a line, or more) and the
// flags' defaults to stderr; parseFlags reports errors as one line and never exits.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("orprof "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, allowing flags after positional arguments. When stop is true the
// command must return exit at once: 0 after -h (the usage printed), 2 for a bad flag (reported
// in one line naming the flag, with a pointer to the command's -h).
func parseFlags(fs *flag.FlagSet, args []string) (positional []string, exit int, stop bool) {
	// The flag package prints the error and the whole usage on a bad flag: keep the usage for
	// -h only, and print the error as one line here.
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	defer func() { fs.Usage = usage; fs.SetOutput(out) }()
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				fs.SetOutput(out)
				if usage != nil {
					usage()
				} else {
					fs.PrintDefaults()
				}
				return nil, 0, true
			}
			fmt.Fprintln(out, flagErrorLine(fs.Name(), err))
			return nil, 2, true
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, 0, false
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// fail prints one error line and returns exit code 2. The line starts with "orprof: "; an
// error of the root package that starts with it too ("orprof: run: orprof: …") is printed with
// the prefix once. Control characters are escaped (quote.Printable).
func fail(stderr io.Writer, format string, a ...any) int {
	msg := strings.TrimSpace(strings.ReplaceAll(fmt.Sprintf(format, a...), "\n", " "))
	msg = strings.ReplaceAll(strings.TrimPrefix(msg, "orprof: "), ": orprof: ", ": ")
	fmt.Fprintln(stderr, "orprof: "+quote.Printable(msg))
	return 2
}

// failFlag is fail for a bad flag value of `orprof cmd`: the line ends with the pointer to the
// command's flags, as the flag package's own errors do (flagErrorLine).
func failFlag(stderr io.Writer, cmd, format string, a ...any) int {
	return fail(stderr, "%s: %s; run 'orprof %s -h'", cmd, fmt.Sprintf(format, a...), cmd)
}

// countNoun is n and the noun, in the singular for one: countNoun(1, "rank", "ranks") is "1 rank".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// quoteArg quotes a command-line argument for an error line, at most quote.Max bytes of it.
func quoteArg(s string) string { return quote.String(s) }
