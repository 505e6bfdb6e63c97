// Command bench reproduces the performance table of docs/performance.md: every figure side by
// side with its anchor in the same run, each repeated (default 5 times), printed as median and
// min with the ratios, the CPU model and the date. Its output (markdown) is that page's "The
// figures" section.
//
//	go run ./scripts/bench [-count 5] [-torch-events 500000] [-no-python]
//
// Go benchmarks are looked up by name in their package's test binary (`-test.list`); a figure
// whose benchmark is missing is printed as missing, never dropped. Repeats are interleaved: run
// k of every benchmark of a figure happens before run k+1 of any, so a figure and its anchor see
// the same machine. Test data comes from the repository's testdata/ only. The python anchors
// (json.load, PyTorch 1.13's record_function and key_averages) run when python3 (Debian's
// /usr/bin/python3 first) can import them; otherwise they are printed as not measured, with why.
// It is a tool for humans: timings on a shared machine are noisy, and nothing here fails a build.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orprof/orprof/internal/tracetest"
)

var (
	count       = flag.Int("count", 5, "repeats of every figure (at least 5 for docs/performance.md)")
	torchEvents = flag.Int("torch-events", 500_000, "events given to PyTorch's key_averages()")
	noPython    = flag.Bool("no-python", false, "skip every python anchor")
	noCallgrind = flag.Bool("no-callgrind", false, "skip the instruction counts (valgrind --tool=callgrind) of the cli section")
	verbose     = flag.Bool("v", false, "print every raw benchmark line to stderr")
	only        = flag.String("only", "", "comma-separated sections to run (recording, averages, reader, cli, ranks, export, perfetto); all when empty")
)

// sample is a series of measurements of one thing, in its unit.
type sample struct {
	unit string // "ns", "s", "MB/s"
	vals []float64
}

func (s *sample) add(v float64) { s.vals = append(s.vals, v) }

func (s *sample) median() float64 {
	v := slices.Clone(s.vals)
	slices.Sort(v)
	n := len(v)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// best is the min of a time and the max of a rate or a gain.
func (s *sample) best() float64 {
	if len(s.vals) == 0 {
		return math.NaN()
	}
	if s.unit == "MB/s" || s.unit == "×" {
		return slices.Max(s.vals)
	}
	return slices.Min(s.vals)
}

// row is one line of the output table.
type row struct {
	what string
	s    *sample
	note string // why it is missing, or extra facts (RSS)
	// vs names the rows this one is compared with (by what), as "ratio to anchor".
	vs []string
}

var rows []*row

func find(what string) *row {
	for _, r := range rows {
		if r.what == what {
			return r
		}
	}
	return nil
}

func add(r *row) *row { rows = append(rows, r); return r }

// sections are the parts of the table, in its order; -only picks some.
var sections = []struct {
	name string
	run  func(root, tmp string)
}{{"recording", recording}, {"averages", averages}, {"reader", reader}, {"cli", cli}, {"ranks", ranks}, {"export", export}, {"perfetto", perfettoSection}}

func main() {
	flag.Parse()
	if *count < 1 {
		fmt.Fprintln(os.Stderr, "bench: -count must be at least 1")
		os.Exit(2)
	}
	chosen := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			chosen[n] = true
		}
	}
	for n := range chosen {
		known := false
		for _, sec := range sections {
			known = known || sec.name == n
		}
		if !known {
			fmt.Fprintf(os.Stderr, "bench: -only: no section %q (recording, averages, reader, cli, ranks, export, perfetto)\n", n)
			os.Exit(2)
		}
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "orprof-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	load := readLoad()

	for _, sec := range sections {
		if len(chosen) == 0 || chosen[sec.name] {
			sec.run(root, tmp)
		}
	}

	fmt.Printf("Measured by `go run ./scripts/bench` on %s, %d CPUs, %s %s, %s, load average %s at the start.\n",
		cpuModel(), runtime.NumCPU(), runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH, start.UTC().Format("2006-01-02 15:04 MST"), load)
	fmt.Printf("Each figure is the median and the min (best) of %d runs, interleaved with its anchors, and each\n", *count)
	fmt.Println("ratio is of medians from the same run. The machine is shared with other jobs, so absolute figures")
	fmt.Println("move from run to run; the ratios to the anchors are what to compare.")
	fmt.Println()
	fmt.Println("| what | median | min (best) | compared in the same run |")
	fmt.Println("|---|---|---|---|")
	for _, r := range rows {
		if r.s == nil || len(r.s.vals) == 0 {
			fmt.Printf("| %s | — | — | not measured: %s |\n", r.what, r.note)
			continue
		}
		var cmp []string
		for _, v := range r.vs {
			a := find(v)
			if a == nil || a.s == nil || len(a.s.vals) == 0 {
				continue // its own row says why
			}
			cmp = append(cmp, ratio(r.s, a.s)+" "+v)
		}
		if r.note != "" {
			cmp = append(cmp, r.note)
		}
		fmt.Printf("| %s | %s | %s | %s |\n", r.what, format(r.s.median(), r.s.unit), format(r.s.best(), r.s.unit), strings.Join(cmp, "; "))
	}
	fmt.Fprintf(os.Stderr, "bench: done in %s\n", time.Since(start).Round(time.Second))
}

