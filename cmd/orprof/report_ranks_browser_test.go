package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/orprof/orprof/internal/browsertest"
	"github.com/orprof/orprof/internal/gz"
)

// fleetCopies writes n copies of the trace src (plain or gzip) in dir, rank0.json …, each
// with its distributedInfo's rank rewritten to its number (scripts/fleet-ranks.sh's job).
func fleetCopies(t *testing.T, src string, n int, dir string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	if !gz.IsGzip(data) {
		raw.Write(data)
	} else if zr, err := gzip.NewReader(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	} else if _, err := raw.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`("distributedInfo": *\{[^}]*?"rank": *)\d+`)
	loc := re.FindSubmatchIndex(raw.Bytes())
	if loc == nil {
		t.Fatalf("%s: no distributedInfo rank", src)
	}
	b := raw.Bytes()
	for k := range n {
		doc := slices.Concat(b[:loc[3]], []byte(strconv.Itoa(k)), b[loc[1]:])
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("rank%d.json", k)), doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// synthRanks writes n ranks' traces in dir, as Kineto writes them: five ProfilerSteps, each a
// GEMM and an all-reduce of 1 MiB whose record_param_comms op and NCCL kernel carry c10d's
// args (group "0", Seq, Comms Id). The slow ranks compute 4 ms longer, so they arrive last
// and their steps are the longest.
func synthRanks(t *testing.T, dir string, n int, slow ...int) {
	t.Helper()
	ranks := "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, ...]"
	for r := range n {
		late := 0.0
		if slices.Contains(slow, r) {
			late = 4000 + float64(r)
		}
		var evs []string
		add := func(f string, a ...any) { evs = append(evs, fmt.Sprintf(f, a...)) }
		for k := range 5 {
			t0 := 1_000_000 + float64(k)*20_000
			host := 10_000.0
			if late > 0 {
				host = 18_000
			}
			coll := fmt.Sprintf(`"Collective name": "allreduce", "dtype": "Float", "In msg nelems": 262144, "Out msg nelems": 262144, "Group size": %d, "Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": %q, "Seq": %d, "Comms Id": %d`,
				n, ranks, k, uint64(1)<<63+uint64(k)*7919)
			c := 10 * (k + 1)
			add(`{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1, "tid": 1, "ts": %.3f, "dur": %.3f, "args": {"External id": %d}}`, k, t0, host, c)
			add(`{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %.3f, "dur": 50.000, "args": {"External id": %d}}`, t0+100, c+1)
			add(`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %.3f, "dur": 5.000, "args": {"External id": %d, "correlation": %d}}`, t0+110, c+1, c+1)
			add(`{"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 7, "ts": %.3f, "dur": %.3f, "args": {"External id": %d, "stream": 7, "correlation": %d}}`, t0+200, 6000+late, c+1, c+1)
			add(`{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": %.3f, "dur": 20.000, "args": {"External id": %d, %s, "Rank": %d}}`, t0+1000, c+2, coll, r)
			add(`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %.3f, "dur": 5.000, "args": {"External id": %d, "correlation": %d}}`, t0+1005, c+2, c+2)
			arrive := t0 + 7000 + float64(r%7) + late
			add(`{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 8, "ts": %.3f, "dur": %.3f, "args": {"External id": %d, "stream": 8, "correlation": %d, %s}}`,
				arrive, t0+12_600+late-arrive, c+2, c+2, coll)
		}
		doc := fmt.Sprintf(`{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d}, "traceEvents": [%s]}`, r, n, strings.Join(evs, ",\n"))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("rank%d.json", r)), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReportRanksBrowser opens the Ranks view of a 16-rank report (copies of a real NCCL trace)
// and of a 1,000-rank one (synthetic, two slow ranks) in headless Chromium: no console error or
// request; the heat map has one row per rank in the summary's order, the outliers it names are
// the summary's, hovering a cell shows that rank's step time; the collectives table's figures
// are `orprof timeline --format json`'s, and every cut list says how many rows it left out.
func TestReportRanksBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	b := browsertest.Start(t)
	checkRanksReports(t, "chromium", func(t *testing.T, file string) browsertest.Tab { return b.Open(t, file, "body[data-rendered]") })
}

