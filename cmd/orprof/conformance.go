package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/orprof/orprof/internal/verdict"
	_ "github.com/orprof/orprof/openreg" // registers "openreg" for --device openreg
	"github.com/orprof/orprof/stubs"
	"github.com/orprof/orprof/stubs/stubstest"
)

// resultFDEnv names the file descriptor a child writes its JSON result to. A pipe kept apart
// from stdout and stderr, so whatever the backend prints cannot be mistaken for a result.
const resultFDEnv = "ORPROF_CONFORMANCE_RESULT_FD"

const conformanceUsage = `usage: orprof conformance (--lib PATH.so | --device NAME) [--verbose | -v] [--timeout DURATION]

Runs every conformance check against a device backend, each in its own child process, and prints
one line per check (PASS name, FAIL name: reason, SKIP name: reason) and a closing count.
A backend that is not enabled fails "enabled" and skips the rest.
Exit status: 0 all passed, 1 a check failed, 2 the backend could not be loaded.
docs/backend-guide.md says what each check means and how to read a failure.

  --lib PATH.so       a C backend built against orprof_stubs.h
  --device NAME       a Go backend registered in this binary (orprof's registered devices)
  --verbose, -v       print under each check the rule it enforces (PyTorch's or orprof's; with
                      --plugin, kineto PR #1148's or orprof's)
  --timeout DURATION  time limit of each check (default 30s); a check that runs longer fails
  --plugin LIB.so     check a Kineto profiler plugin instead ('orprof conformance --plugin LIB.so -h')
`

// runConformance is `orprof conformance`. It re-executes this binary once to probe that a --lib
// backend loads, then once per check with the hidden flag --one CASE: the child runs that case
// and writes its stubstest.Result as JSON to the pipe named by ORPROF_CONFORMANCE_RESULT_FD.
// A child that crashes (a signal in the backend) or outlives --timeout (killed) fails its
// check only; the other checks still run and the closing line is always printed.
func runConformance(args []string, stdout, stderr io.Writer) int {
	if wantsPluginConformance(args) { // a Kineto plugin: conformance_plugin.go
		return runPluginConformance(args, stdout, stderr)
	}
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	lib := fs.String("lib", "", "")
	device := fs.String("device", "", "")
	timeout := fs.Duration("timeout", 30*time.Second, "")
	verbose := fs.Bool("verbose", false, "")
	fs.BoolVar(verbose, "v", false, "")
	one := fs.String("one", "", "")      // hidden: run one case in this process (child)
	probe := fs.Bool("probe", false, "") // hidden: only load the --lib backend (child)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, conformanceUsage)
			return 0
		}
		fmt.Fprintln(stderr, flagErrorLine("orprof conformance", err))
		return 2
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "orprof conformance: unexpected argument %s; run 'orprof conformance -h'\n", quoteArg(fs.Arg(0)))
		return 2
	case (*lib == "") == (*device == ""):
		fmt.Fprintln(stderr, "orprof conformance: need exactly one of --lib PATH.so, --device NAME or --plugin LIB.so; run 'orprof conformance -h'")
		return 2
	case *timeout <= 0:
		fmt.Fprintf(stderr, "orprof conformance: --timeout %v: must be positive; run 'orprof conformance -h'\n", *timeout)
		return 2
	}

	newBackend := func() (stubs.Stubs, error) { return stubs.Lookup(*device), nil }
	var opts []stubstest.Option
	if *device != "" {
		opts = append(opts, stubstest.Device(*device))
	}
	backendArgs := []string{"--device", *device}
	if *lib != "" {
		path := *lib
		if _, err := os.Stat(path); err == nil {
			if abs, err := filepath.Abs(path); err == nil {
				path = abs
			}
		}
		newBackend = func() (stubs.Stubs, error) {
			s, err := stubs.Open(path)
			if err != nil {
				return nil, err
			}
			return s, nil
		}
		backendArgs = []string{"--lib", path}
	}

	if *probe || *one != "" {
		return runConformanceChild(*one, newBackend, opts, stdout, stderr)
	}

	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "orprof conformance: cannot re-execute orprof for isolated checks: %v\n", err)
		return 2
	}
	if *lib != "" {
		r := runChild(exe, append([]string{"--probe"}, backendArgs...), *timeout)
		if r.Status != stubstest.Pass {
			if r.Reason == "" {
				r.Reason = "cannot be loaded"
			}
			if !strings.Contains(r.Reason, *lib) && !strings.Contains(r.Reason, backendArgs[1]) {
				r.Reason = *lib + ": loading: " + r.Reason
			}
			fmt.Fprintf(stderr, "orprof conformance: %s\n", verdict.Fold(r.Reason))
			return 2
		}
	} else if !stubs.Registered(*device) {
		fmt.Fprintf(stderr, "orprof conformance: --device %s: no backend registered under that name (registered: %s); run 'orprof conformance -h'\n",
			quoteArg(*device), orNone(stubs.Devices()))
		return 2
	} else if st := stubs.Lookup(*device); !st.Enabled() {
		// A registered backend that says why it cannot run here (no OpenCL platform) could
		// not be loaded: its reason, once, instead of the same failure in every check.
		if err := st.Synchronize(context.Background()); err != nil && !errors.Is(err, stubs.ErrNotEnabled) {
			fmt.Fprintf(stderr, "orprof conformance: --device %s: %s\n", *device, verdict.Fold(err.Error()))
			return 2
		}
	}

	var tally verdictTally
	for _, c := range stubstest.Cases() {
		r := runChild(exe, append([]string{"--one", c.Name}, backendArgs...), *timeout)
		r.Name = c.Name
		tally.print(stdout, r, *verbose, c.Desc)
	}
	return tally.finish(stdout)
}

