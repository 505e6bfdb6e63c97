package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/orprof/orprof/analysis/code"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/analysis/ranks"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/gz"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace/tracefile"
)

// tableFlags are the table flags shared by run and table.
type tableFlags struct {
	sortBy         string
	rowLimit       int
	byShape        bool
	byStackN       int
	maxNameWidth   int
	format         string
	target113      bool
	rowLimitSet    bool // --row-limit was given (csv and json print every row otherwise)
	link           linkValue
	noScopeMetrics bool   // --no-scope-metrics
	phase          string // --phase (table only)
}

func (tf *tableFlags) register(fs interface {
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
	BoolVar(*bool, string, bool, string)
	Var(flag.Value, string, string)
}) {
	fs.StringVar(&tf.sortBy, "sort-by", "", "sort rows by a FunctionEventAvg attribute (cpu_time_total, self_cpu_time_total, self_device_time_total, count, ...)")
	tf.rowLimit = 100
	fs.Var((*rowLimitFlag)(tf), "row-limit", "`N` rows to print, -1 for all (default 100 for text and markdown, all for csv and json)")
	fs.BoolVar(&tf.byShape, "group-by-input-shape", false, "group rows by input shapes too")
	fs.IntVar(&tf.byStackN, "group-by-stack-n", 0, "group rows by the first N stack frames too")
	fs.IntVar(&tf.maxNameWidth, "max-name-column-width", 55, "width cap of the Name column")
	fs.StringVar(&tf.format, "format", "text", "output format: text, markdown, csv or json")
	fs.BoolVar(&tf.target113, "pytorch-1.13", false, "print PyTorch 1.13's labels (Kb/Mb, CUDA columns, 4 stack frames)")
	fs.BoolVar(&tf.noScopeMetrics, "no-scope-metrics", false, noScopeMetricsUsage)
}

// noScopeMetricsUsage is the --no-scope-metrics flag's help, shared by the commands that print
// operator tables.
const noScopeMetricsUsage = "leave out the scope profiler's \"metrics: KERNEL\" rows (--metrics; PyTorch's key_averages() has them; their time is their kernel's and in no total either way)"

// check validates the flags; it returns a message naming the bad flag, or "".
func (tf *tableFlags) check() string {
	if tf.rowLimit < -1 {
		return fmt.Sprintf("--row-limit %d: must be -1 (all) or a count ≥ 0", tf.rowLimit)
	}
	if tf.byStackN < 0 {
		return fmt.Sprintf("--group-by-stack-n %d: must be ≥ 0", tf.byStackN)
	}
	if tf.maxNameWidth < 4 {
		return fmt.Sprintf("--max-name-column-width %d: must be at least 4", tf.maxNameWidth)
	}
	if _, ok := text.ParseFormat(tf.format); !ok {
		return fmt.Sprintf("--format %s: must be text, markdown, csv or json", quoteArg(tf.format))
	}
	if tf.sortBy != "" && tf.sortBy != "key" {
		if _, ok := events.SortKey(tf.sortBy, ""); !ok {
			return fmt.Sprintf("--sort-by %s: FunctionEventAvg has no such attribute (try cpu_time_total, self_cpu_time_total, self_device_time_total, cpu_memory_usage, count)", quoteArg(tf.sortBy))
		}
	}
	return ""
}

// write prints the key averages of l.
func (tf *tableFlags) write(w io.Writer, l *events.List, device string, profileMemory bool) error {
	g := tf.grouping()
	s := optable.NewSummary(l.KeyAverages(g), optable.RankInfo{}, optable.SummaryOptions{Device: device,
		ProfileMemory: profileMemory, Grouping: g})
	if tf.noScopeMetrics {
		s.DropScopeMetrics()
	}
	_, err := tf.writeSummary(w, s, false)
	return err
}

