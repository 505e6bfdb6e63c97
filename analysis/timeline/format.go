package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/text"
)

// Views are the analyses' names, in the order they print.
var Views = []string{"breakdown", "idle", "overlap", "launches", "queue", "steps", "stragglers", "findings"}

// ParseViews reads a comma-separated list of view names ("" or "all": every view).
func ParseViews(s string) ([]string, error) {
	if s == "" || s == "all" {
		return Views, nil
	}
	want := map[string]bool{}
	for _, v := range strings.Split(s, ",") {
		v = strings.TrimSpace(v)
		ok := false
		for _, k := range Views {
			ok = ok || k == v
		}
		if !ok {
			return nil, fmt.Errorf("no view %s (views: %s)", quote.String(v), strings.Join(Views, ", "))
		}
		want[v] = true
	}
	var out []string
	for _, k := range Views {
		if want[k] {
			out = append(out, k)
		}
	}
	return out, nil
}

// Write renders the views of s in format f. text and markdown print a titled table per view;
// csv prints one table per view, each starting with a "view" column, separated by blank
// lines; json is one document: the Summary's "orprof_timeline", "options", "views" and
// "ranks" members, then one member per view (the stragglers view with the per-rank
// collectives a merge needs), so that a json document is itself a summary to merge.
func Write(w io.Writer, f text.Format, s *Summary, views []string) error {
	if f == text.JSON {
		return writeJSON(w, s, views)
	}
	var buf bytes.Buffer
	for i, v := range views {
		if !s.Holds(v) {
			// Not an empty table: "(none)" would read as no idle gaps, no launches.
			note := "not in this summary (it was written with --view " + strings.Join(s.Held, ",") + ")"
			if len(s.Held) == 0 {
				note = "not in this summary (it was written with --view and holds no view that reads back: findings are derived from the views breakdown, idle, launches, steps and stragglers)"
			}
			if i > 0 {
				buf.WriteByte('\n')
			}
			switch f {
			case text.Text:
				buf.WriteString(v + ": " + note + "\n")
			case text.Markdown:
				buf.WriteString("### " + v + "\n\n" + note + "\n")
			case text.CSV:
				m := text.Table{Head: []string{"view", "note"}, Rows: [][]string{{v, note}}}
				if err := m.WriteCSV(&buf); err != nil {
					return err
				}
			default:
				return fmt.Errorf("no format %q", f)
			}
			continue
		}
		for j, t := range append(tablesOf(s, v), plotTables(s, v)...) {
			switch f {
			case text.Text:
				if i > 0 || j > 0 {
					buf.WriteByte('\n')
				}
				t.text(&buf)
			case text.Markdown:
				if i > 0 || j > 0 {
					buf.WriteByte('\n')
				}
				t.markdown(&buf)
			case text.CSV:
				if i > 0 || j > 0 {
					buf.WriteByte('\n')
				}
				if err := t.csv(&buf, v); err != nil {
					return err
				}
			default:
				return fmt.Errorf("no format %q", f)
			}
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func writeJSON(w io.Writer, s *Summary, views []string) error {
	views = slices.DeleteFunc(slices.Clone(views), func(v string) bool { return !s.Holds(v) })
	var b bytes.Buffer
	member := func(k string, v any) error {
		enc, err := json.Marshal(v)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, ",\n  %q: %s", k, enc)
		return nil
	}
	fmt.Fprintf(&b, "{\n  \"orprof_timeline\": %d", s.Version)
	if err := member("options", s.Options); err != nil {
		return err
	}
	if err := member("views", views); err != nil {
		return err
	}
	if err := member("ranks", nonNil(s.Ranks)); err != nil {
		return err
	}
	for _, v := range views {
		var err error
		switch v {
		case "breakdown":
			err = member(v, nonNil(s.Breakdown))
		case "idle":
			err = member(v, nonNil(s.Idle))
		case "overlap":
			err = member(v, nonNil(s.Overlap))
		case "launches":
			if err = member(v, nonNil(s.Launches)); err == nil && s.JobLaunches != nil {
				err = member("job_launches", s.JobLaunches)
			}
		case "queue":
			err = member(v, nonNil(s.Queue))
		case "steps":
			if err = member(v, nonNil(s.Steps)); err == nil && s.SlowestStep != nil {
				err = member("slowest_step", s.SlowestStep)
			}
			if err == nil && s.StepRanks != nil {
				err = member("step_ranks", s.StepRanks)
			}
		case "stragglers":
			st := s.Stragglers
			st.Collectives, st.Ranks, st.Worst, st.ByRule = nonNil(st.Collectives), nonNil(st.Ranks), nonNil(st.Worst), nonNil(st.ByRule)
			st.ByCollective = nonNil(st.ByCollective)
			err = member(v, st)
		case "findings":
			err = member(v, nonNil(s.Findings))
		}
		if err != nil {
			return err
		}
	}
	b.WriteString("\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ReadSummary reads a summary Write wrote as json (plain: package input gunzips). It holds
// the views its "views" member lists (Summary.Held), the findings only with every view they
// derive from.
func ReadSummary(r io.Reader) (*Summary, error) {
	var s Summary
	doc := struct {
		*Summary
		Views *[]string `json:"views"`
	}{Summary: &s}
	d := json.NewDecoder(r)
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	if doc.Views != nil {
		held := []string{}
		for _, v := range *doc.Views {
			if !slices.Contains(Views, v) {
				return nil, fmt.Errorf("views: no view %s (views: %s)", quote.String(v), strings.Join(Views, ", "))
			}
		}
		for _, v := range Views {
			if slices.Contains(*doc.Views, v) {
				held = append(held, v)
			}
		}
		if slices.ContainsFunc(findingsFrom, func(v string) bool { return !slices.Contains(held, v) }) {
			held = slices.DeleteFunc(held, func(v string) bool { return v == "findings" })
		}
		if len(held) < len(Views) {
			s.Held = held
		}
	}
	if s.Version != Version {
		return nil, fmt.Errorf("not an orprof timeline summary of version %d (orprof_timeline %d)", Version, s.Version)
	}
	if err := s.Options.Check(); err != nil {
		return nil, err
	}
	if err := checkPlots(&s); err != nil {
		return nil, err
	}
	s.derive()
	return &s, nil
}

// table is one view's table: a title (text and markdown) and right-aligned cells but for
// the columns in left.
type table struct {
	title  string
	header []string
	rows   [][]string
	left   map[int]bool
}

// text writes the table under its title, columns padded, "(none)" for no rows (text.Table).
func (t *table) text(b *bytes.Buffer) {
	tt := text.Table{Head: t.header, Left: make([]bool, len(t.header)), Rows: t.rows}
	for i := range tt.Left {
		tt.Left[i] = t.left[i]
	}
	tt.WriteText(b, text.TextOptions{Title: t.title}) // a bytes.Buffer does not fail
}

func (t *table) markdown(b *bytes.Buffer) {
	b.WriteString("### " + text.MarkdownCell(t.title) + "\n\n")
	m := text.Table{Head: t.header, Left: make([]bool, len(t.header)), Rows: t.rows}
	for i := range m.Left {
		m.Left[i] = t.left[i]
	}
	m.WriteMarkdown(b) // a bytes.Buffer does not fail
}

// csv writes the table as CSV, each row starting with the view's name and its cells as
// values (raw).
func (t *table) csv(b *bytes.Buffer, view string) error {
	m := text.Table{Head: append([]string{"view"}, t.header...), Rows: make([][]string, len(t.rows))}
	for i, r := range t.rows {
		m.Rows[i] = append([]string{view}, t.raw(r)...)
	}
	return m.WriteCSV(b)
}

// raw turns display cells into CSV values: "10 (62.5%)" is 10, "62.5%" is 62.5, "-" (no
// value) is empty.
func (t *table) raw(r []string) []string {
	out := make([]string, len(r))
	for i, c := range r {
		if n, _, ok := strings.Cut(c, " ("); ok && strings.HasSuffix(c, ")") {
			c = n
		}
		if c == "-" {
			c = ""
		}
		if len(c) > 1 && c[len(c)-1] == '%' {
			if _, err := strconv.ParseFloat(c[:len(c)-1], 64); err == nil {
				c = c[:len(c)-1]
			}
		}
		out[i] = c
	}
	return out
}

// us renders ns as µs with one decimal; pct renders part/whole as a percentage.
func fmtUs(ns int64) string { return strconv.FormatFloat(float64(ns)/1000, 'f', 1, 64) }

func pct(part, whole int64) string { return text.Percent(float64(part), float64(whole), 1, "-") }

func fmtInt(n int64) string { return strconv.FormatInt(n, 10) }

func tablesOf(s *Summary, view string) []*table {
	switch view {
	case "breakdown":
		title := "Time breakdown per rank (µs; unions across streams)"
		if s.Options.Phase != "" {
			title = "Time breakdown per rank of phase " + s.Options.Phase + " (µs; unions across streams; its windows)"
		}
		t := &table{title: title,
			header: []string{"rank", "total", "busy", "idle", "idle %", "compute", "communication", "exposed comm",
				"memory", "exposed memory", "other", "HTA idle", "HTA compute", "HTA non-compute"}}
		for _, b := range s.Breakdown {
			t.rows = append(t.rows, []string{fmtInt(b.Rank), fmtUs(b.TotalNs), fmtUs(b.BusyNs), fmtUs(b.IdleNs), pct(b.IdleNs, b.TotalNs),
				fmtUs(b.ComputeNs), fmtUs(b.CommunicationNs), fmtUs(b.ExposedCommunicationNs), fmtUs(b.MemoryNs),
				fmtUs(b.ExposedMemoryNs), fmtUs(b.OtherNs), fmtUs(b.HTA.IdleNs), fmtUs(b.HTA.ComputeNs), fmtUs(b.HTA.NonComputeNs)})
		}
		return []*table{t}
	case "idle":
		t := &table{title: "Idle time per stream, by cause (µs; HTA: HolisticTraceAnalysis's figures)",
			header: []string{"rank", "device", "stream", "events", "span", "idle", "idle %", "host wait", "kernel wait", "other",
				"HTA host wait", "HTA kernel wait", "HTA other"}}
		for _, i := range s.Idle {
			t.rows = append(t.rows, []string{fmtInt(i.Rank), fmtInt(int64(i.Device)), fmtInt(i.Stream), fmtInt(int64(i.Events)),
				fmtUs(i.SpanNs), fmtUs(i.IdleNs), pct(i.IdleNs, i.SpanNs), fmtUs(i.HostWaitNs), fmtUs(i.KernelWaitNs), fmtUs(i.OtherNs),
				fmtUs(i.HTA.HostWaitNs), fmtUs(i.HTA.KernelWaitNs), fmtUs(i.HTA.OtherNs)})
		}
		return []*table{t}
	case "overlap":
		t := &table{title: "Communication/computation overlap per rank (µs)",
			header: []string{"rank", "communication", "overlapped", "overlap %", "exposed"}}
		c := &table{title: "Exposed communication per kernel name (µs)", header: []string{"rank", "name", "count", "total", "exposed"},
			left: map[int]bool{1: true}}
		for _, o := range s.Overlap {
			t.rows = append(t.rows, []string{fmtInt(o.Rank), fmtUs(o.CommunicationNs), fmtUs(o.OverlapNs), pct(o.OverlapNs, o.CommunicationNs), fmtUs(o.ExposedNs)})
			for _, e := range o.Collectives {
				c.rows = append(c.rows, []string{fmtInt(o.Rank), e.Name, fmtInt(int64(e.Count)), fmtUs(e.TotalNs), fmtUs(e.ExposedNs)})
			}
		}
		return []*table{t, c}
	case "launches":
		t := &table{title: fmt.Sprintf("Launch statistics per rank (µs; short kernels < %s µs)", fmtUs(s.Options.ShortKernelNs)),
			header: []string{"rank", "launches", "cpu mean", "cpu max", "device mean", "delay mean", "delay min", "delay max",
				"short kernels", "slower than kernel", "unlaunched", "HTA delay mean"}}
		for _, l := range s.Launches {
			htaMean := "-"
			if l.HTADelayCount > 0 {
				htaMean = fmtUs(l.HTADelaySumNs / int64(l.HTADelayCount))
			}
			t.rows = append(t.rows, []string{fmtInt(l.Rank), fmtInt(int64(l.CPU.Count)), fmtUs(int64(l.CPU.MeanNs())), fmtUs(l.CPU.MaxNs),
				fmtUs(int64(l.Device.MeanNs())), fmtUs(int64(l.Delay.MeanNs())), fmtUs(l.Delay.MinNs), fmtUs(l.Delay.MaxNs),
				pctCount(l.ShortKernels, l.CPU.Count), pctCount(l.SlowerLaunches, l.CPU.Count), fmtInt(int64(l.Unlaunched)), htaMean})
		}
		p := &table{title: "Launch percentiles per rank (µs; from a log histogram, within 0.54 %)",
			header: []string{"rank", "what", "count", "mean", "p50", "p90", "p99", "max"}, left: map[int]bool{1: true}}
		rows := func(rank string, l *Launches) {
			for _, x := range []struct {
				what string
				s    *Stat
			}{{"launch cpu", &l.CPU}, {"device", &l.Device}, {"launch→start", &l.Delay}} {
				if x.s.Count == 0 {
					continue
				}
				p.rows = append(p.rows, []string{rank, x.what, fmtInt(int64(x.s.Count)), fmtUs(int64(x.s.MeanNs())),
					fmtUs(x.s.P50Ns), fmtUs(x.s.P90Ns), fmtUs(x.s.P99Ns), fmtUs(x.s.MaxNs)})
			}
		}
		for i := range s.Launches {
			rows(fmtInt(s.Launches[i].Rank), &s.Launches[i])
		}
		if s.JobLaunches != nil {
			rows("job", s.JobLaunches)
		}
		return []*table{t, p}
	case "queue":
		n := strconv.Itoa(s.Options.QueueLength)
		t := &table{title: "Queue length per stream (launched, unfinished work)",
			header: []string{"rank", "device", "stream", "launches", "max", "mean", "time ≥ " + n + " (µs)", "≥ " + n + " %",
				"HTA max", "HTA mean"}}
		for _, q := range s.Queue {
			t.rows = append(t.rows, []string{fmtInt(q.Rank), fmtInt(int64(q.Device)), fmtInt(q.Stream), fmtInt(int64(q.Launches)),
				fmtInt(int64(q.Max)), strconv.FormatFloat(q.Mean(), 'f', 2, 64), fmtUs(q.AtOrAboveNs), pct(q.AtOrAboveNs, q.SpanNs),
				fmtInt(int64(q.HTAMax)), strconv.FormatFloat(q.HTAMean, 'f', 2, 64)})
		}
		return []*table{t}
	case "steps":
		title := "Steps (µs)"
		if s.SlowestStep != nil {
			title = fmt.Sprintf("Steps (µs); slowest: step %d on rank %d, %s µs", s.SlowestStep.Step, s.SlowestStep.Rank, fmtUs(s.SlowestStep.DurationNs))
		}
		t := &table{title: title, header: []string{"rank", "step", "duration", "busy", "idle", "idle %", "compute",
			"exposed comm", "exposed memory", "other"}}
		for _, rs := range s.Steps {
			for _, st := range rs.Steps {
				x := st.Times
				t.rows = append(t.rows, []string{fmtInt(rs.Rank), fmtInt(st.Step), fmtUs(x.TotalNs), fmtUs(x.BusyNs), fmtUs(x.IdleNs),
					pct(x.IdleNs, x.TotalNs), fmtUs(x.ComputeNs), fmtUs(x.ExposedCommunicationNs), fmtUs(x.ExposedMemoryNs), fmtUs(x.Exclusive.OtherNs)})
			}
		}
		if sr := s.StepRanks; sr != nil && len(sr.Ranks) > 1 {
			return []*table{t, stepOutliersTable(sr)}
		}
		return []*table{t}
	case "stragglers":
		st := s.Stragglers
		var rules []string
		for _, r := range st.ByRule {
			rules = append(rules, fmt.Sprintf("%s %d", r.Rule, r.Matched))
		}
		title := fmt.Sprintf("Stragglers: %d collective instances matched across %d ranks (µs)", st.Matched, len(st.Collectives))
		if len(st.Collectives) > 1 {
			title += fmt.Sprintf("; matched by %s; %d on one rank only, %d missing on a rank that takes part",
				strings.Join(rules, ", "), st.Unmatched, st.Missing)
		}
		t := &table{title: title, header: []string{"rank", "instances", "arrived last", "last %", "wait caused", "waited", "missing"}}
		for _, r := range st.Ranks {
			t.rows = append(t.rows, []string{fmtInt(r.Rank), fmtInt(int64(r.Instances)), fmtInt(int64(r.ArrivedLast)),
				pct(int64(r.ArrivedLast), int64(r.Instances)), fmtUs(r.WaitCausedNs), fmtUs(r.WaitedNs), fmtInt(int64(r.Missing))})
		}
		wt := "Collective instances that kept the ranks waiting longest (µs)"
		if st.Matched > len(st.Worst) {
			wt += fmt.Sprintf("; %d of %d shown", len(st.Worst), st.Matched)
		}
		w := &table{title: wt,
			header: []string{"name", "rule", "group", "seq", "instance", "ranks", "last rank", "spread", "total wait"},
			left:   map[int]bool{0: true, 1: true, 2: true}}
		for _, in := range st.Worst {
			seq := "-"
			if in.Rule == RuleGroupSeq || in.Rule == RuleCommsID {
				seq = fmtInt(in.Seq)
			}
			group := in.Group
			if group == "" {
				group = "-"
			}
			w.rows = append(w.rows, []string{in.Name, in.Rule, group, seq, fmtInt(int64(in.Ordinal)), fmtInt(int64(in.Ranks)), fmtInt(in.LastRank),
				fmtUs(in.SpreadNs), fmtUs(in.WaitNs)})
		}
		return []*table{t, w, byCollectiveTable(&st)}
	case "findings":
		t := &table{title: "Findings", header: []string{"rank", "view", "finding"}, left: map[int]bool{1: true, 2: true}}
		for _, f := range s.Findings {
			r := "job"
			if f.Rank >= 0 {
				r = fmtInt(f.Rank)
			}
			t.rows = append(t.rows, []string{r, f.View, f.Text})
		}
		return []*table{t}
	}
	return nil
}

func pctCount(n, of int) string {
	return fmtInt(int64(n)) + " (" + pct(int64(n), int64(of)) + ")"
}

// byCollectiveTable is the stragglers view's table per call and process group.
func byCollectiveTable(st *Stragglers) *table {
	title := "Collectives per call and process group (µs; bytes per call; GB/s: nccl-tests' algbw and busbw)"
	if st.ByCollectiveOmitted > 0 {
		title += fmt.Sprintf("; %d more rows not shown", st.ByCollectiveOmitted)
	}
	t := &table{title: title, header: []string{"call", "group", "ranks", "calls", "instances", "time", "bytes/call", "algbw",
		"busbw", "bw from", "waiting", "transferring", "wait %", "last rank"}, left: map[int]bool{0: true, 1: true, 9: true}}
	for _, c := range st.ByCollective {
		group, bpc, alg, bus, from, last := c.Group, "-", "-", "-", "-", "-"
		if group == "" {
			group = "-"
		}
		if c.SizedCalls > 0 {
			bpc = fmtInt(c.BytesPerCall)
		}
		if c.BWFrom != "" {
			alg, from = strconv.FormatFloat(c.AlgBW, 'f', 2, 64), c.BWFrom
			if c.HasBusBW {
				bus = strconv.FormatFloat(c.BusBW, 'f', 2, 64)
			}
		}
		if c.LastRank >= 0 {
			last = fmt.Sprintf("%d (%d of %d)", c.LastRank, c.LastRankTimes, c.Instances)
		}
		t.rows = append(t.rows, []string{c.Op, group, fmtInt(int64(c.Ranks)), fmtInt(int64(c.Calls)), fmtInt(int64(c.Instances)),
			fmtUs(c.DurationNs), bpc, alg, bus, from, fmtUs(c.WaitNs), fmtUs(c.TransferNs), pct(c.WaitNs, c.WaitNs+c.TransferNs), last})
	}
	return t
}

// stepOutliersTable is the steps view's table of the ranks whose median step time is an
// outlier (StepRanks).
func stepOutliersTable(sr *StepRanks) *table {
	t := &table{title: fmt.Sprintf("Step-time outlier ranks: median step more than %g × MAD (%s µs) and 5 %% from the ranks' median %s µs (%d of %d ranks)",
		sr.K, fmtUs(sr.MADNs), fmtUs(sr.MedianNs), len(sr.Outliers), len(sr.Ranks)),
		header: []string{"rank", "steps", "median step", "vs median"}}
	for _, r := range sr.Outliers {
		t.rows = append(t.rows, []string{fmtInt(r.Rank), fmtInt(int64(r.Steps)), fmtUs(r.MedianNs), pct(r.MedianNs-sr.MedianNs, sr.MedianNs)})
	}
	return t
}
