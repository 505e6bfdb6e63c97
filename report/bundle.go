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
//	{"orprof_report": 1,            the version (input.ReportVersion), first
//	 "table":    {…},               orprof table --format json (all rows)
//	 "flame":    {"root": …} | null,
//	 "timeline": {…} | null,        orprof timeline --format json (every view)
//	 "kernels":  {…} | null,        orprof kernels --format json
//	 "steps":    {…} | null,
//	 "memory":   {…} | null,
//	 "code":     {…} | null,        by module and by line (analysis/code.Report), or why not
//	 "lanes":    {…} | null}        the Timeline's lanes (package lanes)
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
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"sync"

	"github.com/orprof/orprof/analysis"
	"github.com/orprof/orprof/analysis/code"
	"github.com/orprof/orprof/analysis/flame"
	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/lanes"
	"github.com/orprof/orprof/analysis/memcurve"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/analysis/ranks"
	"github.com/orprof/orprof/analysis/tbsteps"
	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/fanout"
	"github.com/orprof/orprof/internal/namecap"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/internal/ranknum"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// Bundle is every summary of a profile. Table is always set; a nil view is one the profile
// has no data for (a merge with an input that lacked it). Kinds lists the views in order.
type Bundle struct {
	Table    *optable.Summary
	Flame    *flame.Tree
	Timeline *timeline.Summary
	Kernels  *kernels.Summary
	Steps    *tbsteps.Summary
	Memory   *memcurve.Summary
	Code     *code.Report
	Lanes    *lanes.Summary
}

// fieldOf is, per entry of Kinds, the index of Bundle's field that holds its summary: the
// field whose type's Analysis is the entry's Name (a kind without a field is a mistake the
// package's tests catch at once).
var fieldOf = func() []int {
	bt := reflect.TypeFor[Bundle]()
	out := make([]int, len(Kinds))
	for i, k := range Kinds {
		out[i] = -1
		for f := range bt.NumField() {
			z := reflect.Zero(bt.Field(f).Type).Interface()
			if s, ok := z.(analysis.Summary); ok && s.Analysis() == k.Name {
				out[i] = f
			}
		}
		if out[i] < 0 {
			panic("report: Bundle has no field for the " + k.Name + " analysis")
		}
	}
	return out
}()

// views are b's summaries in Kinds' order (nil: none).
func (b *Bundle) views() []analysis.Summary {
	v := reflect.ValueOf(b).Elem()
	vs := make([]analysis.Summary, len(Kinds))
	for i, f := range fieldOf {
		if fv := v.Field(f); !fv.IsNil() {
			vs[i] = fv.Interface().(analysis.Summary)
		}
	}
	return vs
}

// set makes s b's view of its kind.
func (b *Bundle) set(s analysis.Summary) {
	v := reflect.ValueOf(b).Elem()
	for i, k := range Kinds {
		if k.Name == s.Analysis() {
			v.Field(fieldOf[i]).Set(reflect.ValueOf(s))
		}
	}
}

// clear removes b's view of Kinds[i].
func (b *Bundle) clear(i int) {
	f := reflect.ValueOf(b).Elem().Field(fieldOf[i])
	f.Set(reflect.Zero(f.Type()))
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
	// Rules class kernels (a user's rules file, kernels.LoadRules) in every analysis that
	// classes them (UseRules); nil: the built-in rules.
	Rules *kernels.Rules
}