// ratio says how r compares with anchor a, by medians: "3.1× faster than" / "2.0× the time of",
// or for instruction counts "0.97× the count of".
func ratio(r, a *sample) string {
	x, y := r.median(), a.median()
	if r.unit == "instructions" {
		return fmt.Sprintf("%.2f× the count of", x/y)
	}
	if r.unit == "MB/s" {
		x, y = 1/x, 1/y
	}
	switch {
	case x <= y:
		return fmt.Sprintf("%.2f× faster than", y/x)
	default:
		return fmt.Sprintf("%.2f× the time of", x/y)
	}
}

func format(v float64, unit string) string {
	switch unit {
	case "ns":
		switch {
		case v >= 1e9:
			return fmt.Sprintf("%.2f s", v/1e9)
		case v >= 1e6:
			return fmt.Sprintf("%.1f ms", v/1e6)
		case v >= 1e4:
			return fmt.Sprintf("%.1f µs", v/1e3)
		}
		return fmt.Sprintf("%.1f ns", v)
	case "s":
		return fmt.Sprintf("%.3f s", v)
	case "×":
		return fmt.Sprintf("%.2f×", v)
	case "instructions":
		return fmt.Sprintf("%.0f M instructions", v/1e6)
	case "MB/s":
		if v >= 1000 {
			return fmt.Sprintf("%.2f GB/s", v/1000)
		}
		return fmt.Sprintf("%.0f MB/s", v)
	}
	return fmt.Sprintf("%g %s", v, unit)
}

// --- Go benchmarks -------------------------------------------------------------------------

// want is one benchmark result a figure reads: the first of names (full names, sub-benchmarks
// included) whose top-level benchmark exists in the package.
type want struct {
	what  string
	names []string
	unit  string // "ns" (ns/op), "MB/s", or "×" (a gain, read from metric)
	// metric is the benchmark's custom metric the figure is, when not ns/op or MB/s.
	metric string
	vs     []string
	// extra are custom metrics of the benchmark whose medians the row's note shows, each as
	// "median <metric>" (say "ratio", "cores").
	extra []string
}

// goBench runs the wanted benchmarks of pkg -count times, interleaved, and adds their rows.
func goBench(root, tmp, pkg, benchtime string, wants []want) {
	bin := filepath.Join(tmp, strings.ReplaceAll(strings.Trim(pkg, "./"), "/", "_")+".test")
	if pkg == "." {
		bin = filepath.Join(tmp, "root.test")
	}
	fail := func(why string) {
		for _, w := range wants {
			add(&row{what: w.what, note: why, vs: w.vs})
		}
	}
	build := exec.Command("go", "test", "-c", "-o", bin, pkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fail(fmt.Sprintf("`go test -c %s` failed: %s", pkg, firstLine(out)))
		return
	}
	dir := filepath.Join(root, pkg)
	list := exec.Command(bin, "-test.list", "^Benchmark")
	list.Dir = dir
	out, err := list.Output()
	if err != nil {
		fail(fmt.Sprintf("listing %s's benchmarks failed: %v", pkg, err))
		return
	}
	have := map[string]bool{}
	for _, l := range strings.Fields(string(out)) {
		have[l] = true
	}
	chosen := make([]string, len(wants))
	tops := map[string]bool{}
	for i, w := range wants {
		for _, n := range w.names {
			if have[strings.SplitN(n, "/", 2)[0]] {
				chosen[i] = n
				tops[strings.SplitN(n, "/", 2)[0]] = true
				break
			}
		}
	}
	var pat []string
	for t := range tops {
		pat = append(pat, "^"+regexp.QuoteMeta(t)+"$")
	}
	slices.Sort(pat)
	samples := make([]*sample, len(wants))
	cpus := make([]*sample, len(wants)) // CPU time per op, when the benchmark reports it
	extras := make([][]*sample, len(wants))
	for i, w := range wants {
		samples[i] = &sample{unit: w.unit}
		cpus[i] = &sample{unit: "ns"}
		for range w.extra {
			extras[i] = append(extras[i], &sample{})
		}
	}
	for k := 0; k < *count && len(pat) > 0; k++ {
		fmt.Fprintf(os.Stderr, "bench: %s %s (run %d of %d)\n", pkg, strings.Join(pat, "|"), k+1, *count)
		cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", strings.Join(pat, "|"), "-test.benchtime", benchtime, "-test.count", "1")
		cmd.Dir = dir
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s: %v\n%s", pkg, err, out)
		}
		res := parseBench(out)
		for i, n := range chosen {
			if n == "" {
				continue
			}
			if v, ok := res[n][cmp.Or(wants[i].metric, wants[i].unit)]; ok {
				samples[i].add(v)
			}
			if v, ok := res[n]["cpu-ns/op"]; ok {
				cpus[i].add(v)
			} else if v, ok := res[n]["cpu-ms/op"]; ok {
				cpus[i].add(v * 1e6)
			}
			for j, m := range wants[i].extra {
				if v, ok := res[n][m]; ok {
					extras[i][j].add(v)
				}
			}
		}
	}
	for i, w := range wants {
		r := &row{what: w.what, s: samples[i], vs: w.vs}
		switch {
		case chosen[i] == "":
			r.note = fmt.Sprintf("no benchmark %s in %s", strings.Join(w.names, " or "), pkgName(pkg))
		case len(samples[i].vals) == 0:
			r.note = fmt.Sprintf("%s in %s printed no %s", chosen[i], pkgName(pkg), cmp.Or(w.metric, w.unit))
		default:
			r.note = fmt.Sprintf("`%s` in %s", chosen[i], pkgName(pkg))
			for j := len(w.extra) - 1; j >= 0; j-- {
				if len(extras[i][j].vals) > 0 {
					r.note = fmt.Sprintf("%.3g %s (median); ", extras[i][j].median(), w.extra[j]) + r.note
				}
			}
			if len(cpus[i].vals) > 0 {
				r.note = fmt.Sprintf("CPU time %s per op (median); ", format(cpus[i].median(), "ns")) + r.note
			}
		}
		add(r)
	}
}

