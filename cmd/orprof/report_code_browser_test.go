package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/orprof/orprof/internal/browsertest"
)

// TestReportCodeBrowser opens the report of a real trace recorded with_stack=True (TraceLens's
// BERT on MI300) in a headless Chromium: the Code view renders with no console error or
// request, its module tree's rows are `orprof code --format json`'s (keys, calls, figures),
// its line table's are `orprof code --by line --format json`'s, folding a module hides its
// submodules, and the "(no module)" row says why it has its time. A trace without Python
// events (the CUDA-graph fixture) shows the reason instead.
func TestReportCodeBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	b := browsertest.Start(t)
	dir := t.TempDir()
	bert := filepath.Join("..", "..", "testdata", "kineto-extra", "tracelens_mi300_bert_small.json.gz")
	out := filepath.Join(dir, "bert.html")
	runCLI(t, "report", bert, "-o", out)
	p := b.Open(t, out, "body[data-rendered]")
	p.Click(t, "button[data-view=code]")
	p.WaitFor(t, "#v-code[data-ready].on")

	for _, v := range []struct{ by, table string }{{"module", "code-modules"}, {"line", "code-lines"}} {
		cli := codeJSON(t, v.by, bert)
		var page []struct {
			Key   string
			Calls int64
			Fwd   [2]int64
			Bwd   [2]int64
		}
		// The tree's rows that are rows (data-row) and every row of the line table.
		p.Eval(t, `(function () {
		  var D = JSON.parse(document.getElementById("orprof-data").textContent);
		  var S = D.code["`+v.by+`"], byKey = {};
		  S.rows.forEach(function (r) { byKey[r.key] = r; });
		  var sel = "`+v.table+`" === "code-modules" ? "tr[data-row]" : "tbody tr";
		  return Array.from(document.querySelectorAll('[data-table=`+v.table+`] ' + sel)).map(function (tr) {
		    var r = byKey[tr.getAttribute("data-key")] || {};
		    return { Key: tr.getAttribute("data-key"), Calls: r.calls, Fwd: [r.fwd_cpu_ns, r.fwd_device_ns], Bwd: [r.bwd_cpu_ns, r.bwd_device_ns] };
		  });
		})()`, &page)
		if len(page) != len(cli.Rows) {
			t.Fatalf("%s: the page has %d rows, orprof code %d", v.by, len(page), len(cli.Rows))
		}
		want := map[string][5]int64{}
		for _, r := range cli.Rows {
			want[r.Key] = [5]int64{r.Calls, r.FwdCPUNs, r.FwdDevNs, r.BwdCPUNs, r.BwdDevNs}
		}
		for _, r := range page {
			if got := [5]int64{r.Calls, r.Fwd[0], r.Fwd[1], r.Bwd[0], r.Bwd[1]}; got != want[r.Key] {
				t.Errorf("%s row %q: page %v, orprof code %v", v.by, r.Key, got, want[r.Key])
			}
		}
	}
	// The line table opens in orprof code's order: the text view's rows, heaviest first.
	var lineKeys []string
	p.Eval(t, `Array.from(document.querySelectorAll('[data-table=code-lines] tbody tr')).map(function (tr) { return tr.getAttribute("data-key"); })`, &lineKeys)
	recs, err := csv.NewReader(bytes.NewReader(runCLI(t, "code", "--by", "line", "--format", "csv", bert))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var textKeys []string
	for _, r := range recs[1:] {
		textKeys = append(textKeys, r[0])
	}
	if !slices.Equal(lineKeys, textKeys) {
		t.Errorf("line table's order %q, orprof code's %q", lineKeys, textKeys)
	}
	// The page's tree rows are the JSON's, by key, drawn from the DOM (not the data).
	var keys []string
	p.Eval(t, `Array.from(document.querySelectorAll('[data-table=code-modules] tr[data-row]')).map(function (tr) { return tr.getAttribute("data-key"); })`, &keys)
	if !slices.Contains(keys, "(no module)") {
		t.Error("no (no module) row in the tree")
	}
	var why int
	p.Eval(t, `document.querySelectorAll('#v-code [data-unattributed=module] li').length`, &why)
	if why == 0 {
		t.Error("the tree says nothing of why the (no module) row has time")
	}
	// Folding the outermost module hides its submodules; unfolding shows them again.
	var visible [2]int
	count := `Array.from(document.querySelectorAll('[data-table=code-modules] tbody tr')).filter(function (tr) { return tr.style.display !== "none"; }).length`
	p.Eval(t, count, &visible[0])
	p.Click(t, `[data-table=code-modules] button[data-fold="BertLMHeadModel_0"]`)
	p.Eval(t, count, &visible[1])
	if visible[1] >= visible[0] || visible[1] < 2 {
		t.Errorf("folding BertLMHeadModel_0: %d rows shown, before %d", visible[1], visible[0])
	}
	p.Click(t, `[data-table=code-modules] button[data-fold="BertLMHeadModel_0"]`)
	p.Eval(t, count, &visible[1])
	if visible[1] != visible[0] {
		t.Errorf("unfolding BertLMHeadModel_0: %d rows shown, before folding %d", visible[1], visible[0])
	}
	p.CheckClean(t)

	// No Python layer: the reason, no table.
	out = filepath.Join(dir, "graph.html")
	runCLI(t, "report", graphTrace, "-o", out)
	p = b.Open(t, out, "body[data-rendered]")
	p.Click(t, "button[data-view=code]")
	p.WaitFor(t, "#v-code[data-ready].on")
	var n, tables int
	p.Eval(t, `document.querySelectorAll('#v-code [data-why]').length`, &n)
	p.Eval(t, `document.querySelectorAll('#v-code table').length`, &tables)
	if n == 0 || tables != 0 {
		t.Errorf("a trace without python_function events: %d reasons, %d tables", n, tables)
	}
	// It has phases (decode, prefill): the view says where their table is.
	var reasons string
	p.Eval(t, `Array.from(document.querySelectorAll('#v-code [data-why]')).map(function (e) { return e.textContent; }).join("\n")`, &reasons)
	if !strings.Contains(reasons, "orprof code --by phase") {
		t.Errorf("a trace with phases and no python stacks: the view says %q", reasons)
	}
	p.CheckClean(t)
}

