package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/orprof/orprof/internal/verdict"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/kineto/plugintest"
)

// pluginResultFDEnv names the file descriptor a `conformance --plugin` child writes its JSON
// result to (a pipe kept apart from what the plugin prints).
const pluginResultFDEnv = "ORPROF_PLUGIN_CONFORMANCE_RESULT_FD"

const pluginConformanceUsage = `usage: orprof conformance --plugin LIB.so [--verbose | -v] [--timeout DURATION]

Dry-runs a Kineto profiler plugin (built against kineto/kineto_plugin.h) as a host drives it:
each check of kineto/plugintest runs in its own child process, one line per check (PASS name,
FAIL name: what broke, SKIP name: why) and a closing "N passed, M failed". A check whose child
crashes (a signal in the plugin) or outlives --timeout fails; the others still run.
Exit status: 0 all passed, 1 a check failed, 2 bad flags, or LIB.so is not a file, cannot be
loaded as a library or exports no KinetoPlugin_register.

  --plugin LIB.so     the plugin library
  --verbose, -v       print under each check the rule it enforces (kineto PR #1148's or orprof's)
  --timeout DURATION  time limit of each check (default 30s)

Checks:
`

// wantsPluginConformance reports whether `orprof conformance` was given --plugin (before any
// "--"): runConformance then hands its arguments to runPluginConformance.
func wantsPluginConformance(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "plugin" {
			return true
		}
	}
	return false
}

// runPluginConformance is `orprof conformance --plugin LIB.so`. It re-executes this binary once
// per check with the hidden flag --plugin-check NAME; the child runs that check and writes its
// plugintest.Result as JSON to the pipe named by ORPROF_PLUGIN_CONFORMANCE_RESULT_FD.
func runPluginConformance(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	lib := fs.String("plugin", "", "")
	timeout := fs.Duration("timeout", 30*time.Second, "")
	verbose := fs.Bool("verbose", false, "")
	fs.BoolVar(verbose, "v", false, "")
	one := fs.String("plugin-check", "", "") // hidden: run one check in this process (child)
	fs.String("lib", "", "")
	fs.String("device", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, pluginConformanceUsage)
			for _, c := range plugintest.Cases() {
				fmt.Fprintf(stdout, "  %-16s %s\n", c.Name, c.Doc)
			}
			return 0
		}
		fmt.Fprintln(stderr, flagErrorLine("orprof conformance", err))
		return 2
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "orprof conformance: unexpected argument %s; run 'orprof conformance -h'\n", quoteArg(fs.Arg(0)))
		return 2
	case set["lib"] || set["device"]:
		fmt.Fprintln(stderr, "orprof conformance: --plugin checks a Kineto plugin; --lib and --device check a backend: give one of them; run 'orprof conformance -h'")
		return 2
	case *lib == "":
		fmt.Fprintln(stderr, "orprof conformance: --plugin: needs the path of a plugin library; run 'orprof conformance -h'")
		return 2
	case *timeout <= 0:
		fmt.Fprintf(stderr, "orprof conformance: --timeout %v: must be positive; run 'orprof conformance -h'\n", *timeout)
		return 2
	}
	path := *lib
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "orprof conformance: --plugin %s: %v\n", quoteArg(*lib), errors.Unwrap(err))
		return 2
	case !fi.Mode().IsRegular():
		fmt.Fprintf(stderr, "orprof conformance: --plugin %s: not a regular file\n", quoteArg(*lib))
		return 2
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if *one != "" {
		return runPluginCheckChild(*one, path, stdout, stderr)
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "orprof conformance: cannot re-execute orprof for isolated checks: %v\n", err)
		return 2
	}
	// A file the loader cannot open, or a library that is no Kineto plugin: one line, exit 2
	// (as --lib), not the same failure in every check. A crash while it loads is the checks'.
	if r := runPluginChild(exe, path, pluginOpenCheck, *timeout); r.Status == plugintest.Fail && r.Name == pluginOpenCheck {
		fmt.Fprintf(stderr, "orprof conformance: --plugin %s: %s\n", quoteArg(*lib), verdict.Fold(r.Reason))
		return 2
	}
	var tally verdictTally
	for _, c := range plugintest.Cases() {
		r := runPluginChild(exe, path, c.Name, *timeout)
		r.Name = c.Name
		tally.print(stdout, r, *verbose, c.Rule)
	}
	return tally.finish(stdout)
}

