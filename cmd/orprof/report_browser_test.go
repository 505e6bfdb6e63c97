package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/orprof/orprof/internal/browsertest"
	"github.com/orprof/orprof/internal/golden"
	"github.com/orprof/orprof/internal/tracetest"
	"github.com/orprof/orprof/trace"
)

// reportViews are the views of the report, by their data-view id.
var reportViews = []string{"overview", "timeline", "operators", "kernels", "device", "code", "memory", "ranks", "diff"}

// runCLI runs orprof with args and returns its stdout; a non-zero exit fails t.
func runCLI(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	if code := dispatch(args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("orprof %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.Bytes()
}

// reportInputs makes the inputs of the browser tests in dir: orprof's own traces (OpenReg,
// kernel mode, shapes and memory) of two workloads, and a directory of two ranks' summaries.
func reportInputs(t *testing.T, dir string) (mlp, multi, sums string) {
	t.Helper()
	mlp, multi = filepath.Join(dir, "mlp.json"), filepath.Join(dir, "multistream.json")
	runCLI(t, "run", "--workload", "mlp", "--profile-memory", "--record-shapes", "--activities", "cpu_op,kernel,privateuse1_runtime",
		"--trace", mlp, "--format", "json")
	runCLI(t, "run", "--workload", "multistream", "--profile-memory", "--activities", "cpu_op,kernel,privateuse1_runtime",
		"--trace", multi, "--format", "json")
	sums = filepath.Join(dir, "sums")
	if err := os.Mkdir(sums, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, tr := range []string{mlp, multi} {
		doc := runCLI(t, "table", "--format", "json", tr)
		if err := os.WriteFile(filepath.Join(sums, "rank"+strconv.Itoa(i)+".json"), doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return mlp, multi, sums
}

// screenshotDir is where the views' screenshots go: docs/report/ under -update (the ones the
// README shows; docs is the repository's, an absolute path), else a directory under the
// system's temporary one that the test names.
func screenshotDir(t *testing.T, docs, name string) string {
	if golden.Update() {
		return filepath.Join(docs, "report")
	}
	d := filepath.Join(os.TempDir(), "orprof-report-screenshots", name)
	t.Logf("screenshots of %s in %s", name, d)
	return d
}

// reportCase is one report the browser tests open, and what its page must equal.
type reportCase struct {
	name   string
	args   []string // report arguments (before -o)
	table  []string // the command (table or merge, --format json added) whose rows the page's equal
	diff   []string // the diff command whose JSON the Diff view's rows equal
	shots  []string // the views whose screenshots are docs/report's (under -update)
	tl     string   // the trace whose orprof timeline --format json the page's timeline equals
	tlArgs []string // the same for several traces
}

// reportCases makes the browser tests' inputs in a temporary directory, which becomes the
// working directory (the inputs are named as a user names them, relative to it: the
// screenshots show them), and returns it and the cases.
func reportCases(t *testing.T) (string, []reportCase) {
	dir := t.TempDir()
	rocm := "rocm_mi250_train.json.gz"
	copyFile(t, filepath.Join("..", "..", "testdata", "kineto", rocm), filepath.Join(dir, rocm))
	bert := "tracelens_mi300_bert_small.json.gz" // recorded with python stacks: the Code view
	copyFile(t, filepath.Join("..", "..", "testdata", "kineto-extra", bert), filepath.Join(dir, bert))
	t.Chdir(dir)
	mlp, multi, sums := reportInputs(t, ".")
	mlp, multi, sums = filepath.Base(mlp), filepath.Base(multi), filepath.Base(sums)
	return dir, []reportCase{
		{name: "rocm", args: []string{rocm}, table: []string{"table", rocm}, shots: []string{"overview", "timeline", "operators", "kernels", "device"}, tl: rocm},
		{name: "code", args: []string{bert}, table: []string{"table", bert}, shots: []string{"code"}, tl: bert},
		{name: "openreg", args: []string{"--group-by-input-shape", mlp}, table: []string{"table", "--group-by-input-shape", mlp}, shots: []string{"memory"}, tl: mlp},
		{name: "ranks", args: []string{sums}, table: []string{"merge", sums}},
		{name: "rank-traces", args: []string{mlp, multi}, table: []string{"table", mlp, multi}, tlArgs: []string{mlp, multi}, shots: []string{"ranks"}},
		{name: "diff", args: []string{"--diff", mlp, multi}, table: []string{"table", multi}, diff: []string{mlp, multi}, shots: []string{"diff"}},
	}
}

// TestReportBrowser opens reports in a real headless Chromium: each loads with no console
// error and no network request, every view renders (a chart, a table or a line saying why
// there is no data), the operator rows in the page equal `orprof table --format json` for the
// same input number for number, the diff rows equal `orprof diff --format json`, sorting and
// filtering work, and a screenshot of each view is written.
func TestReportBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	b := browsertest.Start(t)
	docs, err := filepath.Abs(filepath.Join("..", "..", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	dir, cases := reportCases(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name+".html")
			runCLI(t, append(append([]string{"report"}, c.args...), "-o", out)...)
			p := b.Open(t, out, "body[data-rendered]")
			checkReport(t, p, c, screenshotDir(t, docs, c.name), func(v string) bool { return !golden.Update() || slices.Contains(c.shots, v) })
		})
	}
}

// TestReportFirefox opens the same reports in a real headless Firefox (Debian's firefox-esr,
// over WebDriver BiDi: internal/browsertest) with the same checks as TestReportBrowser: no
// console error, uncaught exception or request (one the page's policy refused is logged as
// an error), every view rendered, every number the CLI's, sorting and filtering working.
// Screenshots of the ROCm report's views go under $TMPDIR/orprof-report-screenshots/firefox
// (none under docs/: the Chromium ones show the same page).
func TestReportFirefox(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := browsertest.StartFirefox(t)
	t.Logf("%s", f.Version)
	dir, cases := reportCases(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name+".html")
			runCLI(t, append(append([]string{"report"}, c.args...), "-o", out)...)
			p := f.Open(t, out, "body[data-rendered]")
			shots := filepath.Join(os.TempDir(), "orprof-report-screenshots", "firefox", c.name)
			checkReport(t, p, c, shots, func(string) bool { return c.name == "rocm" && !golden.Update() })
		})
	}
}

