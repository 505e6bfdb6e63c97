package html_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/orprof/orprof/trace"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/tracetest"
	"github.com/orprof/orprof/report"
	"github.com/orprof/orprof/report/html"
)

func tinyList() *events.List {
	step := events.NewFunctionEvent(1, "ProfilerStep#1", 1, 0, 100)
	step.Name = "ProfilerStep*"
	step.IsUserAnnotation = true
	mm := events.NewFunctionEvent(2, "aten::mm", 1, 10, 70)
	mm.Kernels = []events.Kernel{{Name: "gemm</script><script>alert(1)</script>", DurationUs: 40}}
	add := events.NewFunctionEvent(3, "aten::add & <b>", 1, 75, 95)
	return events.NewList([]events.FunctionEvent{step, mm, add}, events.ListOptions{UseDevice: "cuda"})
}

// pageJSON returns the document embedded in a page.
func pageJSON(t *testing.T, page []byte) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script id="orprof-data" type="application/json">(.*?)</script>`).FindSubmatch(page)
	if m == nil {
		t.Fatal("no data element")
	}
	var doc map[string]any
	if err := json.Unmarshal(m[1], &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// The page references nothing outside itself (no src, href, @import, or url() but url(#id),
// a fragment of the page itself; the only URL is SVG's namespace name), and names that look
// like markup cannot end the data element.
func TestSelfContained(t *testing.T) {
	var b bytes.Buffer
	m := html.ListModel(tinyList(), optable.RankInfo{Rank: trace.Rank{Trace: "t.json"}}, "cuda", false, events.AverageOptions{})
	if err := html.Write(&b, m); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, re := range []string{`(?i)\s(src|href|srcset|action)\s*=`, `(?i)url\(\s*['"]?[^#'"\s]`, `(?i)@import`, `(?i)<link`, `(?i)<iframe`} {
		if loc := regexp.MustCompile(re).FindStringIndex(page); loc != nil {
			t.Errorf("the page has %q at byte %d: %q", re, loc[0], page[max(loc[0]-40, 0):min(loc[1]+40, len(page))])
		}
	}
	urls := regexp.MustCompile(`https?://[^"' )]+`).FindAllString(page, -1)
	for _, u := range urls {
		if u != "http://www.w3.org/2000/svg" {
			t.Errorf("the page names %s", u)
		}
	}
	if n := strings.Count(page, "</script>"); n != 2 {
		t.Errorf("%d </script> tags, want 2 (data and code): a name ended the data element", n)
	}
	doc := pageJSON(t, b.Bytes())
	if !strings.Contains(fmt.Sprint(doc["flame"]), "gemm</script>") {
		t.Errorf("the kernel's name did not survive the embedding: %v", doc["flame"])
	}
	if !strings.Contains(page, "default-src 'none'") {
		t.Error("no Content-Security-Policy")
	}
}

// Views without data say why, in the words a user acts on.
func TestWhy(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *html.Model
		want map[string]string
	}{
		{"no memory, one rank", html.ListModel(tinyList(), optable.RankInfo{}, "cuda", false, events.AverageOptions{}),
			map[string]string{"memory": "--profile-memory", "ranks": "orprof report summaries/", "diff": "--diff BEFORE AFTER"}},
		{"summaries", &html.Model{Summary: optable.NewSummary(nil, optable.RankInfo{}, optable.SummaryOptions{})},
			map[string]string{"flame": "single trace"}},
		// A fallback-mode trace: no device busy 0 % of 0 µs, but why and how to record kernels.
		{"no device events", &html.Model{Summary: optable.NewSummary(nil, optable.RankInfo{}, optable.SummaryOptions{}),
			Timeline: &timeline.Summary{Ranks: []timeline.RankInfo{{Device: "openreg"}}}},
			map[string]string{"timeline": "No device timeline: no OPENREG kernels, copies or fills (orprof run's default fallback mode"}},
		// A CPU-only rank beside a rank with device work: only the latter's window is drawn.
		{"one rank without device events", &html.Model{Summary: optable.NewSummary(nil, optable.RankInfo{}, optable.SummaryOptions{}),
			Timeline: &timeline.Summary{Ranks: []timeline.RankInfo{{Rank: trace.Rank{Number: 0}, Device: "cuda", DeviceEvents: 3}, {Rank: trace.Rank{Number: 1}}},
				Breakdown: []timeline.RankBreakdown{{Rank: 0}, {Rank: 1}}, Steps: []timeline.RankSteps{{Rank: 0}, {Rank: 1}}}},
			map[string]string{}},
		{"diff only", &html.Model{Diff: &html.Diff{Before: &optable.Summary{}, After: &optable.Summary{}}},
			map[string]string{"operators": "diff only", "memory": "No operator summary"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := html.Write(&b, c.m); err != nil {
				t.Fatal(err)
			}
			doc := pageJSON(t, b.Bytes())
			why := doc["why"].(map[string]any)
			if tl := c.m.Timeline; tl != nil {
				drawn, _ := doc["timeline"].(map[string]any)
				if len(tl.Breakdown) == 0 && drawn != nil {
					t.Errorf("a timeline without device events is drawn: %v", drawn)
				}
				if len(tl.Breakdown) > 0 {
					if bd, _ := drawn["breakdown"].([]any); len(bd) != 1 {
						t.Errorf("breakdown of the ranks with device events: %v, want rank 0's alone", drawn["breakdown"])
					}
					if st, _ := drawn["steps"].([]any); len(st) != 1 {
						t.Errorf("steps of the ranks with device events: %v, want rank 0's alone", drawn["steps"])
					}
				}
			}
			for view, want := range c.want {
				if got, _ := why[view].(string); !strings.Contains(got, want) {
					t.Errorf("why[%s] = %q, want it to say %q", view, got, want)
				}
			}
		})
	}
}

