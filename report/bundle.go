// Package bundle is every summary of one profile that `orprof report` renders: the table's
// rows (optable.Summary), the op call tree (flame.Tree), the device-timeline analyses
// (timeline.Summary), the kernel view (kernels.Summary), the TensorBoard step breakdown
// (tbsteps.Summary) and the memory curves (memcurve.Summary). A Bundle is made from a trace in
// one streaming read that feeds every consumer (Open, Read: no event kept), from several
// traces read in parallel (OpenAll), and is written as one JSON document — a report summary,
// `orprof report --format json` — that Parse reads back and Merge merges rank by rank: the map
// and reduce steps of a large job (`orprof report summaries/`).
//
// The document:
//
//	{"orprof_report": 1,            the version (ranks.ReportVersion), first
//	 "table":    {…},               orprof table --format json (all rows)
//	 "flame":    {"root": …} | null,
//	 "timeline": {…} | null,        orprof timeline --format json (every view)
//	 "kernels":  {…} | null,        orprof kernels --format json
//	 "steps":    {…} | null,
//	 "memory":   {…} | null}
//
// Each member is written by its summary's own writer and read by its own reader, checked as
// it checks (a figure no collector could have made is refused). What a merge gives: the table,
// the timeline and the kernel view merge exactly (as `orprof merge`, `orprof timeline` and
// `orprof kernels` merge); the op tree is summed over the ranks path by path (exact sums of
// whole ns: the icicle of the job, not of a rank); the step breakdown keeps each rank's steps;
// the memory curves keep each rank's devices, named after their rank, their times re-based to
// the earliest start (float µs). A view missing from any input is missing from the merge.
// Every view numbers the ranks alike (internal/ranknum): a trace's own rank kept, a rank-less
// trace's its position among all the ranks of the inputs, in a summary of several ranks too.
package report

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/orprof/orprof/analysis/flame"
	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/memcurve"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/analysis/tbsteps"
	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/input/ranks"
	"github.com/orprof/orprof/internal/fanout"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/internal/ranknum"
	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// Bundle is every summary of a profile. Table is always set; a nil view is one the profile
// has no data for (a merge with an input that lacked it).
type Bundle struct {
	Table    *optable.Summary
	Flame    *flame.Tree
	Timeline *timeline.Summary
	Kernels  *kernels.Summary
	Steps    *tbsteps.Summary
	Memory   *memcurve.Summary
}

// Options tune reading traces. The zero value is the default.
type Options struct {
	// Grouping is the key_averages grouping of the table's rows.
	Grouping events.AverageOptions
	// SkipScopeMetrics and Link are tracefile.Options'.
	SkipScopeMetrics bool
	Link             tracefile.LinkMode
	// Workers is the number of traces read at once (OpenAll); 0 means GOMAXPROCS.
	Workers int
}

// Read reads one trace from r in one pass (tracefile.ReadAverages: the table's Averager, which
// walks the op tree, and the kernel, timeline, step and memory consumers, no event kept) into
// the summaries of one rank: the trace's distributedInfo rank, else pos. name names the trace
// in messages and in the summaries. It returns the read's Data for its warnings.
func Read(r io.Reader, name string, pos int, o Options) (*Bundle, *tracefile.Data, error) {
	return read(name, pos, o, func(opts tracefile.Options) (*tracefile.Averages, error) {
		return tracefile.ReadAverages(r, name, opts, o.Grouping)
	})
}

// Open is Read of the trace file at path.
func Open(path string, pos int, o Options) (*Bundle, *tracefile.Data, error) {
	return read(path, pos, o, func(opts tracefile.Options) (*tracefile.Averages, error) {
		return tracefile.OpenAverages(path, opts, o.Grouping)
	})
}