// pkgName names a package directory for the table.
func pkgName(pkg string) string {
	if pkg == "." {
		return "the root package"
	}
	return "`" + pkg + "`"
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// parseBench maps each benchmark name (without the -GOMAXPROCS suffix) to its metrics:
// "ns" from ns/op, "MB/s", and every custom unit as printed.
func parseBench(out []byte) map[string]map[string]float64 {
	res := map[string]map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if *verbose {
			fmt.Fprintln(os.Stderr, sc.Text())
		}
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		f := strings.Fields(m[2])
		metrics := map[string]float64{}
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			unit := f[i+1]
			if unit == "ns/op" {
				unit = "ns"
			}
			metrics[unit] = v
		}
		res[m[1]] = metrics
	}
	return res
}

func recording(root, tmp string) {
	goBench(root, tmp, ".", "300ms", []want{
		{what: "CPU-only range (RecordFunction + End), 1 goroutine", names: []string{"BenchmarkRange/cpu/goroutines=1", "BenchmarkRecordFunctionCPU"}, unit: "ns",
			vs: []string{"anchor: 2× RDTSC, 1 goroutine", "anchor: 2× time.Now (vDSO), 1 goroutine", "PyTorch 1.13 `with record_function()` in a profile"}},
		{what: "anchor: 2× RDTSC, 1 goroutine", names: []string{"BenchmarkRange/anchor-2xRDTSC/goroutines=1"}, unit: "ns"},
		{what: "anchor: 2× time.Now (vDSO), 1 goroutine", names: []string{"BenchmarkRange/anchor-2xNow/goroutines=1"}, unit: "ns"},
		{what: "CPU-only range, 2 goroutines (wall per range: half the 1-goroutine figure is perfect scaling)", names: []string{"BenchmarkRange/cpu/goroutines=2"}, unit: "ns",
			vs: []string{"CPU-only range (RecordFunction + End), 1 goroutine", "anchor: 2× RDTSC, 2 goroutines"}},
		{what: "anchor: 2× RDTSC, 2 goroutines", names: []string{"BenchmarkRange/anchor-2xRDTSC/goroutines=2"}, unit: "ns", vs: []string{"anchor: 2× RDTSC, 1 goroutine"}},
		{what: "anchor: a store-bound loop on the goroutine's own memory, about a range long, 1 goroutine", names: []string{"BenchmarkRange/anchor-private-stores/goroutines=1"}, unit: "ns"},
		{what: "anchor: the store-bound loop, 2 goroutines", names: []string{"BenchmarkRange/anchor-private-stores/goroutines=2"}, unit: "ns",
			vs: []string{"anchor: a store-bound loop on the goroutine's own memory, about a range long, 1 goroutine"}},
		{what: "anchor: 2× RDTSC stored in a 48-byte record, in fresh chunks of 512, 1 goroutine", names: []string{"BenchmarkRange/anchor-2xRDTSC-record/goroutines=1"}, unit: "ns"},
		{what: "anchor: the same, 2 goroutines", names: []string{"BenchmarkRange/anchor-2xRDTSC-record/goroutines=2"}, unit: "ns",
			vs: []string{"anchor: 2× RDTSC stored in a 48-byte record, in fresh chunks of 512, 1 goroutine"}},
		{what: "anchor: 2× RDTSC stored in a 48-byte record, written in turn into 6 MB the goroutine keeps, 1 goroutine", names: []string{"BenchmarkRange/anchor-2xRDTSC-record-kept/goroutines=1"}, unit: "ns"},
		{what: "anchor: the kept records, 2 goroutines", names: []string{"BenchmarkRange/anchor-2xRDTSC-record-kept/goroutines=2"}, unit: "ns",
			vs: []string{"anchor: 2× RDTSC stored in a 48-byte record, written in turn into 6 MB the goroutine keeps, 1 goroutine"}},
	})
	goBench(root, tmp, ".", "15x", []want{
		{what: "CPU-only range, 2 goroutines' throughput over 1's, in rounds interleaved with the store-bound loop's (medians of 15 cycles)",
			names: []string{"BenchmarkRangeScaling"}, unit: "×", metric: "range-x", extra: []string{"range-1g-ns", "range-2g-ns", "range-vs-stores"}},
		{what: "anchor: the store-bound loop, 2 goroutines' throughput over 1's, in the same cycles",
			names: []string{"BenchmarkRangeScaling"}, unit: "×", metric: "stores-x"},
	})
	goBench(root, tmp, ".", "1x", []want{
		{what: "`Stop` of 8 goroutines × 200k ranges (1.6M), no trace asked for", names: []string{"BenchmarkStop1600k"}, unit: "ns"},
	})
	dev := []want{
		{what: "range with OpenReg device events (fallback mode)", names: []string{"BenchmarkRangeOpenReg/device"}, unit: "ns",
			vs: []string{"anchor: 2× time.Now, device benchmark", "anchor: 2× RDTSC, device benchmark"}},
		{what: "anchor: 2× time.Now, device benchmark", names: []string{"BenchmarkRangeOpenReg/anchor-2xNow"}, unit: "ns"},
		{what: "anchor: 2× RDTSC, device benchmark", names: []string{"BenchmarkRangeOpenReg/anchor-2xRDTSC"}, unit: "ns"},
	}
	goBench(root, tmp, ".", "300ms", dev)
	if r := find(dev[0].what); r.s == nil || len(r.s.vals) == 0 {
		// The root package's device benchmark is missing: the openreg package's one, if any.
		rows = rows[:len(rows)-len(dev)]
		goBench(root, tmp, "./openreg", "300ms", []want{
			{what: dev[0].what, names: []string{"BenchmarkRangeWithDeviceEvents"}, unit: "ns"}})
	}
	goBench(root, tmp, "./kineto", "300ms", []want{
		{what: "range in a session with the sample Kineto plugin (correlation push/pop through purego per op)", names: []string{"BenchmarkRecordFunction/sample-plugin"}, unit: "ns",
			vs: []string{"range in a session without a plugin, same benchmark"}},
		{what: "range in a session without a plugin, same benchmark", names: []string{"BenchmarkRecordFunction/no-plugin"}, unit: "ns"},
	})
	torchRecord()
}

