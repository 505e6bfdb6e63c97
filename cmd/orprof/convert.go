package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/outfile"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace/perfetto"
)

const convertUsage = `usage: orprof convert -o OUT TRACE...
  OUT.pftrace or OUT.perfetto-trace: Perfetto's protobuf trace, every rank in one file
  OUT.json: Kineto JSON whose complete events nest on every row (Perfetto's JSON importer keeps them all)
  a name ending in .gz is gzip-compressed; a TRACE may be a directory of traces or - (stdin)`

// convertFormat is what an output name asks for: Perfetto's protobuf or Kineto JSON, and
// whether it is gzip-compressed.
func convertFormat(path string) (json, gz, ok bool) {
	p := strings.TrimSuffix(path, ".gz")
	gz = p != path
	switch {
	case strings.HasSuffix(p, ".pftrace"), strings.HasSuffix(p, ".perfetto-trace"):
		return false, gz, true
	case strings.HasSuffix(p, ".json"):
		return true, gz, true
	}
	return false, false, false
}

func runConvert(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("convert", convertUsage, stderr)
	out := fs.String("o", "", "file to write: .pftrace, .perfetto-trace or .json, each optionally .gz")
	pos, exit, stop := parseFlags(fs, args)
	if stop {
		return exit
	}
	if *out == "" {
		return failFlag(stderr, "convert", "-o OUT is required")
	}
	asJSON, gz, ok := convertFormat(*out)
	if !ok {
		return failFlag(stderr, "convert", "-o %s: the name must end in .pftrace, .perfetto-trace or .json (optionally .gz)", quoteArg(*out))
	}
	if len(pos) == 0 {
		return failFlag(stderr, "convert", "need at least one TRACE")
	}
	paths, warns, err := input.Expand(pos)
	if err != nil {
		return fail(stderr, "convert: %v", err)
	}
	printWarnings(stderr, warns)
	stdinUsed := false
	ins := make([]outfile.File, 0, len(paths))
	for _, p := range paths {
		if p == "-" {
			if stdinUsed {
				return fail(stderr, "convert: - (stdin) given twice")
			}
			stdinUsed = true
			continue
		}
		if _, err := os.Stat(p); err != nil {
			return fail(stderr, "convert: %v", err)
		}
		ins = append(ins, outfile.File{Name: "input " + quote.Clip(p), Path: p})
	}
	if *out == "-" {
		return failFlag(stderr, "convert", "-o - is not supported: name a file")
	}
	if err := outfile.Check([]outfile.File{{Name: "-o", Path: *out}}, ins); err != nil {
		return fail(stderr, "convert: %v", err)
	}
	inputs := make([]perfetto.Input, len(paths))
	for i, p := range paths {
		if p == "-" {
			inputs[i] = perfetto.Input{Name: "<stdin>", Open: func() (io.ReadCloser, error) { return stdinTrace(stdin) }}
		} else {
			inputs[i] = perfetto.FileInput(p)
		}
	}
	// A rank's records are kept until it is written, then dropped: collect often and give the
	// memory back between ranks, so that the peak is about one rank's records (GOGC 5: the heap
	// grows 5% past them at most; they hold no pointers, so a collection has little to mark),
	// not twice that.
	opts := perfetto.Options{AfterRank: debug.FreeOSMemory}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(5))
	}
	var st *perfetto.Stats
	err = outfile.Write(*out, func(w io.Writer) error {
		var zw io.WriteCloser
		if gz {
			zw = newGzipWriter(w)
			w = zw
		}
		var err error
		if asJSON {
			st, err = perfetto.ConvertJSON(w, inputs, opts)
		} else {
			st, err = perfetto.Convert(w, inputs, opts)
		}
		if zw != nil {
			if cerr := zw.Close(); err == nil {
				err = cerr
			}
		}
		return err
	})
	if err != nil {
		return fail(stderr, "convert: %v", err)
	}
	printWarnings(stderr, st.Warnings)
	fmt.Fprintf(stderr, "orprof: %s written: %s, %s, %s, %s\n", *out, countNoun(st.Ranks, "rank", "ranks"),
		countNoun(st.Slices, "slice", "slices"), countNoun(st.OverlapTracks, "overlap track", "overlap tracks"),
		countNoun(st.FlowEnds, "flow end", "flow ends"))
	return 0
}

// stdinTrace reads a trace from standard input, plain or gzip-compressed.
func stdinTrace(stdin io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(stdin, 1<<16)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("<stdin>: %v", err)
		}
		return z, nil
	}
	return io.NopCloser(br), nil
}
