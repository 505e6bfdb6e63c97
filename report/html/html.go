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
// computes one thing of its own, the table's findings (the top operators, device idle); the
// page's script lays out, sorts, filters and takes shares. A view whose summary is missing
// says why instead.
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

	"github.com/orprof/orprof/analysis/flame"
	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/lanes"
	"github.com/orprof/orprof/analysis/memcurve"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/analysis/tbsteps"
	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/namecap"
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
	// Lanes is the time axis of the same trace or traces (package lanes): the Timeline view.
	Lanes *lanes.Summary
	// Diff, when set, fills the Diff view.
	Diff *Diff
	// Start is the view shown first ("" is the Overview; a diff report starts on "diff").
	Start string
}

// Diff is the Diff view: two profiles' summaries and their names.
type Diff struct {
	BeforeName, AfterName string
	Before, After         *optable.Summary
}

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
	Lanes    json.RawMessage   `json:"lanes"`
	Findings []finding         `json:"findings"`
	Why      map[string]string `json:"why"`
	Empty    map[string]bool   `json:"empty"`
}

// timelinePage is the part of a timeline summary the page shows: every per-rank view but the
// collectives' instances (the straggler figures derived from them are kept).
type timelinePage struct {
	Ranks       []timeline.RankInfo      `json:"ranks"`
	Breakdown   []timeline.RankBreakdown `json:"breakdown"`
	Idle        []timeline.StreamIdle    `json:"idle"`
	Overlap     []timeline.Overlap       `json:"overlap"`
	Launches    []timeline.Launches      `json:"launches"`
	Steps       []timeline.RankSteps     `json:"steps"`
	SlowestStep *timeline.SlowestStep    `json:"slowest_step,omitempty"`
	Stragglers  []timeline.StragglerRank `json:"stragglers"`
	Findings    []timeline.Finding       `json:"findings"`
}

// kernelsPage is the kernel view: orprof kernels --format json, and the device time by category.
type kernelsPage struct {
	Doc        json.RawMessage         `json:"doc"`
	Categories []kernels.CategoryTotal `json:"categories"`
}

type diffPage struct {
	Before string          `json:"before"`
	After  string          `json:"after"`
	Doc    json.RawMessage `json:"doc"`
	Totals struct {
		Before totalsJSON `json:"before"`
		After  totalsJSON `json:"after"`
	} `json:"totals"`
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
	data, err := pageData(m)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.Grow(len(data) + len(css) + len(script) + 2048)
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
	b.Write(data)
	b.WriteString("</script>\n<script>\n")
	b.WriteString(script)
	b.WriteString("</script>\n</body></html>\n")
	_, err = w.Write(b.Bytes())
	return err
}

// pageData is the JSON document of m. encoding/json escapes <, > and & in every string, so
// the document cannot end the script element that holds it.
func pageData(m *Model) ([]byte, error) { return pageDataVia(m, true) }