func runTable(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var tf tableFlags
	pos, byRank, exit, stop := tf.parseRanksCommand("table", "usage: orprof table [flags] TRACE...   (TRACE: a .json or .json.gz trace, a directory of them (one per rank), or - for stdin)",
		"a TRACE argument", args, stderr)
	if stop {
		return exit
	}
	if tf.phase != "" && (len(pos) > 1 || isDir(pos[0])) {
		return failFlag(stderr, "table", "--phase: one trace at a time (orprof code --by phase sums the phases of several)")
	}
	if len(pos) > 1 || isDir(pos[0]) {
		return runTableRanks(pos, &tf, *byRank, stdout, stderr)
	}
	defer lazyGC(gcFloorFor(pos[0]))()
	opts := tracefile.Options{Link: tf.linkMode(), SkipScopeMetrics: tf.noScopeMetrics}
	if isTerminal(os.Stderr) {
		opts.Progress = progressPrinter(stderr)
	}
	in, err := input.OpenArg(pos[0], stdin)
	if err != nil {
		return fail(stderr, "table: %v", err)
	}
	if err := input.Check([]*input.Input{in}, "table", input.Trace); err != nil {
		return fail(stderr, "table: %v", err)
	}
	var av *tracefile.Averages
	if tf.phase != "" {
		opts.Progress = nil
		av, err = code.PhaseAverages(in, tf.phase, opts, tf.grouping())
	} else {
		av, err = in.ReadAverages(opts, tf.grouping())
	}
	if opts.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return fail(stderr, "%v", err)
	}
	name := pos[0]
	if name == "-" {
		name = "<stdin>"
	}
	warns := av.Data.Warnings(name)
	s := ranks.SummarizeAverages(av, pos[0], 0, tf.grouping())
	if msg := noOperators(s, []string{name}, warns); msg != "" {
		return fail(stderr, "table: %s", msg)
	}
	printWarnings(stderr, warns)
	left, err := tf.writeSummary(stdout, s, *byRank)
	if err != nil {
		return fail(stderr, "table: %v", err)
	}
	tf.noteCSV(stderr, s, left)
	return 0
}

// linkFlagUsage is the --link flag's help, shared by the commands that read traces.
const linkFlagUsage = "`RULES` that charge device time to operators: all (External id, then the runtime launch's enclosing op, range-profiler order, the op running when an uncorrelated transfer starts) or external-id (the file's External id alone, for the device types PyTorch attaches) (default all)"

// ranksOptions are the reading options the flags ask for, for several inputs.
func (tf *tableFlags) ranksOptions() ranks.ReadOptions {
	return ranks.ReadOptions{Grouping: tf.grouping(), Link: tf.linkMode(), SkipScopeMetrics: tf.noScopeMetrics}
}

// linkMode is the --link value.
func (tf *tableFlags) linkMode() tracefile.LinkMode { return tf.link.mode() }

// linkValue is --link: a tracefile.LinkMode given as all or external-id, and whether it was
// given (a summary's device time was charged when it was written: --link is refused there).
type linkValue struct {
	m   tracefile.LinkMode
	set bool
}

func (v linkValue) mode() tracefile.LinkMode { return v.m }

func (v *linkValue) String() string {
	if v == nil {
		return tracefile.LinkMode(0).String()
	}
	return v.m.String()
}

func (v *linkValue) Set(s string) error {
	m, ok := tracefile.ParseLinkMode(s)
	if !ok {
		return errors.New("must be all or external-id")
	}
	v.m, v.set = m, true
	return nil
}

// refuseLink is the line refusing --link of `orprof cmd` when none of its inputs is a trace:
// what, the inputs, had their device time charged to operators when they were written.
func refuseLink(stderr io.Writer, cmd, what string) int {
	return failFlag(stderr, cmd, "--link applies to traces; %s had their device time charged to operators when they were written (give the traces)", what)
}

// noteLinkSummaries says on stderr that --link applied to the traces among the inputs and not
// to the summaries among them, naming the first.
func noteLinkSummaries(stderr io.Writer, summaries []string) {
	if len(summaries) > 0 {
		fmt.Fprintf(stderr, "orprof: note: --link applies to the traces among the inputs, not to %s (a summary, linked when it was written)\n",
			countNounNamed(len(summaries), summaries[0]))
	}
}

// countNounNamed is "x.json" for one summary, "3 summaries (x.json, …)" for more.
func countNounNamed(n int, first string) string {
	if n == 1 {
		return quote.String(first)
	}
	return fmt.Sprintf("%d summaries (%s, …)", n, quote.String(first))
}

