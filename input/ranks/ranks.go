// Package ranks reads the traces of a distributed job — one file per rank, or any set of
// traces — in parallel into one mergeable optable.Summary, and loads a profile given either as a
// trace or as a summary (`orprof table --format json`). It is where the trace reader and the
// summaries meet: `orprof table A B …`, `orprof merge` and `orprof diff` are thin over it.
package ranks

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/orprof/orprof/internal/sniff"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/fanout"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// Options tune ReadTraces and Load. The zero value is the default.
type Options struct {
	// Grouping is the key_averages grouping of the rows.
	Grouping events.AverageOptions
	// Workers is the number of traces read at once; 0 means GOMAXPROCS.
	Workers int
	// Link selects the rules that charge device time to operators (tracefile.Options.Link).
	Link tracefile.LinkMode
	// SkipScopeMetrics leaves out the scope profiler's "metrics: <kernel>" rows: traces are
	// read without them (tracefile.Options.SkipScopeMetrics), summaries drop theirs
	// (optable.Summary.DropScopeMetrics); both give the same rows.
	SkipScopeMetrics bool
}

// traceOptions are the reader's options for a trace.
func (o Options) traceOptions() tracefile.Options {
	return tracefile.Options{Link: o.Link, SkipScopeMetrics: o.SkipScopeMetrics}
}

// summary applies o to a summary read from a file: s, err as they are otherwise.
func (o Options) summary(s *optable.Summary, err error) (*optable.Summary, error) {
	if err == nil && o.SkipScopeMetrics {
		s.DropScopeMetrics()
	}
	return s, err
}

// Summarize turns one trace into the summary of one rank: its events' tree and key averages.
// file names the trace in the output, pos is its position among all the traces (its rank when
// the trace names none). data's events are taken over: the caller must not use them after.
func Summarize(data *tracefile.Data, file string, pos int, g events.AverageOptions) *optable.Summary {
	return SummarizeAverages(tracefile.AveragesOf(data, g), file, pos, g)
}

// SummarizeAverages is Summarize of a trace read for its table (tracefile.ReadAverages),
// grouped by g.
func SummarizeAverages(av *tracefile.Averages, file string, pos int, g events.AverageOptions) *optable.Summary {
	rank := optable.RankInfo{Rank: trace.Rank{Number: int64(pos), Trace: file}}
	if r, ok := traceRank(av.Data); ok {
		rank.Number, rank.Named = r, true
	}
	l := av.Data.DeviceLink.ByRuleUs
	if links := (optable.DeviceLinks{ExternalIDUs: l[tracefile.ByExternalID], LaunchUs: l[tracefile.ByLaunch],
		OrderUs: l[tracefile.ByOrder], EnclosingUs: l[tracefile.ByEnclosing], UnlinkedUs: l[tracefile.Unlinked]}); links.Notable() {
		// Kept only where it says more than the table (as the JSON summary writes it), so that
		// a summary read back equals the one written.
		rank.DeviceLinks = links
	}
	device := av.Data.DeviceName
	return optable.NewSummary(av.Rows, rank, optable.SummaryOptions{Device: device, ProfileMemory: av.Memory, Grouping: g})
}

// ReadTraces reads the trace files at paths, Options.Workers at a time (each trace's own parse
// runs on several goroutines too), summarizes each as soon as it is read, so that only the
// traces being read are in memory, and merges the summaries in path order: the result does not
// depend on the order the reads finish in. It returns the traces' warnings (tracefile's
// Data.ReadWarnings, each naming its file) in path order, then one line for the device time
// that reached no operator in any trace (the trace's own line when only one has some, else the
// sums), and the first error in path order.
func ReadTraces(paths []string, o Options) (*optable.Summary, []string, error) {
	sums := make([]*optable.Summary, len(paths))
	warns := make([][]string, len(paths))
	links := make([]tracefile.DeviceLink, len(paths))
	errs := fanout.Each(len(paths), o.Workers, func(k int) error {
		av, err := tracefile.OpenAverages(paths[k], o.traceOptions(), o.Grouping)
		if err != nil {
			return err
		}
		warns[k], links[k] = av.Data.ReadWarnings(paths[k]), av.Data.DeviceLink
		sums[k] = SummarizeAverages(av, paths[k], k, o.Grouping)
		return nil
	})
	return merge(sums, warns, links, paths, errs)
}

