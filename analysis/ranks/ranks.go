// Package ranks is the op table's read entry point: it reads the profiles of a distributed
// job — one trace per rank, table summaries, report summaries' tables, identified by package
// input — in parallel into one mergeable optable.Summary. `orprof table A B …`, `orprof
// merge`, `orprof diff` and the report's table are thin over it. It sits above optable, which
// the trace reader's own tests import, so that the table's model does not import the reader.
package ranks

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/fanout"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// ReadOptions tune reading profiles into summaries. The zero value is the default.
type ReadOptions struct {
	// Grouping is the key_averages grouping of the rows.
	Grouping events.AverageOptions
	// Workers is the number of inputs read at once; 0 means GOMAXPROCS.
	Workers int
	// Link selects the rules that charge device time to operators (tracefile.Options.Link).
	Link tracefile.LinkMode
	// SkipScopeMetrics leaves out the scope profiler's "metrics: <kernel>" rows: traces are
	// read without them (tracefile.Options.SkipScopeMetrics), summaries drop theirs
	// (optable.Summary.DropScopeMetrics); both give the same rows.
	SkipScopeMetrics bool
}

// traceOptions are the reader's options for a trace.
func (o ReadOptions) traceOptions() tracefile.Options {
	return tracefile.Options{Link: o.Link, SkipScopeMetrics: o.SkipScopeMetrics}
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
	if av.Data.HasRank {
		rank.Number, rank.Named = av.Data.Rank, true
	}
	l := av.Data.DeviceLink.ByRuleUs
	if links := (optable.DeviceLinks{ExternalIDUs: l[tracefile.ByExternalID], LaunchUs: l[tracefile.ByLaunch],
		OrderUs: l[tracefile.ByOrder], EnclosingUs: l[tracefile.ByEnclosing], UnlinkedUs: l[tracefile.Unlinked],
		GraphUs: l[tracefile.ByGraphScope]}); links.Notable() {
		// Kept only where it says more than the table (as the JSON summary writes it), so that
		// a summary read back equals the one written.
		rank.DeviceLinks = links
	}
	return optable.NewSummary(av.Rows, rank, optable.SummaryOptions{Device: av.Data.DeviceName, ProfileMemory: av.Memory, Grouping: g})
}

// SummaryOf reads the table summary of an input that is one (input.TableSummary) or holds one
// (the table of an input.ReportSummary).
func SummaryOf(in *input.Input) (*optable.Summary, error) {
	var doc []byte
	var err error
	name := in.Name
	switch in.Kind {
	case input.TableSummary:
		doc, err = in.Document()
	case input.ReportSummary:
		doc, err = in.Member("table")
		name += ": field table"
	default:
		return nil, fmt.Errorf("%s: %s, not a table summary", in.Name, in.Kind)
	}
	if err != nil {
		return nil, err
	}
	return optable.ReadSummary(bytes.NewReader(doc), name)
}

// Open reads the profile at path — a trace, a table summary or a report summary's table,
// plain or gzip — as a summary, with a trace's warnings (tracefile's Data.Warnings). A trace is
// one rank at position pos; another summary's kind is refused (input.KindError).
func Open(path string, pos int, o ReadOptions) (*optable.Summary, []string, error) {
	in, err := input.Open(path)
	if err != nil {
		return nil, nil, err
	}
	s, warns, _, err := readInput(in, pos, o)
	return s, warns, err
}

// Read is Open of a profile read from r (standard input), named name in messages and in its
// rank's File.
func Read(r io.Reader, name string, o ReadOptions) (*optable.Summary, []string, error) {
	in, err := input.Read(r, name)
	if err != nil {
		return nil, nil, err
	}
	s, warns, _, err := readInput(in, 0, o)
	return s, warns, err
}