func read(name string, pos int, o Options, readAverages func(tracefile.Options) (*tracefile.Averages, error)) (*Bundle, *tracefile.Data, error) {
	kc, tc := kernels.NewCollector(), timeline.NewConsumer(timeline.DefaultOptions(), nil)
	steps, memory := tbsteps.NewCollector(), memcurve.NewCollector()
	tree := flame.NewBuilder()
	b := &Bundle{}
	// Every consumer's summary is finished on the consumers' goroutine as soon as the last
	// event is theirs, while the read makes the table's rows and walks the op tree. The
	// timeline's by FinishInRead, which forces no collection (Finish collects the read's
	// garbage first; in the middle of the read it would mark the live Averager and end
	// lazyGC's pause): on the MTIA trace the report now runs no collection at all.
	done := func(td *tracefile.Data) {
		rank := int64(pos)
		if td.HasRank {
			rank = td.Rank
		}
		b.Kernels = kc.Summary(kernels.Rank{File: name, Rank: rank, FromTrace: td.HasRank}, td.DeviceName)
		b.Steps = steps.Finish(rank, name)
		b.Memory = memory.Finish()
		b.Timeline = tc.FinishInRead(td, timeline.RankInfo{Rank: int64(pos), Trace: name})
	}
	// The table groups by input shape only when asked, and never reads stacks unless it
	// groups by them (ReadAverages decides).
	av, err := readAverages(tracefile.Options{NoShapes: !o.Grouping.GroupByInputShape, NoStacks: o.Grouping.GroupByStackN == 0,
		Consumers: []tracefile.Consumer{kc, tc, steps, memory}, ConsumersDone: done, Tree: tree.Add,
		SkipScopeMetrics: o.SkipScopeMetrics, Link: o.Link})
	if err != nil {
		return nil, nil, err
	}
	b.Table, b.Flame = ranks.SummarizeAverages(av, name, pos, o.Grouping), tree.Tree()
	return b, av.Data, nil
}

// LoadAll reads the profiles at paths — traces, report summaries and table summaries —,
// Options.Workers at a time (a trace read once, feeding every summary), and merges their
// bundles in path order as they come (each merged as soon as those before it are, so that
// only the bundles read out of order wait in memory: a directory of a 1,000-rank job's
// summaries is not held at once). A rank whose trace names no rank is numbered by its
// position among all the ranks of the inputs (internal/ranknum: of traces alone, trace k is
// rank k; a summary's rank-less ranks move along behind the ranks before it), in every view;
// a trace's own rank keeps its number. A table summary
// has the table alone (the merge has no other view). It returns the warnings as
// ranks.ReadTraces does (each trace's, then one line for the device time that reached no
// operator in any), and the first error in path order.
func LoadAll(paths []string, o Options) (*Bundle, []string, error) {
	warns := make([][]string, len(paths))
	links := make([]tracefile.DeviceLink, len(paths))
	var mu sync.Mutex
	waiting := make([]*Bundle, len(paths))
	var acc *Bundle
	var timelines []*timeline.Summary // merged at the end, at once
	next := 0
	var mergeErr error
	errs := fanout.Each(len(paths), o.Workers, func(k int) error {
		b, err := load(paths[k], k, o, &warns[k], &links[k])
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		waiting[k] = b
		for next < len(paths) && waiting[next] != nil && mergeErr == nil {
			if acc == nil {
				acc = waiting[next]
			} else {
				acc, mergeErr = merge([]string{"the profiles before " + quote.String(paths[next]), paths[next]}, false, acc, waiting[next])
			}
			// (MergeAll numbers the timelines' ranks as merge numbered the other views'.)
			timelines = append(timelines, waiting[next].Timeline)
			waiting[next] = nil
			next++
		}
		return mergeErr
	})
	if err := fanout.First(errs); err != nil {
		return nil, nil, err
	}
	acc.Timeline = nil
	if !slices.Contains(timelines, nil) {
		tl := timelines[0]
		if err := tl.MergeAll(timelines[1:]...); err != nil {
			i := 1
			var me *timeline.MergeError
			if errors.As(err, &me) {
				i, err = me.Index+1, me.Err
			}
			return nil, nil, fmt.Errorf("%s: timeline: %v", quote.String(paths[i]), err)
		}
		acc.Timeline = tl
	}
	var w []string
	for _, ws := range warns {
		w = append(w, ws...)
	}
	if lw := ranks.LinkWarning(links, paths); lw != "" {
		w = append(w, lw)
	}
	return acc, w, nil
}