func averages(root, tmp string) {
	goBench(root, tmp, "./report", "5x", []want{
		{what: "tree + KeyAverages + table over 500,000 events", names: []string{"BenchmarkKeyAveragesTable500k"}, unit: "ns",
			vs: []string{"PyTorch 1.13 `key_averages()` alone over " + strconv.Itoa(*torchEvents) + " events"}},
	})
	torchKeyAverages()
	const reads = "reading both of two `mtia_rank0` traces (456k events each), same benchmark"
	goBench(root, tmp, "./analysis/ranks", "1x", []want{
		{what: "two-rank table of two `mtia_rank0` traces (reads + trees)", names: []string{"BenchmarkTwoMTIATraces/table-two-ranks"}, unit: "ns", vs: []string{reads}},
		{what: "`merge` of the same two ranks", names: []string{"BenchmarkTwoMTIATraces/merge"}, unit: "ns", vs: []string{reads}},
		{what: "`diff` of the same two ranks", names: []string{"BenchmarkTwoMTIATraces/diff"}, unit: "ns", vs: []string{reads}},
		{what: reads, names: []string{"BenchmarkTwoMTIATraces/read-both"}, unit: "ns"},
	})
}

func reader(root, tmp string) {
	goBench(root, tmp, "./trace/tracefile", "3x", []want{
		{what: "trace reader in memory, mtia_rank0 (87 MB)", names: []string{"BenchmarkReadTraceMTIA"}, unit: "MB/s",
			vs: []string{"anchor: `bytes.Count` pass over the same bytes"}},
	})
	data, err := gunzip(filepath.Join(root, "testdata", "kineto", "mtia_rank0.json.gz"))
	if err != nil {
		add(&row{what: "anchor: `bytes.Count` pass over the same bytes", note: err.Error()})
		return
	}
	s := &sample{unit: "MB/s"}
	sep := []byte(`"ph"`)
	for range *count {
		t0 := time.Now()
		n := bytes.Count(data, sep)
		d := time.Since(t0)
		if n == 0 {
			panic("no events")
		}
		s.add(float64(len(data)) / 1e6 / d.Seconds())
	}
	add(&row{what: "anchor: `bytes.Count` pass over the same bytes", s: s})
}

