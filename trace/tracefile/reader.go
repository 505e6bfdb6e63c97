package tracefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	gunzip "github.com/orprof/orprof/internal/gz"
	"github.com/orprof/orprof/internal/jsonscan"
)

// Form is the container form of a Chrome trace file.
type Form int

const (
	// Legacy is the bare JSON array PyTorch's legacy EventList.export_chrome_trace writes
	// ([{"name": …, "ph": "X", …, "pid": "CPU functions", "args": {}}, …]).
	Legacy Form = iota
	// Kineto is the JSON object Kineto writes ({"schemaVersion": 1, …, "traceEvents": […]}).
	Kineto
)

// String returns "legacy" or "kineto".
func (f Form) String() string {
	switch f {
	case Legacy:
		return "legacy"
	case Kineto:
		return "kineto"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// Data is what Read found in a trace: the flat FunctionEvent list PyTorch's own parser
// would have produced from the same profile (no tree is built; see events.NewList).
type Data struct {
	// Form is the container form the file used.
	Form Form
	// Events are the host events (operators, user ranges, runtime/driver calls) and the device
	// events (kernels, memcpys, …), in file order (not sorted), followed by the top-level
	// "[memory]" events for allocations no host event contains. Kernels slices are capped at
	// their length, so appending to one copies it; Stack slices are shared by events with the
	// same call stack and must not be modified in place.
	Events []events.FunctionEvent
	// Device is the accelerator type whose work the trace holds; CPU when it holds none.
	Device devices.Type
	// DeviceName is the lower-case name of Device for table headers ("cuda", "mtia",
	// "openreg", …); "" when Device is CPU.
	DeviceName string
	// BaseTimeNs is the Kineto "baseTimeNanoseconds" value; 0 when the file has none.
	BaseTimeNs int64
	// OriginNs is the trace time (ns, as the file's ts × 1000) that the events' StartUs and
	// EndUs (and a Consumer Event's) are measured from, in the Kineto form; 0 in the legacy
	// form, whose times are the file's own.
	OriginNs int64
	// Rank is the trace's "distributedInfo" "rank" (a distributed job's rank that wrote it),
	// when HasRank.
	Rank    int64
	HasRank bool
	// Bytes is the number of (uncompressed) bytes read.
	Bytes int64
	// DeviceLink says how much of the device time reached an operator.
	DeviceLink DeviceLink
	// Skipped counts the trace events skipped as malformed or unknown; SkipReason is the first
	// one's problem ("byte N: …").
	Skipped    int
	SkipReason string
	// TrailingBytes counts the bytes after the gzip data that were ignored (0 for plain input).
	TrailingBytes int64
	// BadNames counts the distinct event names that were not valid UTF-8 (JSON text is UTF-8);
	// each is read with U+FFFD in place of its invalid bytes, as JSON decoders read it.
	// BadNameFirst is the first as it was in the file.
	BadNames     int
	BadNameFirst string
	// Counters are the series of the trace's counter ("C") events, in the order they first
	// appear (Kineto form only): hardware metrics sampled over time, which are never device
	// activity.
	Counters []CounterSeries
}

// Warnings are the one-line notes a reader of the table should see: trace events skipped as
// malformed or unknown, bytes after the gzip data (ReadWarnings), and device time that reached
// no operator (DeviceLink.Warning). Each starts with name, the trace's name.
func (d *Data) Warnings(name string) []string {
	w := d.ReadWarnings(name)
	if s := d.DeviceLink.Warning(); s != "" {
		w = append(w, name+": "+s)
	}
	return w
}

// ReadWarnings are Warnings without the one about device time: what reading the file skipped.
func (d *Data) ReadWarnings(name string) []string {
	var w []string
	if d.Skipped > 0 {
		what := fmt.Sprintf("%d malformed or unknown trace events (the first", d.Skipped)
		if d.Skipped == 1 {
			what = "1 malformed or unknown trace event (it is"
		}
		w = append(w, fmt.Sprintf("%s: skipped %s at %s)", name, what, d.SkipReason))
	}
	if d.BadNames > 0 {
		what := fmt.Sprintf("%d event names are", d.BadNames)
		if d.BadNames == 1 {
			what = "1 event name is"
		}
		w = append(w, fmt.Sprintf("%s: %s not valid UTF-8, as JSON must be (the first: %s); shown with U+FFFD for the invalid bytes",
			name, what, jsonscan.Clip(d.BadNameFirst)))
	}
	if d.TrailingBytes > 0 {
		bytes := fmt.Sprintf("%d bytes", d.TrailingBytes)
		if d.TrailingBytes == 1 {
			bytes = "1 byte"
		}
		w = append(w, fmt.Sprintf("%s: ignored %s of trailing data after the gzip stream", name, bytes))
	}
	return w
}

// DeviceLink is how much of a trace's device time was attached to host operators: the sum of
// the device events' durations (device-side user annotations, which span kernels, left out),
// the part attached to no operator, and the likeliest cause of most of that part.
type DeviceLink struct {
	TotalUs    float64
	UnlinkedUs float64
	// Unlinked is the number of device events attached to no operator.
	Unlinked int
	Cause    string
	// ByRuleUs is the device time each rule attached (indexed by LinkRule; [Unlinked] is
	// UnlinkedUs).
	ByRuleUs [NumLinkRules]float64
}

// NumLinkRules is the number of LinkRule values, Unlinked included.
const NumLinkRules = int(numRules)

// Coverage is one line saying how much of the device time each rule attached to operators
// and how much reached none ("" when the trace has no device time), e.g.
// "device time linked to operators: 1234.000 µs of 1250.000 µs (98.7%): external-id 0.0%,
// launch 98.7%, order 0.0%, enclosing 0.0%, unlinked 16.000 µs (1.3%)".
func (l DeviceLink) Coverage() string {
	if l.TotalUs <= 0 {
		return ""
	}
	pct := func(us float64) string { return strconv.FormatFloat(100*us/l.TotalUs, 'f', 1, 64) + "%" }
	linked := l.TotalUs - l.ByRuleUs[Unlinked]
	var b strings.Builder
	fmt.Fprintf(&b, "device time linked to operators: %s µs of %s µs (%s):",
		strconv.FormatFloat(linked, 'f', 3, 64), strconv.FormatFloat(l.TotalUs, 'f', 3, 64), pct(linked))
	for r := ByExternalID; r < numRules; r++ {
		if r == ByGraphScope && l.ByRuleUs[r] == 0 {
			continue // said only of a trace with CUDA-graph scopes
		}
		fmt.Fprintf(&b, " %s %s,", r, pct(l.ByRuleUs[r]))
	}
	fmt.Fprintf(&b, " unlinked %s µs (%s)", strconv.FormatFloat(l.ByRuleUs[Unlinked], 'f', 3, 64), pct(l.ByRuleUs[Unlinked]))
	return b.String()
}

// Add sums the figures of two traces (several ranks of a job); the cause of the larger
// unlinked time is kept.
func (l DeviceLink) Add(o DeviceLink) DeviceLink {
	sum := DeviceLink{TotalUs: l.TotalUs + o.TotalUs, UnlinkedUs: l.UnlinkedUs + o.UnlinkedUs,
		Unlinked: l.Unlinked + o.Unlinked, Cause: l.Cause}
	for i := range sum.ByRuleUs {
		sum.ByRuleUs[i] = l.ByRuleUs[i] + o.ByRuleUs[i]
	}
	if o.UnlinkedUs > l.UnlinkedUs || sum.Cause == "" {
		sum.Cause = o.Cause
	}
	return sum
}

// Warning is one line saying how much device time reached no operator and why, or "" when all
// of it did.
func (l DeviceLink) Warning() string {
	if l.Unlinked == 0 {
		return ""
	}
	n := strconv.Itoa(l.Unlinked) + " events"
	if l.Unlinked == 1 {
		n = "1 event"
	}
	return fmt.Sprintf("%s µs of %s µs of device time (%.1f%%, %s) reached no operator: %s",
		strconv.FormatFloat(l.UnlinkedUs, 'f', 3, 64), strconv.FormatFloat(l.TotalUs, 'f', 3, 64),
		100*l.UnlinkedUs/max(l.TotalUs, 1e-300), n, l.Cause)
}

// Error is a problem with a trace's content or with reading it. Offset is the byte offset in
// the uncompressed input where the problem was found, or −1 when it has no position. Its
// Error method renders "FILE: byte OFFSET: MSG[: ERR]"; Unwrap returns the read error.
type Error = jsonscan.Error

// Options tune Read and Open. The zero value is the default.
type Options struct {
	// Progress, when set, is called on the reading goroutine after each chunk of input with
	// the number of uncompressed bytes read so far. It should return quickly.
	Progress func(bytesRead int64)
	// Linking, when set, is called with true as a read with consumers that collects its
	// garbage once its events are linked (a large one) starts linking them, and with false
	// when they are linked, just before that collection. A collection in between frees
	// nothing the read made (its records are live, its link tables being built) and its
	// assists slow the linking: a caller that runs the collector at a memory limit may lift
	// it for that time. Reads at once call it each for itself.
	Linking func(start bool)
	// SkipScopeMetrics leaves out the "metrics: <kernel>" slices of a scope profiler (cat
	// "kernel"). By default each is a device row, as in PyTorch's key_averages(), linked to no
	// operator and not counted as device time (its time is its kernel's).
	SkipScopeMetrics bool
	// NoShapes and NoStacks leave the events' InputShapes and Stack empty: the "Input Dims"
	// and "Call stack" arguments are validated and skipped, not rendered (faster, for a caller
	// that groups by neither, as ReadAverages does on its own).
	NoShapes, NoStacks bool
	// Consumers are handed the read's events (Consumer; package analysis states the
	// contract); the read returns after each has finished.
	Consumers []Consumer
	// Position is the trace's place among the ranks of a job (0, 1, …): the rank Info.Rank
	// gives a trace that names none.
	Position int
	// Paced lowers a read's peak memory for a little of its overlap. A read with consumers
	// turns each chunk of its records into events (or ReadAverages' rows) only once every
	// consumer has been fed it, so that what it makes reuses the memory of the records it
	// releases rather than taking more beside all of them, and returns only once they have
	// been fed; a large one (that collects its garbage) feeds the link-free consumers once
	// the events are linked, not beside the link tables.
	Paced bool
	// Link selects the rules that charge device events to operators; the zero value applies
	// them all (LinkRule lists them).
	Link LinkMode
	// Tree is handed every event of PyTorch's tree in list order, after the same-name
	// collapse, with its parent, self times and kernels (events.TreeEvent): the op call tree
	// of the trace (analysis/flame.Builder.Add) from the same read. ReadAverages calls it
	// while the rows are made, keeping no event; Read once the events are made. It is called
	// on one goroutine before the read returns. ReadConsumers makes no events and refuses it.
	Tree func(*events.TreeEvent)
}

// Read reads a Chrome trace — PyTorch's legacy JSON array or Kineto's JSON object, plain
// or gzip — from r, streaming, and returns the flat FunctionEvent list PyTorch's parser
// would build from the same profile. name is used in error messages; opts may be the zero
// Options. Read does not close r, and does not use it after returning. Every error is a
// *Error naming name and, where it has one, the byte offset. What it accepts and how each
// field is read is the package doc's "Reading" section.
func Read(r io.Reader, name string, opts Options) (*Data, error) {
	td, err := readTrace(r, name, opts, defaultParConfig())
	if err == nil && opts.Tree != nil {
		events.NewList(td.Events, events.ListOptions{}).WalkTree(opts.Tree)
	}
	return td, err
}

// Averages is a trace read for its operator table alone (ReadAverages).
type Averages struct {
	// Data is what Read returns, without the events (Events is nil).
	Data *Data
	// Rows are the key averages of the events, as events.NewList(events, …).KeyAverages(g)
	// gives them.
	Rows []events.Avg
	// Memory is whether any event carries memory figures (the trace recorded memory).
	Memory bool
}

// ReadAverages reads a trace as Read does and returns the key averages of its events grouped
// by g, without keeping the events: the rows are those of events.NewList over Read's events,
// bit for bit, and the file is read the same way, with the same errors and warnings. Unless g
// groups by stack, the events are handed one by one to an events.Averager as they are
// converted, so the peak memory is the reader's records (about 100 bytes per event) instead of
// the events and their tree (about 300): for `orprof table` on a large trace.
func ReadAverages(r io.Reader, name string, opts Options, g events.AverageOptions) (*Averages, error) {
	return readAverages(r, name, opts, defaultParConfig(), g)
}

// OpenAverages is ReadAverages of the trace file at path, opened as Open opens it.
func OpenAverages(path string, opts Options, g events.AverageOptions) (*Averages, error) {
	if path == "-" {
		return ReadAverages(os.Stdin, "<stdin>", opts, g)
	}
	r, close, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer close()
	return ReadAverages(r, path, opts, g)
}

// readAverages is ReadAverages with the parallel-parsing configuration made explicit.
func readAverages(r io.Reader, name string, opts Options, par parConfig, g events.AverageOptions) (*Averages, error) {
	if _, ok := events.NewAverager(0, g); !ok {
		td, err := readTrace(r, name, opts, par)
		if err != nil {
			return nil, err
		}
		return averagesOf(td, g, opts.Tree), nil
	}
	var a *events.Averager
	// The rows carry input shapes only when grouped by them, and stacks never here (grouping
	// by stack took the branch above): the arguments that hold them are validated and skipped,
	// not rendered.
	skip := skipArgs{shapes: !g.GroupByInputShape, stacks: true}
	wait := func() {}
	td, err := decodeTrace(r, name, opts, par, skip, func(d *decoder) *Data {
		var td *Data
		d.deferConsumers, wait = true, d.waitConsumers
		td, a = d.resolveAverages(g, opts.Tree)
		return td
	})
	// The rows (and the op tree's walk) are made while the consumers finish; the read returns
	// when both are done.
	defer func() { wait() }()
	if err != nil {
		return nil, err
	}
	// No collection is forced here, unlike Read: the Averager's 64 bytes per event are
	// fewer than the records they replace, and under the table's memory limit the
	// collector runs when it should anyway (docs/performance.md has the measurement).
	return &Averages{Data: td, Memory: a.HasMemory(), Rows: a.Averages()}, nil
}

// AveragesOf returns the key averages of td's events grouped by g, with td: the events are
// taken over (td.Events is nil afterwards).
func AveragesOf(td *Data, g events.AverageOptions) *Averages { return averagesOf(td, g, nil) }

// averagesOf is AveragesOf that also walks the list's tree with tree (nil: not).
func averagesOf(td *Data, g events.AverageOptions, tree func(*events.TreeEvent)) *Averages {
	evs := td.Events
	td.Events = nil
	l := events.NewListOwned(evs, events.ListOptions{})
	if tree != nil {
		l.WalkTree(tree)
	}
	return &Averages{Data: td, Memory: hasMemory(evs), Rows: l.KeyAverages(g)}
}

// hasMemory reports whether any event carries memory figures.
func hasMemory(evs []events.FunctionEvent) bool {
	for i := range evs {
		if evs[i].CPUMemoryUsage != 0 || evs[i].DeviceMemoryUsage != 0 {
			return true
		}
	}
	return false
}

// readTrace is Read with the parallel-parsing configuration made explicit.
func readTrace(r io.Reader, name string, opts Options, par parConfig) (*Data, error) {
	return decodeTrace(r, name, opts, par, skipArgs{shapes: opts.NoShapes, stacks: opts.NoStacks}, (*decoder).resolve)
}

// decodeTrace reads a trace from r and returns what resolve makes of its records; the events
// get no input shapes or stacks as skip says.
func decodeTrace(r io.Reader, name string, opts Options, par parConfig, skip skipArgs, resolve func(*decoder) *Data) (*Data, error) {
	if in, ok := r.(*inPlace); ok && !isGzip(in.data) {
		return decodeInPlace(in, name, opts, par, skip, resolve)
	}
	var magic [2]byte
	n, err := readPrefix(r, magic[:])
	if err != nil {
		return nil, &Error{File: name, Offset: int64(n), Msg: "read failed", Err: err}
	}
	src := io.MultiReader(bytes.NewReader(magic[:n]), r)
	var zr *gunzip.Reader
	if isGzip(magic[:n]) {
		zr, err = gunzip.NewReader(src)
		if err != nil {
			return nil, &Error{File: name, Offset: -1, Msg: "not a valid gzip stream", Err: err}
		}
		// Inflated on this goroutine, straight into the parse's input buffers: the workers
		// parse while it inflates, and no second goroutine copies every byte once more.
		src = zr
	}
	d := newDecoder(src, name, opts, par)
	d.skip = skip
	if err := d.run(); err != nil {
		if zr != nil {
			err = gzipFirst(zr, name, err)
		}
		return nil, err
	}
	td := resolve(d)
	if zr != nil {
		td.TrailingBytes = zr.TrailingBytes()
	}
	return td, nil
}

func isGzip(b []byte) bool { return gunzip.IsGzip(b) }

// gzipFirst is the error of a read of gzip input that failed with err: when the gzip stream
// itself is corrupt (its CRC-32 or length check fails, or its DEFLATE data does not decode),
// the bytes the parse failed on were wrong, and the stream's error is the one to report.
// The rest of the stream is inflated to find out.
func gzipFirst(zr *gunzip.Reader, name string, err error) error {
	if errors.Is(err, gunzip.ErrChecksum) || errors.Is(err, gunzip.ErrCorrupt) || errors.Is(err, gunzip.ErrHeader) {
		return err // the stream's own error already
	}
	if _, zerr := io.Copy(io.Discard, zr); zerr != nil && (errors.Is(zerr, gunzip.ErrChecksum) || errors.Is(zerr, gunzip.ErrCorrupt)) {
		return &Error{File: name, Offset: -1, Msg: "the gzip stream is corrupt", Err: zerr}
	}
	return err
}

// decodeInPlace is decodeTrace of input that is in memory in full: the decoder scans it where
// it is. A mapped file that is cut short while it is read faults when the parse reaches its lost
// pages (SIGBUS), after reading zeros to the end of its last page: either is reported as the
// file having changed, not as a crash or a byte of JSON.
func decodeInPlace(in *inPlace, name string, opts Options, par parConfig, skip skipArgs, resolve func(*decoder) *Data) (td *Data, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if !isMappingFault(r) {
				panic(r)
			}
			err = errChanged(name)
		}
		if err != nil {
			td = nil
			if in.changed != nil && in.changed() {
				err = errChanged(name) // not the bytes' fault
			}
		}
	}()
	d := newDecoderInPlace(in, name, opts, par)
	d.skip = skip
	if err := d.run(); err != nil {
		return nil, err
	}
	td = resolve(d)
	td.Bytes = int64(len(in.data))
	return td, nil
}