// merge merges sums in order and flattens their warnings, with one line for the device time
// that reached no operator in any trace, unless one of errs is set.
func merge(sums []*optable.Summary, warns [][]string, links []tracefile.DeviceLink, paths []string,
	errs []error) (*optable.Summary, []string, error) {
	if err := fanout.First(errs); err != nil {
		return nil, nil, err
	}
	w := slices.Concat(warns...)
	if lw := linkWarning(links, paths); lw != "" {
		w = append(w, lw)
	}
	s, err := optable.MergeSummaries(sums...)
	if me := (*optable.MergeError)(nil); errors.As(err, &me) && len(paths) == len(sums) {
		// Name the files, not "summary 2".
		return nil, nil, errors.New(me.Named(func(i int) string { return quote.String(paths[i]) }))
	}
	if err != nil {
		return nil, nil, err
	}
	return s, w, nil
}

// LinkWarning is one line about the device time that reached no operator in any of the
// traces at paths: the trace's own warning when only one has such time, else the sums over all
// of them; "" when all of it reached one.
func LinkWarning(links []tracefile.DeviceLink, paths []string) string {
	return linkWarning(links, paths)
}

func linkWarning(links []tracefile.DeviceLink, paths []string) string {
	var sum tracefile.DeviceLink
	n, last, traces := 0, -1, 0
	for i, l := range links {
		if l.TotalUs > 0 || l.Unlinked > 0 {
			traces++
		}
		if l.Unlinked > 0 {
			n, last = n+1, i
		}
		sum = sum.Add(l)
	}
	switch n {
	case 0:
		return ""
	case 1:
		return paths[last] + ": " + links[last].Warning()
	}
	return fmt.Sprintf("%d of %d traces with device time: %s", n, traces, sum.Warning())
}

// Expand replaces each directory in args by the trace and summary files in it (names ending in
// .json or .json.gz), in natural order (rank2 before rank10); other arguments are kept as they
// are. A directory with no such file is an error naming it.
func Expand(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, a)
			continue
		}
		ents, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, e := range ents {
			n := e.Name()
			if !e.IsDir() && (strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".json.gz")) {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: a directory with no .json or .json.gz file", a)
		}
		slices.SortFunc(names, naturalCompare)
		for _, n := range names {
			out = append(out, filepath.Join(a, n))
		}
	}
	return out, nil
}

// naturalCompare orders strings with runs of digits compared as numbers; strings equal so
// ("r01", "r1") are ordered bytewise.
func naturalCompare(a, b string) int {
	if c := naturalCompare1(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func naturalCompare1(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// ReportKey is the member that opens a report summary — every summary of a profile that
// `orprof report --format json` writes (package report) — and ReportVersion the version
// of the format this orprof writes and reads. Its "table" member is a summary as
// `orprof table --format json` writes it, which orprof merge and diff read (ReadSummaryFile).
const (
	ReportKey     = "orprof_report"
	ReportVersion = 1
)

// IsReportSummary reports whether a profile starting with prefix (at least the first few dozen
// bytes, plain) is a report summary.
func IsReportSummary(prefix []byte) bool { return sniff.FirstKey(prefix, ReportKey) }

// IsSummaryFile reports whether the file at path (plain or gzip) is a summary (a table's or a
// report's) rather than a trace. It reads only the start of the file.
func IsSummaryFile(path string) (bool, error) {
	k, err := FileKind(path)
	return k != KindTrace, err
}

// Kind is what a profile file holds.
type Kind int

const (
	KindTrace         Kind = iota // a trace
	KindTableSummary              // orprof table --format json
	KindReportSummary             // orprof report --format json
)

// FileKind says what the file at path (plain or gzip) holds. It reads only its start.
func FileKind(path string) (Kind, error) {
	head, err := sniff.FileHead(path, 64)
	return kindOfHead(head), err
}

// isSummaryStart reports whether the profile r starts with (plain or gzip) is a summary. It
// reads at most the start of r.
func isSummaryStart(r io.Reader) bool { return KindOf(r) != KindTrace }

// KindOf says what the profile r starts with (plain or gzip) is. It reads at most the start
// of r.
func KindOf(r io.Reader) Kind { return kindOfHead(sniff.Head(r, 64)) }

// kindOfHead says what a profile whose first bytes (after any gzip layer) are head is.
func kindOfHead(head []byte) Kind {
	switch {
	case optable.IsSummary(head):
		return KindTableSummary
	case IsReportSummary(head):
		return KindReportSummary
	}
	return KindTrace
}

// readAnySummary reads a table summary, or the table of a report summary, from r (plain or
// gzip); name is used in errors.
func readAnySummary(r io.Reader, name string) (*optable.Summary, error) {
	br := bufio.NewReader(r)
	var in io.Reader = br
	if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: not a valid gzip stream: %w", name, err)
		}
		defer gz.Close()
		in = gz
	}
	in = bufio.NewReader(in)
	head, _ := in.(*bufio.Reader).Peek(64)
	if !IsReportSummary(head) {
		return optable.ReadSummary(in, name)
	}
	var doc struct {
		Version *int            `json:"orprof_report"`
		Table   json.RawMessage `json:"table"`
	}
	dec := json.NewDecoder(&io.LimitedReader{R: in, N: 1 << 30})
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: not a valid report summary: %s", name, quote.Clip(err.Error()))
	}
	switch {
	case doc.Version == nil || *doc.Version != ReportVersion:
		v := "none"
		if doc.Version != nil {
			v = strconv.Itoa(*doc.Version)
		}
		return nil, fmt.Errorf("%s: field %s: version %s: this orprof reads version %d", name, ReportKey, v, ReportVersion)
	case len(doc.Table) == 0 || string(doc.Table) == "null":
		return nil, fmt.Errorf("%s: field table: missing: a report summary holds the table's summary", name)
	}
	s, err := optable.ReadSummary(bytes.NewReader(doc.Table), name+": field table")
	if err != nil {
		return nil, err
	}
	return s, nil
}