func ExampleWrite() {
	step := events.NewFunctionEvent(1, "step", 1, 0, 100)
	mm := events.NewFunctionEvent(2, "aten::mm", 1, 10, 70)
	l := events.NewList([]events.FunctionEvent{step, mm}, events.ListOptions{})
	m := html.ListModel(l, optable.RankInfo{Rank: trace.Rank{Trace: "trace.json"}}, "", false, events.AverageOptions{})
	var b bytes.Buffer
	if err := html.Write(&b, m); err != nil {
		fmt.Println(err)
		return
	}
	page := b.String()
	fmt.Println(strings.HasPrefix(page, "<!DOCTYPE html>"), strings.Contains(page, "<title>orprof report — trace.json</title>"))
	// Output: true true
}

// pageOf writes the page of m and returns it and its document.
func pageOf(t *testing.T, m *html.Model) ([]byte, map[string]any) {
	t.Helper()
	var b bytes.Buffer
	if err := html.Write(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), pageJSON(t, b.Bytes())
}

// TestPageBudget: the long-names trace (5,000 kernels with distinct 2 KB names) made a 35 MB
// page; within the budgets it is under 5 MB, every total is the summaries', and the page
// counts the names it shortened and the rows it left out.
func TestPageBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 12 MB trace")
	}
	b, _, err := report.FromTrace(tracetest.LongKernelNames(5000, 2048), "long", report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := &html.Model{Summary: b.Table, Flame: b.Flame, Timeline: b.Timeline, Steps: b.Steps, Kernels: b.Kernels, Memory: b.Memory}
	page, doc := pageOf(t, m)
	if len(page) > 5<<20 {
		t.Errorf("page of %d bytes, over 5 MB", len(page))
	}
	table := doc["table"].(map[string]any)
	rows := table["rows"].([]any)
	if left := int(table["rows_left_out"].(float64)); left+len(rows) != len(b.Table.Rows) || left == 0 {
		t.Errorf("table: %d rows and %d left out, the summary has %d", len(rows), left, len(b.Table.Rows))
	}
	tot := b.Table.Totals()
	if table["self_cpu_time_total"].(float64) != tot.SelfCPU || table["self_device_time_total"].(float64) != tot.SelfDevice {
		t.Errorf("table totals %v, %v; the summary's %v, %v", table["self_cpu_time_total"], table["self_device_time_total"], tot.SelfCPU, tot.SelfDevice)
	}
	for _, r := range rows {
		if k := r.(map[string]any)["key"].(string); len(k) > html.PageNameMax {
			t.Fatalf("a name of %d bytes in the table", len(k))
		}
	}
	k := doc["kernels"].(map[string]any)
	kr := k["doc"].(map[string]any)["kernels"].([]any)
	if left := int(k["left_out"].(float64)); left+len(kr) != 5000 || left == 0 {
		t.Errorf("kernels: %d rows and %d left out, want 5,000", len(kr), left)
	}
	if got := k["doc"].(map[string]any)["device_us"].(float64); got != b.Kernels.DeviceUs() {
		t.Errorf("kernels device_us %v, the summary's %v", got, b.Kernels.DeviceUs())
	}
	if n := doc["elided_names"].(float64); n < 5000 {
		t.Errorf("%v names shortened, want at least the 5,000 kernels' in the table", n)
	}
	// A small profile is untouched: no name shortened, no row left out.
	_, small := pageOf(t, html.ListModel(tinyList(), optable.RankInfo{}, "cuda", false, events.AverageOptions{}))
	if small["elided_names"].(float64) != 0 || small["table"].(map[string]any)["rows_left_out"].(float64) != 0 {
		t.Errorf("a tiny page shortened %v names and left %v rows out", small["elided_names"], small["table"].(map[string]any)["rows_left_out"])
	}
}