func export(root, tmp string) {
	const (
		plain = "trace export, plain JSON (250k events, 61 MB)"
		gz    = "trace export, `--trace x.gz` (internal/gz)"
		kp    = "anchor: klauspost gzip BestSpeed of the same bytes, one core"
		kp2   = "anchor: the same on two goroutines, half the bytes each"
		gzip1 = "anchor: `gzip -1 -c` of the same bytes"
		std   = "anchor: export through stdlib gzip BestSpeed"
	)
	// ratio: uncompressed / compressed size; cores: CPU time / wall time (2 = both cores; the
	// two-goroutine anchor's says whether the run had them).
	goBench(root, tmp, "./trace", "3x", []want{
		{what: plain, names: []string{"BenchmarkWriteTrace/plain"}, unit: "MB/s", extra: []string{"cores"}},
		{what: gz, names: []string{"BenchmarkWriteTrace/gz"}, unit: "MB/s", vs: []string{kp, gzip1, std, plain}, extra: []string{"ratio", "cores"}},
		{what: kp, names: []string{"BenchmarkWriteTrace/anchor-klauspost-BestSpeed-1core"}, unit: "MB/s", extra: []string{"ratio"}},
		{what: kp2, names: []string{"BenchmarkWriteTrace/anchor-klauspost-BestSpeed-2cores"}, unit: "MB/s", vs: []string{kp}, extra: []string{"cores"}},
		{what: gzip1, names: []string{"BenchmarkWriteTrace/anchor-gzip-1"}, unit: "MB/s", extra: []string{"ratio"}},
		{what: std, names: []string{"BenchmarkWriteTrace/gzip-stdlib-BestSpeed"}, unit: "MB/s", extra: []string{"ratio"}},
	})
}

// --- orprof table against python and gzip ----------------------------------------------------

// mtiaRun makes what a section that runs the orprof binary on mtia_rank0 needs: the trace gz
// inflated to raw, and the binary built at bin. On a failure it adds each row of names with
// the reason and reports false; fail adds them for a later one.
func mtiaRun(root, gz, raw, bin string, names []string) (data []byte, fail func(string), ok bool) {
	fail = func(why string) {
		for _, n := range names {
			add(&row{what: n, note: why})
		}
	}
	data, err := gunzip(gz)
	if err != nil {
		fail(err.Error())
		return nil, fail, false
	}
	if err := os.WriteFile(raw, data, 0o644); err != nil {
		fail(err.Error())
		return nil, fail, false
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/orprof")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fail("building orprof failed: " + firstLine(out))
		return nil, fail, false
	}
	return data, fail, true
}

func cli(root, tmp string) {
	gz := filepath.Join(root, "testdata", "kineto", "mtia_rank0.json.gz")
	raw := filepath.Join(tmp, "mtia_rank0.json")
	bin := filepath.Join(tmp, "orprof")
	names := []string{"`orprof table` mtia_rank0 raw", "`orprof table` mtia_rank0.json.gz",
		"anchor: python3 `json.load` of the raw file", "anchor: `gzip -dc` of the .gz to /dev/null",
		"`orprof timeline` mtia_rank0 raw (every view)",
		"`orprof report` mtia_rank0 raw (target: within 1.3× of `orprof table`)",
		"`orprof table` mtia_rank0 re-saved as json.dump writes it (\", \" and \": \")", "`orprof table` mtia_rank0 minified",
		"`orprof kernels` mtia_rank0 raw (target: as fast as `orprof table`, ≥ 1 GB/s, peak RSS ≤ 0.5× the file)"}
	data, fail, ok := mtiaRun(root, gz, raw, bin, names)
	if !ok {
		return
	}
	// The same events in the layouts analysis tools re-save traces in (issue 25: within 1.3× of
	// Kineto's layout per byte).
	dump, mini := filepath.Join(tmp, "mtia_dump.json"), filepath.Join(tmp, "mtia_min.json")
	for _, l := range []struct{ path, comma, colon string }{{dump, ", ", ": "}, {mini, ",", ":"}} {
		if err := os.WriteFile(l.path, tracetest.Respace(data, l.comma, l.colon), 0o644); err != nil {
			fail(err.Error())
			return
		}
	}
	mb := float64(len(data)) / 1e6
	type job struct {
		what string
		argv []string
		s    *sample
		rss  int64
		skip string
		vs   []string
	}
	py, pyWhy := python("json")
	jobs := []*job{
		{what: names[0], argv: []string{bin, "table", raw}, vs: []string{names[2]}},
		{what: names[1], argv: []string{bin, "table", gz}, vs: []string{names[3], names[2]}},
		{what: names[2], argv: []string{py, "-c", "import json,sys; json.load(open(sys.argv[1]))", raw}, skip: pyWhy},
		{what: names[3], argv: []string{"gzip", "-dc", gz}},
		{what: names[4], argv: []string{bin, "timeline", raw}, vs: []string{names[0]}},
		{what: names[5], argv: []string{bin, "report", "-o", filepath.Join(tmp, "mtia_rank0.report.html"), raw}, vs: []string{names[0]}},
		{what: names[6], argv: []string{bin, "table", dump}},
		{what: names[7], argv: []string{bin, "table", mini}},
		{what: names[8], argv: []string{bin, "kernels", raw}, vs: []string{names[0]}},
	}
	if _, err := exec.LookPath("gzip"); err != nil {
		jobs[3].skip = "gzip not found"
	}
	for _, j := range jobs {
		j.s = &sample{unit: "s"}
		if j.skip == "" {
			run(j.argv) // warm-up: page cache, binary
		}
	}
	for k := 0; k < *count; k++ {
		for _, j := range jobs {
			if j.skip != "" {
				continue
			}
			fmt.Fprintf(os.Stderr, "bench: %s (run %d of %d)\n", j.what, k+1, *count)
			d, rss, err := run(j.argv)
			if err != nil {
				j.skip = err.Error()
				continue
			}
			j.s.add(d.Seconds())
			j.rss = max(j.rss, rss)
		}
	}
	size := map[string]float64{names[6]: fileMB(dump), names[7]: fileMB(mini)}
	for _, j := range jobs {
		r := &row{what: j.what, s: j.s, vs: j.vs, note: j.skip}
		if j.skip == "" && len(j.s.vals) > 0 {
			jmb := mb
			if m, ok := size[j.what]; ok {
				jmb = m
			}
			r.note = fmt.Sprintf("%.0f MB/s of uncompressed JSON by the median", jmb/j.s.median())
			if _, ok := size[j.what]; ok && len(jobs[0].s.vals) > 0 {
				r.note += fmt.Sprintf(" (%.2f× the time per byte of the Kineto layout)",
					(j.s.median()/jmb)/(jobs[0].s.median()/mb))
			}
			if j.rss > 0 {
				r.note += fmt.Sprintf(", peak RSS %.0f MB (%.0f%% of the %.1f MB file)",
					float64(j.rss)/1e6, 100*float64(j.rss)/(jmb*1e6), jmb)
			}
		}
		add(r)
	}
	instructions(tmp, names[0], jobs[0].argv, []string{names[4], names[5], names[8]},
		map[string][]string{names[4]: jobs[4].argv, names[5]: jobs[5].argv, names[8]: jobs[8].argv})
}