// checkReport checks the report page p of case c, view by view, against the CLI's JSON for
// the same inputs, and writes a screenshot of the views shoot chooses into the directory
// shots.
func checkReport(t *testing.T, p browsertest.Tab, c reportCase, shots string, shoot func(view string) bool) {
	t.Helper()
	for _, v := range reportViews {
		p.Click(t, "button[data-view="+v+"]")
		p.WaitFor(t, "#v-"+v+"[data-ready].on")
		var n int
		p.Eval(t, `document.querySelectorAll("#v-`+v+` svg, #v-`+v+` canvas, #v-`+v+` table, #v-`+v+` [data-why]").length`, &n)
		if n == 0 {
			t.Errorf("view %s shows no chart, table or reason", v)
		}
		if shoot(v) {
			p.Screenshot(t, filepath.Join(shots, v+".png"))
		}
	}
	if c.table != nil {
		checkOpsRows(t, p, runCLI(t, append([]string{c.table[0], "--format", "json"}, c.table[1:]...)...))
		checkSortFilter(t, p)
	}
	if c.tl != "" {
		checkKernels(t, p, runCLI(t, "kernels", "--format", "json", c.tl))
		checkTimeline(t, p, runCLI(t, "timeline", "--format", "json", c.tl))
		var bars int
		p.Eval(t, `document.querySelectorAll('#v-overview svg.tb-steps rect').length`, &bars)
		if bars == 0 {
			t.Error("no step-time breakdown bars in the Overview")
		}
	}
	if c.tlArgs != nil {
		checkKernels(t, p, runCLI(t, append([]string{"kernels", "--format", "json"}, c.tlArgs...)...))
		checkTimeline(t, p, runCLI(t, append([]string{"timeline", "--format", "json"}, c.tlArgs...)...))
	}
	if c.name == "openreg" { // --profile-memory: a memory curve, its peak on a card
		p.Click(t, "button[data-view=memory]")
		var n int
		p.Eval(t, `document.querySelectorAll('#v-memory svg.curve path').length`, &n)
		var peak, card string
		p.Eval(t, `String(JSON.parse(document.getElementById('orprof-data').textContent).memory.devices[0].peak_allocated)`, &peak)
		p.Eval(t, `document.querySelector('#v-memory [data-card^=peak]').textContent`, &card)
		if n == 0 || peak == "0" || card == "" {
			t.Errorf("memory view: %d curves, peak %s, card %q", n, peak, card)
		}
	}
	if c.diff != nil {
		checkDiffRows(t, p, runCLI(t, append([]string{"diff", "--format", "json"}, c.diff...)...))
	}
	p.CheckClean(t)
}

// pageRows reads the rows of the page's table id: per row, its data-key and each cell's
// data-v by data-col.
func pageRows(t *testing.T, p browsertest.Tab, id string) []map[string]string {
	t.Helper()
	var rows []map[string]string
	p.Eval(t, `Array.from(document.querySelectorAll('table[data-table=`+id+`] tbody tr')).map(tr => {
		const o = {"@key": tr.dataset.key};
		tr.querySelectorAll('td').forEach(td => { o[td.dataset.col] = td.dataset.v; });
		return o; })`, &rows)
	return rows
}

// sameNumber reports whether the page's value v (JavaScript's String of a number) is want.
func sameNumber(v string, want float64) bool {
	f, err := strconv.ParseFloat(v, 64)
	return err == nil && f == want
}