// TestReportRanksFirefox is TestReportRanksBrowser in headless Firefox (internal/browsertest).
func TestReportRanksFirefox(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	f := browsertest.StartFirefox(t)
	checkRanksReports(t, "firefox", func(t *testing.T, file string) browsertest.Tab { return f.Open(t, file, "body[data-rendered]") })
}

// checkRanksReports makes the 16- and 1,000-rank reports and checks their Ranks view in the
// tabs open opens.
func checkRanksReports(t *testing.T, browser string, open func(t *testing.T, file string) browsertest.Tab) {
	dir := t.TempDir()
	r16, r1000 := filepath.Join(dir, "r16"), filepath.Join(dir, "r1000")
	for _, d := range []string{r16, r1000} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fleetCopies(t, filepath.Join("..", "..", "testdata", "kineto-extra", "hta_sampled_rank0.json.gz"), 16, r16)
	synthRanks(t, r1000, 1000, 17, 503)
	for _, c := range []struct {
		name     string
		in       string
		ranks    int
		outliers []int64
	}{
		{"16-ranks", r16, 16, nil},
		{"1000-ranks", r1000, 1000, []int64{17, 503}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name+".html")
			runCLI(t, "report", c.in, "-o", out)
			var tl struct {
				Steps []struct {
					Rank  int64 `json:"rank"`
					Steps []struct {
						Step  int64 `json:"step"`
						Times struct {
							TotalNs int64 `json:"total_ns"`
						} `json:"times"`
					} `json:"steps"`
				} `json:"steps"`
				StepRanks struct {
					Ranks    []struct{ Rank int64 } `json:"ranks"`
					Outliers []struct{ Rank int64 } `json:"outliers"`
				} `json:"step_ranks"`
				Stragglers struct {
					ByCollective []map[string]any `json:"by_collective"`
				} `json:"stragglers"`
			}
			if err := json.Unmarshal(runCLI(t, "timeline", "--format", "json", c.in), &tl); err != nil {
				t.Fatal(err)
			}
			var outliers []int64
			for _, o := range tl.StepRanks.Outliers {
				outliers = append(outliers, o.Rank)
			}
			if len(tl.StepRanks.Ranks) != c.ranks || !slices.Equal(outliers, c.outliers) {
				t.Fatalf("orprof timeline: %d ranks by step time, outliers %v; want %d, %v", len(tl.StepRanks.Ranks), outliers, c.ranks, c.outliers)
			}

			p := open(t, out)
			p.Click(t, "button[data-view=ranks]")
			p.WaitFor(t, "#v-ranks[data-ready].on")
			var ms string
			p.Eval(t, `document.getElementById('v-ranks').dataset.buildMs`, &ms)
			if fi, err := os.Stat(out); err == nil {
				t.Logf("%s: %d bytes; the Ranks view built in %s ms", c.name, fi.Size(), ms)
			}
			var hm struct {
				Rows  string `json:"rows"`
				Ranks string `json:"ranks"`
				Out   string `json:"out"`
				Named []string
			}
			p.Eval(t, `(() => { const c = document.querySelector('#v-ranks canvas[data-heatmap]');
				return {rows: c.dataset.rows, ranks: c.dataset.ranks, out: document.querySelector('#v-ranks [data-outliers]').dataset.outliers,
					Named: Array.from(document.querySelectorAll('#v-ranks [data-outlier]')).map(e => e.dataset.outlier)}; })()`, &hm)
			var order []string
			for i := len(tl.StepRanks.Ranks) - 1; i >= 0; i-- {
				order = append(order, strconv.FormatInt(tl.StepRanks.Ranks[i].Rank, 10))
			}
			if hm.Rows != strconv.Itoa(c.ranks) || hm.Ranks != strings.Join(order, ",") {
				t.Errorf("heat map: %s rows (want %d), not in the summary's order by median step time", hm.Rows, c.ranks)
			}
			var want []string
			for _, o := range outliers {
				want = append(want, strconv.FormatInt(o, 10))
			}
			if hm.Out != strings.Join(want, ",") || !slices.Equal(hm.Named, want) {
				t.Errorf("outliers named %v (%q), want the summary's %v", hm.Named, hm.Out, want)
			}

			// Hover: the first, the middle and the last row, at the first and last step.
			steps := map[string]int64{}
			for _, rs := range tl.Steps {
				for _, st := range rs.Steps {
					steps[fmt.Sprint(rs.Rank, "/", st.Step)] = st.Times.TotalNs
				}
			}
			for _, row := range []int{0, c.ranks / 2, c.ranks - 1} {
				for _, col := range []string{"0", "last"} {
					var tip struct{ Row, Rank, Step, Ns, Text string }
					p.Eval(t, fmt.Sprintf(`(() => { const c = document.querySelector('#v-ranks canvas[data-heatmap]'), rows = +c.dataset.rows, cols = +c.dataset.cols;
						c.parentElement.scrollIntoView(); c.parentElement.scrollTop = Math.max(0, %d * c.getBoundingClientRect().height / rows - 100);
						const b = c.getBoundingClientRect();
						const col = %q === "last" ? cols - 1 : 0;
						const label = c.height / rows >= 9 ? 80 : 0, colW = (c.width - label - 10) / cols, sx = b.width / c.width, sy = b.height / c.height;
						c.dispatchEvent(new MouseEvent('mousemove', {clientX: b.left + (label + (col + 0.5) * colW) * sx, clientY: Math.ceil(b.top + (%d + 0.5) * (c.height / rows) * sy), bubbles: true}));
						const t = document.querySelector('[data-heat-tip]');
						return {Row: t.dataset.row, Rank: t.dataset.rank, Step: t.dataset.step, Ns: t.dataset.ns, Text: t.textContent}; })()`, row, col, row), &tip)
					// A row of one pixel may take the event a row off: the row hit must show its own rank.
					hit, err := strconv.Atoi(tip.Row)
					if err != nil || hit < row-1 || hit > row+1 || tip.Rank != order[hit] {
						t.Errorf("hover on row %d: row %q, rank %s (%q)", row, tip.Row, tip.Rank, tip.Text)
						continue
					}
					if w, ok := steps[tip.Rank+"/"+tip.Step]; !ok || tip.Ns != strconv.FormatInt(w, 10) {
						t.Errorf("hover on rank %s step %s: %s ns (%q), want %d", tip.Rank, tip.Step, tip.Ns, tip.Text, w)
					}
				}
			}

			// The collectives table equals orprof timeline's by_collective, row by row.
			rows := pageRows(t, p, "collectives")
			if len(rows) != len(tl.Stragglers.ByCollective) || len(rows) == 0 {
				t.Fatalf("collectives table: %d rows, orprof timeline: %d", len(rows), len(tl.Stragglers.ByCollective))
			}
			for i, w := range tl.Stragglers.ByCollective {
				g := rows[i]
				bus := w["busbw_gb_s"].(float64)
				if !w["has_busbw"].(bool) {
					bus = 0
				}
				for _, x := range []struct {
					col  string
					want float64
				}{{"calls", w["calls"].(float64)}, {"instances", w["instances"].(float64)}, {"ranks", w["ranks"].(float64)},
					{"bytes_per_call", w["bytes_per_call"].(float64)}, {"algbw", w["algbw_gb_s"].(float64)}, {"busbw", bus},
					{"time", w["duration_ns"].(float64) / 1000}, {"wait", w["wait_ns"].(float64) / 1000}, {"transfer", w["transfer_ns"].(float64) / 1000}} {
					if !sameNumber(g[x.col], x.want) {
						t.Errorf("collective %v: %s %s on the page, %v in orprof timeline", w["op"], x.col, g[x.col], x.want)
					}
				}
				if g["op"] != w["op"] {
					t.Errorf("collective row %d: %q, want %q", i, g["op"], w["op"])
				}
			}
			if c.ranks > 40 {
				var cut []string
				p.Eval(t, `Array.from(document.querySelectorAll('#v-ranks [data-cut]')).map(e => e.dataset.cut)`, &cut)
				if !slices.Contains(cut, strconv.Itoa(c.ranks-40)) {
					t.Errorf("cut lists say they left out %v, want %d ranks among them", cut, c.ranks-40)
				}
			}
			p.Screenshot(t, filepath.Join(os.TempDir(), "orprof-report-screenshots", "ranks-"+browser+"-"+c.name+".png"))
			p.CheckClean(t)
		})
	}
}