func errChanged(name string) error {
	return &Error{File: name, Offset: -1, Msg: "the file changed while it was read (it was cut short or rewritten)"}
}

// isMappingFault reports whether r, recovered from a panic, is a memory fault in a mapped trace.
func isMappingFault(r any) bool {
	f, ok := r.(interface{ Addr() uintptr })
	return ok && inMapping(f.Addr())
}

// Open reads the trace file at path with Read, naming it path in errors; "-" reads
// standard input (named "<stdin>"). Gzip input (a ".gz" file, or any input starting with the
// gzip magic bytes) is decompressed on the fly by internal/gz's Reader. A file that cannot be
// opened gives os.Open's error (an *fs.PathError); every other error is a *Error.
func Open(path string, opts Options) (*Data, error) {
	if path == "-" {
		return Read(os.Stdin, "<stdin>", opts)
	}
	r, close, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer close()
	return Read(r, path, opts)
}

// readPrefix reads up to len(p) bytes, stopping early only at the end of the input. Like
// bufio it gives up with io.ErrNoProgress on a reader that keeps returning nothing.
func readPrefix(r io.Reader, p []byte) (int, error) {
	n, empty := 0, 0
	for n < len(p) {
		m, err := r.Read(p[n:])
		if m < 0 || m > len(p)-n {
			return n, fmt.Errorf("reader returned invalid count %d", m)
		}
		n += m
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			if empty++; empty == 100 {
				return n, io.ErrNoProgress
			}
		}
	}
	return n, nil
}
