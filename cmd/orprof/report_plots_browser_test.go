package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/orprof/orprof/internal/browsertest"
)

// plotsTimeline is the part of orprof timeline --format json the Device view draws.
type plotsTimeline struct {
	Breakdown []struct {
		Rank int64 `json:"rank"`
		GPU  []struct {
			Device       int      `json:"device"`
			WindowNs     int64    `json:"window_ns"`
			BusyNs       int64    `json:"busy_ns"`
			KernelNs     int64    `json:"kernel_ns"`
			TensorCoreNs int64    `json:"tensor_core_ns"`
			SM           *float64 `json:"sm_efficiency"`
			Occ          *float64 `json:"achieved_occupancy_pct"`
		} `json:"gpu"`
	} `json:"breakdown"`
	Queue []struct {
		Rank   int64 `json:"rank"`
		Device int   `json:"device"`
		Stream int64 `json:"stream"`
		Series *struct {
			Points [][2]int64 `json:"points"`
		} `json:"series"`
		Delay *struct {
			Buckets []int64 `json:"buckets"`
		} `json:"delay"`
	} `json:"queue"`
	Steps []struct {
		Rank  int64 `json:"rank"`
		Steps []struct {
			Step    int64 `json:"step"`
			Kernels []struct {
				Category string `json:"category"`
				Ns       int64  `json:"ns"`
			} `json:"kernels"`
		} `json:"steps"`
	} `json:"steps"`
}

// TestReportPlotsBrowser opens reports of real traces in headless Chromium and checks the
// Device view's and the Memory view's plots: no console error or request; every drawn queue
// series, launch-delay bucket, step-category segment and GPU figure equals orprof timeline
// --format json's for the same trace; hovering a plot shows its values; dragging over the
// memory curve zooms its axis and a double-click restores it; the blocks live at the peak
// are memcurve's.
func TestReportPlotsBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	b := browsertest.Start(t)
	reportPlots(t, func(t *testing.T, file string) browsertest.Tab { return b.Open(t, file, "body[data-rendered]") }, true)
}

// TestReportPlotsFirefox runs TestReportPlotsBrowser's checks in headless Firefox (no
// screenshots: the Chromium ones show the same page).
func TestReportPlotsFirefox(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := browsertest.StartFirefox(t)
	reportPlots(t, func(t *testing.T, file string) browsertest.Tab { return f.Open(t, file, "body[data-rendered]") }, false)
}