// ruled is an analysis that classes kernels by rules it can be given before its read.
type ruled interface{ UseRules(*kernels.Rules) }

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
	// One consumer per analysis that has one; the table and the op tree are made by the
	// read's Averager (Options.Tree: a flame.Builder walks PyTorch's tree as the rows are made).
	as := make([]analysis.Analysis, len(Kinds))
	var cs []tracefile.Consumer
	for i, k := range Kinds {
		if k.New != nil {
			as[i] = k.New()
			if r, ok := as[i].(ruled); ok && o.Rules != nil {
				r.UseRules(o.Rules)
			}
			c, ok := as[i].(tracefile.Consumer)
			if !ok {
				return nil, nil, fmt.Errorf("report: the %s analysis is not a tracefile.Consumer", k.Name)
			}
			cs = append(cs, c)
		}
	}
	tree := flame.NewBuilder()
	// The table groups by input shape only when asked, and never reads stacks unless it
	// groups by them (ReadAverages decides).
	av, err := readAverages(tracefile.Options{NoShapes: !o.Grouping.GroupByInputShape, NoStacks: o.Grouping.GroupByStackN == 0,
		Consumers: cs, Position: pos, Tree: tree.Add, SkipScopeMetrics: o.SkipScopeMetrics, Link: o.Link})
	if err != nil {
		return nil, nil, err
	}
	b := &Bundle{Table: ranks.SummarizeAverages(av, name, pos, o.Grouping), Flame: tree.Tree()}
	capNames(b.Flame.Root)
	for i, a := range as {
		if a == nil {
			continue
		}
		s, err := a.Result()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %v", name, Kinds[i].Name, err)
		}
		if s != nil {
			b.set(s)
		}
	}
	return b, av.Data, nil
}

