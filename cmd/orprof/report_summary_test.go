package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reportTraces are the traces the report-summary tests read: two GPU traces with device
// timelines, one with memory records.
var reportTraces = []string{"../../testdata/kineto/rocm_mi250_train.json.gz", "../../testdata/kineto/cuda_ns_resolution.json.gz",
	"../../report/tracefile/testdata/reader/memory.json"}

// The map and reduce steps: each trace's report summary (orprof report --format json TRACE),
// read back and merged (orprof report DIR), gives the very document the traces give read
// together (orprof report --format json A B C: one read of each, in parallel), byte for byte —
// every view: table, op tree, timeline, kernels, steps, memory. A summary read back and
// written again is the same bytes; its table is orprof table's.
func TestReportSummaryMapReduce(t *testing.T) {
	dir := t.TempDir()
	sums := filepath.Join(dir, "sums")
	os.Mkdir(sums, 0o755)
	var traces []string
	for i, name := range reportTraces {
		tr := name
		traces = append(traces, tr)
		one := filepath.Join(sums, "r"+string(rune('0'+i))+".json")
		runCLI(t, "report", "--format", "json", "-o", one, tr)
		b, _ := os.ReadFile(one)
		again := filepath.Join(dir, "again.json")
		runCLI(t, "report", "--format", "json", "-o", again, one)
		if c, _ := os.ReadFile(again); !bytes.Equal(b, c) {
			t.Errorf("%s: the summary read back and written again differs", name)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"orprof_report", "table", "flame", "timeline", "kernels", "steps", "memory"} {
			if _, ok := doc[k]; !ok {
				t.Errorf("%s: no %s member", name, k)
			}
		}
		if string(doc["flame"]) == "null" || string(doc["timeline"]) == "null" {
			t.Errorf("%s: no op tree or timeline", name)
		}
		var table, fromTable bytes.Buffer
		json.Compact(&table, doc["table"])
		json.Compact(&fromTable, runCLI(t, "table", "--format", "json", "--row-limit", "-1", tr))
		if table.String() != fromTable.String() {
			t.Errorf("%s: the summary's table is not orprof table's", name)
		}
	}
	fromTraces := runCLI(t, append([]string{"report", "--format", "json", "-o", "-"}, traces...)...)
	fromSums := runCLI(t, "report", "--format", "json", "-o", "-", sums)
	if !bytes.Equal(fromTraces, fromSums) {
		t.Errorf("merged from summaries (%d bytes) differs from the traces read together (%d bytes)", len(fromSums), len(fromTraces))
	}
	// The merged document holds every view: the tree summed over the ranks, the curves of
	// the rank with memory named after it.
	var doc struct {
		Flame struct {
			Root struct {
				CPU int64 `json:"cpu_ns"`
			} `json:"root"`
		} `json:"flame"`
		Memory struct {
			Devices []struct {
				Name string `json:"name"`
			} `json:"devices"`
		} `json:"memory"`
		Steps struct {
			Ranks []json.RawMessage `json:"ranks"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(fromSums, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Steps.Ranks) != len(reportTraces) || len(doc.Memory.Devices) == 0 || !strings.HasPrefix(doc.Memory.Devices[0].Name, "rank ") {
		t.Errorf("steps of %d ranks, memory devices %+v", len(doc.Steps.Ranks), doc.Memory.Devices)
	}
	var sum int64
	for _, tr := range traces {
		var one struct {
			Flame struct {
				Root struct {
					CPU int64 `json:"cpu_ns"`
				} `json:"root"`
			} `json:"flame"`
		}
		json.Unmarshal(runCLI(t, "report", "--format", "json", "-o", "-", tr), &one)
		sum += one.Flame.Root.CPU
	}
	if doc.Flame.Root.CPU != sum || sum == 0 {
		t.Errorf("merged tree's CPU %d, the ranks' sum %d", doc.Flame.Root.CPU, sum)
	}
	// orprof merge reads report summaries (their tables) as it reads table summaries; the
	// HTML report of the directory is written.
	tsums := filepath.Join(dir, "tsums")
	os.Mkdir(tsums, 0o755)
	for i, tr := range traces {
		os.WriteFile(filepath.Join(tsums, "r"+string(rune('0'+i))+".json"), runCLI(t, "table", "--format", "json", "--row-limit", "-1", tr), 0o644)
	}
	if a, b := runCLI(t, "merge", sums), runCLI(t, "merge", tsums); !bytes.Equal(a, b) {
		t.Errorf("orprof merge of report summaries differs from merge of table summaries:\n%s\n%s", a, b)
	}
	html := runCLI(t, "report", "-o", "-", sums)
	if !bytes.Contains(html, []byte(`"flame":{"root"`)) || bytes.Contains(html, []byte("No op tree")) {
		t.Error("the report of report summaries has no op tree")
	}
	// Gzip summaries and stdin too.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(fromSums)
	zw.Close()
	var out, errb bytes.Buffer
	if code := dispatch([]string{"report", "--format", "json", "-o", "-", "-"}, bytes.NewReader(gz.Bytes()), &out, &errb); code != 0 || !bytes.Equal(out.Bytes(), fromSums) {
		t.Errorf("a gzip summary on stdin: exit %d, %s", code, errb.String())
	}
}

// A bad or foreign report summary: one line naming the file and the member, exit 2.
func TestReportSummaryBadInput(t *testing.T) {
	dir := t.TempDir()
	good := runCLI(t, "report", "--format", "json", "-o", "-", filepath.Join("..", "..", "testdata", "kineto", "rocm_mi250_train.json.gz"))
	edit := func(from, to string) string {
		if !bytes.Contains(good, []byte(from)) {
			t.Fatalf("no %q in the summary", from)
		}
		return strings.Replace(string(good), from, to, 1)
	}
	for _, c := range []struct {
		name, doc, want string
	}{
		{"version", edit(`"orprof_report": 1`, `"orprof_report": 7`), "field orprof_report: version 7: this orprof reads version 1"},
		{"unknown member", edit(`"orprof_report": 1,`, `"orprof_report": 1, "extra": 1,`), `unknown field "extra"`},
		{"no table", `{"orprof_report": 1, "flame": null}`, "field table: missing"},
		{"bad tree", edit(`"nodes":`, `"nodes":1`), "field flame: nodes"},
		{"bad steps", edit(`"categories":["Kernel"`, `"categories":["Kernels"`), "field steps: categories"},
		{"bad timeline", edit(`"orprof_timeline": 1`, `"orprof_timeline": 9`), "field timeline"},
		{"bad kernels", edit(`"orprof_kernels"`, `"orprof_kernelz"`), "field kernels"},
		{"truncated", string(good[:len(good)/2]), "not a valid report summary"},
		{"trailing", string(good) + "{}", "data after the report summary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name+".json")
			os.WriteFile(p, []byte(c.doc), 0o644)
			for _, args := range [][]string{{"report", "-o", filepath.Join(dir, "x.html"), p}, {"merge", p}} {
				if args[0] == "merge" && !strings.Contains(c.want, "table") && !strings.Contains(c.want, "orprof_report") {
					continue // merge reads the table alone
				}
				var out, errb bytes.Buffer
				code := dispatch(args, strings.NewReader(""), &out, &errb)
				if code != 2 || !strings.Contains(errb.String(), p) || !strings.Contains(errb.String(), c.want) || strings.Count(errb.String(), "\n") != 1 {
					t.Errorf("orprof %s: exit %d, stderr %q; want exit 2 and one line naming the file with %q", args[0], code, errb.String(), c.want)
				}
			}
		})
	}
	// orprof table reads traces: a summary of either kind is refused saying what reads it.
	sum := filepath.Join(dir, "good.json")
	os.WriteFile(sum, good, 0o644)
	var out, errb bytes.Buffer
	if code := dispatch([]string{"table", sum}, strings.NewReader(""), &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "is a summary (a report summary, orprof report --format json), not a trace: orprof merge") ||
		strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("orprof table of a report summary: exit %d, %q", code, errb.String())
	}
	errb.Reset()
	if code := dispatch([]string{"report", "--format", "xml", "t.json"}, strings.NewReader(""), &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "--format \"xml\": must be html or json; run 'orprof report -h'") {
		t.Errorf("bad --format: exit %d, %q", code, errb.String())
	}
	errb.Reset()
	if code := dispatch([]string{"report", "--format", "json", "--diff", "a", "b"}, strings.NewReader(""), &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "--format json writes one profile's summaries") {
		t.Errorf("--format json --diff: exit %d, %q", code, errb.String())
	}
}

// orprof run --report shows the views a trace gives: the step breakdown, the timeline, the
// kernels of kernel mode, the memory curve of --profile-memory — from the run's trace read back.
func TestRunReportViews(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.html")
	runCLI(t, "run", "--workload", "mlp", "--profile-memory", "--activities", "cpu_op,kernel,privateuse1_runtime", "--report", out,
		"--trace", filepath.Join(dir, "trace.json"))
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(b, []byte(`<script id="orprof-data" type="application/json">`)), bytes.Index(b, []byte("</script>"))
	if i < 0 || j < i {
		t.Fatal("no page data")
	}
	var page struct {
		Timeline, Steps, Kernels, Memory, Flame json.RawMessage
		Why                                     map[string]string
	}
	if err := json.Unmarshal(b[i+len(`<script id="orprof-data" type="application/json">`):j], &page); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]json.RawMessage{"timeline": page.Timeline, "steps": page.Steps, "kernels": page.Kernels,
		"memory": page.Memory, "flame": page.Flame} {
		if len(v) == 0 || string(v) == "null" {
			t.Errorf("run --report has no %s (why: %v)", name, page.Why)
		}
	}
}
