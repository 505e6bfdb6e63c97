package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/orprof/orprof/internal/browsertest"
)

// timelineCase is a report whose Timeline view a browser test drives.
type timelineCase struct {
	name   string
	traces []string
}

func timelineCases() []timelineCase {
	k := func(n string) string { return filepath.Join("..", "..", "testdata", "kineto", n) }
	return []timelineCase{
		{"rocm", []string{k("rocm_mi250_train.json.gz")}},
		{"mtia", []string{k("mtia_rank0.json.gz")}},
		{"ranks", []string{k("cuda_train_step.json.gz"), filepath.Join("..", "..", "testdata", "kineto-extra", "hta_no_rank.json.gz")}},
	}
}

// TestReportTimelineBrowser opens reports in headless Chromium and drives their Timeline view:
// no console error and no request; every lane draws at the full view as many events as the
// summary (orprof report --format json) gives it, over the span of its kept events, painting
// some rectangles; zooming
// narrows the window and what is drawn; the keys, the wheel and a drag move it; hovering an
// event shows its name and launching op, and selecting a kernel draws its flow.
func TestReportTimelineBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	b := browsertest.Start(t)
	for _, c := range timelineCases() {
		t.Run(c.name, func(t *testing.T) {
			out, want := timelineReport(t, c)
			checkTimelineView(t, b.Open(t, out, "body[data-rendered]"), want)
		})
	}
}

// TestReportTimelineFirefox is TestReportTimelineBrowser in headless Firefox.
func TestReportTimelineFirefox(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := browsertest.StartFirefox(t)
	for _, c := range timelineCases()[:1] {
		t.Run(c.name, func(t *testing.T) {
			out, want := timelineReport(t, c)
			checkTimelineView(t, f.Open(t, out, "body[data-rendered]"), want)
		})
	}
}

// laneWant is what a lane of the summary says the page must draw at the full view.
type laneWant struct {
	label  string
	events int
	t0, t1 float64
	// longest is its longest kept event: index, start (from the origin), duration and name.
	longest            int
	start, dur         float64
	name, op           string
	kept, hasLaunching bool
}

// timelineReport writes the report of c and returns it and its lanes as the CLI's report
// summary has them.
func timelineReport(t *testing.T, c timelineCase) (string, []laneWant) {
	t.Helper()
	out := filepath.Join(t.TempDir(), c.name+".html")
	runCLI(t, append(append([]string{"report"}, c.traces...), "-o", out)...)
	doc := runCLI(t, append([]string{"report", "--format", "json", "-o", "-"}, c.traces...)...)
	var sum struct {
		Lanes struct {
			Ranks []struct {
				Rank   int64    `json:"rank"`
				Offset float64  `json:"offset_ns"`
				Names  []string `json:"names"`
				Lanes  []struct {
					Kind   string    `json:"kind"`
					Pid    int64     `json:"pid"`
					ID     int64     `json:"id"`
					Events int       `json:"events"`
					T      []float64 `json:"t"`
					Dur    []float64 `json:"d"`
					N      []int     `json:"n"`
					Op     []int     `json:"op"`
				} `json:"lanes"`
			} `json:"ranks"`
		} `json:"lanes"`
	}
	if err := json.Unmarshal(doc, &sum); err != nil {
		t.Fatal(err)
	}
	var want []laneWant
	for _, r := range sum.Lanes.Ranks {
		devs := map[int64]bool{}
		for _, l := range r.Lanes {
			if l.Kind == "stream" {
				devs[l.Pid] = true
			}
		}
		for _, l := range r.Lanes {
			label := fmt.Sprintf("rank %d · thread %d", r.Rank, l.ID)
			if l.Kind == "stream" {
				label = fmt.Sprintf("rank %d · stream %d", r.Rank, l.ID)
				if len(devs) > 1 {
					label = fmt.Sprintf("rank %d · device %d · stream %d", r.Rank, l.Pid, l.ID)
				}
			}
			w := laneWant{label: label, events: l.Events, longest: -1}
			s := r.Offset
			for i := range l.T {
				s += l.T[i]
				if i == 0 {
					w.t0, w.t1 = s, s+l.Dur[i]
				}
				w.t0, w.t1 = min(w.t0, s), max(w.t1, s+l.Dur[i])
				if w.longest < 0 || l.Dur[i] > w.dur {
					w.longest, w.start, w.dur, w.name = i, s, l.Dur[i], r.Names[l.N[i]]
					w.op, w.hasLaunching = "", false
					if l.Kind == "stream" && l.Op[i] >= 0 {
						w.op, w.hasLaunching = r.Names[l.Op[i]], true
					}
				}
			}
			w.kept = len(l.T) > 0
			want = append(want, w)
		}
	}
	if len(want) == 0 {
		t.Fatal("the summary has no lanes")
	}
	return out, want
}