// capNames caps the op tree's names (internal/namecap): the table keeps each name exact, once.
func capNames(n *flame.Node) {
	if n == nil {
		return
	}
	n.Name = namecap.Cap(n.Name)
	for _, c := range n.Children {
		capNames(c)
	}
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
// ranks.LoadTraces does (each trace's, then one line for the device time that reached no
// operator in any), and the first error in path order.
func LoadAll(paths []string, o Options) (*Bundle, []string, error) {
	warns := make([][]string, len(paths))
	links := make([]tracefile.DeviceLink, len(paths))
	var mu sync.Mutex
	waiting := make([]*Bundle, len(paths))
	var acc *Bundle
	// The views merged once (Kind.Once) are merged at the end, all at once.
	once := make([][]analysis.Summary, len(Kinds))
	rankLists := make([][]trace.Rank, len(paths))
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
				acc, mergeErr = merge([]string{"the profiles before it", quote.String(paths[next])}, false, acc, waiting[next])
			}
			vs := waiting[next].views()
			for i, kind := range Kinds {
				if kind.Once {
					once[i] = append(once[i], vs[i])
				}
			}
			rankLists[next] = tableRanks(waiting[next].Table)
			waiting[next] = nil
			next++
		}
		return mergeErr
	})
	if err := fanout.First(errs); err != nil {
		return nil, nil, err
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = quote.String(p)
	}
	parts, err := partsOf(names, rankLists, acc.Table)
	if err != nil {
		return nil, nil, err
	}
	for i, kind := range Kinds {
		if !kind.Once {
			continue
		}
		for j := range parts {
			parts[j].Summary = once[i][j]
		}
		s, err := kind.Merge(parts)
		if err != nil {
			return nil, nil, err
		}
		acc.clear(i)
		if s != nil {
			acc.set(s)
		}
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

// tableRanks are t's ranks.
func tableRanks(t *optable.Summary) []trace.Rank {
	rs := make([]trace.Rank, len(t.Ranks))
	for i, r := range t.Ranks {
		rs[i] = r.Rank
	}
	return rs
}

// partsOf are the parts of a merge of inputs named names whose tables have the ranks
// rankLists, which merged into the table t: each input's ranks numbered by internal/ranknum's
// rule. A clash is an error only for an input with a view keyed by rank (hasByRank).
func partsOf(names []string, rankLists [][]trace.Rank, t *optable.Summary) ([]analysis.Part, error) {
	parts := make([]analysis.Part, len(rankLists))
	at := 0
	for i, rs := range rankLists {
		nums, err := ranknum.Map(rs, at)
		first := int64(at)
		if at < len(t.Ranks) {
			first = t.Ranks[at].Number
		}
		parts[i] = analysis.Part{Name: names[i], Ranks: rs, At: at, First: first, Nums: nums}
		if err != nil {
			parts[i].Nums = nil
			parts[i].Clash = err
		}
		at += len(rs)
	}
	return parts, nil
}

// load reads one profile of LoadAll: a trace (its warnings and device links set), a report
// summary or a table summary.
func load(p string, k int, o Options, warns *[]string, link *tracefile.DeviceLink) (*Bundle, error) {
	in, err := input.Open(p)
	if err != nil {
		return nil, err
	}
	var b *Bundle
	switch in.Kind {
	case input.ReportSummary:
		b, err = ParseInput(in)
	case input.TableSummary:
		var s *optable.Summary
		s, err = ranks.SummaryOf(in)
		b = &Bundle{Table: s}
	case input.Trace:
		var td *tracefile.Data
		b, td, err = Open(p, k, o)
		if err != nil {
			return nil, err
		}
		*warns, *link = td.ReadWarnings(p), td.DeviceLink
		return b, nil
	default:
		return nil, &input.KindError{Name: p, Kind: in.Kind, Cmd: "report"}
	}
	if err == nil && o.SkipScopeMetrics {
		b.Table.DropScopeMetrics()
	}
	return b, err
}

// Merge merges bundles in order into a new one (the package doc says what each view's merge
// is); names[i] names bs[i] in errors (nil: "summary i"). The inputs' summaries may be taken
// over: do not use them afterwards.
func Merge(names []string, bs ...*Bundle) (*Bundle, error) {
	shown := make([]string, len(names))
	for i, n := range names {
		shown[i] = quote.String(n)
	}
	return merge(shown, true, bs...)
}

// merge is Merge, with the timelines merged (withTimeline) or left out (LoadAll merges them
// all at once at the end: timeline.Summary.MergeAll derives the cross-rank figures once), and
// names as errors show them (file names quoted, descriptions not).
func merge(names []string, withOnce bool, bs ...*Bundle) (*Bundle, error) {
	if len(bs) == 1 {
		return bs[0], nil
	}
	name := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return "summary " + strconv.Itoa(i+1)
	}
	views := make([][]analysis.Summary, len(bs))
	ns := make([]string, len(bs))
	rankLists := make([][]trace.Rank, len(bs))
	for i, b := range bs {
		views[i], ns[i], rankLists[i] = b.views(), name(i), tableRanks(b.Table)
	}
	// The table first: every view numbers the ranks as its merge does (internal/ranknum): a
	// rank whose trace names none by its position among all the ranks of the inputs — those
	// of a summary of several ranks too, moved along behind the ranks before it —, a trace's
	// own rank by that.
	parts, _ := partsOf(ns, rankLists, &optable.Summary{})
	for i := range parts {
		parts[i].Summary = views[i][0]
	}
	t, err := Kinds[0].Merge(parts)
	if err != nil {
		return nil, err
	}
	out := &Bundle{}
	out.set(t)
	parts, _ = partsOf(ns, rankLists, out.Table)
	for i, p := range parts {
		// (A table alone has no figure keyed by rank number: its merge goes by position.)
		if p.Clash != nil && slices.ContainsFunc(Kinds, func(k *analysis.Kind) bool {
			return k.ByRank && views[i][slices.Index(Kinds, k)] != nil
		}) {
			return nil, fmt.Errorf("%s: %v", p.Name, p.Clash)
		}
	}
	for k, kind := range Kinds[1:] {
		k++
		if kind.Once && !withOnce {
			continue
		}
		for i := range parts {
			parts[i].Summary = views[i][k]
		}
		s, err := kind.Merge(parts)
		if err != nil {
			return nil, err
		}
		if s != nil {
			out.set(s)
		}
	}
	return out, nil
}

