// Package html renders orprof's summaries as one self-contained HTML file: the report of
// `orprof report`, `orprof run --report` and httpprof's /debug/orprof/report. The file has no
// external reference at all — its CSS and JavaScript are inline, its charts are SVG drawn by
// the page's own script (assets/js, one file per view, no library), and a
// Content-Security-Policy forbids every fetch — so it opens from disk, offline, in any current
// browser.
//
// A Model holds summaries made elsewhere (optable.Summary and optable.Diff, flame.Tree, the
// analyses' summaries), and Write embeds each in the page as the JSON the CLI prints for it,
// written by the same functions, so every number the page shows is the CLI's. The package
// computes one thing of its own, the table's findings (the top operators, device idle), and
// sums one, the device time no operator launched; the page's script lays out, sorts, filters
// and takes shares. A view whose summary is missing says why instead. Each part of the page
// has a byte budget (TableBudget and the others): over it, long names are shortened and the
// smallest rows left out, and the page says how many.
package html

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	stdhtml "html"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/orprof/orprof/analysis/code"
	"github.com/orprof/orprof/analysis/flame"
	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/lanes"
	"github.com/orprof/orprof/analysis/memcurve"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/analysis/tbsteps"
	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/namecap"
	"github.com/orprof/orprof/report"
	"github.com/orprof/orprof/text"
)

//go:embed assets/report.css
var css string

//go:embed assets/js/*.js
var scripts embed.FS

