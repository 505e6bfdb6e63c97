package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/internal/outfile"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/openreg/ops"
	"github.com/orprof/orprof/stubs"
	"github.com/orprof/orprof/xpu"
)

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", "usage: orprof run [flags]", stderr)
	var tf tableFlags
	tf.register(fs)
	var sf stepFlags // run_schedule.go
	sf.register(fs)
	workload := fs.String("workload", "mlp", "built-in workload: "+workloadNames())
	device := fs.String("device", "openreg", `device backend ("cpu" profiles the host only)`)
	tracePath := fs.String("trace", "trace.json", `trace file to write ("" writes none; .gz compresses)`)
	legacy := fs.Bool("legacy-trace", false, "write PyTorch's legacy JSON array instead of the Kineto object form")
	noSpans := fs.Bool("no-spans", false, `leave the span event with "pid":"Spans" out of the trace (speedscope cannot load it)`)
	shapes := fs.Bool("record-shapes", false, "record input shapes")
	memory := fs.Bool("profile-memory", false, "record allocations and frees")
	activities := fs.String("activities", "", "Kineto activity types for child profilers, comma-separated (e.g. cpu_op,kernel,gpu_memcpy,privateuse1_runtime)")
	configPath := fs.String("config", "", "Kineto config file (KEY = VALUE lines); default $KINETO_CONFIG")
	pluginDir := fs.String("plugin-dir", "", "directory of Kineto plugins (*.so); default $KINETO_PLUGIN_LIB_DIR_PATH")
	pprofPath := fs.String("pprof", "", "also write the ops as a pprof profile (profile.proto) to this file; - writes it to stdout (and the table to stderr)")
	metrics := fs.String("metrics", "", "hardware metrics per kernel (scope profiler), comma-separated, e.g. GpuTime,GpuCoreClocks,XVE_ACTIVE; records the kernels, so device time is kernel mode's (the sum of each op's kernels), not the fallback interval")
	metricsOut := fs.String("metrics-out", "", "write the per-kernel metrics table to this file (in --format; needed with csv) instead of after the table")
	reportPath := fs.String("report", "", "also write the profile's HTML report (orprof report) to this file")
	pos, exit, stop := parseFlags(fs, args)
	if stop {
		return exit
	}
	if len(pos) > 0 {
		return fail(stderr, "run: unexpected argument %s", quoteArg(pos[0]))
	}
	if msg := tf.check(); msg != "" {
		return failFlag(stderr, "run", "%s", msg)
	}
	if msg := checkRunOutputs(*tracePath, *activities, *metrics, *metricsOut, tf.format); msg != "" {
		return failFlag(stderr, "run", "%s", msg)
	}
	if msg := checkRunTraceFlags(fs, *tracePath, &sf); msg != "" {
		return failFlag(stderr, "run", "%s", msg)
	}
	if tf.byStackN > 0 {
		// The built-in workloads' ops carry no call stacks (PROFILE_WITH_STACK keeps the stacks
		// ops report, and theirs report none): the grouping would change nothing.
		return failFlag(stderr, "run", "--group-by-stack-n %d: the built-in workloads record no call stacks; group a trace that has them with orprof table", tf.byStackN)
	}
	// Kineto config: --config, else $KINETO_CONFIG.
	cfgPath := *configPath
	cfgFlag := "--config"
	if cfgPath == "" {
		cfgPath = os.Getenv("KINETO_CONFIG")
		cfgFlag = "$KINETO_CONFIG"
	}
	// --steps N alone is one profile, as a plain run: its report is written as a plain run's.
	if msg := checkRunReport(*reportPath, sf.used(fs) && !sf.stepsAlone()); msg != "" {
		return failFlag(stderr, "run", "%s", msg)
	}
	outs, ins := runFiles(*tracePath, *pprofPath, *metricsOut, cfgPath, &sf)
	outs = append(outs, outfile.File{Name: "--report", Path: *reportPath})
	ins[0].Name = cfgFlag
	if err := outfile.Check(outs, ins); err != nil {
		return fail(stderr, "run: %v", err)
	}
	if msg := checkTraceDir(sf.traceDir); msg != "" && sf.schedule != "" {
		return failFlag(stderr, "run", "%s", msg) // before the first cycle's table, not after it
	}
	runWorkload, prepare, have, ok := deviceWorkload(*workload, *device)
	if !ok {
		return failFlag(stderr, "run", "--workload %s: unknown workload (have %s)", quoteArg(*workload), have)
	}
	opts := orprof.Options{Device: *device, RecordShapes: *shapes, ProfileMemory: *memory}
	if strings.EqualFold(*device, "cpu") || *device == "" {
		opts.Device = ""
	} else if msg := checkDevice(*device); msg != "" {
		return fail(stderr, "run: %s", msg)
	}
	if cfgPath != "" {
		cfg, err := kineto.LoadConfig(cfgPath)
		if err != nil {
			return fail(stderr, "run: %s: %v", cfgFlag, err) // the env var when it named the file
		}
		for _, w := range cfg.Warnings {
			fmt.Fprintln(stderr, "orprof: warning: "+quote.Printable(w))
		}
		opts.Config = cfg
		opts.Activities = cfg.Activities
		opts.RecordShapes = opts.RecordShapes || cfg.ReportInputShapes
		opts.ProfileMemory = opts.ProfileMemory || cfg.ProfileMemory
		opts.WithStack = cfg.WithStack
	}
	if *activities != "" {
		set, err := kineto.ParseActivities(*activities)
		if err != nil {
			return failFlag(stderr, "run", "--activities: %v", err)
		}
		opts.Activities = set
	}
	if code := loadPlugins(*pluginDir, &opts, stderr); code != 0 {
		return code
	}
	sp, code := scopeProfiler(*metrics, cfgFlag, &opts, stderr)
	if code != 0 {
		return code
	}
	if sf.used(fs) {
		return runSteps(fs, &sf, *workload, runTitle(*workload, *device), opts, &tf, stdout, stderr)
	}

	ctx := orprof.WithThread(context.Background(), orprof.MainThread())
	if prepare != nil {
		if err := prepare(ctx); err != nil {
			return fail(stderr, "run: workload %s: %v", *workload, err)
		}
	}
	sess, err := orprof.Start(opts)
	if err != nil {
		return fail(stderr, "run: %v", err)
	}
	runErr := runWorkload(ctx)
	res, stopErr := sess.Stop()
	if runErr != nil {
		return fail(stderr, "run: workload %s: %v", *workload, runErr)
	}
	if stopErr != nil {
		if res == nil {
			return fail(stderr, "run: %v", stopErr)
		}
		fmt.Fprintln(stderr, "orprof: warning: "+quote.Printable(strings.ReplaceAll(stopErr.Error(), "\n", "; ")))
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, "orprof: warning: "+quote.Printable(w))
	}
	out := stdout
	if *tracePath == "-" || *pprofPath == "-" {
		out = stderr // the trace or the profile has stdout
	}
	var scopes []xpu.Scope
	if sp != nil {
		scopes = sp.LastScopes()
	}
	if err := writeRunTables(out, &tf, res, opts.ProfileMemory, scopes, *metricsOut); err != nil {
		return fail(stderr, "run: %v", err)
	}
	if *pprofPath != "" {
		if err := writePprofFile(*pprofPath, stdout, res.Events); err != nil {
			return fail(stderr, "run: --pprof %s: %v", quote.Clip(*pprofPath), err)
		}
	}
	if *reportPath != "" {
		if err := writeRunReport(*reportPath, res, runTitle(*workload, *device), &tf, opts.ProfileMemory); err != nil {
			return fail(stderr, "run: --report %s: %v", quote.Clip(*reportPath), err)
		}
		fmt.Fprintf(stderr, "orprof: report written to %s\n", *reportPath)
	}
	if *tracePath != "" {
		res.Trace().OmitSpans = *noSpans
		if err := writeTraceOutput(*tracePath, stdout, res, *legacy); err != nil {
			return fail(stderr, "run: --trace %s: %v", quote.Clip(*tracePath), err)
		}
		if *tracePath != "-" {
			fmt.Fprintf(stderr, "orprof: trace written to %s\n", *tracePath)
		}
	}
	return 0
}