// verdictTally prints the results of either conformance kit (both are verdict.Results) the
// same way, one line each, and counts them for the summary line.
type verdictTally struct{ passed, failed, skipped int }

// print prints r (a status other than PASS or SKIP is a FAIL) and, with verbose, the rule the
// check enforces under it.
func (t *verdictTally) print(stdout io.Writer, r verdict.Result, verbose bool, rule string) {
	switch r.Status {
	case verdict.Pass:
		t.passed++
	case verdict.Skip:
		t.skipped++
	default:
		r.Status = verdict.Fail
		t.failed++
	}
	fmt.Fprintln(stdout, r)
	if verbose {
		fmt.Fprintln(stdout, "    "+rule)
	}
}

// finish prints "N passed, M failed[, K skipped]" and returns the exit status: 1 when a check
// failed, else 0.
func (t *verdictTally) finish(stdout io.Writer) int {
	summary := fmt.Sprintf("%d passed, %d failed", t.passed, t.failed)
	if t.skipped > 0 {
		summary += fmt.Sprintf(", %d skipped", t.skipped)
	}
	fmt.Fprintln(stdout, summary)
	if t.failed > 0 {
		return 1
	}
	return 0
}

// runConformanceChild runs in the child: the case named one, or (one == "") just loading the
// backend, and reports the Result on the result pipe (or as a line on stdout when run by hand).
func runConformanceChild(one string, newBackend func() (stubs.Stubs, error), opts []stubstest.Option, stdout, stderr io.Writer) int {
	var r stubstest.Result
	if one == "" {
		r = stubstest.Result{Name: "load", Status: stubstest.Pass}
		s, err := newBackend()
		if err != nil {
			r.Status, r.Reason = stubstest.Fail, err.Error()
		} else if c, ok := s.(stubs.Closer); ok {
			_ = c.Close()
		}
	} else {
		found := false
		for _, c := range stubstest.Cases() {
			if c.Name == one {
				// No timeout here: the parent kills a child that runs too long.
				r, found = c.Run(newBackend, append(opts, stubstest.Timeout(0))...), true
				break
			}
		}
		if !found {
			fmt.Fprintf(stderr, "orprof conformance: --one %s: no such check\n", one)
			return 2
		}
	}
	fd := os.Getenv(resultFDEnv)
	if fd == "" {
		fmt.Fprintln(stdout, r)
		return 0
	}
	var n uintptr
	if _, err := fmt.Sscan(fd, &n); err != nil {
		fmt.Fprintf(stderr, "orprof conformance: %s=%q: not a file descriptor\n", resultFDEnv, fd)
		return 2
	}
	f := os.NewFile(n, "result")
	if err := json.NewEncoder(f).Encode(r); err != nil {
		fmt.Fprintf(stderr, "orprof conformance: writing the result: %v\n", err)
		return 2
	}
	return 0
}

// childRun is how one re-executed check ended: what it wrote on its result descriptor (fd 3),
// the last bytes of its stderr, and its exit. err is set when the child could not be run.
type childRun struct {
	out      []byte
	ps       *os.ProcessState
	werr     error
	stderr   string
	timedOut bool
	err      error
}