// runPluginCheckChild runs in the child: the check named one, reported on the result pipe (or
// as a line on stdout when run by hand).
func runPluginCheckChild(one, lib string, stdout, stderr io.Writer) int {
	var r plugintest.Result
	found := false
	if one == pluginOpenCheck {
		r, found = openPlugin(lib), true
	}
	for _, c := range plugintest.Cases() {
		if c.Name == one {
			// Each step goes to stderr before the plugin runs it: the parent names the last
			// one when the plugin crashes the child.
			r, found = c.RunSteps(lib, func(step string) { fmt.Fprintf(stderr, "%s%s\n", pluginStepPrefix, step) }), true
			break
		}
	}
	if !found {
		fmt.Fprintf(stderr, "orprof conformance: --plugin-check %s: no such check\n", quoteArg(one))
		return 2
	}
	fd := os.Getenv(pluginResultFDEnv)
	if fd == "" {
		fmt.Fprintln(stdout, r)
		return 0
	}
	var n uintptr
	if _, err := fmt.Sscan(fd, &n); err != nil {
		fmt.Fprintf(stderr, "orprof conformance: %s=%q: not a file descriptor\n", pluginResultFDEnv, fd)
		return 2
	}
	if err := json.NewEncoder(os.NewFile(n, "result")).Encode(r); err != nil {
		fmt.Fprintf(stderr, "orprof conformance: writing the result: %v\n", err)
		return 2
	}
	return 0
}

// pluginOpenCheck is the hidden first check of runPluginConformance: can the library be opened
// as a Kineto plugin at all (openPlugin).
const pluginOpenCheck = "open"

// openPlugin loads lib and fails, naming why, only when the loader cannot open it or it
// exports no KinetoPlugin_register (or this build hosts no plugins); a library that loads,
// with its profilers refused or not, passes: the checks say what is wrong with it.
func openPlugin(lib string) plugintest.Result {
	r := plugintest.Result{Name: pluginOpenCheck, Status: plugintest.Pass}
	_, errs := kineto.LoadPluginFile(lib)
	for _, e := range errs {
		if errors.Is(e, kineto.ErrNotLoadable) || errors.Is(e, kineto.ErrNotPlugin) || errors.Is(e, kineto.ErrPluginsUnsupported) {
			r.Status, r.Reason = plugintest.Fail, e.Err.Error()
			break
		}
	}
	return r
}

// runPluginChild runs one plugin check in a child (execChild) and returns the Result the
// child reported, or a failed Result saying how the child died.
func runPluginChild(exe, lib, check string, timeout time.Duration) plugintest.Result {
	fail := func(format string, a ...any) plugintest.Result {
		return plugintest.Result{Status: plugintest.Fail, Reason: fmt.Sprintf(format, a...)}
	}
	c := execChild(exe, []string{"conformance", "--plugin", lib, "--plugin-check", check}, pluginResultFDEnv, timeout)
	switch {
	case c.err != nil:
		return fail("%v", c.err)
	case c.timedOut:
		return fail("timed out after %v", timeout)
	}
	var r plugintest.Result
	if err := json.Unmarshal(c.out, &r); err == nil && r.Status != "" {
		return r
	}
	return fail("%s", pluginChildExit(c.ps, c.werr, c.stderr))
}

// pluginChildExit says how a child that reported no result ended.
func pluginChildExit(ps *os.ProcessState, werr error, stderr string) string {
	if ps == nil {
		return fmt.Sprintf("child failed: %v", werr)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "crashed: killed by signal " + ws.Signal().String() + pluginLastStep(stderr)
	}
	if m := signalLine.FindStringSubmatch(stderr); m != nil {
		return "crashed: killed by signal " + m[1] + " in the plugin" + pluginLastStep(stderr)
	}
	if m := goCrash.FindString(stderr); m != "" {
		return fmt.Sprintf("child exited with status %d: %s", ps.ExitCode(), m)
	}
	return fmt.Sprintf("child exited with status %d without a result", ps.ExitCode())
}

// pluginStepPrefix starts the lines a child writes to stderr before each plugin call.
const pluginStepPrefix = "orprof conformance: calling "

// pluginLastStep is " during STEP" for the last step a child announced, with a hint where the
// crash has a well-known cause.
func pluginLastStep(stderr string) string {
	last := ""
	for _, l := range strings.Split(stderr, "\n") {
		if s, ok := strings.CutPrefix(l, pluginStepPrefix); ok {
			last = s
		}
	}
	if last == "" {
		return ""
	}
	return " during " + last + stepHint(last)
}

// stepHint is a hint for a crash in a plugin function that has a well-known cause, or "".
func stepHint(step string) string {
	if step == "profilerCreate" {
		return " (assign the handle to params->pProfilerHandle: it is the handle, NULL on entry, not a pointer to write through)"
	}
	return ""
}