// load reads one profile of LoadAll: a trace (its warnings and device links set), a report
// summary or a table summary.
func load(p string, k int, o Options, warns *[]string, link *tracefile.DeviceLink) (*Bundle, error) {
	kind, err := ranks.FileKind(p)
	if err != nil {
		return nil, err
	}
	var b *Bundle
	switch kind {
	case ranks.KindReportSummary:
		b, err = ParseFile(p)
	case ranks.KindTableSummary:
		var s *optable.Summary
		s, err = ranks.ReadSummaryFile(p)
		b = &Bundle{Table: s}
	default:
		var td *tracefile.Data
		b, td, err = Open(p, k, o)
		if err != nil {
			return nil, err
		}
		*warns, *link = td.ReadWarnings(p), td.DeviceLink
		return b, nil
	}
	if err == nil && o.SkipScopeMetrics {
		b.Table.DropScopeMetrics()
	}
	return b, err
}

// Merge merges bundles in order into a new one (the package doc says what each view's merge
// is); names[i] names bs[i] in errors (nil: "summary i"). The inputs' summaries may be taken
// over: do not use them afterwards.
func Merge(names []string, bs ...*Bundle) (*Bundle, error) { return merge(names, true, bs...) }

// merge is Merge, with the timelines merged (withTimeline) or left out (LoadAll merges them
// all at once at the end: timeline.Summary.MergeAll derives the cross-rank figures once).
func merge(names []string, withTimeline bool, bs ...*Bundle) (*Bundle, error) {
	if len(bs) == 1 {
		return bs[0], nil
	}
	name := func(i int) string {
		if i < len(names) {
			return quote.String(names[i])
		}
		return "summary " + strconv.Itoa(i+1)
	}
	tables := make([]*optable.Summary, len(bs))
	var trees []*flame.Tree
	var ks []*kernels.Summary
	var rankOf []int64
	var mems []*memcurve.Summary
	out := &Bundle{}
	hasFlame, hasTimeline, hasKernels, hasSteps := true, true, true, true
	for i, b := range bs {
		tables[i] = b.Table
		hasFlame = hasFlame && b.Flame != nil
		hasTimeline = hasTimeline && b.Timeline != nil
		hasKernels = hasKernels && b.Kernels != nil
		hasSteps = hasSteps && b.Steps != nil
		trees = append(trees, b.Flame)
		ks = append(ks, b.Kernels)
	}
	t, err := optable.MergeSummaries(tables...)
	var me *optable.MergeError
	if errors.As(err, &me) {
		return nil, errors.New(me.Named(name))
	}
	if err != nil {
		return nil, err
	}
	out.Table = t
	// Every view numbers the ranks as the table's merge does (internal/ranknum): a rank whose
	// trace names none by its position among all the ranks of the inputs — those of a summary
	// of several ranks too, moved along behind the ranks before it —, a trace's own rank by
	// that. The table's, the kernels' and the timeline's merges number their ranks so
	// themselves; the steps and the memory curves, which do not say which ranks their traces
	// named, take the numbers here (a one-rank input's curves are named after its rank by
	// memcurve.Merge, a merged input's renamed).
	at := 0
	for i, b := range bs {
		rs := make([]ranknum.Rank, len(b.Table.Ranks))
		for j, r := range b.Table.Ranks {
			rs[j] = ranknum.Rank{Number: r.Rank, Named: r.FromTrace}
		}
		nums, err := ranknum.Map(rs, at)
		if err != nil && (b.Timeline != nil || b.Steps != nil || b.Memory != nil) {
			// (A table alone has no figure keyed by rank number: its merge goes by position.)
			return nil, fmt.Errorf("%s: %v", name(i), err)
		}
		if b.Steps != nil && nums != nil {
			for j, r := range b.Steps.Ranks {
				if to, ok := nums[r.Rank]; ok {
					b.Steps.Ranks[j].Rank = to
				}
			}
		}
		b.Memory.Renumber(nums)
		r := int64(at)
		if at < len(t.Ranks) {
			r = t.Ranks[at].Rank
		}
		at += len(b.Table.Ranks)
		rankOf = append(rankOf, r)
		mems = append(mems, b.Memory)
	}
	out.Memory = memcurve.Merge(rankOf, mems)
	if hasFlame {
		out.Flame = flame.Merge(trees...)
	}
	if hasTimeline && withTimeline {
		tl, rest := bs[0].Timeline, make([]*timeline.Summary, 0, len(bs)-1)
		for _, b := range bs[1:] {
			rest = append(rest, b.Timeline)
		}
		if err := tl.MergeAll(rest...); err != nil {
			var me *timeline.MergeError
			if errors.As(err, &me) {
				return nil, fmt.Errorf("%s: timeline: %v", name(me.Index+1), me.Err)
			}
			return nil, fmt.Errorf("%s: timeline: %v", name(1), err)
		}
		out.Timeline = tl
	}
	if hasKernels {
		k, err := kernels.Merge(ks...)
		if err != nil {
			return nil, fmt.Errorf("kernels: %v", err)
		}
		out.Kernels = k
	}
	if hasSteps {
		st := &tbsteps.Summary{Categories: bs[0].Steps.Categories}
		for _, b := range bs {
			st.Merge(b.Steps)
		}
		out.Steps = st
	}
	return out, nil
}

