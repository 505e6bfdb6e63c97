package html_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/orprof/orprof/trace"
	"regexp"
	"strings"
	"testing"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/events"
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
