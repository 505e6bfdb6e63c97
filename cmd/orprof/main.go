// Command orprof profiles workloads on orprof's device backends, prints PyTorch's operator
// summary table for any trace, checks a backend's stubs, and lists Kineto plugins.
//
//	orprof run [--workload NAME] [--device openreg] [--trace FILE] ...
//	orprof table [--sort-by KEY] [--row-limit N] [--by-rank] ... TRACE...
//	orprof merge [--by-rank] ... SUMMARY...
//	orprof diff [--format F] BEFORE AFTER
//	orprof pprof TRACE -o FILE
//	orprof conformance (--lib PATH.so | --device NAME)
//	orprof plugins [--dir DIR]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

const usage = `usage: orprof <command> [flags]

commands:
  run          profile a built-in workload, print the table, write the trace
  table        print the operator summary table of one trace, or of several (one per rank)
  merge        merge table summaries (orprof table --format json) into one table
  diff         compare two profiles (traces or summaries) op by op
  pprof        convert a trace to a pprof profile (go tool pprof)
  conformance  check a device backend's profiler stubs
  plugins      list the Kineto plugins found and why any was refused

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
		return runMerge(args[1:], stdout, stderr)
	case "diff":
		return runDiff(args[1:], stdout, stderr)
	case "pprof":
		return runPprof(args[1:], stdin, stderr)
	case "conformance":
		return runConformance(args[1:], stdout, stderr)
	case "plugins":
		return runPlugins(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "orprof: unknown command %q\n%s", args[0], usage)
	return 2
}

// newFlagSet returns a flag set that reports errors as one line and never exits.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("orprof "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args, allowing flags after positional arguments. When stop is true the
// command must return exit at once: 0 after -h, 2 for a bad flag (already reported by the flag
// set in one line).
func parseFlags(fs *flag.FlagSet, args []string) (positional []string, exit int, stop bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, 0, true
			}
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

// fail prints one error line and returns exit code 2.
func fail(stderr io.Writer, format string, a ...any) int {
	msg := fmt.Sprintf(format, a...)
	fmt.Fprintln(stderr, "orprof: "+strings.TrimSpace(strings.ReplaceAll(msg, "\n", " ")))
	return 2
}