// instructions adds the instruction counts of the table command (anchorName, anchor) and of
// each of the others (their argv in argvs) beside it: callgrind, GOMAXPROCS=1, one run each (a count
// does not depend on the machine's load, which the timings do; it moves by well under 1 %
// from run to run with the collector's timing). The rows are "instructions of <row>".
func instructions(tmp, anchorName string, anchor []string, others []string, argvs map[string][]string) {
	name := func(what string) string {
		what, _, _ = strings.Cut(what, " (target")
		return "instructions of " + what + " (callgrind, GOMAXPROCS=1)"
	}
	skip := ""
	switch _, err := exec.LookPath("valgrind"); {
	case *noCallgrind:
		skip = "-no-callgrind"
	case err != nil:
		skip = "valgrind not found"
	}
	one := func(what string, argv []string, vs []string) *row {
		r := add(&row{what: name(what), vs: vs, note: skip})
		if skip != "" {
			return r
		}
		fmt.Fprintf(os.Stderr, "bench: %s\n", r.what)
		n, err := callgrind(tmp, argv)
		if err != nil {
			r.note = err.Error()
			return r
		}
		r.s = &sample{unit: "instructions", vals: []float64{n}}
		r.note = "one run (a count, not a time)"
		return r
	}
	one(anchorName, anchor, nil)
	for _, o := range others {
		one(o, argvs[o], []string{name(anchorName)})
	}
}

// collected is callgrind's closing count of instructions ("==123== Collected : 1599026110").
var collected = regexp.MustCompile(`Collected : (\d+)`)