// scopeProfiler sets up the scope profiler when --metrics or the Kineto config asks for
// hardware metrics: --metrics sets XPUPTI_PROFILER_METRICS and turns on the
// xpu_scope_profiler and kernel activities. A bad metric list is an error (exit 2).
// cfgFlag names where the config came from (--config or $KINETO_CONFIG).
func scopeProfiler(metrics, cfgFlag string, opts *orprof.Options, stderr io.Writer) (*xpu.ScopeProfiler, int) {
	if metrics != "" {
		if opts.Device == "" {
			return nil, failFlag(stderr, "run", "--metrics: the CPU has no metric source; use --device openreg")
		}
		cfg := opts.Config
		if cfg == nil {
			cfg = kineto.NewConfig()
			cfg.Activities = opts.Activities
		}
		opts.Config = xpu.WithMetrics(cfg, strings.Split(metrics, ","))
		opts.Activities = opts.Activities.Add(kineto.XPUScopeProfiler).Add(kineto.ConcurrentKernel)
	}
	if opts.Config == nil || !opts.Activities.Has(kineto.XPUScopeProfiler) || opts.Device == "" {
		return nil, 0
	}
	if err := xpu.CheckConfig(opts.Config, opts.Device); err != nil {
		flag := cfgFlag
		if metrics != "" {
			flag = "--metrics"
		}
		return nil, fail(stderr, "run: %s: %v", flag, err)
	}
	sp := xpu.NewScopeProfiler(opts.Device)
	opts.Profilers = append(opts.Profilers, sp)
	return sp, 0
}