// checkTimelineView drives the Timeline view of the page p, whose lanes are want.
func checkTimelineView(t *testing.T, p browsertest.Tab, want []laneWant) {
	t.Helper()
	p.Click(t, "button[data-view=timeline]")
	p.WaitFor(t, "#v-timeline[data-ready].on")
	p.WaitFor(t, "#v-timeline[data-first-draw-ms]")
	var labels []string
	p.Eval(t, `Array.from(document.querySelectorAll('#v-timeline [data-lane]')).map(e => e.dataset.lane)`, &labels)
	if len(labels) != len(want) {
		t.Fatalf("the page has %d lanes (%q), the summary %d", len(labels), labels, len(want))
	}
	type drawn struct {
		Rects  string `json:"rects"`
		Events string `json:"events"`
		T0     string `json:"t0"`
		T1     string `json:"t1"`
	}
	attrs := func(li int) drawn {
		var d drawn
		p.Eval(t, fmt.Sprintf(`(() => { orprofTimeline.scrollTo(%d); const e = document.querySelectorAll('#v-timeline [data-lane]')[%d];
			return {rects: e.dataset.rects, events: e.dataset.events, t0: e.dataset.t0, t1: e.dataset.t1}; })()`, li, li), &d)
		return d
	}
	p.Eval(t, `orprofTimeline.reset()`, nil)
	for li, w := range want {
		if labels[li] != w.label {
			t.Errorf("lane %d: labelled %q, want %q", li, labels[li], w.label)
		}
		d := attrs(li)
		if d.Events != fmt.Sprint(w.events) {
			t.Errorf("%s: %s events drawn at the full view, the summary has %d", w.label, d.Events, w.events)
		}
		if w.kept && (d.Rects == "" || d.Rects == "0") {
			t.Errorf("%s: its %d kept events painted no rectangle", w.label, w.events)
		}
		if w.kept && (d.T0 != num(w.t0) || d.T1 != num(w.t1)) {
			t.Errorf("%s: drawn over [%s, %s], the summary's kept events span [%s, %s]", w.label, d.T0, d.T1, num(w.t0), num(w.t1))
		}
	}
	// Zoom on the longest kept event of the busiest stream (else of any lane): the window
	// narrows, fewer events are drawn, and hovering the event shows its figures.
	li := -1
	for i, w := range want {
		if w.kept && (li < 0 || strings.Contains(w.label, "stream") && (!strings.Contains(want[li].label, "stream") || w.events > want[li].events)) {
			li = i
		}
	}
	w := want[li]
	var view []float64
	p.Eval(t, fmt.Sprintf(`orprofTimeline.zoom(%s, %s)`, num(w.start-w.dur), num(w.start+2*w.dur)), &view)
	var vt0 string
	p.Eval(t, `document.getElementById('v-timeline').dataset.viewT0`, &vt0)
	if len(view) != 2 || vt0 != num(view[0]) || view[1]-view[0] > 3*w.dur+1000 {
		t.Errorf("zoom(%v, %v): the window is %v (data-view-t0 %s)", w.start-w.dur, w.start+2*w.dur, view, vt0)
	}
	if d := attrs(li); w.events > 1 && d.Events == fmt.Sprint(w.events) && view[1]-view[0] < (w.t1-w.t0)/2 {
		t.Errorf("%s: zoomed in on %v, it still draws all its %d events", w.label, view, w.events)
	}
	var at []float64
	p.Eval(t, fmt.Sprintf(`orprofTimeline.at(%d, %d)`, li, w.longest), &at)
	var tip []string
	p.Eval(t, fmt.Sprintf(`orprofTimeline.hover(%v, %v)`, at[0], at[1]), &tip)
	if len(tip) == 0 || tip[0] != w.name {
		t.Errorf("hovering %s's longest event %q at %v shows %q", w.label, w.name, at, tip)
	}
	var shown string
	p.Eval(t, `(() => { const e = document.querySelector('#v-timeline .tl-tip'); return getComputedStyle(e).display === 'none' ? '' : e.textContent; })()`, &shown)
	if !strings.HasPrefix(shown, w.name) {
		t.Errorf("the tooltip shows %q, want %q first", shown, w.name)
	}
	if w.hasLaunching && !strings.Contains(shown, "launched by: "+w.op) {
		t.Errorf("the tooltip %q does not name the launching op %q", shown, w.op)
	}
	var selected []string
	p.Eval(t, fmt.Sprintf(`orprofTimeline.select(%v, %v)`, at[0], at[1]), &selected)
	if len(selected) == 0 || selected[0] != w.name {
		t.Errorf("selecting at %v gives %q", at, selected)
	}
	// Keys, wheel and drag move the window.
	var moved struct{ W, S, WW, A, Wheel, Drag []float64 }
	p.Eval(t, `(() => {
		const box = document.querySelector('#v-timeline .tl-box'), cv = box.querySelector('canvas'), r = cv.getBoundingClientRect();
		const key = k => { box.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true})); return orprofTimeline.view(); };
		orprofTimeline.reset();
		const out = {W: key('w'), S: null, A: null};
		out.S = key('s'); key('w'); out.WW = key('w'); out.A = key('a');
		box.dispatchEvent(new WheelEvent('wheel', {deltaY: -300, clientX: r.left + r.width * 0.6, clientY: r.top + 40, bubbles: true, cancelable: true}));
		out.Wheel = orprofTimeline.view();
		cv.dispatchEvent(new MouseEvent('mousedown', {clientX: r.left + 600, clientY: r.top + 40, bubbles: true}));
		cv.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + 500, clientY: r.top + 40, bubbles: true}));
		window.dispatchEvent(new MouseEvent('mouseup', {clientX: r.left + 500, clientY: r.top + 40, bubbles: true}));
		out.Drag = orprofTimeline.view();
		return out; })()`, &moved)
	span := func(v []float64) float64 { return v[1] - v[0] }
	switch {
	case len(moved.W) != 2 || span(moved.W) >= span(moved.S):
		t.Errorf("W then S: windows %v then %v, W should zoom in", moved.W, moved.S)
	case moved.A[0] >= moved.WW[0]:
		t.Errorf("A did not pan left: %v after %v", moved.A, moved.WW)
	case span(moved.Wheel) >= span(moved.A):
		t.Errorf("the wheel did not zoom in: %v after %v", moved.Wheel, moved.A)
	case moved.Drag[0] <= moved.Wheel[0]:
		t.Errorf("dragging left did not pan right: %v after %v", moved.Drag, moved.Wheel)
	}
	p.CheckClean(t)
}

