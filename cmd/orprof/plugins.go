package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	iofs "io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/kineto"
)

const pluginsUsage = `usage: orprof plugins [--dir DIR]

Loads every Kineto profiler plugin (*.so, not recursive) in DIR, or in $KINETO_PLUGIN_LIB_DIR_PATH
when --dir is not given, and prints one line per plugin: the library path, the profiler's name
and its activity types, or why the library or profiler was refused. Each library is probed in a
child process of its own: loaded, then one session of each profiler driven through create,
start, stop and processEvents. A library that crashes, hangs or ends the child without
reporting back there is listed as refused with the reason, as is a profiler whose session
fails (orprof run --plugin-dir probes them the same way and uses none of them). What is not a
library (a directory, a dangling symbolic link, a link loop) is listed as refused with the
reason, and a library under two names is listed once. Probing runs the plugins' code. Exit
status: 0 when the directory was read (refusals included), 2 when no directory is given or it
cannot be read.
`

// pluginProbeTimeout bounds how long one library's child may take to load it.
const pluginProbeTimeout = 30 * time.Second

// runPlugins is `orprof plugins`.
func runPlugins(args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "--probe" && os.Getenv(pluginProbeEnv) != "" {
		return runPluginProbeChild(args[1], stderr) // the child probeLibrary starts
	}
	fs := newFlagSet("plugins", pluginsUsage, stderr)
	dir := fs.String("dir", "", "plugin directory (default $"+kineto.PluginDirEnv+")")
	pos, exit, stop := parseFlags(fs, args)
	switch {
	case stop:
		return exit
	case len(pos) > 0:
		return fail(stderr, "plugins: unexpected argument %s; run 'orprof plugins -h'", quoteArg(pos[0]))
	}
	dirFlag := "--dir"
	if *dir == "" {
		*dir, dirFlag = os.Getenv(kineto.PluginDirEnv), "$"+kineto.PluginDirEnv
	}
	if *dir == "" {
		return fail(stderr, "plugins: no plugin directory: pass --dir DIR or set %s", kineto.PluginDirEnv)
	}
	libs, refused, err := pluginCandidates(*dir)
	if err != nil {
		// The directory's own error (pluginCandidates wraps two: errors.Unwrap gives neither).
		why := error(err)
		var pe *iofs.PathError
		if errors.As(err, &pe) {
			why = pe.Err
		}
		return fail(stderr, "plugins: %s %s: %v", dirFlag, quote.String(*dir), why)
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(stderr, "plugins: cannot find this program to load each library in a child: %v", err)
	}
	type line struct{ path, text string }
	var lines []line
	for _, r := range refused {
		lines = append(lines, line{r.path, r.path + "\trefused: " + r.why})
	}
	for _, lib := range libs {
		r := probeLibrary(exe, lib.path)
		if r.failed != "" {
			r.Lines = []string{lib.path + "\trefused: " + quote.Printable(r.failed)}
		}
		for _, l := range r.Lines {
			if len(lib.aliases) > 0 {
				l += "\t(also named " + strings.Join(lib.aliases, ", ") + ")"
			}
			lines = append(lines, line{lib.path, l})
		}
	}
	if len(lines) == 0 {
		fmt.Fprintf(stdout, "no plugins (*.so) in %s\n", quote.Printable(*dir))
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].path < lines[j].path })
	for _, l := range lines {
		fmt.Fprintln(stdout, l.text)
	}
	return 0
}

// pluginLines renders what loading one library gave: a line per profiler (path, name, activity
// types) and per warning, and a line per refusal.
func pluginLines(plugins []*kineto.Plugin, errs []kineto.PluginError) []string {
	var out []string
	for _, p := range plugins {
		types := p.AvailableActivities().String()
		if types == "" {
			types = "(no activity types)"
		}
		// A plugin chooses its name and messages: no terminal escapes reach the screen.
		name := quote.Printable(p.Name())
		out = append(out, fmt.Sprintf("%s\t%s\t%s", p.Path, name, types))
		for _, w := range p.Warnings {
			out = append(out, fmt.Sprintf("%s\t%s\twarning: %s", p.Path, name, quote.Printable(w)))
		}
	}
	for _, e := range errs {
		name := ""
		if e.Name != "" {
			name = quote.Printable(e.Name) + "\t"
		}
		out = append(out, fmt.Sprintf("%s\t%srefused: %s", e.Path, name, quote.Printable(strings.ReplaceAll(e.Err.Error(), "\n", "; "))))
	}
	return out
}