// TestDiffSides: a diff page holds each side's steps, device time breakdown and kernels by
// category, and the kernel changes as orprof diff writes them for the two kernel summaries.
func TestDiffSides(t *testing.T) {
	read := func(tr *trace.Trace) *report.Bundle {
		b, _, err := report.FromTrace(tr, "t", report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b0, b1 := read(tracetest.LongKernelNames(30, 64)), read(tracetest.LongKernelNames(300, 64))
	m := &html.Model{Summary: b1.Table, Timeline: b1.Timeline, Steps: b1.Steps, Kernels: b1.Kernels,
		Diff: &html.Diff{BeforeName: "a", AfterName: "b", Before: b0.Table, After: b1.Table, BeforeSteps: b0.Steps, AfterSteps: b1.Steps,
			BeforeTimeline: b0.Timeline, AfterTimeline: b1.Timeline, BeforeKernels: b0.Kernels, AfterKernels: b1.Kernels}}
	_, doc := pageOf(t, m)
	d := doc["diff"].(map[string]any)
	for _, part := range []string{"timeline", "kernels"} {
		s := d[part].(map[string]any)
		if s["before"] == nil || s["after"] == nil {
			t.Errorf("diff %s: before %v, after %v", part, s["before"], s["after"])
		}
	}
	var want bytes.Buffer
	if err := kernels.WriteDiff(&want, "json", kernels.Diff(b0.Kernels, b1.Kernels, nil)[:html.DiffKernelRows/2], b0.Kernels, b1.Kernels, 0, 0); err != nil {
		t.Fatal(err)
	}
	var w map[string]any
	if err := json.Unmarshal(want.Bytes(), &w); err != nil {
		t.Fatal(err)
	}
	got := d["kernel_changes"].(map[string]any)
	if int(d["kernels_left_out"].(float64)) != 300-html.DiffKernelRows {
		t.Errorf("%v kernel changes left out, want %d", d["kernels_left_out"], 300-html.DiffKernelRows)
	}
	if !reflect.DeepEqual(got["kernels"].([]any)[:html.DiffKernelRows/2], w["kernels"]) || got["device_us_after"] != w["device_us_after"] {
		t.Errorf("kernel changes differ from orprof diff's")
	}
	// Without the sides' other summaries (table summaries), the comparisons are null.
	m.Diff = &html.Diff{BeforeName: "a", AfterName: "b", Before: b0.Table, After: b1.Table}
	_, doc = pageOf(t, m)
	d = doc["diff"].(map[string]any)
	if d["kernel_changes"] != nil || d["steps"].(map[string]any)["before"] != nil {
		t.Errorf("a diff of tables compares kernels %v or steps %v", d["kernel_changes"], d["steps"])
	}
}

// TestUnlinkedShare: the device time no operator launched (the CLI's warning) is in the page.
func TestUnlinkedShare(t *testing.T) {
	tr := tracetest.LongKernelNames(10, 64)
	// Half the kernels lose their correlation and external id and move past every op.
	n := 0
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Cat == "kernel" && n < 5 {
			e.Args = []trace.Arg{trace.Int(trace.ArgDevice, 0), trace.Int(trace.ArgStream, 7)}
			e.TsNs = tr.EndNs + int64(n+1)*10_000
			n++
		}
	}
	tr.EndNs += 100_000
	b, _, err := report.FromTrace(tr, "t", report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, doc := pageOf(t, &html.Model{Summary: b.Table, Kernels: b.Kernels})
	k := doc["kernels"].(map[string]any)
	if k["unlinked_ns"].(float64) != 5*2000 || k["device_ns"].(float64) != 10*2000 {
		t.Errorf("unlinked %v of %v ns, want 10000 of 20000", k["unlinked_ns"], k["device_ns"])
	}
}