// num is a float as the page's String() writes it, for the integers it holds.
func num(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%.0f", f), ".") }

// BenchmarkTimelineFirstDraw opens the report of mtia_rank0 in headless Chromium, shows the
// Timeline, and reports the time the view took to decode its lanes and draw its first frame
// (first-draw-ms, the page's data-first-draw-ms, of which decode-ms decoding; the target is
// under 1 s), then pans the full
// view and a window of a tenth of it, 30 frames each, and reports the mean and worst frame
// (pan-ms, pan-max-ms) and each window's median (pan-full-p50-ms, pan-tenth-p50-ms); 60 fps is
// 16.7 ms a frame.
func BenchmarkTimelineFirstDraw(b *testing.B) {
	br := browsertest.Start(b)
	out := filepath.Join(b.TempDir(), "mtia.html")
	runCLIb(b, "report", "-o", out, filepath.Join("..", "..", "testdata", "kineto", "mtia_rank0.json.gz"))
	var first, decode, pan, worst, full, zoomed float64
	for b.Loop() {
		p := br.Open(b, out, "body[data-rendered]")
		p.Click(b, "button[data-view=timeline]")
		p.WaitFor(b, "#v-timeline[data-first-draw-ms]")
		var r struct {
			First, Decode float64
			Frames        []float64
		}
		p.Eval(b, `(() => { const T = orprofTimeline, f = [];
			const v = T.view();
			for (let i = 0; i < 30; i++) { T.pan(20); f.push(Number(document.getElementById('v-timeline').dataset.frameMs)); }
			T.zoom(v[0] + (v[1] - v[0]) * 0.4, v[0] + (v[1] - v[0]) * 0.5);
			for (let i = 0; i < 30; i++) { T.pan(20); f.push(Number(document.getElementById('v-timeline').dataset.frameMs)); }
			const d = document.getElementById('v-timeline').dataset;
			return {first: Number(d.firstDrawMs), decode: Number(d.decodeMs), frames: f}; })()`, &r)
		first += r.First
		decode += r.Decode
		var sum, mx float64
		for _, f := range r.Frames {
			sum, mx = sum+f, max(mx, f)
		}
		pan += sum / float64(len(r.Frames))
		worst = max(worst, mx)
		full += median(r.Frames[:30])
		zoomed += median(r.Frames[30:])
		p.CheckClean(b)
		p.Close()
	}
	b.ReportMetric(first/float64(b.N), "first-draw-ms")
	b.ReportMetric(decode/float64(b.N), "decode-ms")
	b.ReportMetric(pan/float64(b.N), "pan-ms")
	b.ReportMetric(worst, "pan-max-ms")
	b.ReportMetric(full/float64(b.N), "pan-full-p50-ms")
	b.ReportMetric(zoomed/float64(b.N), "pan-tenth-p50-ms")
}

// median is the median of fs.
func median(fs []float64) float64 {
	s := slices.Clone(fs)
	slices.Sort(s)
	return s[len(s)/2]
}

// runCLIb is runCLI for a benchmark.
func runCLIb(b *testing.B, args ...string) {
	b.Helper()
	var out, errb strings.Builder
	if code := dispatch(args, strings.NewReader(""), &out, &errb); code != 0 {
		b.Fatalf("orprof %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
}
