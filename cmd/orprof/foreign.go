package main

import (
	"bytes"
	"io"

	"github.com/orprof/orprof/analysis/code"
	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/input/ranks"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/internal/sniff"
)

// foreignSummaries are the summaries a command that reads traces and its own summaries cannot
// read, by the first bytes of a file: what each is, and which command reads it.
var foreignSummaries = []struct {
	is        func(head []byte) bool
	what, use string
	cmd       string // the command that reads it (it is not foreign there)
}{
	{func(h []byte) bool { return ranks.KindOf(bytes.NewReader(h)) == ranks.KindTableSummary },
		"a table summary (orprof table --format json)", "orprof merge prints its table", "merge"},
	{kernels.IsSummary, "a kernels summary (orprof kernels --format json)", "orprof kernels reads it", "kernels"},
	{timeline.IsSummary, "a timeline summary (orprof timeline --format json)", "orprof timeline reads it", "timeline"},
	{code.IsSummary, "a code summary (orprof code --format json)", "orprof code reads it", "code"},
}

// refuseForeign refuses the first input among paths that is a summary `orprof cmd` does not
// read — which would otherwise be read as a trace and refused as "not a trace" — saying what it
// is and what reads it; stdinHead is the start of stdin when "-" is among paths (else nil). It
// returns the exit code, 0 when every input is the command's.
func refuseForeign(stderr io.Writer, cmd string, paths []string, stdinHead []byte) int {
	for _, p := range paths {
		name, head := p, stdinHead
		if p == "-" {
			name = "<stdin>"
			head = sniff.Head(bytes.NewReader(stdinHead), 64)
		} else if h, err := sniff.FileHead(p, 64); err == nil {
			head = h
		} else {
			continue // the reader names the error
		}
		for _, f := range foreignSummaries {
			if f.cmd != cmd && f.is(head) {
				return fail(stderr, "%s: %s is %s, not a trace or a summary orprof %s reads: %s", cmd, quote.String(name), f.what, cmd, f.use)
			}
		}
	}
	return 0
}