// pageDataVia is pageData, with the documents spliced in (splice) or through encoding/json.
func pageDataVia(m *Model, viaSplice bool) ([]byte, error) {
	p := page{Title: m.Title, Inputs: m.Inputs, Start: m.Start, Why: map[string]string{}, Empty: map[string]bool{},
		Findings: []finding{}}
	var tableDoc, kernelsDoc []byte // spliced in at tableMark and kernelsMark (splice)
	if p.Inputs == nil {
		p.Inputs = []string{}
	}
	s := m.Summary
	if s != nil {
		var b bytes.Buffer
		if err := optable.WriteSummaryJSON(&b, s, optable.TableOptions{RowLimit: optable.RowLimitAll, CompactJSON: true}); err != nil {
			return nil, err
		}
		tableDoc = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
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
		p.Flame = m.Flame.Prune(FlameMinShare, FlameMaxNodes)
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
			Launches: t.Launches, Steps: st, SlowestStep: t.SlowestStep, Stragglers: t.Stragglers.Ranks, Findings: t.Findings}
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
		var b bytes.Buffer
		if err := kernels.Write(&b, text.JSON, k, kernels.WriteOptions{CompactJSON: true}); err != nil {
			return nil, err
		}
		kernelsDoc = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		p.Kernels = &kernelsPage{Doc: json.RawMessage(kernelsMark), Categories: k.ByCategory(nil)}
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
	if m.Memory != nil && len(m.Memory.Devices) > 0 {
		p.Memory = m.Memory
		p.Empty["memory"] = false
	}
	if s != nil && len(s.Ranks) < 2 {
		p.Why["ranks"] = "One rank: give several traces, or a directory of them or of their summaries (orprof report summaries/), to compare ranks."
		p.Empty["ranks"] = true
	}
	var lanesDoc []byte // spliced in at lanesMark (spliceLanes)
	p.Lanes = json.RawMessage("null")
	if m.Lanes != nil {
		var err error
		if lanesDoc, err = m.Lanes.AppendJSON(nil); err != nil {
			return nil, err
		}
		p.Lanes = json.RawMessage(lanesMark)
	} else {
		p.Why["lanes"] = "No time axis: the Timeline view is drawn from traces (orprof report TRACE...) or their report summaries (orprof report --format json); table summaries carry no events."
		p.Empty["timeline"] = true
	}
	if d := m.Diff; d != nil {
		rows := optable.Diff(d.Before, d.After)
		var b bytes.Buffer
		if err := optable.WriteDiff(&b, text.JSON, rows, optable.DiffOptions{}); err != nil {
			return nil, err
		}
		dp := &diffPage{Before: d.BeforeName, After: d.AfterName, Doc: json.RawMessage(b.Bytes())}
		tb, ta := d.Before.Totals(), d.After.Totals()
		dp.Totals.Before = totalsJSON{tb.SelfCPU, tb.SelfDevice}
		dp.Totals.After = totalsJSON{ta.SelfCPU, ta.SelfDevice}
		p.Diff = dp
	} else {
		p.Why["diff"] = "No diff: orprof report --diff BEFORE AFTER compares two profiles (traces, summaries or directories of them), regressions first."
		p.Empty["diff"] = true
	}
	out, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	if spliced, ok := splice(out, tableDoc, kernelsDoc); ok && viaSplice {
		if spliced, ok = spliceLanes(spliced, lanesDoc); ok {
			return spliced, nil
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
	return json.Marshal(p)
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

// spliceLanes puts doc at page's `"lanes":` mark (when doc is not nil); ok is false unless the
// mark is found exactly once.
func spliceLanes(page, doc []byte) ([]byte, bool) {
	if doc == nil {
		return page, true
	}
	pat := []byte(`"lanes":` + lanesMark)
	i := bytes.Index(page, pat)
	if i < 0 || bytes.Contains(page[i+1:], pat) {
		return nil, false
	}
	at := i + len(pat) - len(lanesMark)
	out := make([]byte, 0, len(page)+len(doc))
	out = append(append(append(out, page[:at]...), doc...), page[at+len(lanesMark):]...)
	return out, true
}

// splice puts table at page's `"table":` mark and kernels at its `"doc":` one (each only when
// not nil); ok is false unless each mark is found exactly once.
func splice(page, table, kernels []byte) ([]byte, bool) {
	type part struct {
		at  int
		pat string
		doc []byte
	}
	var parts []part
	grow := 0
	for _, d := range []struct {
		pat string
		doc []byte
	}{{`"table":` + tableMark, table}, {`"doc":` + kernelsMark, kernels}} {
		if d.doc == nil {
			continue
		}
		i := bytes.Index(page, []byte(d.pat))
		if i < 0 || bytes.Contains(page[i+1:], []byte(d.pat)) {
			return nil, false
		}
		parts = append(parts, part{i + len(d.pat) - markLen, d.pat, d.doc})
		grow += len(d.doc)
	}
	if len(parts) == 0 {
		return page, true
	}
	slices.SortFunc(parts, func(a, b part) int { return a.at - b.at })
	out := make([]byte, 0, len(page)+grow)
	last := 0
	for _, p := range parts {
		out = append(out, page[last:p.at]...)
		out = append(out, p.doc...)
		last = p.at + markLen
	}
	return append(out, page[last:]...), true
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
