package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/httpprof"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/openreg"
	"github.com/orprof/orprof/openreg/ops"
)

// stepFlags are run's flags for running the workload step by step under an orprof.Profiler:
// a schedule, on-demand captures over HTTP, or a number of steps.
type stepFlags struct {
	schedule string
	traceDir string
	gzip     bool
	steps    int
	http     string
	loop     bool
	// maxEvents bounds each HTTP capture (httpprof.Options.MaxEvents); 0 is its default.
	maxEvents int
}

func (sf *stepFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&sf.schedule, "schedule", "", "run the workload step by step under torch.profiler's schedule, e.g. wait=1,warmup=1,active=2,repeat=2[,skip_first=N]; each cycle's table is printed")
	fs.StringVar(&sf.traceDir, "trace-dir", "", "with --schedule: write each cycle's trace into DIR as <host>_<pid>.<unix ms>.pt.trace.json (tensorboard_trace_handler's names)")
	fs.BoolVar(&sf.gzip, "trace-gzip", false, "with --trace-dir: write .pt.trace.json.gz files")
	fs.IntVar(&sf.steps, "steps", 0, "workload steps to run (default: as many as --schedule needs); alone, profiles that many steps as one cycle")
	fs.StringVar(&sf.http, "http", "", "serve on-demand captures on ADDR (e.g. 127.0.0.1:6060) while the workload runs: GET /debug/orprof/trace?steps=N or /debug/orprof/table?steps=N; each capture is logged in one line")
	fs.BoolVar(&sf.loop, "loop", false, "run workload steps until SIGINT or SIGTERM (with --http or --schedule)")
	fs.IntVar(&sf.maxEvents, "http-max-events", 0, fmt.Sprintf("with --http: end a capture once it holds `N` records (host records and their device events or kernels), with a warning; default %d, -1 for no bound (a second of the mlp workload is ~12,000–20,000)", httpprof.DefaultMaxEvents))
}

// stepsAlone reports whether --steps N is the only step flag: one cycle of N steps, a profile
// as a plain run's (its table, trace, --pprof and --report written as a plain run writes them).
func (sf *stepFlags) stepsAlone() bool {
	return sf.steps != 0 && sf.schedule == "" && sf.traceDir == "" && !sf.gzip && sf.http == "" && !sf.loop && sf.maxEvents == 0
}

// used reports whether any step flag was given (--steps 0 too, which runSteps refuses): run
// then goes through runSteps.
func (sf *stepFlags) used(fs *flag.FlagSet) bool {
	steps, maxEvents := false, false
	fs.Visit(func(f *flag.Flag) {
		steps = steps || f.Name == "steps"
		maxEvents = maxEvents || f.Name == "http-max-events"
	})
	return sf.schedule != "" || sf.traceDir != "" || sf.gzip || steps || sf.http != "" || sf.loop || maxEvents
}

