package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// versionLine is what `orprof version` prints: the module version ("(devel)" for a build from
// a work tree), the VCS revision, its time and whether the tree was modified (when the build
// recorded them), and the Go toolchain and platform.
func versionLine(info *debug.BuildInfo, ok bool) string {
	version, rev, when, modified := "(unknown)", "", "", false
	if ok && info != nil {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	line := "orprof " + version
	if rev != "" {
		line += " revision " + rev
		if when != "" {
			line += " (" + when + ")"
		}
		if modified {
			line += " modified"
		}
	}
	return line + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}

// runVersion is `orprof version` (and `orprof --version`).
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "usage: orprof version   (the module version and VCS revision of this binary)", stderr)
	pos, exit, stop := parseFlags(fs, args)
	if stop {
		return exit
	}
	if len(pos) > 0 {
		return fail(stderr, "version: unexpected argument %s", quoteArg(pos[0]))
	}
	fmt.Fprintln(stdout, versionLine(debug.ReadBuildInfo()))
	return 0
}