// tableGCFloor is the heap size below which `orprof table` does not collect garbage. Reading a
// trace allocates mostly what it keeps (the events, then the tree) plus short-lived scan
// records; collecting while the heap is small saves little memory and costs much time (the
// 87 MB MTIA Kineto trace allocates about 60 MB in all, and a collection in the middle of it
// doubled the command's time). The peak RSS stays below the floor plus the binary's pages.
const tableGCFloor = 72 << 20

// gcFloorFor scales tableGCFloor with the trace at path: reading keeps about 0.3 heap bytes
// per input byte (the reader's records, 96 bytes per event; a CUDA-style trace has ~300 bytes
// per event), nearly all of it live until the read ends, so a collection during the read
// frees little and costs much (write faults and TLB shootdowns on 2 cores: 3× the time at 2×
// the size). The reader collects once itself when the records are complete. The floor is half
// the uncompressed size (a gzip file's own trailer gives it, modulo 4 GiB), at least
// tableGCFloor: the peak RSS target of `orprof table`.
func gcFloorFor(path string) int64 {
	return max(tableGCFloor, jsonBytes(path)/2)
}

// jsonBytes is the size of the trace at path once uncompressed (a gzip file's trailer gives
// it, modulo 4 GiB), or −1 when it is not a regular file (a FIFO is not opened: its bytes are
// the reader's, once) or cannot be read.
func jsonBytes(path string) int64 {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return -1
	}
	f, err := os.Open(path)
	if err != nil {
		return -1
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return -1
	}
	size := fi.Size()
	var magic, trailer [4]byte
	if _, err := f.ReadAt(magic[:2], 0); err == nil && gz.IsGzip(magic[:2]) {
		if _, err := f.ReadAt(trailer[:], size-4); err == nil {
			size = max(size, int64(trailer[0])|int64(trailer[1])<<8|int64(trailer[2])<<16|int64(trailer[3])<<24)
		}
	}
	return size
}

// lazyGC postpones the first garbage collection until the heap reaches floor bytes, then
// restores the usual pacing (GOGC, no memory limit) for the rest of the run, so a large trace
// is collected as it always was once it is past the floor. An explicit GOGC or GOMEMLIMIT in
// the environment is left alone. The returned function ends the caller's use; the settings
// are restored when no run needs them (runs may overlap in tests) or after the first
// collection, whichever comes first.
func lazyGC(floor int64) (done func()) { return tuneGC(floor, true) }

// tuneGC collects garbage only when the heap reaches limit bytes: until the first collection
// when untilFirst (lazyGC), else until done is called.
func tuneGC(limit int64, untilFirst bool) (done func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	st := &lazyGCState
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.active == 0 && !st.tuned {
		st.pct = debug.SetGCPercent(-1)
		st.limit = debug.SetMemoryLimit(limit)
		st.tuned = true
		if untilFirst {
			// The sentinel is garbage at once, so its finalizer runs after the first collection.
			sentinel := &struct{ p *int }{}
			runtime.SetFinalizer(sentinel, func(*struct{ p *int }) {
				st.mu.Lock()
				st.untune()
				st.mu.Unlock()
			})
		}
	}
	st.active++
	var once sync.Once
	return func() {
		once.Do(func() {
			st.mu.Lock()
			if st.active--; st.active == 0 {
				st.untune()
			}
			st.mu.Unlock()
		})
	}
}

// gcSettings are the collector settings lazyGC changes.
type gcSettings struct {
	mu     sync.Mutex
	active int   // lazyGC calls not yet done
	tuned  bool  // the lazy settings are in force
	pct    int   // the settings to restore
	limit  int64 //
}

var lazyGCState gcSettings

// untune restores the collector's settings; the caller holds mu.
func (st *gcSettings) untune() {
	if st.tuned {
		debug.SetGCPercent(st.pct)
		debug.SetMemoryLimit(st.limit)
		st.tuned = false
	}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func progressPrinter(w io.Writer) func(int64) {
	var last int64
	return func(n int64) {
		if n-last < 8<<20 {
			return
		}
		last = n
		fmt.Fprintf(w, "\rreading trace: %d MB", n>>20)
	}
}