// reportPlots is the plots' browser test over the pages open opens; shoot writes the
// screenshots.
func reportPlots(t *testing.T, open func(t *testing.T, file string) browsertest.Tab, shoot bool) {
	dir := t.TempDir()
	docs, err := filepath.Abs(filepath.Join("..", "..", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir) // the inputs named as a user names them (the screenshots show them)
	// The screenshots docs/report.md shows (rewritten under -update): the Device view of a
	// CUDA training step, the Memory view of the BERT trace.
	shots := map[string][2]string{"cuda_train_step.json.gz": {"device", "device.png"},
		"tracelens_mi300_bert_small.json.gz": {"memory", "memory-peak.png"}}
	for _, tr := range []string{"kineto/cuda_train_step.json.gz", "kineto/cuda_alexnet.json.gz", "kineto-extra/tracelens_mi300_bert_small.json.gz"} {
		name := filepath.Base(tr)
		t.Run(name, func(t *testing.T) {
			in := name
			copyFile(t, filepath.Join(testdata, tr), in)
			out := filepath.Join(dir, name+".html")
			runCLI(t, "report", in, "-o", out)
			p := open(t, out)
			var tl plotsTimeline
			if err := json.Unmarshal(runCLI(t, "timeline", "--format", "json", in), &tl); err != nil {
				t.Fatal(err)
			}
			p.Click(t, "button[data-view=device]")
			p.WaitFor(t, "#v-device[data-ready].on")
			checkDevicePlots(t, p, &tl)
			p.Click(t, "button[data-view=memory]")
			p.WaitFor(t, "#v-memory[data-ready].on")
			checkMemoryPlot(t, p)
			if sh, ok := shots[name]; ok && shoot {
				p.Click(t, "button[data-view="+sh[0]+"]")
				p.Screenshot(t, filepath.Join(screenshotDir(t, docs, "plots"), sh[1]))
			}
			p.CheckClean(t)
		})
	}
	// Five ranks: the GPU summary becomes a table, one row per device, its figures the CLI's.
	t.Run("five ranks", func(t *testing.T) {
		raw := gunzipFile(t, filepath.Join(testdata, "kineto", "cuda_alexnet.json.gz"))
		var ins []string
		for i := range 5 {
			in := "alexnet" + strconv.Itoa(i) + ".json"
			doc := bytes.Replace(raw, []byte(`"distributedInfo": {"rank": 0}`), []byte(`"distributedInfo": {"rank": `+strconv.Itoa(i)+`}`), 1)
			if err := os.WriteFile(in, doc, 0o644); err != nil {
				t.Fatal(err)
			}
			ins = append(ins, in)
		}
		runCLI(t, append(append([]string{"report"}, ins...), "-o", "five.html")...)
		p := open(t, "five.html")
		var tl plotsTimeline
		if err := json.Unmarshal(runCLI(t, append([]string{"timeline", "--format", "json"}, ins...)...), &tl); err != nil {
			t.Fatal(err)
		}
		p.Click(t, "button[data-view=device]")
		p.WaitFor(t, "#v-device[data-ready].on")
		rows := map[string]map[string]string{}
		for _, r := range pageRows(t, p, "gpu") {
			rows[r["@key"]] = r
		}
		n := 0
		for _, b := range tl.Breakdown {
			for _, g := range b.GPU {
				n++
				r := rows[fmt.Sprintf("rank %d · device %d", b.Rank, g.Device)]
				if r == nil || !sameNumber(r["util"], float64(g.BusyNs)/float64(g.WindowNs)) || g.SM == nil || !sameNumber(r["sm"], *g.SM) {
					t.Errorf("rank %d device %d: row %v, the CLI's %+v", b.Rank, g.Device, r, g)
				}
			}
		}
		if n != 5 || len(rows) != 5 {
			t.Errorf("%d rows for %d devices", len(rows), n)
		}
		p.CheckClean(t)
	})
}

// pageAttr is the attribute attr of the first element matching sel ("" when none matches).
func pageAttr(t *testing.T, p browsertest.Tab, sel, attr string) string {
	t.Helper()
	var v string
	p.Eval(t, fmt.Sprintf(`(e => e ? (e.getAttribute(%q) || "") : "")(document.querySelector(%q))`, attr, sel), &v)
	return v
}

func checkDevicePlots(t *testing.T, p browsertest.Tab, tl *plotsTimeline) {
	t.Helper()
	near := func(v string, want float64) bool {
		f, err := strconv.ParseFloat(v, 64)
		return err == nil && (f == want || f-want < 1e-12*max(1, want) && want-f < 1e-12*max(1, want))
	}
	gpus := 0
	for _, b := range tl.Breakdown {
		for _, g := range b.GPU {
			gpus++
			sel := fmt.Sprintf(`#v-device [data-gpu="%d:%d"]`, b.Rank, g.Device)
			if u := pageAttr(t, p, sel, "data-util"); !near(u, float64(g.BusyNs)/float64(g.WindowNs)) {
				t.Errorf("device %d: utilization %q, the CLI's %d/%d", g.Device, u, g.BusyNs, g.WindowNs)
			}
			if tc := pageAttr(t, p, sel, "data-tc"); g.KernelNs > 0 && !near(tc, float64(g.TensorCoreNs)/float64(g.KernelNs)) {
				t.Errorf("device %d: tensor cores %q, the CLI's %d/%d", g.Device, tc, g.TensorCoreNs, g.KernelNs)
			}
			for _, x := range []struct {
				attr string
				want *float64
			}{{"data-sm", g.SM}, {"data-occ", g.Occ}} {
				v := pageAttr(t, p, sel, x.attr)
				if x.want == nil && v != "" || x.want != nil && !near(v, *x.want) {
					t.Errorf("device %d: %s %q, the CLI's %v", g.Device, x.attr, v, x.want)
				}
			}
		}
	}
	if gpus == 0 {
		var reason int
		p.Eval(t, `document.querySelectorAll('#v-device [data-why]').length`, &reason)
		if reason == 0 {
			t.Error("no GPU summary and no reason")
		}
	}
	drawn := 0
	for _, q := range tl.Queue {
		key := fmt.Sprintf("%d:%d:%d", q.Rank, q.Device, q.Stream)
		if q.Series != nil && drawn < 16 {
			drawn++
			var pts [][2]int64
			v := pageAttr(t, p, `#v-device path[data-queue="`+key+`"]`, "data-points")
			if err := json.Unmarshal([]byte(v), &pts); err != nil || fmt.Sprint(pts) != fmt.Sprint(q.Series.Points) {
				t.Errorf("stream %s: drawn queue series of %d points (%.120s), the CLI's %d (%.120s)", key, len(pts), v, len(q.Series.Points), fmt.Sprint(q.Series.Points))
			}
		}
		if q.Delay == nil {
			continue
		}
		var counts map[string]string
		p.Eval(t, `Object.fromEntries(Array.from(document.querySelectorAll('#v-device svg[data-delay-stream="`+key+`"] rect')).map(r => [r.dataset.bucket, r.dataset.count]))`, &counts)
		for i, c := range q.Delay.Buckets {
			got, shown := counts[strconv.Itoa(i)]
			if shown && got != strconv.FormatInt(c, 10) || !shown && c != 0 {
				t.Errorf("stream %s: delay bucket %d drawn %q, the CLI's %d", key, i, got, c)
			}
		}
	}
	segs := 0
	for _, rs := range tl.Steps {
		for _, st := range rs.Steps {
			for _, c := range st.Kernels {
				segs++
				sel := fmt.Sprintf(`#v-device rect[data-step="%d:%d"][data-category=%q]`, rs.Rank, st.Step, c.Category)
				if v := pageAttr(t, p, sel, "data-ns"); v != strconv.FormatInt(c.Ns, 10) {
					t.Errorf("step %d %s: drawn %q ns, the CLI's %d", st.Step, c.Category, v, c.Ns)
				}
			}
		}
	}
	t.Logf("%d devices, %d queues drawn, %d step segments", gpus, drawn, segs)
	if drawn > 0 {
		v := hoverPlot(t, p, `#v-device [data-zplot^="queue-"]`)
		if len(v) != 1 || v[0] == nil {
			t.Errorf("hovering the first queue plot shows %v", v)
		}
	}
}

// hoverPlot moves the pointer to the middle of the zoomPlot box sel and returns the values
// its readout shows.
func hoverPlot(t *testing.T, p browsertest.Tab, sel string) []*float64 {
	t.Helper()
	var raw string
	p.Eval(t, `(() => { const box = document.querySelector('`+sel+`'), s = box.querySelector('svg'), r = s.getBoundingClientRect();
		s.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + r.width * 0.5, clientY: r.top + r.height / 2, bubbles: true}));
		return box.querySelector('[data-readout]').getAttribute('data-values') || ''; })()`, &raw)
	var vals []*float64
	if err := json.Unmarshal([]byte(raw), &vals); err != nil {
		t.Errorf("readout %q: %v", raw, err)
	}
	return vals
}

func checkMemoryPlot(t *testing.T, p browsertest.Tab) {
	t.Helper()
	var m struct {
		Devices []struct {
			Name       string `json:"name"`
			HasAddr    bool   `json:"has_addr"`
			PeakAllocs []struct {
				Bytes int64 `json:"bytes"`
			} `json:"peak_allocs"`
		} `json:"devices"`
	}
	var raw string
	p.Eval(t, `JSON.stringify(JSON.parse(document.getElementById('orprof-data').textContent).memory)`, &raw)
	if err := json.Unmarshal([]byte(raw), &m); err != nil || len(m.Devices) == 0 {
		var reason int
		p.Eval(t, `document.querySelectorAll('#v-memory [data-why]').length`, &reason)
		if reason == 0 {
			t.Error("no memory curve and no reason")
		}
		return
	}
	const plot = `#v-memory [data-zplot=memory]`
	x0, x1 := pageAttr(t, p, plot+" svg", "data-x0"), pageAttr(t, p, plot+" svg", "data-x1")
	var label0 string
	p.Eval(t, `document.querySelector('`+plot+` svg text[data-axis-x]:last-of-type').textContent`, &label0)
	// Drag from 30 % to 60 % of the plot's width: the axis shows that window.
	p.Eval(t, `(() => { const s = document.querySelector('`+plot+` svg'), r = s.getBoundingClientRect(), y = r.top + r.height / 2;
		s.dispatchEvent(new MouseEvent('mousedown', {clientX: r.left + r.width * 0.3, clientY: y, bubbles: true}));
		s.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + r.width * 0.6, clientY: y, bubbles: true}));
		window.dispatchEvent(new MouseEvent('mouseup', {clientX: r.left + r.width * 0.6, clientY: y, bubbles: true})); return 0; })()`, nil)
	z0, z1 := pageAttr(t, p, plot+" svg", "data-x0"), pageAttr(t, p, plot+" svg", "data-x1")
	f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	if !(f(z0) > f(x0) && f(z1) < f(x1) && f(z1) > f(z0)) {
		t.Errorf("dragging over the memory curve: window [%s, %s] → [%s, %s]", x0, x1, z0, z1)
	}
	var label1 string
	p.Eval(t, `Array.from(document.querySelectorAll('`+plot+` svg text[data-axis-x]')).map(e => e.textContent).join(" ")`, &label1)
	if label1 == "" || label1 == label0 {
		t.Errorf("the zoomed axis reads %q", label1)
	}
	if v := hoverPlot(t, p, plot); len(v) == 0 || v[0] == nil {
		t.Errorf("hovering the memory curve shows %v", v)
	}
	p.Eval(t, `(() => { document.querySelector('`+plot+` svg').dispatchEvent(new MouseEvent('dblclick', {bubbles: true})); return 0; })()`, nil)
	if r0, r1 := pageAttr(t, p, plot+" svg", "data-x0"), pageAttr(t, p, plot+" svg", "data-x1"); r0 != x0 || r1 != x1 {
		t.Errorf("a double-click leaves the window [%s, %s], not [%s, %s]", r0, r1, x0, x1)
	}
	for i, d := range m.Devices {
		if !d.HasAddr {
			continue
		}
		rows := pageRows(t, p, "peak-"+strconv.Itoa(i))
		if len(rows) != len(d.PeakAllocs) {
			t.Errorf("%s: %d blocks listed at the peak, memcurve has %d", d.Name, len(rows), len(d.PeakAllocs))
			continue
		}
		for k, a := range d.PeakAllocs {
			if rows[k]["bytes"] != strconv.FormatInt(a.Bytes, 10) {
				t.Errorf("%s: block %d of %s bytes, memcurve's %d", d.Name, k, rows[k]["bytes"], a.Bytes)
			}
		}
	}
}