func checkOpsRows(t *testing.T, p browsertest.Tab, cli []byte) {
	t.Helper()
	p.Click(t, "button[data-view=operators]")
	p.WaitFor(t, "#v-operators[data-ready]")
	var doc struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(cli, &doc); err != nil {
		t.Fatal(err)
	}
	rows := pageRows(t, p, "ops")
	if len(rows) != len(doc.Rows) || len(rows) == 0 {
		t.Fatalf("page has %d operator rows, orprof table %d", len(rows), len(doc.Rows))
	}
	checked := 0
	for i, want := range doc.Rows {
		got := rows[i]
		if got["@key"] != want["key"] {
			t.Errorf("row %d: page %q, orprof table %q", i, got["@key"], want["key"])
			continue
		}
		for col, v := range got {
			w, ok := want[col]
			if !ok || col == "key" {
				continue
			}
			switch w := w.(type) {
			case float64:
				if !sameNumber(v, w) {
					t.Errorf("row %d (%v) %s: page %s, orprof table %v", i, want["key"], col, v, w)
				}
			case string:
				if v != w {
					t.Errorf("row %d (%v) %s: page %q, orprof table %q", i, want["key"], col, v, w)
				}
			}
			checked++
		}
	}
	if checked < len(doc.Rows)*5 {
		t.Errorf("only %d cells compared over %d rows", checked, len(doc.Rows))
	}
}

func checkSortFilter(t *testing.T, p browsertest.Tab) {
	t.Helper()
	col := func() []float64 {
		var out []float64
		for _, r := range pageRows(t, p, "ops") {
			f, _ := strconv.ParseFloat(r["self_cpu_time_total"], 64)
			out = append(out, f)
		}
		return out
	}
	p.Click(t, "table[data-table=ops] th[data-col=self_cpu_time_total]")
	if v := col(); !sort.IsSorted(sort.Reverse(sort.Float64Slice(v))) {
		t.Errorf("after one click on Self CPU the rows are not in descending order: %v", v)
	}
	p.Click(t, "table[data-table=ops] th[data-col=self_cpu_time_total]")
	if v := col(); !sort.Float64sAreSorted(v) {
		t.Errorf("after two clicks on Self CPU the rows are not in ascending order: %v", v)
	}
	all := pageRows(t, p, "ops")
	want := 0
	for _, r := range all {
		if strings.Contains(strings.ToLower(r["@key"]), "aten::") {
			want++
		}
	}
	var shown string
	p.Eval(t, `(() => { const i = document.querySelector('#v-operators input[data-filter]'); i.value = 'ATEN::';
		i.dispatchEvent(new Event('input')); return document.querySelector('[data-count-of=ops]').dataset.shown; })()`, &shown)
	rows := pageRows(t, p, "ops")
	if strconv.Itoa(len(rows)) != shown || len(rows) != want {
		t.Errorf("filter aten:: shows %d rows (count says %s), want %d", len(rows), shown, want)
	}
	for _, r := range rows {
		if !strings.Contains(r["@key"], "aten::") {
			t.Errorf("filter aten:: shows %q", r["@key"])
		}
	}
	p.Eval(t, `(() => { const i = document.querySelector('#v-operators input[data-filter]'); i.value = '';
		i.dispatchEvent(new Event('input')); return 0; })()`, nil)
	if n := len(pageRows(t, p, "ops")); n != len(all) {
		t.Errorf("clearing the filter shows %d rows, want %d", n, len(all))
	}
}

