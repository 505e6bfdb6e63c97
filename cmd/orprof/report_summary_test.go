package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/orprof/orprof/internal/quote"
)

// reportTraces are the traces the report-summary tests read: two GPU traces with device
// timelines, one with memory records.
var reportTraces = []string{"../../testdata/kineto/rocm_mi250_train.json.gz", "../../testdata/kineto/cuda_ns_resolution.json.gz",
	"../../trace/tracefile/testdata/reader/memory.json"}

// The map and reduce steps: each trace's report summary (orprof report --format json TRACE),
// read back and merged (orprof report DIR), gives the very document the traces give read
// together (orprof report --format json A B C: one read of each, in parallel), byte for byte —
// every view: table, op tree, timeline, kernels, steps, memory. A summary read back and
// written again is the same bytes; its table is orprof table's.
func TestReportSummaryMapReduce(t *testing.T) {
	reportTraces := reportTraces
	if conformanceRaceEnabled {
		// The 15 MB trace is read eight times: under -race a 320 KB CUDA trace stands in for
		// it, and .ci/run runs the test whole without -race (it names it).
		reportTraces = []string{reportTraces[0], "../../testdata/kineto/cuda_alexnet.json.gz", reportTraces[2]}
	}
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

// The reduce step in any grouping: report summaries of single traces, of two, of three, a
// document and traces, a summary of summaries merged again, one document of all, a directory —
// each gives the bytes of the traces read together (orprof report --format json A B C D). A
// rank whose trace names none is numbered by its position among all the ranks, in every view
// (the table's ranks, the timeline's per-rank figures, the kernels', the steps', the memory
// curves' device names), wherever it sat in its own document; a trace's own rank keeps its
// number.
func TestReportSummaryMapReduceGroupings(t *testing.T) {
	td := func(p string) string { return filepath.Join("..", "..", "testdata", p) }
	memory := filepath.Join("..", "..", "trace", "tracefile", "testdata", "reader", "memory.json") // memory curves
	rankless := []string{td("kineto/rocm_mi250_train.json.gz"), td("kineto-extra/tbplugin_2021_small.json.gz"),
		td("kineto-extra/hta_no_rank.json.gz"), memory}
	for _, set := range []struct {
		name   string
		traces []string
		ranks  []int64
	}{
		{"no trace names its rank", rankless, []int64{0, 1, 2, 3}},
		{"the second names rank 0", []string{rankless[0], td("kineto/cuda_cupti_range_profiler.json.gz"), rankless[1], memory}, []int64{0, 0, 2, 3}},
	} {
		t.Run(set.name, func(t *testing.T) {
			dir := t.TempDir()
			A, B, C, D := set.traces[0], set.traces[1], set.traces[2], set.traces[3]
			report := func(inputs ...string) []byte {
				return runCLI(t, append([]string{"report", "--format", "json", "-o", "-"}, inputs...)...)
			}
			sum := func(name string, inputs ...string) string {
				p := filepath.Join(dir, name)
				runCLI(t, append([]string{"report", "--format", "json", "-o", p}, inputs...)...)
				return p
			}
			want := report(A, B, C, D)
			checkReportRanks(t, want, set.ranks)
			a, b, c, d := sum("a.json", A), sum("b.json", B), sum("c.json", C), sum("d.json", D)
			ab, cd := sum("ab.json", A, B), sum("cd.json", C, D)
			sums := filepath.Join(dir, "sums")
			os.Mkdir(sums, 0o755)
			for _, p := range []string{ab, cd} {
				doc, _ := os.ReadFile(p)
				os.WriteFile(filepath.Join(sums, filepath.Base(p)), doc, 0o644)
			}
			for _, g := range []struct {
				name   string
				inputs []string
			}{
				{"one document per trace", []string{a, b, c, d}},
				{"documents of two", []string{ab, cd}},
				{"a directory of documents of two", []string{sums}},
				{"three and one", []string{sum("abc.json", A, B, C), d}},
				{"one and three", []string{a, sum("bcd.json", B, C, D)}},
				{"one, two and one", []string{a, sum("bc.json", B, C), D}},
				{"a document, then traces", []string{ab, C, D}},
				{"traces, then a document", []string{A, B, cd}},
				{"a merge of documents, merged again", []string{sum("ab2.json", a, b), sum("cd2.json", c, d)}},
				{"one document of all, itself a merge of documents", []string{sum("abcd.json", ab, cd)}},
				{"a directory of that one document", []string{oneDir(t, filepath.Join(dir, "abcd.json"))}},
				{"a merge of merges", []string{sum("abc2.json", sum("ab3.json", a, b), c), d}},
			} {
				if got := report(g.inputs...); !bytes.Equal(got, want) {
					t.Errorf("%s: differs from the traces read together (%d bytes, want %d):\n%s", g.name, len(got), len(want), firstDiff(got, want))
				}
			}
			// orprof timeline and orprof kernels of the documents of two, and of timeline
			// summaries of two, number the ranks alike.
			tl := func(name string, inputs ...string) string {
				p := filepath.Join(dir, name)
				os.WriteFile(p, runCLI(t, append([]string{"timeline", "--format", "json"}, inputs...)...), 0o644)
				return p
			}
			for _, c := range [][]string{
				{"timeline", ab, cd},
				{"kernels", ab, cd},
				{"timeline", tl("tab.json", A, B), tl("tcd.json", C, D)},
			} {
				want := runCLI(t, c[0], "--format", "json", A, B, C, D)
				if got := runCLI(t, append([]string{c[0], "--format", "json"}, c[1:]...)...); !bytes.Equal(got, want) {
					t.Errorf("orprof %s of %s: differs from the traces read together:\n%s", c[0], filepath.Base(c[1]), firstDiff(got, want))
				}
			}
		})
	}
	// A document in which a trace's own rank 0 and a rank-less trace at position 0 share the
	// number cannot be merged behind other ranks (its figures cannot be told apart): one line
	// naming it, exit 2. First, it merges.
	dir := t.TempDir()
	mixed := filepath.Join(dir, "mixed.json")
	runCLI(t, "report", "--format", "json", "-o", mixed, rankless[0], td("kineto/cuda_cupti_range_profiler.json.gz"))
	runCLI(t, "report", "--format", "json", "-o", "-", mixed, rankless[1])
	var out, errb bytes.Buffer
	if code := dispatch([]string{"report", "--format", "json", "-o", "-", rankless[1], mixed}, strings.NewReader(""), &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), mixed) || !strings.Contains(errb.String(), "rank 0 is the number of two of its traces") ||
		strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("a clashing document merged behind a rank: exit %d, %q", code, errb.String())
	}
	// A table summary of the same traces has no figure keyed by rank number: it merges there,
	// its rank-less rank numbered by its position.
	tab := filepath.Join(dir, "table.json")
	os.WriteFile(tab, runCLI(t, "table", "--format", "json", "--row-limit", "-1", rankless[0], td("kineto/cuda_cupti_range_profiler.json.gz")), 0o644)
	var doc struct {
		Table struct {
			Summary struct {
				Ranks []struct {
					Rank int64 `json:"rank"`
				} `json:"ranks"`
			} `json:"summary"`
		} `json:"table"`
	}
	json.Unmarshal(runCLI(t, "report", "--format", "json", "-o", "-", rankless[1], tab), &doc)
	if r := doc.Table.Summary.Ranks; len(r) != 3 || r[0].Rank != 0 || r[1].Rank != 1 || r[2].Rank != 0 {
		t.Errorf("a table summary merged behind a trace: ranks %+v, want 0, 1, 0", r)
	}
}