// callgrind runs argv under valgrind --tool=callgrind with GOMAXPROCS=1 (one thread: the count
// of one program's work, without a second core's spinning) and asynchronous preemption off
// (callgrind 3.19 aborts on the runtime's preemption signals: "vgCallgrind_post_signal:
// Assertion 'sigNum == …' failed"), and returns the instructions executed.
func callgrind(tmp string, argv []string) (float64, error) {
	out := filepath.Join(tmp, "callgrind.out")
	defer os.Remove(out)
	cmd := exec.Command("valgrind", append([]string{"--tool=callgrind", "--callgrind-out-file=" + out}, argv...)...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "GODEBUG=asyncpreemptoff=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("valgrind %s: %v: %s", filepath.Base(argv[0]), err, lastLine(stderr.Bytes()))
	}
	m := collected.FindSubmatch(stderr.Bytes())
	if m == nil {
		return 0, fmt.Errorf("valgrind printed no count: %s", lastLine(stderr.Bytes()))
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// --- 16 ranks against one ------------------------------------------------------------------------

// ranks puts `orprof timeline` and `orprof table` of 16 ranks beside the same commands on one
// (issue 25: "16 ranks as fast per byte as one"): the ranks are mtia_rank0 raw, its
// distributedInfo rank rewritten (16 × 87 MB in the temporary directory), read as one job.
// Each figure is MB/s of JSON by wall time; the note gives the CPU time (user + system) per
// byte against one rank's, which the machine's other load moves far less, and the peak RSS.
func ranks(root, tmp string) {
	gz := filepath.Join(root, "testdata", "kineto", "mtia_rank0.json.gz")
	bin := filepath.Join(tmp, "orprof")
	what := func(cmd string, n int) string {
		if n == 1 {
			return fmt.Sprintf("`orprof %s` of 1 rank (mtia_rank0 raw, 87 MB)", cmd)
		}
		return fmt.Sprintf("`orprof %s` of %d ranks (%d × mtia_rank0 raw, ranks rewritten; target: as fast per byte as 1 rank)", cmd, n, n)
	}
	const n = 16
	fail := func(why string) {
		for _, c := range []string{"timeline", "table"} {
			add(&row{what: what(c, 1), note: why})
			add(&row{what: what(c, n), note: why})
		}
	}
	data, err := gunzip(gz)
	if err != nil {
		fail(err.Error())
		return
	}
	at := bytes.Index(data, []byte(`"distributedInfo": {`))
	rk := bytes.Index(data[max(at, 0):], []byte(`"rank": 0`))
	if at < 0 || rk < 0 {
		fail("no distributedInfo rank in mtia_rank0")
		return
	}
	rk += at
	var files []string
	var total int64
	for r := range n {
		f := filepath.Join(tmp, fmt.Sprintf("rank%02d.json", r))
		b := slices.Concat(data[:rk], []byte(fmt.Sprintf(`"rank": %d`, r)), data[rk+len(`"rank": 0`):])
		if err := os.WriteFile(f, b, 0o644); err != nil {
			fail(err.Error())
			return
		}
		files = append(files, f)
		total += int64(len(b))
	}
	data = nil
	if _, err := os.Stat(bin); err != nil {
		build := exec.Command("go", "build", "-o", bin, "./cmd/orprof")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			fail("building orprof failed: " + firstLine(out))
			return
		}
	}
	type job struct {
		what     string
		argv     []string
		mb       float64
		s        *sample
		cpu      []float64 // s per MB
		rss      int64
		skip, vs string
	}
	one := float64(fileSize(files[0])) / 1e6
	var jobs []*job
	for _, c := range []string{"timeline", "table"} {
		j1 := &job{what: what(c, 1), argv: []string{bin, c, files[0]}, mb: one}
		jn := &job{what: what(c, n), argv: append([]string{bin, c}, files...), mb: float64(total) / 1e6, vs: j1.what}
		jobs = append(jobs, j1, jn)
	}
	for _, j := range jobs {
		j.s = &sample{unit: "MB/s"}
		runStat(j.argv) // warm-up: page cache, binary
	}
	for k := 0; k < *count; k++ {
		for _, j := range jobs {
			if j.skip != "" {
				continue
			}
			fmt.Fprintf(os.Stderr, "bench: %s (run %d of %d)\n", j.what, k+1, *count)
			d, cpu, rss, err := runStat(j.argv)
			if err != nil {
				j.skip = err.Error()
				continue
			}
			j.s.add(j.mb / d.Seconds())
			j.cpu = append(j.cpu, cpu.Seconds()/j.mb)
			j.rss = max(j.rss, rss)
		}
	}
	med := func(v []float64) float64 { return (&sample{unit: "s", vals: v}).median() }
	for i, j := range jobs {
		r := &row{what: j.what, s: j.s, note: j.skip}
		if j.vs != "" {
			r.vs = []string{j.vs}
		}
		if j.skip == "" && len(j.s.vals) > 0 {
			r.note = fmt.Sprintf("CPU %.2f ms/MB", 1000*med(j.cpu))
			if j.vs != "" && len(jobs[i-1].cpu) > 0 {
				r.note += fmt.Sprintf(" (%.2f× 1 rank's per byte)", med(j.cpu)/med(jobs[i-1].cpu))
			}
			r.note += fmt.Sprintf(", peak RSS %.0f MB", float64(j.rss)/1e6)
		}
		add(r)
	}
	for _, f := range files {
		os.Remove(f)
	}
}

// fileSize is the size of the file at path (0 when it cannot be read).
func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// run runs argv with its output discarded and returns the wall time and the peak RSS in bytes,
// which GNU time (/usr/bin/time) measures when it is there (0 otherwise): the rusage of a
// child of this process would count this process's own memory, inherited until exec.
func run(argv []string) (time.Duration, int64, error) {
	d, _, rss, err := runStat(argv)
	return d, rss, err
}

// runStat is run, with the CPU time (user + system) of the command and its children.
func runStat(argv []string) (time.Duration, time.Duration, int64, error) {
	var rssFile string
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		f, err := os.CreateTemp("", "orprof-bench-rss-")
		if err == nil {
			rssFile = f.Name()
			f.Close()
			defer os.Remove(rssFile)
			argv = append([]string{"/usr/bin/time", "-f", "%M", "-o", rssFile}, argv...)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	if err != nil {
		return d, 0, 0, fmt.Errorf("%s: %v: %s", filepath.Base(argv[0]), err, firstLine(stderr.Bytes()))
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	var rss int64
	if rssFile != "" {
		if b, err := os.ReadFile(rssFile); err == nil {
			kb, _ := strconv.ParseInt(lastLine(b), 10, 64)
			rss = kb * 1024
		}
	}
	return d, cpu, rss, nil
}

// --- python and PyTorch ------------------------------------------------------------------------

// python returns a python3 that can import mod (Debian's /usr/bin/python3 first, then the one on
// PATH), or "" and why not.
func python(mod string) (string, string) {
	if *noPython {
		return "", "-no-python"
	}
	var tried []string
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if err := exec.Command(path, "-c", "import "+mod).Run(); err == nil {
			return path, ""
		}
		tried = append(tried, path)
	}
	if len(tried) == 0 {
		return "", "python3 not found"
	}
	return "", fmt.Sprintf("`import %s` fails in %s", mod, strings.Join(tried, " and "))
}

// pyTimes runs a python script that prints one number per line and returns them.
func pyTimes(py, script string, args ...string) ([]float64, error) {
	cmd := exec.Command(py, append([]string{"-c", script}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, lastLine(stderr.Bytes()))
	}
	var vals []float64
	for _, f := range strings.Fields(string(out)) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("unexpected output %q", f)
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		return nil, errors.New("no output")
	}
	return vals, nil
}

func torchVersion(py string) string {
	out, err := exec.Command(py, "-c", "import torch; print(torch.__version__)").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

const torchRecordScript = `
import sys, time
import torch
from torch.autograd.profiler import profile, record_function
n, reps = int(sys.argv[1]), int(sys.argv[2])
for _ in range(reps):
    with profile():
        t0 = time.perf_counter()
        for _ in range(n):
            with record_function("step"):
                pass
        t1 = time.perf_counter()
    print((t1 - t0) / n * 1e9, flush=True)
`

func torchRecord() {
	what := "PyTorch 1.13 `with record_function()` in a profile"
	py, why := python("torch")
	if py == "" {
		add(&row{what: what, note: why})
		return
	}
	fmt.Fprintln(os.Stderr, "bench: PyTorch record_function")
	vals, err := pyTimes(py, torchRecordScript, "20000", strconv.Itoa(*count))
	if err != nil {
		add(&row{what: what, note: err.Error()})
		return
	}
	add(&row{what: what, s: &sample{unit: "ns", vals: vals}, note: "torch " + torchVersion(py) + ", " + py})
}

// torchKeyAveragesScript builds the events of report's BenchmarkKeyAveragesTable500k (steps of
// 20 layers of 8 ops, 200 op names, 4 threads) as PyTorch FunctionEvents, builds the tree once
// and times key_averages() alone.
const torchKeyAveragesScript = `
import sys, time
import torch
from torch.autograd.profiler_util import FunctionEvent, EventList
n, reps = int(sys.argv[1]), int(sys.argv[2])
evs, t, i = [], 0.0, 0
while len(evs) < n:
    thread = len(evs) // 1000 % 4 + 1
    step_start, step_idx = t, len(evs)
    evs.append(None)
    for l in range(20):
        if len(evs) >= n:
            break
        layer_start, layer_idx = t, len(evs)
        evs.append(None)
        for o in range(8):
            if len(evs) >= n:
                break
            i += 1
            evs.append(FunctionEvent(id=i, name="aten::op_%d" % ((l * 8 + o) % 200), thread=thread,
                start_us=t + 0.5, end_us=t + 3.5, input_shapes=[[64, 64], [64, 64]], stack=[]))
            t += 4
        i += 1
        evs[layer_idx] = FunctionEvent(id=i, name="layer_%d" % l, thread=thread, start_us=layer_start, end_us=t + 0.25, stack=[])
        t += 1
    i += 1
    evs[step_idx] = FunctionEvent(id=i, name="ProfilerStep#%d" % i, thread=thread, start_us=step_start, end_us=t + 0.25, stack=[])
    t += 1
el = EventList([e for e in evs if e is not None])
el._build_tree()
for _ in range(reps):
    t0 = time.perf_counter()
    el.key_averages()
    print((time.perf_counter() - t0) * 1e9, flush=True)
`

func torchKeyAverages() {
	what := "PyTorch 1.13 `key_averages()` alone over " + strconv.Itoa(*torchEvents) + " events"
	py, why := python("torch")
	if py == "" {
		add(&row{what: what, note: why})
		return
	}
	fmt.Fprintln(os.Stderr, "bench: PyTorch key_averages (slow)")
	vals, err := pyTimes(py, torchKeyAveragesScript, strconv.Itoa(*torchEvents), strconv.Itoa(*count))
	if err != nil {
		add(&row{what: what, note: err.Error()})
		return
	}
	add(&row{what: what, s: &sample{unit: "ns", vals: vals}, note: "torch " + torchVersion(py) + "; the tree is built once, untimed"})
}

// --- helpers -------------------------------------------------------------------------------------

func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run from inside the orprof module")
	}
	return filepath.Dir(mod), nil
}

func gunzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("test data missing: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return io.ReadAll(zr)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func readLoad() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

func lastLine(b []byte) string {
	l := strings.Split(strings.TrimSpace(string(b)), "\n")
	return l[len(l)-1]
}

// fileMB is the size of the file at path in MB (0 when it cannot be read).
func fileMB(path string) float64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return float64(st.Size()) / 1e6
}