// Write writes b as a report summary: one JSON document, each member written by its summary's
// own writer.
func Write(w io.Writer, b *Bundle) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\"%s\": %d,\n\"table\": ", ranks.ReportKey, ranks.ReportVersion)
	if err := optable.WriteSummaryJSON(&buf, b.Table, optable.TableOptions{RowLimit: optable.RowLimitAll}); err != nil {
		return err
	}
	member := func(key string, write func(*bytes.Buffer) error) error {
		trimNewline(&buf)
		fmt.Fprintf(&buf, ",\n%q: ", key)
		return write(&buf)
	}
	marshal := func(v any) func(*bytes.Buffer) error {
		return func(buf *bytes.Buffer) error {
			enc, err := json.Marshal(v)
			buf.Write(enc)
			return err
		}
	}
	null := func(buf *bytes.Buffer) error { buf.WriteString("null"); return nil }
	var err error
	for _, m := range []struct {
		key   string
		isNil bool
		write func(*bytes.Buffer) error
	}{
		{"flame", b.Flame == nil, marshal(b.Flame)},
		{"timeline", b.Timeline == nil, func(buf *bytes.Buffer) error {
			return timeline.Write(buf, text.JSON, b.Timeline, timeline.Views)
		}},
		{"kernels", b.Kernels == nil, func(buf *bytes.Buffer) error {
			return kernels.Write(buf, text.JSON, b.Kernels, kernels.WriteOptions{})
		}},
		{"steps", b.Steps == nil, marshal(b.Steps)},
		{"memory", b.Memory == nil, marshal(b.Memory)},
	} {
		write := m.write
		if m.isNil {
			write = null
		}
		if err = member(m.key, write); err != nil {
			return err
		}
	}
	trimNewline(&buf)
	buf.WriteString("}\n")
	_, err = w.Write(buf.Bytes())
	return err
}

func trimNewline(b *bytes.Buffer) {
	for b.Len() > 0 && b.Bytes()[b.Len()-1] == '\n' {
		b.Truncate(b.Len() - 1)
	}
}

// maxBytes bounds a report summary (its curves and tree are bounded; its table is a summary's).
const maxBytes = 1 << 30