// runSteps runs the workload a step at a time under a Profiler until the schedule is done,
// --steps steps have run, or (with --loop, and at any time) SIGINT or SIGTERM arrives; a signal
// ends the profiler cleanly, as torch.profiler's exit does (a cycle that had begun recording
// is still printed and written).
func runSteps(fs *flag.FlagSet, sf *stepFlags, workload, title string, opts orprof.Options, tf *tableFlags, stdout, stderr io.Writer) int {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var sched *orprof.Schedule
	switch {
	case strings.EqualFold(opts.Device, "opencl"):
		return failFlag(stderr, "run", "--device opencl: the step-by-step modes (--schedule, --steps, --http, --loop) run OpenReg's workloads only")
	case set["steps"] && sf.steps < 1:
		return failFlag(stderr, "run", "--steps %d: must be ≥ 1", sf.steps)
	case sf.steps > 0 && sf.loop:
		return failFlag(stderr, "run", "--steps and --loop: choose one (--loop runs until SIGINT or SIGTERM)")
	case sf.http != "" && sf.schedule != "":
		return failFlag(stderr, "run", "--http and --schedule: choose one (captures over HTTP need a profiler without a schedule)")
	case sf.http != "" && sf.steps == 0 && !sf.loop:
		return failFlag(stderr, "run", "--http: add --loop (run until SIGINT or SIGTERM) or --steps N")
	case sf.http == "" && sf.schedule == "" && sf.loop:
		return failFlag(stderr, "run", "--loop: add --http ADDR or --schedule (a loop needs something to capture)")
	case sf.traceDir != "" && sf.schedule == "":
		return failFlag(stderr, "run", "--trace-dir: needs --schedule")
	case set["http-max-events"] && sf.http == "":
		return failFlag(stderr, "run", "--http-max-events: needs --http (it bounds the captures served there)")
	case sf.maxEvents < -1 || set["http-max-events"] && sf.maxEvents == 0:
		return failFlag(stderr, "run", "--http-max-events %d: must be -1 (no bound) or a count ≥ 1 (default %d)", sf.maxEvents, httpprof.DefaultMaxEvents)
	case sf.gzip && sf.traceDir == "":
		return failFlag(stderr, "run", "--trace-gzip: needs --trace-dir")
	case sf.schedule != "" && set["trace"]:
		return failFlag(stderr, "run", "--trace: with --schedule each cycle has its own trace; use --trace-dir DIR")
	case sf.http != "" && set["trace"]:
		return failFlag(stderr, "run", "--trace: with --http the traces go to the HTTP clients")
	case sf.schedule != "" && set["pprof"]:
		return failFlag(stderr, "run", "--pprof: with --schedule each cycle is a profile of its own; run --steps N --pprof FILE for one")
	case sf.http != "" && set["pprof"]:
		return failFlag(stderr, "run", "--pprof: with --http the profiles go to the HTTP clients; run --steps N --pprof FILE for one")
	}
	if sf.http != "" {
		// The captures' tables go to the HTTP clients (table?format=…&row_limit=…); this
		// process logs one line per capture, so the table flags have nothing to shape.
		for _, name := range []string{"format", "row-limit", "sort-by", "max-name-column-width", "pytorch-1.13", "group-by-input-shape"} {
			if set[name] {
				return failFlag(stderr, "run", "--%s: with --http the tables go to the HTTP clients (GET %stable?steps=N&format=F&row_limit=N&sort_by=KEY)", name, httpprof.Prefix)
			}
		}
	}
	// After the checks above: a flag of the step modes given alone (--trace-gzip) is named
	// first, rather than the step mode it would start.
	for _, name := range []string{"legacy-trace", "metrics"} {
		if set[name] {
			return failFlag(stderr, "run", "--%s: not available with --schedule, --steps, --http or --loop", name)
		}
	}
	pprofPath := fs.Lookup("pprof").Value.String()
	reportPath := fs.Lookup("report").Value.String()
	noSpans := fs.Lookup("no-spans").Value.String() == "true"
	steps := sf.steps
	if sf.schedule != "" {
		s, err := orprof.ParseSchedule(sf.schedule)
		if err != nil {
			return failFlag(stderr, "run", "--schedule %s: %v", quoteFlag(sf.schedule), err)
		}
		sched = &s
		if steps == 0 && !sf.loop {
			if steps = s.Steps(); steps == 0 {
				return failFlag(stderr, "run", "--schedule %s: repeat=0 never ends; add --steps N or --loop", quoteFlag(sf.schedule))
			}
		}
	} else if sf.http == "" {
		// --steps N alone: those steps as one cycle, printed and written as a plain run is.
		sched = &orprof.Schedule{Active: steps, Repeat: 1}
	}

	tracePath := fs.Lookup("trace").Value.String()
	tables := stdout
	if (tracePath == "-" || pprofPath == "-") && sf.schedule == "" && sf.http == "" {
		tables = stderr // the trace or the profile has stdout, as in a plain run
	}
	cycles := 0
	var mu sync.Mutex // captures are handed over on their clients' goroutines
	onReady := func(res *orprof.Result) error {
		mu.Lock()
		defer mu.Unlock()
		for _, w := range res.Warnings {
			fmt.Fprintln(stderr, "orprof: warning: "+w)
		}
		if sf.http != "" {
			// One line per capture: its table and trace went to the client (a table per
			// capture here was megabytes of stdout over a long-running server's captures).
			cycles++
			fmt.Fprintf(stderr, "orprof: captured %s (%s)\n", stepRange(res), countNoun(res.Events.Len(), "event", "events"))
			return nil
		}
		if cycles > 0 {
			fmt.Fprintln(tables)
		}
		cycles++
		if err := tf.write(tables, res.Events, res.Device, res.Options.ProfileMemory); err != nil {
			return err
		}
		res.Trace().OmitSpans = noSpans
		switch {
		case sf.traceDir != "":
			path, err := orprof.WriteTraceFile(sf.traceDir, res, orprof.TraceHandlerOptions{Gzip: sf.gzip})
			if err != nil {
				return fmt.Errorf("--trace-dir: %w", err)
			}
			fmt.Fprintf(stderr, "orprof: trace of %s written to %s\n", stepRange(res), path)
		case sf.schedule == "" && sf.http == "" && tracePath != "":
			if err := writeTraceOutput(tracePath, stdout, res, false); err != nil {
				return fmt.Errorf("--trace %s: %w", tracePath, err)
			}
			if tracePath != "-" {
				fmt.Fprintf(stderr, "orprof: trace written to %s\n", tracePath)
			}
		}
		if pprofPath != "" {
			if err := writePprofFile(pprofPath, stdout, res.Events); err != nil {
				return fmt.Errorf("--pprof %s: %w", quote.Clip(pprofPath), err)
			}
		}
		if reportPath != "" { // --steps N alone: checkRunReport refused it in the other modes
			if err := writeRunReport(reportPath, res, title, tf, res.Options.ProfileMemory); err != nil {
				return fmt.Errorf("--report %s: %w", quote.Clip(reportPath), err)
			}
			fmt.Fprintf(stderr, "orprof: report written to %s\n", reportPath)
		}
		return nil
	}
	p, err := orprof.NewProfiler(orprof.ProfilerOptions{Options: opts, Schedule: sched, OnTraceReady: onReady})
	if err != nil {
		return fail(stderr, "run: %v", err)
	}

	sig, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	ctx := orprof.WithThread(context.Background(), orprof.MainThread())
	l, err := ops.StartWorkload(ctx, openreg.Default(), workload)
	if err != nil {
		return fail(stderr, "run: --workload: %v", err)
	}
	var srv *http.Server
	if sf.http != "" {
		ln, err := net.Listen("tcp", sf.http)
		if err != nil {
			l.Close(ctx)
			return fail(stderr, "run: --http %s: %v", quoteFlag(sf.http), err)
		}
		mux := http.NewServeMux()
		mux.Handle(httpprof.Prefix, httpprof.NewHandler(p, httpprof.Options{MaxEvents: sf.maxEvents, OmitSpans: noSpans}))
		srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln) //nolint:errcheck // ends with Shutdown
		addr := ln.Addr().String()
		if host, _, _ := net.SplitHostPort(addr); !isLoopback(host) {
			fmt.Fprintf(stderr, "orprof: warning: --http %s is not a loopback address: anyone who can reach it can profile this process\n", addr)
		}
		fmt.Fprintf(stderr, "orprof: serving captures on http://%s%s (trace?steps=N, table?steps=N); Ctrl-C stops\n", addr, httpprof.Prefix)
	}

	started := time.Now()
	runErr := p.Start(ctx)
	n := 0
	for runErr == nil && (sf.loop || n < steps) && sig.Err() == nil {
		if _, err := l.Step(ctx); err != nil {
			runErr = fmt.Errorf("workload %s: step %d: %w", workload, n, err)
			break
		}
		n++
		runErr = p.Step(ctx)
	}
	stopErr := p.Stop()
	if srv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		srv.Shutdown(sctx) //nolint:errcheck // captures in flight were ended by p.Stop
		cancel()
	}
	closeErr := l.Close(ctx)
	mu.Lock()
	captured := cycles
	mu.Unlock()
	if sf.http != "" && !sf.loop && captured == 0 && sig.Err() == nil {
		// --steps N with --http serves while N steps run, which can be milliseconds.
		fmt.Fprintf(stderr, "orprof: warning: --http %s: the server stopped when the workload's %s ended (%v) and no capture was asked for; --loop serves until SIGINT or SIGTERM\n",
			quoteFlag(sf.http), countNoun(n, "step", "steps"), time.Since(started).Round(time.Millisecond))
	}
	if sig.Err() != nil {
		fmt.Fprintf(stderr, "orprof: stopped by signal after %s\n", countNoun(n, "step", "steps"))
	}
	if err := errors.Join(runErr, stopErr, closeErr); err != nil {
		return fail(stderr, "run: %v", err)
	}
	return 0
}

// stepRange names the steps a result holds, "ProfilerStep#2..#3", or "0 steps".
func stepRange(res *orprof.Result) string {
	first, last, n := -1, -1, 0
	for _, e := range res.Events.Events() {
		var k int
		if _, err := fmt.Sscanf(e.TraceName, "ProfilerStep#%d", &k); err == nil && strings.HasPrefix(e.TraceName, "ProfilerStep#") {
			if n == 0 || k < first {
				first = k
			}
			if k > last {
				last = k
			}
			n++
		}
	}
	switch n {
	case 0:
		return "0 steps"
	case 1:
		return fmt.Sprintf("ProfilerStep#%d", first)
	}
	return fmt.Sprintf("ProfilerStep#%d..#%d", first, last)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// quoteFlag quotes at most ~100 bytes of a flag value.
func quoteFlag(s string) string {
	if len(s) > 100 {
		return fmt.Sprintf("%q…", s[:100])
	}
	return fmt.Sprintf("%q", s)
}
