package main

import (
	"io"

	"github.com/orprof/orprof/input"
)

// loadInputs identifies the inputs args of `orprof cmd` (directories expanded, "-" read from
// stdin) and refuses the first one whose kind is not among accept, in one line saying what it
// is and which command reads it. It prints the warnings about files skipped in directories.
// It returns the exit code, 0 when every input is the command's.
func loadInputs(stderr io.Writer, cmd string, args []string, stdin io.Reader, accept ...input.Kind) ([]*input.Input, int) {
	ins, warns, err := input.Load(args, input.LoadOptions{Stdin: stdin})
	if err != nil {
		return nil, fail(stderr, "%s: %v", cmd, err)
	}
	if err := input.Check(ins, cmd, accept...); err != nil {
		return nil, fail(stderr, "%s: %v", cmd, err)
	}
	printWarnings(stderr, warns)
	return ins, 0
}

// inputNames are the names the analyses' Load functions take for ins: each file's path, "-"
// for standard input (read from the stream stdinOf returns).
func inputNames(ins []*input.Input) []string {
	out := make([]string, len(ins))
	for i, in := range ins {
		out[i] = in.Name
		if in.Name == input.StdinName {
			out[i] = "-"
		}
	}
	return out
}

// stdinOf is the rest of standard input among ins (its start was read to identify it), or nil.
func stdinOf(ins []*input.Input) io.Reader {
	for _, in := range ins {
		if in.Name == input.StdinName {
			rc, _ := in.Stream()
			return rc
		}
	}
	return nil
}

// summaryNames are the names of the inputs among ins that are summaries of any kind.
func summaryNames(ins []*input.Input) []string {
	var out []string
	for _, in := range ins {
		if in.Kind != input.Trace {
			out = append(out, in.Name)
		}
	}
	return out
}

// hasKind reports whether one of ins is of kind k.
func hasKind(ins []*input.Input, k input.Kind) bool {
	for _, in := range ins {
		if in.Kind == k {
			return true
		}
	}
	return false
}

// allKind reports whether every one of ins is of kind k.
func allKind(ins []*input.Input, k input.Kind) bool {
	for _, in := range ins {
		if in.Kind != k {
			return false
		}
	}
	return true
}