func checkDiffRows(t *testing.T, p browsertest.Tab, cli []byte) {
	t.Helper()
	p.Click(t, "button[data-view=diff]")
	p.WaitFor(t, "#v-diff[data-ready]")
	var doc struct {
		Rows []struct {
			Key    string `json:"key"`
			Before struct {
				Count      float64 `json:"count"`
				SelfCPU    float64 `json:"self_cpu_time_total"`
				SelfDevice float64 `json:"self_device_time_total"`
			} `json:"before"`
			After struct {
				Count      float64 `json:"count"`
				SelfCPU    float64 `json:"self_cpu_time_total"`
				SelfDevice float64 `json:"self_device_time_total"`
			} `json:"after"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(cli, &doc); err != nil {
		t.Fatal(err)
	}
	rows := pageRows(t, p, "diff")
	if len(rows) != len(doc.Rows) || len(rows) == 0 {
		t.Fatalf("page has %d diff rows, orprof diff %d", len(rows), len(doc.Rows))
	}
	for i, w := range doc.Rows {
		g := rows[i]
		if g["@key"] != w.Key {
			t.Errorf("diff row %d: page %q, orprof diff %q (regressions first)", i, g["@key"], w.Key)
			continue
		}
		for col, want := range map[string]float64{"count_before": w.Before.Count, "count_after": w.After.Count,
			"self_cpu_before": w.Before.SelfCPU, "self_cpu_after": w.After.SelfCPU,
			"self_device_before": w.Before.SelfDevice, "self_device_after": w.After.SelfDevice} {
			if !sameNumber(g[col], want) {
				t.Errorf("diff row %d (%s) %s: page %s, orprof diff %v", i, w.Key, col, g[col], want)
			}
		}
	}
}

// BenchmarkReportFirstRender opens the report of the largest trace in testdata (mtia_rank0)
// in headless Chromium, b.N times, and reports the time from the start of the navigation to
// the end of the page's first render (performance.now() when its script has drawn the first
// view) as render-ms. The target is under 1 s. page-ms is the part from the document's start
// (performance.timing.domLoading): what the page itself costs, without the browser's
// navigation.
func BenchmarkReportFirstRender(b *testing.B) {
	br := browsertest.Start(b)
	benchFirstRender(b, func(file string) browsertest.Tab { return br.Open(b, file, "body[data-rendered]") })
}

// BenchmarkReportFirstRenderFirefox is BenchmarkReportFirstRender in headless Firefox (whose
// performance.now() is rounded to the ms).
func BenchmarkReportFirstRenderFirefox(b *testing.B) {
	f := browsertest.StartFirefox(b)
	benchFirstRender(b, func(file string) browsertest.Tab { return f.Open(b, file, "body[data-rendered]") })
}

func benchFirstRender(b *testing.B, open func(file string) browsertest.Tab) {
	out := filepath.Join(b.TempDir(), "mtia.html")
	var so, se bytes.Buffer
	if code := dispatch([]string{"report", "-o", out, filepath.Join("..", "..", "testdata", "kineto", "mtia_rank0.json.gz")},
		strings.NewReader(""), &so, &se); code != 0 {
		b.Fatalf("exit %d: %s", code, se.String())
	}
	var total, page float64
	for b.Loop() {
		p := open(out)
		var ms struct{ Render, Loading float64 }
		p.Eval(b, `({render: Number(document.body.dataset.renderMs), loading: performance.timing.domLoading - performance.timing.navigationStart})`, &ms)
		if ms.Render <= 0 {
			b.Fatalf("no render time: %+v", ms)
		}
		total += ms.Render
		page += ms.Render - ms.Loading
		p.CheckClean(b)
		p.Close()
	}
	b.ReportMetric(total/float64(b.N), "render-ms")
	b.ReportMetric(page/float64(b.N), "page-ms")
}

// checkTimeline compares the timeline figures the page holds with orprof timeline's JSON for
// the same trace, member by member, and finds every timeline finding in the Overview's list.
func checkTimeline(t *testing.T, p browsertest.Tab, cli []byte) {
	t.Helper()
	var want map[string]any
	if err := json.Unmarshal(cli, &want); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	p.Eval(t, `JSON.parse(document.getElementById('orprof-data').textContent).timeline`, &got)
	for _, k := range []string{"breakdown", "idle", "overlap", "launches", "steps", "findings"} {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Errorf("the page's timeline %s differs from orprof timeline's:\n page %v\n cli  %v", k, got[k], want[k])
		}
	}
	p.Click(t, "button[data-view=overview]")
	var items []string
	p.Eval(t, `Array.from(document.querySelectorAll('#v-overview ul.findings li')).map(li => li.textContent)`, &items)
	for _, f := range want["findings"].([]any) {
		text := f.(map[string]any)["text"].(string)
		if !slices.ContainsFunc(items, func(s string) bool { return strings.HasSuffix(s, text) }) {
			t.Errorf("finding %q is not in the Overview (%q)", text, items)
		}
	}
}

// checkKernels compares the Kernels view's rows with orprof kernels --format json for the same
// trace, row by row and number for number, and finds the category chart.
func checkKernels(t *testing.T, p browsertest.Tab, cli []byte) {
	t.Helper()
	var doc struct {
		Kernels []map[string]any `json:"kernels"`
	}
	if err := json.Unmarshal(cli, &doc); err != nil {
		t.Fatal(err)
	}
	p.Click(t, "button[data-view=kernels]")
	p.WaitFor(t, "#v-kernels[data-ready]")
	rows := pageRows(t, p, "kernels")
	if len(rows) != len(doc.Kernels) || len(rows) == 0 {
		t.Fatalf("page has %d kernel rows, orprof kernels %d", len(rows), len(doc.Kernels))
	}
	// The page sorts the rows by total time (ties in orprof kernels' order): match them by
	// name and kind.
	at := map[[2]string]int{}
	for i, r := range rows {
		at[[2]string{r["@key"], r["kind"]}] = i
		if f, _ := strconv.ParseFloat(r["total_us"], 64); i > 0 {
			if prev, _ := strconv.ParseFloat(rows[i-1]["total_us"], 64); f > prev {
				t.Errorf("kernel row %d (%s): total %v above the row before's %v: not sorted by total", i, r["@key"], f, prev)
			}
		}
	}
	for i, want := range doc.Kernels {
		j, ok := at[[2]string{fmt.Sprint(want["name"]), fmt.Sprint(want["kind"])}]
		if !ok {
			t.Errorf("kernel %d %q (%v) is not in the page", i, want["name"], want["kind"])
			continue
		}
		got := rows[j]
		// Every figure to the bit, the mean and the deviation too: they come from exact integer
		// sums (kernels' exact.go), whatever order the report's read and orprof kernels' hand
		// the events over in and however they merge.
		for _, col := range []string{"calls", "total_us", "percent_of_device", "mean_us", "median_us", "min_us", "max_us", "std_us", "ops"} {
			if w, ok := want[col].(float64); !ok || !sameNumber(got[col], w) {
				t.Errorf("kernel %q %s: page %s, orprof kernels %v", want["name"], col, got[col], want[col])
			}
		}
		for _, col := range []string{"kind", "category", "op"} {
			if got[col] != want[col] {
				t.Errorf("kernel %q %s: page %q, orprof kernels %q", want["name"], col, got[col], want[col])
			}
		}
	}
	var bars int
	p.Eval(t, `document.querySelectorAll('#v-kernels svg.kcats rect').length`, &bars)
	if bars == 0 {
		t.Error("no device time by category chart")
	}
}

// fixedViewsInputs writes the inputs of TestReportViewsFixedBrowser into the working directory: a
// fallback-mode run's report, two testdata traces, 16 ranks (HolisticTraceAnalysis's sampled
// rank, its distributedInfo rank rewritten) and the long-names trace (5,000 kernels with
// distinct 2 KB names).
func fixedViewsInputs(t *testing.T, root string) (ranks16, long string) {
	t.Helper()
	for _, f := range []string{"kineto/rocm_mi250_train.json.gz", "kineto/cuda_alexnet.json.gz"} {
		copyFile(t, filepath.Join(root, f), filepath.Base(f))
	}
	raw := gunzipFile(t, filepath.Join(root, "kineto-extra", "hta_sampled_rank0.json.gz"))
	at := bytes.Index(raw, []byte(`"rank": 0,`))
	if at < 0 {
		t.Fatal("hta_sampled_rank0: no distributedInfo rank")
	}
	ranks16 = "ranks16"
	if err := os.Mkdir(ranks16, 0o755); err != nil {
		t.Fatal(err)
	}
	for r := range 16 {
		b := slices.Concat(raw[:at], []byte(`"rank": `+strconv.Itoa(r)+`,`), raw[at+len(`"rank": 0,`):])
		if err := os.WriteFile(filepath.Join(ranks16, fmt.Sprintf("rank%02d.json", r)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long = "long.json"
	var b bytes.Buffer
	if err := trace.Write(&b, tracetest.LongKernelNames(5000, 2048)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(long, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return ranks16, long
}

func testdataRoot(t *testing.T) string {
	d, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// gunzipFile is the decompressed content of a gzip file.
func gunzipFile(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pageTexts is the textContent of every element sel matches.
func pageTexts(t *testing.T, p browsertest.Tab, sel string) []string {
	t.Helper()
	var out []string
	p.Eval(t, `Array.from(document.querySelectorAll(`+strconv.Quote(sel)+`)).map(e => e.textContent)`, &out)
	return out
}

// percents are the "NN.NN%" figures of texts, one each.
func percents(t *testing.T, texts []string) []float64 {
	t.Helper()
	var out []float64
	for _, s := range texts {
		f := strings.Fields(s)
		v, err := strconv.ParseFloat(strings.TrimSuffix(f[len(f)-1], "%"), 64)
		if err != nil {
			t.Fatalf("no percentage in %q", s)
		}
		out = append(out, v)
	}
	return out
}

// checkLabels opens every view of p and checks each bar chart's labels: a value text ends
// inside its chart (nothing clipped, "others waited 381" was), and a label shown shorter than
// it is ends in an ellipsis and has the whole label in its <title>.
func checkLabels(t *testing.T, p browsertest.Tab, name string) {
	t.Helper()
	for _, v := range reportViews {
		p.Click(t, "button[data-view="+v+"]")
		p.WaitFor(t, "#v-"+v+"[data-ready].on")
		var bad []string
		p.Eval(t, `(() => { const bad = [];
			document.querySelectorAll('#v-`+v+` svg').forEach(s => {
				const w = s.width.baseVal.value;
				s.querySelectorAll('text[data-value]').forEach(x => { const b = x.getBBox(); if (b.x + b.width > w + 0.5) bad.push('clipped value ' + x.textContent); });
				s.querySelectorAll('text[data-label]').forEach(x => {
					const full = x.dataset.label, shown = x.firstChild.textContent, b = x.getBBox();
					if (b.x < -0.5) bad.push('clipped label ' + shown);
					if (shown !== full && (!shown.endsWith('\u2026') || x.querySelector('title').textContent !== full)) bad.push('elided without its full name: ' + shown);
				});
			});
			return bad; })()`, &bad)
		for _, b := range bad {
			t.Errorf("%s, view %s: %s", name, v, b)
		}
	}
}

// TestReportViewsFixedBrowser opens, in headless Chromium, the reports whose views misled (issue
// 37) and checks each fix with no console error: a fallback-mode run's Overview says its
// steps show host time only and shows no device busy card; the top self device time lists
// operators and kernels apart, each list's shares of its own total (ROCm: 25.6 % for
// aten::copy_ and again for its Memcpy); the share of device time no operator launched is a
// card; same-named rows differ in their Kind; the Kernels table is sorted by total; 16 ranks'
// step breakdowns and overlap cards name their rank and the idle-by-stream chart says how
// many streams it left out; no chart label is clipped; the long-names page is under 5 MB and
// says what it shortened and left out.
func TestReportViewsFixedBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	b := browsertest.Start(t)
	root := testdataRoot(t)
	t.Chdir(t.TempDir())
	ranks16, long := fixedViewsInputs(t, root)

	t.Run("fallback", func(t *testing.T) {
		runCLI(t, "run", "--workload", "mlp", "--report", "fallback.html", "--trace", "fallback.json")
		p := b.Open(t, "fallback.html", "body[data-rendered]")
		var n int
		p.Eval(t, `document.querySelectorAll('#v-overview [data-note=steps-host-only]').length`, &n)
		if n != 1 {
			t.Errorf("the fallback run's steps do not say they show host time only (%d notes)", n)
		}
		for _, c := range pageTexts(t, p, "#v-overview .card") {
			if strings.Contains(strings.ToLower(c), "busy") || strings.Contains(c, "of 0.000us") {
				t.Errorf("fallback Overview card %q: a device busy figure of no device timeline", c)
			}
		}
		checkLabels(t, p, "fallback")
		p.CheckClean(t)
	})

	t.Run("rocm", func(t *testing.T) {
		runCLI(t, "report", "-o", "rocm.html", "rocm_mi250_train.json.gz")
		p := b.Open(t, "rocm.html", "body[data-rendered]")
		for _, cls := range []string{"top-device", "top-kernels"} {
			vs := percents(t, pageTexts(t, p, "#v-overview svg."+cls+" text[data-value]"))
			sum := 0.0
			for _, v := range vs {
				sum += v
			}
			if len(vs) == 0 || sum > 100.01 {
				t.Errorf("%s: %d bars, shares adding to %.2f %%", cls, len(vs), sum)
			}
		}
		p.Click(t, "button[data-view=operators]")
		p.WaitFor(t, "#v-operators[data-ready]")
		kinds := map[string][]string{}
		for _, r := range pageRows(t, p, "ops") {
			kinds[r["@key"]] = append(kinds[r["@key"]], r["kind"])
		}
		dups := 0
		for k, ks := range kinds {
			if len(ks) > 1 {
				dups++
				if len(slices.Compact(slices.Sorted(slices.Values(ks)))) != len(ks) {
					t.Errorf("rows named %q have kinds %q: nothing tells them apart", k, ks)
				}
			}
		}
		if dups == 0 {
			t.Error("no same-named rows in the ROCm table (ProfilerStep* as a CPU and a GPU annotation)")
		}
		p.Click(t, "button[data-view=kernels]")
		p.WaitFor(t, "#v-kernels[data-ready]")
		var sorted string
		p.Eval(t, `document.querySelector('table[data-table=kernels]').dataset.sorted || ''`, &sorted)
		if sorted != "total_us" {
			t.Errorf("the Kernels table is sorted by %q, want total_us", sorted)
		}
		checkKernels(t, p, runCLI(t, "kernels", "--format", "json", "rocm_mi250_train.json.gz"))
		checkLabels(t, p, "rocm")
		p.CheckClean(t)
	})

	t.Run("unlinked", func(t *testing.T) {
		runCLI(t, "report", "-o", "alexnet.html", "cuda_alexnet.json.gz")
		p := b.Open(t, "alexnet.html", "body[data-rendered]")
		var k struct {
			Unlinked int64 `json:"unlinked_ns"`
			Device   int64 `json:"device_ns"`
		}
		p.Eval(t, `JSON.parse(document.getElementById('orprof-data').textContent).kernels`, &k)
		if k.Unlinked == 0 || k.Device == 0 {
			t.Fatalf("alexnet: unlinked %d of %d ns (the CLI warns of 10.000 µs)", k.Unlinked, k.Device)
		}
		c := pageTexts(t, p, "#v-overview [data-card=unlinked]")
		want := fmt.Sprintf("%.2f%%", float64(k.Unlinked)*100/float64(k.Device))
		if len(c) != 1 || !strings.HasPrefix(c[0], want) {
			t.Errorf("the unlinked device time card is %q, want %s first", c, want)
		}
		p.CheckClean(t)
	})

	t.Run("16 ranks", func(t *testing.T) {
		runCLI(t, "report", "-o", "ranks16.html", ranks16)
		p := b.Open(t, "ranks16.html", "body[data-rendered]")
		if n := len(pageTexts(t, p, "#v-overview h3[data-steps-rank]")); n != 16 {
			t.Errorf("%d step breakdowns carry a rank label, want 16", n)
		}
		var overlap []string
		p.Eval(t, `Array.from(document.querySelectorAll('#v-overview [data-card^=overlap-]')).map(v => v.parentNode.querySelector('.k').textContent)`, &overlap)
		if len(overlap) != 16 {
			t.Errorf("%d overlap cards, want 16", len(overlap))
		}
		for _, o := range overlap {
			if !strings.HasPrefix(o, "rank ") {
				t.Errorf("overlap card %q names no rank", o)
			}
		}
		var idle struct{ Streams, Bars, Cut int }
		p.Eval(t, `(() => { const d = JSON.parse(document.getElementById('orprof-data').textContent);
			const s = document.querySelector('#v-overview svg.idle'), c = s && s.nextElementSibling;
			return {streams: d.timeline.idle.filter(x => x.idle_ns > 0).length, bars: s ? s.querySelectorAll('text[data-value]').length : 0,
				cut: c && c.dataset.cut ? Number(c.dataset.cut) : 0}; })()`, &idle)
		if idle.Streams <= 40 || idle.Bars+idle.Cut != idle.Streams || idle.Cut == 0 {
			t.Errorf("idle by stream: %d streams, %d bars and %d said left out", idle.Streams, idle.Bars, idle.Cut)
		}
		checkLabels(t, p, "16 ranks")
		p.CheckClean(t)
	})

	t.Run("long names", func(t *testing.T) {
		runCLI(t, "report", "-o", "long.html", long)
		st, err := os.Stat("long.html")
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 5<<20 {
			t.Errorf("the long-names report is %d bytes, over 5 MB", st.Size())
		}
		p := b.Open(t, "long.html", "body[data-rendered]")
		p.Click(t, "button[data-view=operators]")
		p.WaitFor(t, "#v-operators[data-ready]")
		var ops struct {
			Shown, Cut, Elided int
		}
		p.Eval(t, `({shown: document.querySelectorAll('table[data-table=ops] tbody tr').length,
			cut: Number((document.querySelector('#v-operators [data-cut]') || {dataset: {cut: 0}}).dataset.cut),
			elided: document.querySelectorAll('#v-operators [data-note=elided]').length})`, &ops)
		if ops.Shown+ops.Cut != 5051 || ops.Cut == 0 || ops.Elided != 1 {
			t.Errorf("operators: %d rows shown, %d said left out (want 5,051 in all), elided note %d", ops.Shown, ops.Cut, ops.Elided)
		}
		p.Click(t, "button[data-view=kernels]")
		p.WaitFor(t, "#v-kernels[data-ready]")
		var cli struct {
			Kernels []struct {
				Name    string  `json:"name"`
				TotalUs float64 `json:"total_us"`
				Calls   float64 `json:"calls"`
			} `json:"kernels"`
		}
		if err := json.Unmarshal(runCLI(t, "kernels", "--format", "json", long), &cli); err != nil {
			t.Fatal(err)
		}
		byName := map[string]float64{}
		for _, k := range cli.Kernels {
			byName[k.Name] = k.TotalUs
		}
		rows := pageRows(t, p, "kernels")
		var cut, card string
		p.Eval(t, `document.querySelector('#v-kernels [data-cut]').dataset.cut`, &cut)
		p.Eval(t, `document.querySelector('#v-kernels [data-card=kernels-rows]').textContent`, &card)
		if n, _ := strconv.Atoi(cut); n+len(rows) != len(cli.Kernels) || card != strconv.Itoa(len(cli.Kernels)) {
			t.Errorf("kernels: %d rows and %s said left out, card %s; orprof kernels has %d", len(rows), cut, card, len(cli.Kernels))
		}
		for _, r := range rows {
			if w, ok := byName[r["@key"]]; !ok || !sameNumber(r["total_us"], w) {
				t.Errorf("kernel %.40q: page total %s, orprof kernels %v (found %v)", r["@key"], r["total_us"], w, ok)
			}
		}
		p.CheckClean(t)
	})
}

// TestReportDiffComparesBrowser opens a diff report in headless Chromium: the Diff view leads with
// the average step before and after (each side's step breakdown, as each side's report
// summary has it), then the device time breakdown and kernels by category, the kernel
// changes equal to orprof diff of the two sides' kernel summaries, then the operators; every
// other view says it shows AFTER. No console error.
func TestReportDiffComparesBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	b := browsertest.Start(t)
	t.Chdir(t.TempDir())
	mlp, multi, _ := reportInputs(t, ".")
	runCLI(t, "report", "--diff", "-o", "diff.html", mlp, multi)
	p := b.Open(t, "diff.html", "body[data-rendered]")
	p.WaitFor(t, "#v-diff[data-ready].on")
	var got struct {
		Before, After json.RawMessage
	}
	p.Eval(t, `JSON.parse(document.getElementById('orprof-data').textContent).diff.steps`, &got)
	for i, side := range []string{mlp, multi} {
		var doc struct {
			Steps json.RawMessage `json:"steps"`
		}
		if err := json.Unmarshal(runCLI(t, "report", "--format", "json", "-o", "-", side), &doc); err != nil {
			t.Fatal(err)
		}
		g := []json.RawMessage{got.Before, got.After}[i]
		var a, w any
		if err := json.Unmarshal(g, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(doc.Steps, &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, w) {
			t.Errorf("the diff's steps of %s differ from its report summary's:\n page %.300s\n cli  %.300s", side, g, doc.Steps)
		}
	}
	// The step time leads: its card comes before the operators' regressions.
	var order struct {
		Step, Ops, Timeline, Kcats int
		Card                       string
	}
	p.Eval(t, `(() => { const all = Array.from(document.querySelectorAll('#v-diff *'));
		const at = sel => all.indexOf(document.querySelector('#v-diff ' + sel));
		return {step: at('[data-card^=diff-step-]'), ops: at('[data-card=diff-cpu]'), timeline: at('table[data-table^=diff-timeline]'),
			kcats: at('table[data-table=diff-kcats]'), card: (document.querySelector('#v-diff [data-card^=diff-step-]') || {}).textContent || ''}; })()`, &order)
	if order.Step < 0 || order.Ops < 0 || order.Step > order.Ops || order.Timeline < 0 || order.Kcats < 0 || order.Kcats > order.Ops {
		t.Errorf("diff view order: step card at %d, timeline at %d, kernel categories at %d, operators at %d", order.Step, order.Timeline, order.Kcats, order.Ops)
	}
	var avg [2]float64
	p.Eval(t, `(() => { const s = JSON.parse(document.getElementById('orprof-data').textContent).diff.steps;
		return [s.before.ranks[0].average_total_ns, s.after.ranks[0].average_total_ns]; })()`, &avg)
	for _, v := range avg {
		us, txt := v/1000, ""
		switch {
		case us >= 1e6:
			txt = fmt.Sprintf("%.3fs", us/1e6)
		case us >= 1e3:
			txt = fmt.Sprintf("%.3fms", us/1e3)
		default:
			txt = fmt.Sprintf("%.3fus", us)
		}
		if !strings.Contains(order.Card, txt) {
			t.Errorf("step card %q does not show %s", order.Card, txt)
		}
		if lead := pageTexts(t, p, "#v-diff [data-lead=steps]"); len(lead) != 1 || !strings.Contains(lead[0], txt) {
			t.Errorf("the diff's lead line %q does not show %s", lead, txt)
		}
	}
	// The kernel changes are orprof diff's of the two sides' kernel summaries.
	for i, side := range []string{mlp, multi} {
		if err := os.WriteFile(fmt.Sprintf("k%d.json", i), runCLI(t, "kernels", "--format", "json", side), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var kd struct {
		Kernels []struct {
			Name    string  `json:"name"`
			DeltaUs float64 `json:"delta_us"`
			Before  float64 `json:"total_us_before"`
			After   float64 `json:"total_us_after"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal(runCLI(t, "diff", "--format", "json", "k0.json", "k1.json"), &kd); err != nil {
		t.Fatal(err)
	}
	rows := pageRows(t, p, "diff-kernels")
	if len(rows) != len(kd.Kernels) || len(rows) == 0 {
		t.Fatalf("page has %d kernel changes, orprof diff %d", len(rows), len(kd.Kernels))
	}
	for i, w := range kd.Kernels {
		g := rows[i]
		if g["@key"] != w.Name || !sameNumber(g["delta_us"], w.DeltaUs) || !sameNumber(g["total_us_before"], w.Before) || !sameNumber(g["total_us_after"], w.After) {
			t.Errorf("kernel change %d: page %v, orprof diff %+v", i, g, w)
		}
	}
	for _, v := range reportViews {
		if v == "diff" {
			continue
		}
		p.Click(t, "button[data-view="+v+"]")
		p.WaitFor(t, "#v-"+v+"[data-ready].on")
		var banner []string
		p.Eval(t, `Array.from(document.querySelectorAll('#v-`+v+` [data-side=after]')).map(e => e.textContent)`, &banner)
		if len(banner) != 1 || !strings.Contains(banner[0], multi) {
			t.Errorf("view %s of a diff report: banners %q, want one naming AFTER (%s)", v, banner, multi)
		}
	}
	checkDiffRows(t, p, runCLI(t, "diff", "--format", "json", mlp, multi))
	p.CheckClean(t)
}

// Every view of the report has its screenshot in docs/report/ (written by TestReportBrowser
// under -update), and docs/report.md shows it.
func TestReportScreenshotsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range reportViews {
		png := filepath.Join("..", "..", "docs", "report", v+".png")
		if _, err := os.Stat(png); err != nil {
			t.Errorf("view %s: no screenshot (go test -run TestReportBrowser ./cmd/orprof -update): %v", v, err)
		}
		if !bytes.Contains(doc, []byte("(report/"+v+".png)")) {
			t.Errorf("docs/report.md does not show report/%s.png", v)
		}
	}
}