// checkDevice returns a message naming --device and the registered devices when no backend is
// registered under name, or "".
func checkDevice(name string) string {
	if stubs.Registered(name) {
		return ""
	}
	return fmt.Sprintf("--device %s: no backend registered under that name (have cpu, %s)",
		quote.String(name), strings.Join(stubs.Devices(), ", "))
}

func workloadNames() string {
	var names []string
	for _, w := range ops.Workloads() {
		names = append(names, w.Name)
	}
	return strings.Join(names, ", ")
}

// registerProbedPlugins registers the plugin libraries of dir, each probed first in a child
// process (probeLibrary, as orprof plugins does: loaded, and one session of each profiler
// driven through create, start, stop and processEvents). A library whose probe crashed, hung
// or ended the child without reporting back is not loaded in this process, where it would end
// the run, and a profiler whose probe session failed is not used: each is registered as
// refused with the reason, which the session reports in one warning line naming it. The rest
// load as kineto.RegisterPlugins loads them (a library under several names once). A probe is a
// child start per library, tens of ms.
func registerProbedPlugins(dir string) {
	libs, _, err := pluginCandidates(dir)
	if err != nil {
		kineto.RegisterPlugins(dir) // the unreadable directory's refusal
		return
	}
	exe, exeErr := os.Executable()
	for _, lib := range libs {
		r := probed{failed: fmt.Sprintf("cannot be probed in a child process: %v", exeErr)}
		if exeErr == nil {
			r = probeLibrary(exe, lib.path)
		}
		if r.failed != "" {
			kineto.RegisterRefused(kineto.PluginError{Path: lib.path, Err: errors.New(quote.Printable(r.failed) + "; not loaded")})
			continue
		}
		ps, errs := kineto.LoadPluginFile(lib.path)
		for _, p := range ps {
			if why, bad := r.Refused[p.Index]; bad {
				kineto.RegisterRefused(kineto.PluginError{Path: p.Path, Name: p.Name(), Err: errors.New(quote.Printable(why) + "; not used")})
				continue
			}
			kineto.RegisterPlugin(p)
		}
		for _, e := range errs {
			kineto.RegisterRefused(e)
		}
	}
}

// loadPlugins registers the Kineto plugins of dir (or $KINETO_PLUGIN_LIB_DIR_PATH). Plugins
// that are refused are reported as warnings and the profile goes on; an unreadable --plugin-dir
// is an error.
func loadPlugins(dir string, opts *orprof.Options, stderr io.Writer) int {
	// Refused libraries stay registered as profilers whose Configure fails, so each session
	// reports them once in its warnings; they are not printed here too.
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fail(stderr, "run: --plugin-dir %s: not a readable directory", dir)
		}
		registerProbedPlugins(dir)
	} else if env := os.Getenv(kineto.PluginDirEnv); env != "" {
		registerProbedPlugins(env)
	}
	if (dir != "" || os.Getenv(kineto.PluginDirEnv) != "") && opts.Activities.Empty() {
		// Plugins take part only in sessions with activities: loading them asks for Kineto's
		// default set unless --activities or a config chose.
		opts.Activities = kineto.DefaultActivities()
	}
	return 0
}
