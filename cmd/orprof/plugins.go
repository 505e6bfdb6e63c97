package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	iofs "io/fs"
	"os"
	"os/exec"
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
and its activity types, or why the library or profiler was refused. Each library is loaded in a
child process of its own, so that one that crashes while it loads is listed as refused with the
signal; what is not a library (a directory, a dangling symbolic link, a link loop) is listed as
refused with the reason, and a library under two names is listed once. Loading runs the plugins'
registration code. Exit status: 0 when the directory was read (refusals included), 2 when no
directory is given or it cannot be read.
`

// pluginProbeTimeout bounds how long one library's child may take to load it.
const pluginProbeTimeout = 30 * time.Second

// runPlugins is `orprof plugins`.
func runPlugins(args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "--probe" && os.Getenv(pluginProbeEnv) != "" {
		// The child probePlugin starts: load this one library and print its lines.
		for _, l := range pluginLines(kineto.LoadPluginFile(args[1])) {
			fmt.Fprintln(stdout, l)
		}
		return 0
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
		for _, l := range probePlugin(exe, lib.path) {
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
		out = append(out, fmt.Sprintf("%s\trefused: %s", e.Path, quote.Printable(strings.ReplaceAll(e.Err.Error(), "\n", "; "))))
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

// probePlugin loads lib in a child process (`orprof plugins --probe LIB` with $ORPROF_PLUGIN_PROBE
// set: not a flag of the command) and returns its lines;
// a child that crashes, hangs or fails gives one refusal line saying so.
func probePlugin(exe, lib string) []string {
	lines, failed := probePluginChild(exe, lib)
	if failed != "" {
		return []string{lib + "\trefused: " + quote.Printable(failed)}
	}
	return lines
}

// probePluginChild is probePlugin's child: the lines it printed, or why it did not finish
// (crashed, killed, hung, failed), which makes the library unsafe to load in this process.
func probePluginChild(exe, lib string) (lines []string, failed string) {
	ctx, cancel := context.WithTimeout(context.Background(), pluginProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "plugins", "--probe", lib)
	cmd.Env = append(os.Environ(), pluginProbeEnv+"=1")
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb // a Go crash dump: tens of kB at most
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if err == nil {
		for _, l := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
		return lines, ""
	}
	why := ""
	stderrText := errb.String()
	switch {
	case ctx.Err() != nil:
		why = fmt.Sprintf("loading it did not finish in %v", pluginProbeTimeout)
	case cmd.ProcessState != nil && signaled(cmd.ProcessState) != "":
		why = "loading it killed the process: signal " + signaled(cmd.ProcessState)
	case probeSignal.MatchString(stderrText):
		why = "loading it crashed the process: signal " + probeSignal.FindStringSubmatch(stderrText)[1]
	default:
		last := ""
		for _, l := range strings.Split(stderrText, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				last = l
			}
		}
		why = fmt.Sprintf("loading it failed: %v", err)
		if last != "" {
			why += ": " + quote.Clip(last)
		}
	}
	return nil, why
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

// pluginProbeEnv marks a child started by probePlugin (the tests' binary dispatches on it).
const pluginProbeEnv = "ORPROF_PLUGIN_PROBE"
