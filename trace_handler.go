package orprof

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/internal/gz"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/perfetto"
)

// TraceHandlerOptions configure TensorBoardTraceHandler.
type TraceHandlerOptions struct {
	// Worker names the files; "" is "<hostname>_<pid>", as torch.profiler's default.
	Worker string
	// Gzip writes .pt.trace.json.gz files.
	Gzip bool
	// Perfetto writes Perfetto traces, .pt.trace.pftrace[.gz] (trace/perfetto), in which no
	// overlapping event is dropped, instead of Kineto JSON.
	Perfetto bool
	// Clock dates the files; nil is the system clock.
	Clock devices.Clock
}

// TensorBoardTraceHandler returns an OnTraceReady function that writes each result's Kineto
// trace into dir (created if missing) as "<worker>.<unix time in ms>.pt.trace.json[.gz]",
// torch.profiler.tensorboard_trace_handler's names. Unlike it, the handler never replaces a
// file: when the name is taken (two cycles in one millisecond, or a file already there) it takes
// the next millisecond. A file appears complete or not at all (written aside, then linked in).
func TensorBoardTraceHandler(dir string, o TraceHandlerOptions) func(*Result) error {
	return func(res *Result) error {
		_, err := WriteTraceFile(dir, res, o)
		return err
	}
}

// WriteTraceFile writes res's trace as TensorBoardTraceHandler does and returns the path.
func WriteTraceFile(dir string, res *Result, o TraceHandlerOptions) (string, error) {
	if res == nil || res.Trace() == nil {
		return "", errors.New("trace handler: the result has no trace")
	}
	worker := o.Worker
	if worker == "" {
		worker = DefaultWorkerName()
	}
	clock := o.Clock
	if clock == nil {
		clock = devices.SystemClock{}
	}
	ext := ".pt.trace.json"
	if o.Perfetto {
		ext = ".pt.trace.pftrace"
	}
	if o.Gzip {
		ext += ".gz"
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", fmt.Errorf("trace handler: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+worker+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("trace handler: cannot create the temporary file in %s (a trace is written there, then linked to its name): %w", dir, err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600; a trace file is 0644, as --trace's (internal/outfile).
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return "", fmt.Errorf("trace handler: %w", err)
	}
	ms := clock.Now() / 1e6
	name := func(ms int64) string { return worker + "." + strconv.FormatInt(ms, 10) + ext }
	for i := 0; i < 1000; i++ {
		// The first free name goes into the trace; a name taken meanwhile moves the file on.
		if _, err := os.Lstat(filepath.Join(dir, name(ms))); !errors.Is(err, fs.ErrNotExist) {
			ms++
			continue
		}
		break
	}
	t := *res.Trace()
	t.TraceName = name(ms)
	if err := writeTrace(tmp, &t, o.Gzip, o.Perfetto); err != nil {
		tmp.Close()
		return "", fmt.Errorf("trace handler: %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("trace handler: %s: %w", tmp.Name(), err)
	}
	for i := 0; i < 1000; i++ {
		path := filepath.Join(dir, name(ms+int64(i)))
		err := os.Link(tmp.Name(), path)
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("trace handler: %w", err)
		}
	}
	return "", fmt.Errorf("trace handler: %s: 1000 names from %d ms on are taken", dir, ms)
}

func writeTrace(w io.Writer, t *trace.Trace, compress, pftrace bool) error {
	write := trace.Write
	if pftrace {
		write = perfetto.WriteTrace
	}
	if !compress {
		return write(w, t)
	}
	zw := gz.NewWriter(w)
	err := write(zw, t)
	if cerr := zw.Close(); err == nil { // always closed: it ends the compressing goroutine
		err = cerr
	}
	return err
}

// DefaultWorkerName is torch.profiler's default worker name, "<hostname>_<pid>".
func DefaultWorkerName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return host + "_" + strconv.Itoa(os.Getpid())
}