// TestReportCodePhasesBrowser: the Code view of a trace with python stacks and a phase
// (train_step, PyTorch's own recording) has a phase table whose rows are `orprof code --by
// phase --format json`'s, drawn from the DOM's cells.
func TestReportCodePhasesBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	b := browsertest.Start(t)
	mlp := filepath.Join("..", "..", "analysis", "code", "testdata", "mlp_train.json.gz")
	out := filepath.Join(t.TempDir(), "mlp.html")
	runCLI(t, "report", mlp, "-o", out)
	p := b.Open(t, out, "body[data-rendered]")
	p.Click(t, "button[data-view=code]")
	p.WaitFor(t, "#v-code[data-ready].on")
	cli := codeJSON(t, "phase", mlp)
	var want, page []string
	for _, r := range cli.Rows {
		want = append(want, fmt.Sprintf("%s %d %d %d %d %d", r.Key, r.Calls, r.FwdCPUNs, r.FwdDevNs, r.BwdCPUNs, r.BwdDevNs))
	}
	p.Eval(t, `Array.from(document.querySelectorAll('[data-table=code-phases] tbody tr')).map(function (tr) {
	  return ["key", "calls", "fwd_cpu_ns", "fwd_device_ns", "bwd_cpu_ns", "bwd_device_ns"].map(function (k) {
	    return tr.querySelector('td[data-col=' + k + ']').getAttribute("data-v"); }).join(" ");
	})`, &page)
	slices.Sort(want)
	slices.Sort(page)
	if len(want) < 2 || !slices.Equal(page, want) {
		t.Errorf("phase rows: page %q, orprof code %q", page, want)
	}
	p.CheckClean(t)
}

// codeRows are the rows of `orprof code --format json`.
type codeRows struct {
	Rows []struct {
		Key      string
		Calls    int64
		FwdCPUNs int64 `json:"fwd_cpu_ns"`
		FwdDevNs int64 `json:"fwd_device_ns"`
		BwdCPUNs int64 `json:"bwd_cpu_ns"`
		BwdDevNs int64 `json:"bwd_device_ns"`
	}
}

// codeJSON runs `orprof code --by by --format json` of trace.
func codeJSON(t *testing.T, by, trace string) codeRows {
	t.Helper()
	var c codeRows
	if err := json.Unmarshal(runCLI(t, "code", "--by", by, "--format", "json", trace), &c); err != nil {
		t.Fatal(err)
	}
	return c
}