// readInput reads one identified input as a summary: its warnings, and a trace's device-time
// figures apart.
func readInput(in *input.Input, pos int, o ReadOptions) (*optable.Summary, []string, tracefile.DeviceLink, error) {
	switch in.Kind {
	case input.TableSummary, input.ReportSummary:
		s, err := SummaryOf(in)
		if err == nil && o.SkipScopeMetrics {
			s.DropScopeMetrics()
		}
		return s, nil, tracefile.DeviceLink{}, err
	case input.Trace:
	default:
		return nil, nil, tracefile.DeviceLink{}, &input.KindError{Name: in.Name, Kind: in.Kind}
	}
	av, err := in.ReadAverages(o.traceOptions(), o.Grouping)
	if err != nil {
		return nil, nil, tracefile.DeviceLink{}, err
	}
	return SummarizeAverages(av, in.Name, pos, o.Grouping), av.Data.ReadWarnings(in.Name), av.Data.DeviceLink, nil
}

// LoadTraces reads the trace files at paths, Workers at a time (each trace's own parse runs
// on several goroutines too), summarizes each as soon as it is read, so that only the traces
// being read are in memory, and merges the summaries in path order: the result does not depend
// on the order the reads finish in. It returns the traces' warnings (tracefile's
// Data.ReadWarnings, each naming its file) in path order, then one line for the device time
// that reached no operator in any trace (LinkWarning), and the first error in path order.
func LoadTraces(paths []string, o ReadOptions) (*optable.Summary, []string, error) {
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
	return mergeRead(sums, warns, links, paths, errs)
}

// Load reads the profiles at paths (directories expanded; "-" is not read) as LoadInputs does.
func Load(paths []string, o ReadOptions) (*optable.Summary, []string, error) {
	ins, warns, err := input.Load(paths, input.LoadOptions{Workers: o.Workers})
	if err != nil {
		return nil, nil, err
	}
	s, w, err := LoadInputs(ins, o)
	return s, append(warns, w...), err
}

// LoadInputs is Open over the identified inputs ins (input.Load), Workers at a time, merged
// in order, with the warnings in order and one line for the device time that reached no
// operator in any trace (as LoadTraces).
func LoadInputs(ins []*input.Input, o ReadOptions) (*optable.Summary, []string, error) {
	sums := make([]*optable.Summary, len(ins))
	warns := make([][]string, len(ins))
	links := make([]tracefile.DeviceLink, len(ins))
	errs := fanout.Each(len(ins), o.Workers, func(k int) (err error) {
		sums[k], warns[k], links[k], err = readInput(ins[k], k, o)
		return err
	})
	n := make([]string, len(ins))
	for i, in := range ins {
		n[i] = in.Name
	}
	return mergeRead(sums, warns, links, n, errs)
}

// mergeRead merges sums in order and flattens their warnings, with one line for the device
// time that reached no operator in any trace, unless one of errs is set.
func mergeRead(sums []*optable.Summary, warns [][]string, links []tracefile.DeviceLink, names []string,
	errs []error) (*optable.Summary, []string, error) {
	if err := fanout.First(errs); err != nil {
		return nil, nil, err
	}
	w := slices.Concat(warns...)
	if lw := LinkWarning(links, names); lw != "" {
		w = append(w, lw)
	}
	s, err := optable.MergeSummaries(sums...)
	if me := (*optable.MergeError)(nil); errors.As(err, &me) && len(names) == len(sums) {
		// Name the files, not "summary 2".
		return nil, nil, errors.New(me.Named(func(i int) string { return quote.String(names[i]) }))
	}
	if err != nil {
		return nil, nil, err
	}
	return s, w, nil
}

// LinkWarning is one line about the device time that reached no operator in any of the
// traces named names: the trace's own warning when only one has such time, else the sums over
// all of them; "" when all of it reached one.
func LinkWarning(links []tracefile.DeviceLink, names []string) string {
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
		return names[last] + ": " + links[last].Warning()
	}
	return fmt.Sprintf("%d of %d traces with device time: %s", n, traces, sum.Warning())
}