// script is the page's script: the files of assets/js in name order, one closure. 00-lib.js
// holds the formats and the chart and table helpers; each view is a file that adds its entry
// to VIEWS; 99-boot.js builds the tabs.
var script = func() string {
	names, err := fs.Glob(scripts, "assets/js/*.js")
	if err != nil {
		panic(err)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("// orprof report: draws the summaries embedded in this file (the JSON in #orprof-data) as\n")
	b.WriteString("// tables, SVG charts and canvas. It computes no figure of its own: every number shown is a\n")
	b.WriteString("// field of those summaries, or a share of two of them.\n(function () {\n  \"use strict\";\n")
	for _, n := range names {
		data, err := scripts.ReadFile(n)
		if err != nil {
			panic(err)
		}
		b.WriteString("  // ---- " + path.Base(n) + " ----\n")
		b.Write(data)
	}
	b.WriteString("})();\n")
	return b.String()
}()

// Model is what a report shows: the summaries of one profile (or of several ranks merged),
// and of a diff. Nil members are views without data; the Why fields say why when the caller
// knows better than the defaults.
type Model struct {
	// Title names the profile (e.g. the input files), shown in the header and the tab title.
	Title string
	// Inputs are the files the summaries were made from, listed under the title.
	Inputs []string
	// Warnings are shown under the title, a line each (a capture cut at its bound, say).
	Warnings []string
	// Summary is the operator table of the profile (all its ranks): the Overview, Operators,
	// Memory and Ranks views.
	Summary *optable.Summary
	// Flame is the op call tree of the profile (flame.FromList, or a flame.Builder's of a
	// streaming read; of several ranks, their trees summed); nil when the profile was read
	// from table summaries, which keep no tree. FlameWhy says why it is missing.
	Flame    *flame.Tree
	FlameWhy string
	// Timeline is the device-timeline analyses' summary (orprof timeline) and Steps the
	// TensorBoard step-time breakdown (tbsteps) of the same trace: the Overview's breakdown,
	// idle causes and findings. TimelineWhy says why they are missing.
	Timeline    *timeline.Summary
	Steps       *tbsteps.Summary
	TimelineWhy string
	// Kernels is the kernel view's summary (orprof kernels) of the same trace or traces.
	Kernels *kernels.Summary
	// Memory is the memory curve of the trace's [memory] records (memcurve): the Memory view's
	// chart and peaks.
	Memory *memcurve.Summary
	// Code is the code view's summary (analysis/code: by module and by line) of the same
	// trace or traces: the Code view.
	Code *code.Report
	// Lanes is the time axis of the same trace or traces (package lanes): the Timeline view.
	Lanes *lanes.Summary
	// Rules are the kernel categories' rules the summaries were made with (nil: the built-in
	// ones): the Kernels view's categories follow them.
	Rules *kernels.Rules
	// Diff, when set, fills the Diff view.
	Diff *Diff
	// Start is the view shown first ("" is the Overview; a diff report starts on "diff").
	Start string
}

// UseBundle sets m's views from the report summary b: every analysis but the table and the op
// tree, which a caller may make otherwise (from a run's events). A new analysis of the
// report summary is shown by one line here.
func (m *Model) UseBundle(b *report.Bundle) {
	m.Timeline, m.Steps, m.Kernels, m.Memory = b.Timeline, b.Steps, b.Kernels, b.Memory
	m.Code, m.Lanes = b.Code, b.Lanes
}

// Diff is the Diff view: two profiles' summaries and their names. The operator tables are
// needed; each side's step breakdown (tbsteps), device timeline and kernels, when set, are
// compared too (the step time leads the view).
type Diff struct {
	BeforeName, AfterName         string
	Before, After                 *optable.Summary
	BeforeSteps, AfterSteps       *tbsteps.Summary
	BeforeTimeline, AfterTimeline *timeline.Summary
	BeforeKernels, AfterKernels   *kernels.Summary
}

// DiffKernelRows caps the kernel changes a diff page holds: the largest increases and the
// largest decreases, half each; the page says how many it left out.
const DiffKernelRows = 200

// ContentSecurityPolicy is the report's policy (in a meta element of the page, and a header
// where a server sends it): inline style and script only, nothing fetched from anywhere.
const ContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

// FlameMaxNodes caps the nodes of the icicle the page holds (the widest are kept, the rest
// summed into "(other)" nodes), and FlameMinShare drops nodes narrower than that share of the
// root on both times: together they bound the size of a report of a large trace.
const (
	FlameMaxNodes = 20000
	FlameMinShare = 0.0001
)

// page is the JSON document embedded in the page.
type page struct {
	Title    string            `json:"title"`
	Inputs   []string          `json:"inputs"`
	Start    string            `json:"start,omitempty"`
	Table    json.RawMessage   `json:"table"`
	Flame    *flame.Tree       `json:"flame"`
	Diff     *diffPage         `json:"diff"`
	Kernels  *kernelsPage      `json:"kernels"`
	Timeline *timelinePage     `json:"timeline"`
	Steps    *tbsteps.Summary  `json:"steps"`
	Memory   *memcurve.Summary `json:"memory"`
	Code     *code.Report      `json:"code"`
	Lanes    json.RawMessage   `json:"lanes"`
	Findings []finding         `json:"findings"`
	Why      map[string]string `json:"why"`
	Empty    map[string]bool   `json:"empty"`
	// ElidedNames counts the names the page shortened (pageName) to keep within its budgets.
	ElidedNames int `json:"elided_names"`
	NameMax     int `json:"name_max"`
}

// timelinePage is the part of a timeline summary the page shows: every per-rank view but the
// collectives' instances (the straggler figures derived from them are kept).
type timelinePage struct {
	Ranks       []timeline.RankInfo      `json:"ranks"`
	Breakdown   []timeline.RankBreakdown `json:"breakdown"`
	Idle        []timeline.StreamIdle    `json:"idle"`
	Overlap     []timeline.Overlap       `json:"overlap"`
	Launches    []timeline.Launches      `json:"launches"`
	Queue       []timeline.StreamQueue   `json:"queue"`
	Steps       []timeline.RankSteps     `json:"steps"`
	SlowestStep *timeline.SlowestStep    `json:"slowest_step,omitempty"`
	Stragglers  []timeline.StragglerRank `json:"stragglers"`
	Findings    []timeline.Finding       `json:"findings"`
	// The Ranks view's collectives table and heat map (timeline.Stragglers.ByCollective,
	// timeline.Summary.StepRanks).
	ByCollective        []timeline.CollectiveStat `json:"by_collective"`
	ByCollectiveOmitted int                       `json:"by_collective_omitted"`
	StepRanks           *timeline.StepRanks       `json:"step_ranks,omitempty"`
}

// kernelsPage is the kernel view: orprof kernels --format json, and the device time by category.
type kernelsPage struct {
	Doc        json.RawMessage         `json:"doc"`
	Categories []kernels.CategoryTotal `json:"categories"`
	// DeviceNs is the device time of every row, UnlinkedNs the part that reached no operator
	// (the CLI's warning; the Overview states it).
	DeviceNs   int64 `json:"device_ns"`
	UnlinkedNs int64 `json:"unlinked_ns"`
	// LeftOut counts the kernels the page left out (KernelsBudget): Doc has the largest.
	LeftOut int `json:"left_out"`
}

// unlinkedNs is the device time of k's rows that reached no operator, and the device time of
// all of them.
func unlinkedNs(k *kernels.Summary) (unlinked, total int64) {
	for _, r := range k.Kernels {
		total += r.TotalNs
		if o := r.Ops[""]; o != nil {
			unlinked += o.TotalNs
		}
	}
	return unlinked, total
}

type diffPage struct {
	Before string          `json:"before"`
	After  string          `json:"after"`
	Doc    json.RawMessage `json:"doc"`
	Totals struct {
		Before totalsJSON `json:"before"`
		After  totalsJSON `json:"after"`
	} `json:"totals"`
	// Steps, Timeline and Kernels are each side's step breakdown, device time breakdown and
	// kernels by category (null on a side without them).
	Steps    diffSides[*tbsteps.Summary]     `json:"steps"`
	Timeline diffSides[*diffTimeline]        `json:"timeline"`
	Kernels  diffSides[*diffKernelsCategory] `json:"kernels"`
	// KernelChanges is orprof diff's JSON of the two kernel summaries (BEFORE and AFTER
	// written with orprof kernels --format json), its rows cut to DiffKernelRows;
	// KernelsLeftOut counts the rows cut.
	KernelChanges  json.RawMessage `json:"kernel_changes"`
	KernelsLeftOut int             `json:"kernels_left_out"`
	// OpsLeftOut counts the operator rows Doc left out (DiffBudget): the smallest changes.
	OpsLeftOut int `json:"ops_left_out"`
}

type diffSides[T any] struct {
	Before T `json:"before"`
	After  T `json:"after"`
}

// diffTimeline is one side's device time breakdown (orprof timeline's "breakdown" view).
type diffTimeline struct {
	Breakdown []timeline.RankBreakdown `json:"breakdown"`
}

// diffKernelsCategory is one side's device time by kernel category.
type diffKernelsCategory struct {
	DeviceUs   float64                 `json:"device_us"`
	Categories []kernels.CategoryTotal `json:"categories"`
}

type totalsJSON struct {
	SelfCPU    float64 `json:"self_cpu_time_total"`
	SelfDevice float64 `json:"self_device_time_total"`
}

type finding struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Write writes the report of m to w as one HTML document.
func Write(w io.Writer, m *Model) error {
	data, err := pagePieces(m, true)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.Grow(len(css) + 2048)
	title := m.Title
	if title == "" {
		title = "profile"
	}
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	// Nothing may be fetched: no network, no file, no font. Inline style and script only.
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"" + ContentSecurityPolicy + "\">\n")
	b.WriteString("<meta name=\"generator\" content=\"orprof report\">\n")
	b.WriteString("<title>orprof report — " + stdhtml.EscapeString(title) + "</title>\n<style>\n")
	b.WriteString(css)
	b.WriteString("</style></head>\n<body>\n<header><h1>orprof report — " + stdhtml.EscapeString(title) + "</h1>\n")
	if len(m.Inputs) > 0 {
		b.WriteString("<div class=\"sub\">" + stdhtml.EscapeString(strings.Join(m.Inputs, "  ·  ")) + "</div>\n")
	}
	for _, w := range m.Warnings {
		b.WriteString("<div class=\"sub\" role=\"alert\">warning: " + stdhtml.EscapeString(w) + "</div>\n")
	}
	b.WriteString("<nav id=\"nav\"></nav></header>\n<main id=\"main\"></main>\n")
	b.WriteString("<footer>Made by orprof from its summaries (the numbers of orprof table, diff and pprof for the same input). Self-contained: nothing is fetched.</footer>\n")
	b.WriteString("<script id=\"orprof-data\" type=\"application/json\">")
	// The page's JSON is written in its pieces, not copied into one document first: it is
	// most of the page, and a copy of it is as many fresh pages of memory.
	pieces := append([][]byte{b.Bytes()}, data...)
	pieces = append(pieces, []byte("</script>\n<script>\n"), []byte(script), []byte("</script>\n</body></html>\n"))
	for _, p := range pieces {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// pageData is the JSON document of m. encoding/json escapes <, > and & in every string, so
// the document cannot end the script element that holds it.
func pageData(m *Model) ([]byte, error) { return pageDataVia(m, true) }

// pageDataVia is pageData, with the documents spliced in (splice) or through encoding/json.
func pageDataVia(m *Model, viaSplice bool) ([]byte, error) {
	pieces, err := pagePieces(m, viaSplice)
	return bytes.Join(pieces, nil), err
}

// pagePieces is pageData in pieces to be written one after the other: the documents spliced
// in at their marks (splice), or one document made by encoding/json.
func pagePieces(m *Model, viaSplice bool) ([][]byte, error) {
	// The Timeline's document, most of a large trace's page, is written while the rest is.
	type lanesResult struct {
		doc    []byte
		elided int
		err    error
	}
	lanesPart := make(chan lanesResult, 1)
	if m.Lanes != nil {
		go func() {
			ln, elided := lanesNames(m.Lanes, LanesNameBudget)
			doc, err := ln.AppendJSON(nil)
			lanesPart <- lanesResult{doc, elided, err}
		}()
	}
	p := page{Title: m.Title, Inputs: m.Inputs, Start: m.Start, Why: map[string]string{}, Empty: map[string]bool{},
		Findings: []finding{}, NameMax: PageNameMax}
	// A diff's page holds the operator diff too: AFTER's parts get half their budgets.
	scale := 1
	if m.Diff != nil {
		scale = 2
	}
	var tableDoc, kernelsDoc []byte // spliced in at tableMark and kernelsMark (splice)
	if p.Inputs == nil {
		p.Inputs = []string{}
	}
	s := m.Summary
	if s != nil {
		var err error
		var elided int
		if tableDoc, elided, err = tablePart(s, TableBudget/scale); err != nil {
			return nil, err
		}
		p.ElidedNames += elided
		p.Table = json.RawMessage(tableMark)
		p.Findings = findings(s)
	} else {
		p.Table = json.RawMessage("null")
		for _, v := range []string{"overview", "operators", "ranks"} {
			p.Why[v] = "This report has no operator summary (it was made for a diff only): run orprof report TRACE for these views."
			p.Empty[v] = true
		}
	}
	if m.Flame != nil {
		var err error
		var elided int
		if p.Flame, elided, err = flamePart(m.Flame, FlameBudget/scale); err != nil {
			return nil, err
		}
		p.ElidedNames += elided
	} else {
		p.Why["flame"] = m.FlameWhy
		if p.Why["flame"] == "" {
			p.Why["flame"] = "No op tree: the icicle is drawn from a single trace's events (or summed over the ranks of traces or report summaries, orprof report --format json); table summaries (orprof table --format json) keep only the rows."
		}
	}
	noDevice := m.Timeline != nil && !hasDeviceEvents(m.Timeline)
	if t := m.Timeline; t != nil && !noDevice {
		// A rank without device events (a CPU-only trace among others) has no device window:
		// no "device busy 0 % of 0 µs" card, no step idle all along.
		empty := map[int64]bool{}
		for _, r := range t.Ranks {
			empty[r.Number] = empty[r.Number] || r.DeviceEvents == 0
		}
		for _, r := range t.Ranks {
			if r.DeviceEvents > 0 {
				empty[r.Number] = false // (a rank number two traces claim)
			}
		}
		bd := slices.DeleteFunc(slices.Clone(t.Breakdown), func(b timeline.RankBreakdown) bool { return empty[b.Rank] })
		st := slices.DeleteFunc(slices.Clone(t.Steps), func(s timeline.RankSteps) bool { return empty[s.Rank] })
		p.Timeline = &timelinePage{Ranks: t.Ranks, Breakdown: bd, Idle: t.Idle, Overlap: t.Overlap,
			Launches: t.Launches, Queue: t.Queue, Steps: st, SlowestStep: t.SlowestStep, Stragglers: t.Stragglers.Ranks, Findings: t.Findings}
		p.Timeline.ByCollective, p.Timeline.ByCollectiveOmitted = t.Stragglers.ByCollective, t.Stragglers.ByCollectiveOmitted
		p.Timeline.StepRanks = t.StepRanks
	}
	p.Steps = m.Steps
	if m.Steps != nil {
		for _, f := range m.Steps.Findings() {
			p.Findings = append(p.Findings, finding{"steps-dataloader", f.Text})
		}
	}
	why := m.TimelineWhy
	if why == "" {
		why = "No device timeline: the step-time breakdown, idle causes and timeline findings come from one trace read by orprof report (orprof timeline's analyses); table summaries (orprof table --format json) do not carry them: give the traces or their report summaries (orprof report --format json)."
	}
	if m.Steps == nil {
		p.Why["breakdown"] = why
	}
	if m.Timeline == nil {
		p.Why["timeline"] = why
	}
	if noDevice {
		// Not a device busy 0 % of 0 µs and idle all along: say why there is no timeline.
		dev := ""
		if len(m.Timeline.Ranks) > 0 {
			dev = m.Timeline.Ranks[0].Device
		}
		p.Why["timeline"] = "No device timeline: " + kernels.NoDeviceWhy(dev) + "."
	}
	if len(p.Findings) == 0 && (m.Timeline == nil || len(m.Timeline.Findings) == 0) {
		p.Why["findings"] = "Nothing stands out in the summaries."
	}
	switch k := m.Kernels; {
	case k == nil:
		p.Why["kernels"] = "No kernel summary: the Kernels view is made from traces (orprof report TRACE...) or their report summaries (orprof report --format json); table summaries carry no kernels."
		p.Empty["kernels"] = true
	case len(k.Kernels) == 0:
		p.Why["kernels"] = "No kernels: " + kernels.NoDeviceWhy(k.Device) + "."
		p.Empty["kernels"] = true
	default:
		var err error
		var left int
		if kernelsDoc, left, err = kernelsPart(k, KernelsBudget/scale, m.Rules); err != nil {
			return nil, err
		}
		p.Kernels = &kernelsPage{Doc: json.RawMessage(kernelsMark), Categories: k.ByCategory(m.Rules), LeftOut: left}
		p.Kernels.UnlinkedNs, p.Kernels.DeviceNs = unlinkedNs(k)
	}
	switch {
	case s == nil:
		p.Why["memory"] = "No operator summary in this report."
		p.Why["memory_curve"] = p.Why["memory"]
		p.Empty["memory"] = true
	case !s.ProfileMemory:
		p.Why["memory"] = "This profile has no memory events: profile with --profile-memory (orprof run) or profile_memory=True (torch.profiler)."
		p.Why["memory_curve"] = p.Why["memory"]
		p.Empty["memory"] = true
	default:
		p.Why["memory_curve"] = "No memory curve: it is drawn from a trace's [memory] records as orprof report TRACE reads them; table summaries carry only the per-operator figures below (the table's)."
	}
	p.Code = m.Code
	if m.Code == nil {
		p.Why["code"] = "No code view: it is made from traces recorded with_stack=True (orprof report TRACE...) or their report summaries (orprof report --format json); table summaries carry no Python layer."
		p.Empty["code"] = true
	} else if m.Code.Module == nil && m.Code.Line == nil {
		p.Empty["code"] = true
	}
	if m.Memory != nil && len(m.Memory.Devices) > 0 {
		p.Memory = m.Memory
		p.Empty["memory"] = false
	}
	if s != nil && len(s.Ranks) < 2 {
		p.Why["ranks"] = "One rank: give several traces, or a directory of them or of their summaries (orprof report summaries/), to compare ranks."
		p.Empty["ranks"] = true
	}
	var lanesDoc []byte // spliced in at lanesMark (splice)
	p.Lanes = json.RawMessage("null")
	if m.Lanes != nil {
		l := <-lanesPart
		if l.err != nil {
			return nil, l.err
		}
		lanesDoc = l.doc
		p.ElidedNames += l.elided
		p.Lanes = json.RawMessage(lanesMark)
	} else {
		p.Why["lanes"] = "No time axis: the Timeline view is drawn from traces (orprof report TRACE...) or their report summaries (orprof report --format json); table summaries carry no events."
		p.Empty["timeline"] = true
	}
	if d := m.Diff; d != nil {
		doc, elided, left, err := diffPart(optable.Diff(d.Before, d.After), DiffBudget)
		if err != nil {
			return nil, err
		}
		p.ElidedNames += elided
		dp := &diffPage{Before: d.BeforeName, After: d.AfterName, Doc: json.RawMessage(doc), OpsLeftOut: left}
		tb, ta := d.Before.Totals(), d.After.Totals()
		dp.Totals.Before = totalsJSON{tb.SelfCPU, tb.SelfDevice}
		dp.Totals.After = totalsJSON{ta.SelfCPU, ta.SelfDevice}
		if err := diffViews(dp, d, &p.ElidedNames); err != nil {
			return nil, err
		}
		p.Diff = dp
	} else {
		p.Why["diff"] = "No diff: orprof report --diff BEFORE AFTER compares two profiles (traces, summaries or directories of them), regressions first."
		p.Empty["diff"] = true
	}
	out, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	if viaSplice {
		if pieces, ok := splice(out, tableDoc, kernelsDoc, lanesDoc); ok {
			return pieces, nil
		}
	}
	// A mark not found once: the documents go through encoding/json (the same bytes, slower).
	if tableDoc != nil {
		p.Table = json.RawMessage(tableDoc)
	}
	if kernelsDoc != nil {
		p.Kernels.Doc = json.RawMessage(kernelsDoc)
	}
	if lanesDoc != nil {
		p.Lanes = json.RawMessage(lanesDoc)
	}
	out, err = json.Marshal(p)
	return [][]byte{out}, err
}

// The table's and the kernel view's documents are written compact (one line, HTML-escaped
// as encoding/json escapes) and put in the page's JSON in place of these marks, numbers no
// figure is: a json.RawMessage field would have encoding/json scan and compact the whole
// document again (with the indentation the CLI's json has, 2% of orprof report's
// instructions on the MTIA trace). The bytes are those encoding/json makes of the indented
// documents (TestSpliceIsMarshal).
const (
	tableMark   = "1e999999991"
	kernelsMark = "1e999999992"
	markLen     = len(tableMark) // both's
)

// lanesMark is the Timeline's document's place in the page's JSON (as tableMark's): the
// lanes are most of the page of a large trace.
const lanesMark = "1e999999993"

var _ = [1]int{}[len(lanesMark)-markLen] // every mark is markLen long

// splice cuts page at its `"table":`, `"doc":` and `"lanes":` marks and returns its pieces
// with table, kernels and lanes in place of the marks (each only when not nil); ok is false
// unless each mark is found exactly once.
func splice(page, table, kernels, lanes []byte) (pieces [][]byte, ok bool) {
	type part struct {
		at  int
		doc []byte
	}
	var parts []part
	for _, d := range []struct {
		pat string
		doc []byte
	}{{`"table":` + tableMark, table}, {`"doc":` + kernelsMark, kernels}, {`"lanes":` + lanesMark, lanes}} {
		if d.doc == nil {
			continue
		}
		i := bytes.Index(page, []byte(d.pat))
		if i < 0 || bytes.Contains(page[i+1:], []byte(d.pat)) {
			return nil, false
		}
		parts = append(parts, part{i + len(d.pat) - markLen, d.doc})
	}
	slices.SortFunc(parts, func(a, b part) int { return a.at - b.at })
	last := 0
	for _, p := range parts {
		pieces = append(pieces, page[last:p.at], p.doc)
		last = p.at + markLen
	}
	return append(pieces, page[last:]), true
}

// findings are the lines of the Overview that say where the time went, each with its figures.
func findings(s *optable.Summary) []finding {
	var out []finding
	t := s.Totals()
	var topCPU, topDev *optable.SummaryRow
	for i := range s.Rows {
		r := &s.Rows[i]
		if r.IsUserAnnotation || events.IsScopeMetrics(r.Key, r.DeviceType) {
			continue // ranges span the ops they hold; a metrics slice spans its kernel
		}
		if r.SelfCPUTimeTotal > 0 && (topCPU == nil || r.SelfCPUTimeTotal > topCPU.SelfCPUTimeTotal) {
			topCPU = r
		}
		if r.SelfDeviceTimeTotal > 0 && (topDev == nil || r.SelfDeviceTimeTotal > topDev.SelfDeviceTimeTotal) {
			topDev = r
		}
	}
	if topDev != nil && t.SelfDevice > 0 {
		out = append(out, finding{"top-device", fmt.Sprintf("%s takes %.1f %% of the self %s time (%s of %s, %d calls).",
			namecap.Cap(topDev.Key), topDev.SelfDeviceTimeTotal*100/t.SelfDevice, strings.ToUpper(deviceName(s)),
			text.Time(topDev.SelfDeviceTimeTotal), text.Time(t.SelfDevice), topDev.Count)})
	}
	if topCPU != nil && t.SelfCPU > 0 {
		out = append(out, finding{"top-cpu", fmt.Sprintf("%s takes %.1f %% of the self CPU time (%s of %s, %d calls).",
			namecap.Cap(topCPU.Key), topCPU.SelfCPUTimeTotal*100/t.SelfCPU, text.Time(topCPU.SelfCPUTimeTotal),
			text.Time(t.SelfCPU), topCPU.Count)})
	}
	if n := len(s.Ranks); n > 1 {
		// The rank whose own total is the largest, against the mean of the ranks.
		by := func(r optable.RankInfo) float64 { return r.SelfCPUTimeTotal }
		what := "self CPU"
		if t.HasDevice {
			by, what = func(r optable.RankInfo) float64 { return r.SelfDeviceTimeTotal }, "self "+strings.ToUpper(deviceName(s))
		}
		slow, sum := 0, 0.0
		for i, r := range s.Ranks {
			sum += by(r)
			if by(r) > by(s.Ranks[slow]) {
				slow = i
			}
		}
		if mean := sum / float64(n); mean > 0 {
			out = append(out, finding{"slowest-rank", fmt.Sprintf("rank %d has the most %s time: %s, %.1f %% above the mean of the %d ranks (%s).",
				s.Ranks[slow].Number, what, text.Time(by(s.Ranks[slow])), (by(s.Ranks[slow])/mean-1)*100, n, text.Time(mean))})
		}
	}
	return out
}

func deviceName(s *optable.Summary) string {
	if s.Device == "" {
		return "device"
	}
	return s.Device
}

// ListModel is the Model of one profile's events: the operator summary of l's key averages
// grouped by g (optable.NewSummary, as `orprof table` makes it) and the op call tree
// (flame.FromList, as `orprof pprof` makes it). device and profileMemory label the summary
// as the table is labelled; rank names the profile.
func ListModel(l *events.List, rank optable.RankInfo, device string, profileMemory bool, g events.AverageOptions) *Model {
	// The tree and the rows read the list (immutable) at the same time.
	var tree *flame.Tree
	done := make(chan struct{})
	go func() { defer close(done); tree = flame.FromList(l) }()
	rows := l.KeyAverages(g)
	<-done
	return RowsModel(rows, tree, rank, device, profileMemory, g)
}

// RowsModel is the Model of one profile read for its rows and its op tree alone (a streaming
// read: tracefile.ReadAverages, its Tree walk building tree with a flame.Builder): what
// ListModel gives for the list of the same events.
func RowsModel(rows []events.Avg, tree *flame.Tree, rank optable.RankInfo, device string, profileMemory bool, g events.AverageOptions) *Model {
	s := optable.NewSummary(rows, rank, optable.SummaryOptions{Device: device, ProfileMemory: profileMemory, Grouping: g})
	m := &Model{Summary: s, Flame: tree}
	if rank.Trace != "" {
		m.Title, m.Inputs = rank.Trace, []string{rank.Trace}
	}
	return m
}

// hasDeviceEvents reports whether any rank of t read a device event: a timeline of none
// (a CPU-only or fallback-mode trace) has nothing to draw.
func hasDeviceEvents(t *timeline.Summary) bool {
	for _, r := range t.Ranks {
		if r.DeviceEvents > 0 {
			return true
		}
	}
	return false
}

// diffViews fills dp's comparisons beyond the operators from d's other summaries.
func diffViews(dp *diffPage, d *Diff, elided *int) error {
	dp.Steps.Before, dp.Steps.After = d.BeforeSteps, d.AfterSteps
	tl := func(t *timeline.Summary) *diffTimeline {
		if t == nil || !hasDeviceEvents(t) {
			return nil
		}
		return &diffTimeline{Breakdown: t.Breakdown}
	}
	dp.Timeline.Before, dp.Timeline.After = tl(d.BeforeTimeline), tl(d.AfterTimeline)
	kc := func(k *kernels.Summary) *diffKernelsCategory {
		if k == nil || len(k.Kernels) == 0 {
			return nil
		}
		return &diffKernelsCategory{DeviceUs: k.DeviceUs(), Categories: k.ByCategory(nil)}
	}
	dp.Kernels.Before, dp.Kernels.After = kc(d.BeforeKernels), kc(d.AfterKernels)
	dp.KernelChanges = json.RawMessage("null")
	if dp.Kernels.Before == nil || dp.Kernels.After == nil {
		return nil
	}
	rows := kernels.Diff(d.BeforeKernels, d.AfterKernels, nil)
	if n := len(rows); n > DiffKernelRows {
		// The largest increases (first) and the largest decreases (last).
		rows = append(rows[:DiffKernelRows/2:DiffKernelRows/2], rows[n-DiffKernelRows/2:]...)
		dp.KernelsLeftOut = n - DiffKernelRows
	}
	var b bytes.Buffer
	if err := kernels.WriteDiff(&b, text.JSON, rows, d.BeforeKernels, d.AfterKernels, 0, 0); err != nil {
		return err
	}
	if b.Len() > DiffBudget/4 {
		// Long names shortened (each row's category was read from its whole name).
		for i := range rows {
			if n := pageName(rows[i].Name); n != rows[i].Name {
				rows[i].Name = n
				*elided++
			}
		}
		b.Reset()
		if err := kernels.WriteDiff(&b, text.JSON, rows, d.BeforeKernels, d.AfterKernels, 0, 0); err != nil {
			return err
		}
	}
	dp.KernelChanges = json.RawMessage(b.Bytes())
	return nil
}

// The page's budgets: the bytes of the operator table, the kernel view and the op tree it
// holds. Within them every row is kept as the CLI writes it. A part over its budget has its
// long names shortened (the table's and the op tree's: PageNameMax), then its rows cut to the
// largest (the table's by total time, the kernel view's by total, the tree's widest nodes);
// the page says how many names it shortened and how many rows it left out, and the CLI
// (orprof table, orprof kernels) prints them all.
const (
	TableBudget   = 1 << 20
	KernelsBudget = 1 << 20
	FlameBudget   = 768 << 10
	DiffBudget    = 1 << 20
	// LanesNameBudget bounds the Timeline's names: over it, each is shortened to its share.
	LanesNameBudget = 512 << 10
	// PageNameMax is the longest name a page over its budget keeps whole, in bytes.
	PageNameMax = 256
)

// pageName is name when it is at most PageNameMax bytes, else its first bytes, an ellipsis
// and how long it was with a digest of it: two long names stay two names.
func pageName(name string) string { return shortName(name, PageNameMax) }

// shortName is name within limit bytes (limit ≥ 64), as pageName says.
func shortName(name string, limit int) string {
	return namecap.Shorten(name, limit, " bytes #", namecap.CRC32C)
}

// lanesNames is l with its names shortened (pageName) when together they pass budget, and
// how many were: the Timeline draws each event's category, not its name's.
func lanesNames(l *lanes.Summary, budget int) (*lanes.Summary, int) {
	n := 0
	for _, r := range l.Ranks {
		for _, name := range r.Names {
			n += len(name)
		}
	}
	if n <= budget {
		return l, 0
	}
	count := 0
	for _, r := range l.Ranks {
		count += len(r.Names)
	}
	limit := max(64, min(PageNameMax, budget/count))
	short := *l
	short.Ranks = slices.Clone(l.Ranks)
	elided := 0
	for i := range short.Ranks {
		names := slices.Clone(short.Ranks[i].Names)
		for j, name := range names {
			if k := shortName(name, limit); k != name {
				names[j] = k
				elided++
			}
		}
		short.Ranks[i].Names = names
	}
	return &short, elided
}

// tablePart is the table's document the page holds (WriteSummaryJSON, compact), within
// TableBudget: elided counts the names shortened; the document's rows_left_out the rows cut.
func tablePart(s *optable.Summary, budget int) (doc []byte, elided int, err error) {
	// One buffer for both documents: the first is only measured before the second is written.
	var b bytes.Buffer
	b.Grow(budget + budget/4)
	write := func(s *optable.Summary, o optable.TableOptions) ([]byte, error) {
		b.Reset()
		o.CompactJSON = true
		if err := optable.WriteSummaryJSON(&b, s, o); err != nil {
			return nil, err
		}
		return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
	}
	all := optable.TableOptions{RowLimit: optable.RowLimitAll}
	names := 0 // a lower bound of the document's size: when over budget, skip writing it
	for i := range s.Rows {
		names += len(s.Rows[i].Key)
	}
	if names <= budget {
		if doc, err = write(s, all); err != nil || len(doc) <= budget {
			return doc, 0, err
		}
	}
	short := *s
	short.Rows = slices.Clone(s.Rows)
	for i := range short.Rows {
		if k := pageName(short.Rows[i].Key); k != short.Rows[i].Key {
			short.Rows[i].Key = k
			elided++
		}
	}
	// The rows with the most total time that fit: CPU's, or the device's when it has more.
	o := optable.TableOptions{SortBy: "cpu_time_total"}
	if t := s.Totals(); t.SelfDevice > t.SelfCPU {
		o.SortBy = "device_time_total"
	}
	limit, err := optable.CompactRowLimit(&short, o, budget)
	if err != nil {
		return nil, elided, err
	}
	if limit == len(short.Rows) {
		doc, err = write(&short, all)
		return doc, elided, err
	}
	o.RowLimit = max(limit, 1)
	doc, err = write(&short, o)
	return doc, elided, err
}

func shrink(n, budget, size int) int {
	return min(n*9/10, int(int64(n)*int64(budget)*97/100/int64(max(size, 1))))
}

// kernelsPart is the kernel view's document the page holds (kernels.Write's json, compact),
// within KernelsBudget: the kernels with the largest totals, in their order; left counts the
// rows cut. Names are kept whole (a kernel's category is read from its name).
func kernelsPart(k *kernels.Summary, budget int, rules *kernels.Rules) (doc []byte, left int, err error) {
	write := func(k *kernels.Summary) ([]byte, error) {
		var b bytes.Buffer
		b.Grow(budget + budget/4)
		if err := kernels.Write(&b, text.JSON, k, kernels.WriteOptions{CompactJSON: true, Rules: rules}); err != nil {
			return nil, err
		}
		return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
	}
	names := 0 // a lower bound of the document's size: when over budget, skip writing it
	for _, r := range k.Kernels {
		names += len(r.Name)
	}
	size := names + 256*len(k.Kernels) // the size of a row's figures, about
	if names <= budget {
		if doc, err = write(k); err != nil || len(doc) <= budget {
			return doc, 0, err
		}
		size = len(doc)
	}
	byTotal := k.ByTotal()
	for n := int(int64(len(k.Kernels)) * int64(budget) / int64(size)); ; n = shrink(n, budget, len(doc)) {
		n = max(n, 1)
		keep := make(map[*kernels.Kernel]bool, n)
		for _, r := range byTotal[:n] {
			keep[r] = true
		}
		cut := *k
		cut.Kernels = slices.DeleteFunc(slices.Clone(k.Kernels), func(r *kernels.Kernel) bool { return !keep[r] })
		if doc, err = write(&cut); err != nil || len(doc) <= budget || n == 1 {
			return doc, len(k.Kernels) - n, err
		}
	}
}

// flamePart is the op tree the page holds: t pruned (FlameMinShare, FlameMaxNodes), and
// within FlameBudget, its long names shortened, then its nodes fewer; elided counts the
// names shortened.
func flamePart(t *flame.Tree, budget int) (*flame.Tree, int, error) {
	p := t.Prune(FlameMinShare, FlameMaxNodes)
	size := func(t *flame.Tree) (int, error) {
		b, err := json.Marshal(t)
		return len(b), err
	}
	names := 0 // a lower bound of the tree's size: when over budget, skip encoding it
	var sum func(n *flame.Node)
	sum = func(n *flame.Node) {
		names += len(n.Name)
		for _, c := range n.Children {
			sum(c)
		}
	}
	sum(p.Root)
	if names <= budget {
		if n, err := size(p); err != nil || n <= budget {
			return p, 0, err
		}
	}
	n, elided := 0, 0
	var err error
	var walk func(n *flame.Node)
	walk = func(n *flame.Node) {
		if s := pageName(n.Name); s != n.Name {
			n.Name = s
			elided++
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(p.Root)
	for {
		if n, err = size(p); err != nil || n <= budget || p.Nodes < 2 {
			return p, elided, err
		}
		// Fewer nodes, in proportion to the bytes over (and at least a tenth fewer).
		p = capNodes(p, min(p.Nodes*9/10, int(int64(p.Nodes)*int64(budget)/int64(n))))
	}
}

// capNodes keeps the first max nodes of t breadth first (the shallow ones), each parent's
// other children summed into one "(other)" child, so that every total is unchanged. Prune
// keeps nodes of equal width together, which a tree of thousands of equal kernels defeats.
func capNodes(t *flame.Tree, max int) *flame.Tree {
	out := &flame.Tree{}
	root := *t.Root
	out.Root = &root
	queue := []*flame.Node{out.Root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		kids := n.Children
		n.Children = nil
		var other *flame.Node
		for _, c := range kids {
			if out.Nodes < max-1 {
				cc := *c
				n.Children = append(n.Children, &cc)
				queue = append(queue, &cc)
				out.Nodes++
				continue
			}
			if other == nil {
				other = &flame.Node{Name: "(other)"}
				out.Nodes++
			}
			other.CPU += c.CPU
			other.Device += c.Device
			other.SelfCPU += c.CPU
			other.SelfDevice += c.Device
			other.Calls += c.Calls
		}
		if other != nil {
			n.Children = append(n.Children, other)
		}
	}
	return out
}

// diffPart is orprof diff's JSON of rows within DiffBudget: names shortened (pageName), then
// the largest regressions and the largest improvements kept, half each (left counts the rows
// between them left out).
func diffPart(rows []optable.DiffRow, budget int) (doc []byte, elided, left int, err error) {
	write := func(rows []optable.DiffRow) ([]byte, error) {
		var b bytes.Buffer
		err := optable.WriteDiff(&b, text.JSON, rows, optable.DiffOptions{})
		return b.Bytes(), err
	}
	if doc, err = write(rows); err != nil || len(doc) <= budget {
		return doc, 0, 0, err
	}
	rows = slices.Clone(rows)
	for i := range rows {
		if k := pageName(rows[i].Key); k != rows[i].Key {
			rows[i].Key = k
			elided++
		}
	}
	if doc, err = write(rows); err != nil || len(doc) <= budget {
		return doc, elided, 0, err
	}
	for n := len(rows) * budget / len(doc); ; n = n * 9 / 10 {
		n = max(n, 2)
		kept := append(slices.Clip(rows[:n/2]), rows[len(rows)-(n-n/2):]...)
		if doc, err = write(kept); err != nil || len(doc) <= budget || n == 2 {
			return doc, elided, len(rows) - n, err
		}
	}
}