// LoadReader is Load for a profile read from r (stdin), named name in messages and in its
// rank's File: a trace or a summary, plain or gzip, as one rank at position 0. It holds the
// whole input in memory.
func LoadReader(r io.Reader, name string, o Options) (*optable.Summary, []string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if isSummaryStart(bytes.NewReader(data)) {
		s, err := o.summary(readAnySummary(bytes.NewReader(data), name))
		return s, nil, err
	}
	av, err := tracefile.ReadAverages(bytes.NewReader(data), name, o.traceOptions(), o.Grouping)
	if err != nil {
		return nil, nil, err
	}
	return SummarizeAverages(av, name, 0, o.Grouping), av.Data.Warnings(name), nil
}

// ReadSummaryFile reads the summary at path: a table's, or the table of a report summary.
func ReadSummaryFile(path string) (*optable.Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAnySummary(f, path)
}

// Load reads the profile at path — a trace or a summary, plain or gzip — as a summary, with a
// trace's warnings (tracefile's Data.Warnings). A trace is one rank at position pos.
func Load(path string, pos int, o Options) (*optable.Summary, []string, error) {
	isSum, err := IsSummaryFile(path)
	if err != nil {
		return nil, nil, err
	}
	if isSum {
		s, err := o.summary(ReadSummaryFile(path))
		return s, nil, err
	}
	av, err := tracefile.OpenAverages(path, o.traceOptions(), o.Grouping)
	if err != nil {
		return nil, nil, err
	}
	w := av.Data.Warnings(path)
	return SummarizeAverages(av, path, pos, o.Grouping), w, nil
}

// load is Load with the device-time figures apart from the other warnings.
func load(path string, pos int, o Options) (*optable.Summary, []string, tracefile.DeviceLink, error) {
	isSum, err := IsSummaryFile(path)
	if err != nil {
		return nil, nil, tracefile.DeviceLink{}, err
	}
	if isSum {
		s, err := o.summary(ReadSummaryFile(path))
		return s, nil, tracefile.DeviceLink{}, err
	}
	av, err := tracefile.OpenAverages(path, o.traceOptions(), o.Grouping)
	if err != nil {
		return nil, nil, tracefile.DeviceLink{}, err
	}
	w, l := av.Data.ReadWarnings(path), av.Data.DeviceLink
	return SummarizeAverages(av, path, pos, o.Grouping), w, l, nil
}

// LoadAll is Load over paths, Options.Workers at a time, merged in path order, with the
// warnings in path order and one line for the device time that reached no operator in any
// trace (as ReadTraces).
func LoadAll(paths []string, o Options) (*optable.Summary, []string, error) {
	sums := make([]*optable.Summary, len(paths))
	errs := make([]error, len(paths))
	warns := make([][]string, len(paths))
	links := make([]tracefile.DeviceLink, len(paths))
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for k, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			sums[k], warns[k], links[k], errs[k] = load(p, k, o)
		}()
	}
	wg.Wait()
	return merge(sums, warns, links, paths, errs)
}