// pluginLib is a library to load: its first name in the directory and its other names (hard or
// symbolic links to the same file).
type pluginLib struct {
	path    string
	aliases []string
	info    fs.FileInfo
}

type pluginRefusal struct{ path, why string }

// pluginCandidates lists the entries *.so of dir (not recursive, in name order): the libraries
// to load, each once whatever its number of names, and what is refused without loading it with
// the reason. The error wraps the directory's read error.
func pluginCandidates(dir string) ([]pluginLib, []pluginRefusal, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", kineto.ErrPluginDir, err)
	}
	var libs []pluginLib
	var refused []pluginRefusal
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".so") || name == ".so" {
			continue
		}
		path := filepath.Join(dir, name)
		fi, err := os.Stat(path)
		if err != nil {
			refused = append(refused, pluginRefusal{path, statReason(path, err)})
			continue
		}
		switch {
		case fi.IsDir():
			refused = append(refused, pluginRefusal{path, "a directory, not a library"})
			continue
		case !fi.Mode().IsRegular():
			refused = append(refused, pluginRefusal{path, "not a regular file (" + fi.Mode().Type().String() + ")"})
			continue
		}
		dup := false
		for i := range libs {
			if os.SameFile(libs[i].info, fi) {
				libs[i].aliases = append(libs[i].aliases, name)
				dup = true
				break
			}
		}
		if !dup {
			libs = append(libs, pluginLib{path: path, info: fi})
		}
	}
	return libs, refused, nil
}