// execChild re-executes exe as `exe ARGS...` (a command and its arguments) with a time limit,
// fd 3 a pipe whose number the child finds in $fdEnv, and its stdout discarded: both kits run
// each check so, and orprof plugins and run probe each plugin library so.
func execChild(exe string, args []string, fdEnv string, timeout time.Duration) childRun {
	rd, wr, err := os.Pipe()
	if err != nil {
		return childRun{err: fmt.Errorf("cannot make a result pipe: %v", err)}
	}
	defer rd.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.ExtraFiles = []*os.File{wr} // fd 3 in the child
	cmd.Env = append(os.Environ(), fdEnv+"=3")
	errTail := &tailBuffer{max: 16 << 10}
	cmd.Stdout = io.Discard // what the backend or plugin prints is not ours to judge
	cmd.Stderr = errTail
	cmd.WaitDelay = 2 * time.Second // do not wait for grandchildren holding stderr

	if err := cmd.Start(); err != nil {
		wr.Close()
		return childRun{err: fmt.Errorf("cannot start a child process: %v", err)}
	}
	wr.Close()
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(rd, 1<<20))
		got <- b
	}()
	werr := cmd.Wait()
	_ = rd.SetReadDeadline(time.Now().Add(time.Second)) // a grandchild may still hold the pipe
	out := <-got
	return childRun{out: bytes.TrimSpace(out), ps: cmd.ProcessState, werr: werr, stderr: errTail.String(),
		timedOut: ctx.Err() == context.DeadlineExceeded}
}

// runChild runs one stubs check as `exe conformance ARGS...` (execChild) and returns the
// Result the child reported, or a failed Result describing how the child died.
func runChild(exe string, args []string, timeout time.Duration) stubstest.Result {
	fail := func(format string, a ...any) stubstest.Result {
		return stubstest.Result{Status: stubstest.Fail, Reason: fmt.Sprintf(format, a...)}
	}
	c := execChild(exe, append([]string{"conformance"}, args...), resultFDEnv, timeout)
	switch {
	case c.err != nil:
		return fail("%v", c.err)
	case c.timedOut:
		return fail("timed out after %v", timeout)
	}
	var r stubstest.Result
	if err := json.Unmarshal(c.out, &r); err == nil && r.Status != "" {
		return r
	}
	return fail("%s", describeExit(c.ps, c.werr, c.stderr))
}

var (
	// The Go runtime catches a fatal signal raised in C code and exits with status 2 after
	// printing "SIGSEGV: segmentation violation" (or "[signal SIGSEGV: ..." for Go code).
	signalLine = regexp.MustCompile(`(?m)^\[?(?:signal )?(SIG[A-Z0-9]+):? `)
	goCrash    = regexp.MustCompile(`(?m)^(?:panic|fatal error): .*$`)
)

// describeExit says how a child that reported no result ended.
func describeExit(ps *os.ProcessState, werr error, stderr string) string {
	if ps == nil {
		return fmt.Sprintf("child failed: %v", werr)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by signal " + signalName(ws.Signal())
	}
	if m := signalLine.FindStringSubmatch(stderr); m != nil {
		return "killed by signal " + m[1]
	}
	if m := goCrash.FindString(stderr); m != "" {
		return fmt.Sprintf("child exited with status %d: %s", ps.ExitCode(), m)
	}
	last := ""
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			last = l
		}
	}
	if last != "" {
		return fmt.Sprintf("child exited with status %d without a result: %s", ps.ExitCode(), last)
	}
	return fmt.Sprintf("child exited with status %d without a result", ps.ExitCode())
}

func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGABRT: "SIGABRT", syscall.SIGALRM: "SIGALRM", syscall.SIGBUS: "SIGBUS",
		syscall.SIGFPE: "SIGFPE", syscall.SIGHUP: "SIGHUP", syscall.SIGILL: "SIGILL",
		syscall.SIGINT: "SIGINT", syscall.SIGKILL: "SIGKILL", syscall.SIGPIPE: "SIGPIPE",
		syscall.SIGQUIT: "SIGQUIT", syscall.SIGSEGV: "SIGSEGV", syscall.SIGTERM: "SIGTERM",
		syscall.SIGTRAP: "SIGTRAP",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return fmt.Sprintf("%d (%v)", int(s), s)
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// tailBuffer keeps the last max bytes written to it; safe for the one writer exec uses.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
