package main

import (
	"io"

	"github.com/orprof/orprof/analysis/pprof"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/outfile"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace/tracefile"
)

func runPprof(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("pprof", "usage: orprof pprof TRACE -o FILE   (FILE - is stdout; then: go tool pprof -top FILE, or -http :8080 FILE)", stderr)
	out := fs.String("o", "", "profile file to write (profile.proto, gzip-compressed as pprof writes it); - writes it to stdout")
	var link linkValue
	fs.Var(&link, "link", linkFlagUsage)
	pos, exit, stop := parseFlags(fs, args)
	if stop {
		return exit
	}
	if len(pos) != 1 {
		return fail(stderr, "pprof: need exactly one TRACE argument, got %d", len(pos))
	}
	if *out == "" {
		return fail(stderr, "pprof: -o FILE is required")
	}
	if err := outfile.Check([]outfile.File{{Name: "-o", Path: *out}}, []outfile.File{{Name: "the input", Path: pos[0]}}); err != nil {
		return fail(stderr, "pprof: %v", err)
	}
	defer lazyGC(tableGCFloor)()
	var data *tracefile.Data
	var err error
	if pos[0] == "-" {
		data, err = tracefile.Read(stdin, "<stdin>", tracefile.Options{Link: link.mode()})
	} else {
		data, err = tracefile.Open(pos[0], tracefile.Options{Link: link.mode()})
	}
	if err != nil {
		return fail(stderr, "pprof: %v", err)
	}
	name := pos[0]
	if name == "-" {
		name = "<stdin>"
	}
	warns := data.Warnings(name)
	if len(data.Events) == 0 {
		// An empty profile would be written without a word: say why there is nothing.
		msg := "no operators in " + quoteArg(name)
		if len(warns) > 0 {
			msg += "; " + warns[0]
		}
		return fail(stderr, "pprof: %s", msg)
	}
	printWarnings(stderr, warns)
	l := events.NewListOwned(data.Events, events.ListOptions{UseDevice: data.DeviceName})
	if err := writePprofFile(*out, stdout, l); err != nil {
		return fail(stderr, "pprof: -o %s: %v", quote.Clip(*out), err)
	}
	return 0
}

// writePprofFile writes the pprof profile of l to path through outfile: a regular file is
// replaced only when complete (a failed write leaves no partial profile), a symlink or a special
// file is written through; "-" is stdout.
func writePprofFile(path string, stdout io.Writer, l *events.List) error {
	p := pprof.FromList(l)
	if path == "-" {
		return p.Write(stdout)
	}
	return outfile.Write(path, p.Write)
}