// statReason says why a directory entry cannot be opened as a library.
func statReason(path string, err error) string {
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		switch {
		case errors.Is(err, syscall.ELOOP):
			return "a symbolic link loop (" + quote.Printable(quote.Clip(target)) + ")"
		case errors.Is(err, fs.ErrNotExist):
			return "a dangling symbolic link: " + quote.Printable(quote.Clip(target)) + " does not exist"
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return quote.Printable(err.Error())
}

// probeSignal finds the fatal signal the Go runtime reports when C code crashes
// ("SIGSEGV: segmentation violation", "[signal SIGSEGV: …").
var probeSignal = regexp.MustCompile(`(?m)^\[?(?:signal )?(SIG[A-Z0-9]+):? `)

// probeStepPrefix starts the lines a probe child writes to stderr before each plugin call.
const probeStepPrefix = "orprof plugins: calling "

// probeLoadStep is the probe's first step: dlopen (the constructors), KinetoPlugin_register
// and profilerQuery.
const probeLoadStep = "KinetoPlugin_register"

// probeReport is what a probe child writes on its result pipe: orprof plugins' lines for the
// library, and the profilers (by Plugin.Index) whose probe session failed, with the reason.
type probeReport struct {
	Lines   []string       `json:"lines"`
	Refused map[int]string `json:"refused,omitempty"`
}

// probed is how probing one library ended: the child's report, or why there is none (failed:
// it crashed, hung, or ended without reporting back), which makes the library unsafe to load.
type probed struct {
	probeReport
	failed string
}

// runPluginProbeChild is the child probeLibrary starts (`orprof plugins --probe LIB` with
// $ORPROF_PLUGIN_PROBE the number of its result pipe; not a flag of the command): it loads the
// library, drives one session of each profiler (kineto.Plugin.Probe), and reports. Each step
// goes to stderr first, so that the parent can name the one that crashed.
func runPluginProbeChild(lib string, stderr io.Writer) int {
	step := func(s string) { fmt.Fprintf(stderr, "%s%s\n", probeStepPrefix, s) }
	step(probeLoadStep)
	ps, errs := kineto.LoadPluginFile(lib)
	rep := probeReport{Refused: map[int]string{}}
	var good []*kineto.Plugin
	for _, p := range ps {
		err := p.Probe(step)
		if err == nil {
			good = append(good, p)
			continue
		}
		var pe kineto.PluginError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		why := "a probe session failed: " + err.Error()
		rep.Refused[p.Index] = why
		errs = append(errs, kineto.PluginError{Path: p.Path, Name: p.Name(), Err: errors.New(why)})
	}
	rep.Lines = pluginLines(good, errs)
	var fd uintptr
	if _, err := fmt.Sscan(os.Getenv(pluginProbeEnv), &fd); err != nil || fd < 3 {
		fmt.Fprintf(stderr, "orprof plugins: %s=%q: not a file descriptor\n", pluginProbeEnv, os.Getenv(pluginProbeEnv))
		return 2
	}
	if err := json.NewEncoder(os.NewFile(fd, "result")).Encode(rep); err != nil {
		fmt.Fprintf(stderr, "orprof plugins: writing the probe's result: %v\n", err)
		return 2
	}
	return 0
}

// probeLibrary probes lib in a child process (runPluginProbeChild): what it reported, or why
// it did not (a crash, a hang, an exit before reporting), in which case the library must not
// be loaded in this process.
func probeLibrary(exe, lib string) probed {
	c := execChild(exe, []string{"plugins", "--probe", lib}, pluginProbeEnv, pluginProbeTimeout)
	if c.err != nil {
		return probed{failed: "cannot be probed in a child process: " + c.err.Error()}
	}
	var r probeReport
	if err := json.Unmarshal(c.out, &r); err == nil && !c.timedOut && len(c.out) > 0 {
		return probed{probeReport: r}
	}
	step := ""
	for _, l := range strings.Split(c.stderr, "\n") {
		if s, ok := strings.CutPrefix(l, probeStepPrefix); ok {
			step = s
		}
	}
	what, where := "loading it", ""
	if step != "" && step != probeLoadStep {
		what, where = "a probe session", " in "+step+stepHint(step)
	}
	sig := ""
	if c.ps != nil {
		sig = signaled(c.ps)
	}
	if sig == "" {
		if m := probeSignal.FindStringSubmatch(c.stderr); m != nil {
			sig = m[1]
		}
	}
	switch {
	case c.timedOut:
		return probed{failed: fmt.Sprintf("%s did not finish in %v%s", what, pluginProbeTimeout, where)}
	case sig != "" && c.ps != nil && signaled(c.ps) != "":
		return probed{failed: what + " killed the process: signal " + sig + where}
	case sig != "":
		return probed{failed: what + " crashed the process: signal " + sig + where}
	}
	why := what + " ended the process"
	if c.ps != nil {
		why += fmt.Sprintf(" (exit status %d)", c.ps.ExitCode())
	}
	why += " before it reported back" + where
	last := ""
	for _, l := range strings.Split(c.stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, probeStepPrefix) {
			last = l
		}
	}
	if last != "" {
		why += ": " + quote.Clip(last)
	}
	return probed{failed: why}
}

// signaled names the signal that ended a process ("SIGKILL (killed)"), or "".
func signaled(ps *os.ProcessState) string {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	names := map[syscall.Signal]string{syscall.SIGSEGV: "SIGSEGV", syscall.SIGBUS: "SIGBUS",
		syscall.SIGABRT: "SIGABRT", syscall.SIGILL: "SIGILL", syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL"}
	if n, ok := names[ws.Signal()]; ok {
		return n + " (" + ws.Signal().String() + ")"
	}
	return ws.Signal().String()
}

// pluginProbeEnv marks a child started by probeLibrary and holds the number of its result
// pipe (the tests' binary dispatches on it).
const pluginProbeEnv = "ORPROF_PLUGIN_PROBE"