// Parse reads a report summary (Write's document, plain; gzip already undone) from r; name
// names it in errors. Strict: one JSON object, its version first and this orprof's, no member
// it does not know, "table" present, each member checked by its summary's own reader. Every
// error is one line naming name and the member ("FILE: field timeline: …").
func Parse(r io.Reader, name string) (*Bundle, error) {
	lr := &io.LimitedReader{R: r, N: maxBytes + 1}
	data, err := io.ReadAll(lr)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("%s: larger than %d bytes: not a report summary", name, maxBytes)
	}
	if !ranks.IsReportSummary(data) {
		return nil, fmt.Errorf("%s: not a report summary (a JSON object starting with %q)", name, ranks.ReportKey)
	}
	var doc struct {
		Version  *int            `json:"orprof_report"`
		Table    json.RawMessage `json:"table"`
		Flame    json.RawMessage `json:"flame"`
		Timeline json.RawMessage `json:"timeline"`
		Kernels  json.RawMessage `json:"kernels"`
		Steps    json.RawMessage `json:"steps"`
		Memory   json.RawMessage `json:"memory"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: not a valid report summary: %s", name, quote.Clip(err.Error()))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: byte %d: data after the report summary", name, dec.InputOffset())
	}
	if doc.Version == nil || *doc.Version != ranks.ReportVersion {
		v := "none"
		if doc.Version != nil {
			v = strconv.Itoa(*doc.Version)
		}
		return nil, fmt.Errorf("%s: field %s: version %s: this orprof reads version %d", name, ranks.ReportKey, v, ranks.ReportVersion)
	}
	field := func(f string, err error) error {
		return fmt.Errorf("%s: field %s: %s", name, f, quote.Clip(err.Error()))
	}
	present := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
	b := &Bundle{}
	if !present(doc.Table) {
		return nil, fmt.Errorf("%s: field table: missing: a report summary holds the table's summary", name)
	}
	if b.Table, err = optable.ReadSummary(bytes.NewReader(doc.Table), "table"); err != nil {
		return nil, fmt.Errorf("%s: field %v", name, err)
	}
	if present(doc.Flame) {
		var t flame.Tree
		if err := strictUnmarshal(doc.Flame, &t); err != nil {
			return nil, field("flame", err)
		}
		if err := t.Check(); err != nil {
			return nil, field("flame", err)
		}
		b.Flame = &t
	}
	if present(doc.Timeline) {
		if b.Timeline, err = timeline.Load(bytes.NewReader(doc.Timeline)); err != nil {
			return nil, field("timeline", err)
		}
	}
	if present(doc.Kernels) {
		if b.Kernels, err = kernels.ReadSummary(bytes.NewReader(doc.Kernels), "kernels"); err != nil {
			return nil, fmt.Errorf("%s: field %v", name, err)
		}
	}
	if present(doc.Steps) {
		var s tbsteps.Summary
		if err := strictUnmarshal(doc.Steps, &s); err != nil {
			return nil, field("steps", err)
		}
		if err := s.Check(); err != nil {
			return nil, field("steps", err)
		}
		b.Steps = &s
	}
	if present(doc.Memory) {
		var m memcurve.Summary
		if err := strictUnmarshal(doc.Memory, &m); err != nil {
			return nil, field("memory", err)
		}
		if err := m.Check(); err != nil {
			return nil, field("memory", err)
		}
		b.Memory = &m
	}
	if f, err := checkRanks(b); err != nil {
		return nil, field(f, err)
	}
	return b, nil
}

func numberedBy(named bool) string {
	if named {
		return "named by its trace"
	}
	return "numbered by its position"
}

// checkRanks reports the first rank no writer could have numbered so, and the member that has
// it: in the table, a rank whose trace names none not numbered by its position (what
// ranknum's rule gives every merge); in the timeline, the kernels and the steps, a rank that
// is not the table's rank of that place (each view has the table's ranks, in its order, named
// by their traces alike), which a merge would number apart from its other views.
func checkRanks(b *Bundle) (string, error) {
	table := b.Table.Ranks
	for i, r := range table {
		if !r.FromTrace && r.Rank != int64(i) {
			return "table", fmt.Errorf("rank %d, of a trace that names none, is at position %d: such a rank is numbered by its position", r.Rank, i)
		}
	}
	same := func(n int, rank func(int) (int64, bool)) error {
		if n != len(table) {
			return fmt.Errorf("%d ranks, the table %d", n, len(table))
		}
		for i, t := range table {
			r, named := rank(i)
			if r != t.Rank {
				return fmt.Errorf("rank %d at position %d, where the table has rank %d", r, i, t.Rank)
			}
			if named != t.FromTrace {
				return fmt.Errorf("rank %d at position %d %s, the table's %s", r, i, numberedBy(named), numberedBy(t.FromTrace))
			}
		}
		return nil
	}
	if tl := b.Timeline; tl != nil {
		if err := same(len(tl.Ranks), func(i int) (int64, bool) { return tl.Ranks[i].Rank, tl.Ranks[i].HasRank }); err != nil {
			return "timeline", err
		}
	}
	if k := b.Kernels; k != nil {
		if err := same(len(k.Ranks), func(i int) (int64, bool) { return k.Ranks[i].Rank, k.Ranks[i].FromTrace }); err != nil {
			return "kernels", err
		}
	}
	if st := b.Steps; st != nil {
		if err := same(len(st.Ranks), func(i int) (int64, bool) { return st.Ranks[i].Rank, table[i].FromTrace }); err != nil {
			return "steps", err
		}
	}
	return "", nil
}

// ParseFile is Parse of the file at path, plain or gzip.
func ParseFile(path string) (*Bundle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSummary(f, path)
}

// ReadSummary is Parse of r, plain or gzip.
func ReadSummary(r io.Reader, name string) (*Bundle, error) {
	pr, err := plain(r, name)
	if err != nil {
		return nil, err
	}
	return Parse(pr, name)
}

// ReadKernels is kernels.ReadOptions.Embedded: when br starts a report summary (plain or
// gzip; ranks.KindReportSummary), it reads it (ReadSummary, strict) and returns its kernels
// summary, with ok true; a report summary without one is an error naming name and the
// member. Otherwise ok is false and br is as it was. `orprof kernels` reads report summaries
// through it.
func ReadKernels(br *bufio.Reader, name string) (s *kernels.Summary, ok bool, err error) {
	b, ok, err := readIfReport(br, name)
	if !ok || err != nil {
		return nil, ok, err
	}
	if b.Kernels == nil {
		return nil, true, missing(name, "kernels")
	}
	return b.Kernels, true, nil
}

// ReadTimeline is timeline.ReadOptions.Embedded, as ReadKernels is kernels': the timeline
// summary of the report summary br starts. `orprof timeline` reads report summaries through it.
func ReadTimeline(br *bufio.Reader, name string) (s *timeline.Summary, ok bool, err error) {
	b, ok, err := readIfReport(br, name)
	if !ok || err != nil {
		return nil, ok, err
	}
	if b.Timeline == nil {
		return nil, true, missing(name, "timeline")
	}
	return b.Timeline, true, nil
}

// readIfReport reads the report summary br starts, when it starts one (ok).
func readIfReport(br *bufio.Reader, name string) (*Bundle, bool, error) {
	head, _ := br.Peek(br.Size())
	if ranks.KindOf(bytes.NewReader(head)) != ranks.KindReportSummary {
		return nil, false, nil
	}
	b, err := ReadSummary(br, name)
	return b, true, err
}

// missing is the error for a report summary without the view member: one written from inputs
// of which one lacked it (a table summary has the table alone).
func missing(name, member string) error {
	return fmt.Errorf("%s: field %s: null: this report summary has no %s summary (one of the profiles it was made from had none: a table summary has only the table)", name, member, member)
}

func strictUnmarshal(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// plain returns r, gunzipped if it is gzip.
func plain(r io.Reader, name string) (io.Reader, error) {
	br := bufio.NewReader(r)
	if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: not a valid gzip stream: %w", name, err)
		}
		return gz, nil
	}
	return br, nil
}

// FromTrace is Read of a trace in orprof's model (trace: the trace `orprof run` and
// httpprof make of a Result), written as the Kineto JSON `orprof run --trace` writes and read
// back: the timeline, kernel, step and memory views of an in-process profile are those of its
// trace file. (Its table and op tree are better made from the Result's events, which the
// caller has: html.ListModel; a trace says a ProfilerStep is a user annotation, the Result does
// not.) It costs the trace's writing and one read, in memory.
func FromTrace(t *trace.Trace, name string, o Options) (*Bundle, *tracefile.Data, error) {
	var buf bytes.Buffer
	if err := trace.Write(&buf, t); err != nil {
		return nil, nil, err
	}
	return Read(bytes.NewReader(buf.Bytes()), name, 0, o)
}
