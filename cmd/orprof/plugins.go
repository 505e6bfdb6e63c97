package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/kineto"
)

const pluginsUsage = `usage: orprof plugins [--dir DIR]

Loads every Kineto profiler plugin (*.so, not recursive) in DIR, or in $KINETO_PLUGIN_LIB_DIR_PATH
when --dir is not given, and prints one line per plugin: the library path, the profiler's name
and its activity types, or why the library or profiler was refused. Loading runs the plugins'
registration code. Exit status: 0 when the directory was read (refusals included), 2 when no
directory is given or it cannot be read.
`

// runPlugins is `orprof plugins`.
func runPlugins(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("plugins", pluginsUsage, stderr)
	dir := fs.String("dir", "", "plugin directory (default $"+kineto.PluginDirEnv+")")
	pos, exit, stop := parseFlags(fs, args)
	switch {
	case stop:
		return exit
	case len(pos) > 0:
		return fail(stderr, "plugins: unexpected argument %s; run 'orprof plugins -h'", quoteArg(pos[0]))
	}
	if *dir == "" {
		*dir = os.Getenv(kineto.PluginDirEnv)
	}
	if *dir == "" {
		return fail(stderr, "plugins: no plugin directory: pass --dir DIR or set %s", kineto.PluginDirEnv)
	}
	plugins, errs := kineto.LoadPlugins(*dir)
	for _, e := range errs {
		if errors.Is(e, kineto.ErrPluginDir) {
			return fail(stderr, "plugins: %v", e.Err)
		}
	}
	type line struct{ path, text string }
	var lines []line
	for _, p := range plugins {
		types := p.AvailableActivities().String()
		if types == "" {
			types = "(no activity types)"
		}
		// A plugin chooses its name and messages: no terminal escapes reach the screen.
		name := quote.Printable(p.Name())
		lines = append(lines, line{p.Path, fmt.Sprintf("%s\t%s\t%s", p.Path, name, types)})
		for _, w := range p.Warnings {
			lines = append(lines, line{p.Path, fmt.Sprintf("%s\t%s\twarning: %s", p.Path, name, quote.Printable(w))})
		}
	}
	for _, e := range errs {
		lines = append(lines, line{e.Path, fmt.Sprintf("%s\trefused: %s", e.Path, quote.Printable(strings.ReplaceAll(e.Err.Error(), "\n", "; ")))})
	}
	if len(lines) == 0 {
		fmt.Fprintf(stdout, "no plugins (*.so) in %s\n", *dir)
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].path < lines[j].path })
	for _, l := range lines {
		fmt.Fprintln(stdout, l.text)
	}
	return 0
}