// oneDir is a new directory holding a copy of the file at p.
func oneDir(t *testing.T, p string) string {
	dir := t.TempDir()
	doc, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, filepath.Base(p)), doc, 0o644)
	return dir
}

// checkReportRanks holds every view of a report summary to the rank numbers want, in order.
func checkReportRanks(t *testing.T, doc []byte, want []int64) {
	t.Helper()
	type rank struct {
		Rank int64 `json:"rank"`
	}
	var d struct {
		Table struct {
			Summary struct {
				Ranks []rank `json:"ranks"`
			} `json:"summary"`
		} `json:"table"`
		Timeline map[string]json.RawMessage `json:"timeline"`
		Kernels  struct {
			Ranks []rank `json:"ranks"`
		} `json:"kernels"`
		Steps struct {
			Ranks []rank `json:"ranks"`
		} `json:"steps"`
		Memory struct {
			Devices []struct {
				Name string `json:"name"`
			} `json:"devices"`
		} `json:"memory"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	nums := func(rs []rank) []int64 {
		var out []int64
		for _, r := range rs {
			out = append(out, r.Rank)
		}
		return out
	}
	views := map[string][]int64{"table": nums(d.Table.Summary.Ranks), "kernels": nums(d.Kernels.Ranks), "steps": nums(d.Steps.Ranks)}
	for _, v := range []string{"ranks", "breakdown", "overlap", "launches", "steps"} {
		var rs []rank
		json.Unmarshal(d.Timeline[v], &rs)
		views["timeline "+v] = nums(rs)
	}
	var st struct {
		Collectives []rank `json:"collectives"`
	}
	json.Unmarshal(d.Timeline["stragglers"], &st)
	views["timeline stragglers"] = nums(st.Collectives)
	for v, got := range views {
		if !slices.Equal(got, want) {
			t.Errorf("%s: ranks %v, want %v", v, got, want)
		}
	}
	// The per-stream views and the memory curves name ranks of want, in order.
	for _, v := range []string{"idle", "queue"} {
		var rs []rank
		json.Unmarshal(d.Timeline[v], &rs)
		if got := slices.Compact(nums(rs)); len(got) == 0 || !isSubsequence(got, want) {
			t.Errorf("timeline %s: ranks %v, not in the order of %v", v, got, want)
		}
	}
	last := fmt.Sprintf("rank %d · ", want[len(want)-1])
	if len(d.Memory.Devices) == 0 {
		t.Error("no memory curves")
	}
	for _, m := range d.Memory.Devices {
		if !strings.HasPrefix(m.Name, last) {
			t.Errorf("memory device %q: the curves are the last rank's (%q)", m.Name, last)
		}
	}
}

func isSubsequence(sub, of []int64) bool {
	i := 0
	for _, x := range of {
		if i < len(sub) && sub[i] == x {
			i++
		}
	}
	return i == len(sub)
}

// firstDiff shows where two documents first differ: the byte, with 40 bytes either side.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	at := func(d []byte) string { return quote.String(string(d[max(0, i-40):min(len(d), i+40)])) }
	return fmt.Sprintf("byte %d: %s\nwant:    %s", i, at(a), at(b))
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
		{"rank-less rank not at its position", edit("\"rank\": 0,\n    \"rank_from", "\"rank\": 5,\n    \"rank_from"),
			"field table: rank 5, of a trace that names none, is at position 0"},
		{"timeline's rank not the table's", edit(`"ranks": [{"rank":0,"has_rank":false`, `"ranks": [{"rank":0,"has_rank":true`),
			"field timeline: rank 0 at position 0 named by its trace, the table's numbered by its position"},
		{"kernels' rank not the table's", edit("\"rank\": 0,\n   \"rank_from", "\"rank\": 2,\n   \"rank_from"),
			"field kernels: rank 2 at position 0, where the table has rank 0"},
		{"steps' rank not the table's", edit(`"ranks":[{"rank":0,"trace"`, `"ranks":[{"rank":3,"trace"`), "field steps: rank 3 at position 0"},
		{"truncated", string(good[:len(good)/2]), "not a valid report summary"},
		{"trailing", string(good) + "{}", "data after the report summary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name+".json")
			os.WriteFile(p, []byte(c.doc), 0o644)
			for _, args := range [][]string{{"report", "-o", filepath.Join(dir, "x.html"), p}, {"merge", p}} {
				if args[0] == "merge" && !strings.Contains(c.want, "field table: missing") && !strings.Contains(c.want, "orprof_report") {
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
		!strings.Contains(errb.String(), "is a report summary (orprof report --format json), not a trace or a summary orprof table reads: orprof report renders it; orprof merge") ||
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