// Write writes b as a report summary: one JSON document, each member written by its summary's
// own writer.
func Write(w io.Writer, b *Bundle) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\"%s\": %d", input.ReportKey, input.ReportVersion)
	for i, v := range b.views() {
		trimNewline(&buf)
		fmt.Fprintf(&buf, ",\n%q: ", Kinds[i].Name)
		if v == nil {
			buf.WriteString("null")
		} else if err := Kinds[i].Write(&buf, v); err != nil {
			return err
		}
	}
	trimNewline(&buf)
	buf.WriteString("}\n")
	_, err := w.Write(buf.Bytes())
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
	if input.IdentifyBytes(data) != input.ReportSummary {
		return nil, fmt.Errorf("%s: not a report summary (a JSON object starting with %q)", name, input.ReportKey)
	}
	// The document's members: the version, then one per kind, none other.
	fields := []reflect.StructField{{Name: "Version", Type: reflect.TypeFor[json.RawMessage](), Tag: `json:"` + input.ReportKey + `"`}}
	for i, k := range Kinds {
		fields = append(fields, reflect.StructField{Name: "M" + strconv.Itoa(i), Type: reflect.TypeFor[json.RawMessage](),
			Tag: reflect.StructTag(`json:"` + k.Name + `"`)})
	}
	docv := reflect.New(reflect.StructOf(fields))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(docv.Interface()); err != nil {
		return nil, fmt.Errorf("%s: not a valid report summary: %s", name, quote.Clip(err.Error()))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: byte %d: data after the report summary", name, dec.InputOffset())
	}
	doc := docv.Elem()
	if err := input.CheckReportVersion(doc.Field(0).Interface().(json.RawMessage)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	present := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
	b := &Bundle{}
	for i, k := range Kinds {
		raw := doc.Field(i + 1).Interface().(json.RawMessage)
		if !present(raw) {
			if i == 0 {
				return nil, fmt.Errorf("%s: field %s: missing: a report summary holds the table's summary", name, k.Name)
			}
			continue
		}
		s, err := Kinds.Read(k, raw, k.Name)
		if err != nil {
			return nil, fmt.Errorf("%s: field %v", name, err)
		}
		b.set(s)
	}
	if f, err := checkRanks(b); err != nil {
		return nil, fmt.Errorf("%s: field %s: %s", name, f, quote.Clip(err.Error()))
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
		if !r.Named && r.Number != int64(i) {
			return "table", fmt.Errorf("rank %d, of a trace that names none, is at position %d: such a rank is numbered by its position", r.Number, i)
		}
	}
	for i, v := range b.views() {
		k := Kinds[i]
		if i == 0 || v == nil || k.Ranks == nil {
			continue
		}
		rs, named := k.Ranks(v)
		if len(rs) != len(table) {
			return k.Name, fmt.Errorf("%d ranks, the table %d", len(rs), len(table))
		}
		for j, t := range table {
			r := rs[j]
			if !named {
				r.Named = t.Named // (its JSON does not say: the table's)
			}
			if r.Number != t.Number {
				return k.Name, fmt.Errorf("rank %d at position %d, where the table has rank %d", r.Number, j, t.Number)
			}
			if r.Named != t.Named {
				return k.Name, fmt.Errorf("rank %d at position %d %s, the table's %s", r.Number, j, numberedBy(r.Named), numberedBy(t.Named))
			}
		}
	}
	return "", nil
}

// ParseFile is Parse of the file at path, plain or gzip.
func ParseFile(path string) (*Bundle, error) {
	in, err := input.Open(path)
	if err != nil {
		return nil, err
	}
	return ParseInput(in)
}

// ReadSummary is Parse of r, plain or gzip.
func ReadSummary(r io.Reader, name string) (*Bundle, error) {
	in, err := input.Read(r, name)
	if err != nil {
		return nil, err
	}
	return ParseInput(in)
}

// ParseInput is Parse of an identified input: its whole document, gunzipped (a corrupt gzip
// stream is said to be one).
func ParseInput(in *input.Input) (*Bundle, error) {
	doc, err := in.Document()
	if err != nil {
		return nil, err
	}
	return Parse(bytes.NewReader(doc), in.Name)
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
