package main

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The flag matrix: every flag of every command that reads profiles, run in every input mode
// the command accepts, through dispatch (the injected stdin included). Each run either takes
// effect — its output differs from the run without the flag in the way the flag says, or the
// flag is a no-op by definition and the row says why — or is refused in exactly one stderr
// line naming the flag, exit 2. A flag silently ignored in some mode fails its row.

// fxBase names a trace the inputs of a row are made from: each flag needs one on which it has
// something to change.
type fxBase string

const (
	// baseLink: CUDA AlexNet (Kineto 2022): its External ids equal the kernels' correlation, so
	// --link external-id leaves every op without device time.
	baseLink fxBase = "../../testdata/kineto/cuda_alexnet.json.gz"
	// baseShape: HTA's CPU trace, with input shapes and call stacks.
	baseShape fxBase = "../../testdata/kineto-extra/hta_cpu_rank0.json.gz"
	// baseSteps: ROCm MI250, three ProfilerSteps and kernels of several lengths.
	baseSteps fxBase = "../../testdata/kineto/rocm_mi250_train.json.gz"
	// baseMetrics: the scope profiler's "metrics: KERNEL" rows.
	baseMetrics fxBase = "testdata/scope_metrics.json"
	// baseHand: handTrace, written by the test (no testdata trace has call stacks).
	baseHand fxBase = "hand"
)

// handTrace has what no testdata trace has: ops whose call stacks differ past their first
// frame, input shapes that differ, and memory records (PyTorch 1.13 prints their sizes in Kb).
const handTrace = `{"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 100, "dur": 10,
 "args": {"External id": 1, "Input Dims": [[2, 2]], "Call stack": "a.py(1): f;b.py(2): g"}},
{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 200, "dur": 20,
 "args": {"External id": 2, "Input Dims": [[3]], "Call stack": "a.py(1): f;c.py(3): h"}},
{"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 101, "s": "t",
 "args": {"Device Type": 0, "Device Id": -1, "Addr": 4096, "Bytes": 4096, "Total Allocated": 4096, "Total Reserved": 0}}
]}`

// fxMode is an input mode of a command.
type fxMode string

const (
	mTrace       fxMode = "trace"          // a plain .json trace
	mGz          fxMode = "gz"             // the trace, gzip-compressed
	mDir         fxMode = "dir"            // a directory: the trace and another rank
	mRanks       fxMode = "ranks"          // the trace and another rank as two arguments
	mStdin       fxMode = "stdin"          // - with the trace on the command's stdin
	mTableSum    fxMode = "table-summary"  // orprof table --format json
	mKernelsSum  fxMode = "kernels-sum"    // orprof kernels --format json
	mTimelineSum fxMode = "timeline-sum"   // orprof timeline --format json
	mReportSum   fxMode = "report-summary" // orprof report --format json
	mSumDir      fxMode = "summary-dir"    // a directory of table summaries of two ranks
	mStdinSum    fxMode = "stdin-summary"  // - with a table summary on stdin
	mStdinKSum   fxMode = "stdin-kernels"  // - with a kernels summary on stdin
	mDiff        fxMode = "diff"           // report --diff BEFORE AFTER (traces)
)

// flagFixtures are the inputs of every mode for every base, made once per test run.
type flagFixtures struct {
	t    *testing.T
	dir  string
	mu   sync.Mutex
	made map[fxBase]map[fxMode][]string // a mode's arguments
	raw  map[fxBase][]byte              // the plain trace
}

// other is the second rank of the dir and ranks modes.
func (b fxBase) other() fxBase {
	if b == baseSteps {
		return baseLink
	}
	return baseSteps
}

// readPlain is the file at path, gunzipped if it is gzip.
func readPlain(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		require.NoError(t, err, "%s", path)
		raw, err = io.ReadAll(zr)
		require.NoError(t, err, "%s", path)
	}
	return raw
}

// cliOut runs orprof in-process and returns stdout, failing the test unless it exits 0.
func cliOut(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(args, bytes.NewReader(stdin), &out, &errb)
	require.Equal(t, 0, code, "orprof %s: %s", strings.Join(args, " "), errb.String())
	return out.Bytes()
}

// inputs returns the arguments of mode for base, and what the command's stdin holds.
func (fx *flagFixtures) inputs(b fxBase, m fxMode) ([]string, []byte) {
	t := fx.t
	fx.mu.Lock()
	defer fx.mu.Unlock()
	if fx.made == nil {
		fx.made, fx.raw = map[fxBase]map[fxMode][]string{}, map[fxBase][]byte{}
	}
	if fx.made[b] == nil {
		d := filepath.Join(fx.dir, fmt.Sprintf("b%d", len(fx.made)))
		require.NoError(t, os.MkdirAll(filepath.Join(d, "ranks"), 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(d, "sums"), 0o755))
		raw := []byte(handTrace)
		if b != baseHand {
			raw = readPlain(t, string(b))
		}
		other := readPlain(t, string(b.other()))
		tr, gz, tr2 := filepath.Join(d, "t.json"), filepath.Join(d, "t.json.gz"), filepath.Join(d, "other.json")
		require.NoError(t, os.WriteFile(tr, raw, 0o644))
		require.NoError(t, os.WriteFile(tr2, other, 0o644))
		require.NoError(t, os.WriteFile(gz, gzipBytes(t, raw), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, "ranks", "r0.json"), raw, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, "ranks", "r1.json"), other, 0o644))
		write := func(name string, data []byte) string {
			p := filepath.Join(d, name)
			require.NoError(t, os.WriteFile(p, data, 0o644))
			return p
		}
		ts := write("t.table.json", cliOut(t, nil, "table", "--format", "json", tr))
		write("sums/r0.json", cliOut(t, nil, "table", "--format", "json", tr))
		write("sums/r1.json", cliOut(t, nil, "table", "--format", "json", tr2))
		ks := write("t.kernels.json", cliOut(t, nil, "kernels", "--format", "json", tr))
		tl := write("t.timeline.json", cliOut(t, nil, "timeline", "--format", "json", tr))
		rs := filepath.Join(d, "t.report.json")
		cliOut(t, nil, "report", "--format", "json", "-o", rs, tr)
		fx.raw[b] = raw
		fx.made[b] = map[fxMode][]string{
			mTrace: {tr}, mGz: {gz}, mDir: {filepath.Join(d, "ranks")}, mRanks: {tr, tr2}, mStdin: {"-"},
			mTableSum: {ts}, mKernelsSum: {ks}, mTimelineSum: {tl}, mReportSum: {rs},
			mSumDir: {filepath.Join(d, "sums")}, mStdinSum: {"-"}, mStdinKSum: {"-"},
			mDiff: {"--diff", gz, tr},
		}
	}
	args := fx.made[b][m]
	require.NotNil(t, args, "no mode %s", m)
	var stdin []byte
	switch m {
	case mStdin:
		stdin = fx.raw[b]
	case mStdinSum:
		stdin = mustRead(t, fx.made[b][mTableSum][0])
	case mStdinKSum:
		stdin = mustRead(t, fx.made[b][mKernelsSum][0])
	}
	return args, stdin
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

// outcome is what a row expects of the run with the flag.
type outcome struct {
	// refused: exit 2, one stderr line naming the flag.
	refused bool
	// effect checks the output with the flag against the output without it; nil with noop.
	effect func(base, got string) string
	// noop says why the flag changes nothing in this mode (the outputs must be equal).
	noop string
}

func refused() outcome { return outcome{refused: true} }

func noop(why string) outcome { return outcome{noop: why} }

func effect(f func(base, got string) string) outcome { return outcome{effect: f} }

// differs: the output changed.
var differs = effect(func(base, got string) string {
	if base == got {
		return "the output did not change"
	}
	return ""
})

func isJSON(base, got string) string {
	if !json.Valid([]byte(got)) || !strings.HasPrefix(strings.TrimSpace(got), "{") {
		return "not a JSON document"
	}
	if base == got {
		return "the output did not change"
	}
	return ""
}

func isCSV(base, got string) string {
	cr := csv.NewReader(strings.NewReader(got))
	cr.FieldsPerRecord = -1 // timeline's CSV is one table per view
	recs, err := cr.ReadAll()
	if err != nil || len(recs) < 2 {
		return fmt.Sprintf("not a CSV table (%v, %d records)", err, len(recs))
	}
	if base == got {
		return "the output did not change"
	}
	return ""
}

func isMarkdown(base, got string) string {
	if !strings.Contains(got, "| --") && !strings.Contains(got, "|--") && !strings.Contains(got, "| :-") && !strings.Contains(got, "|:-") {
		return "no markdown table"
	}
	if base == got {
		return "the output did not change"
	}
	return ""
}

// fewerLines: a row limit printed fewer lines.
func fewerLines(base, got string) string {
	if strings.Count(got, "\n") >= strings.Count(base, "\n") {
		return fmt.Sprintf("%d lines with the limit, %d without", strings.Count(got, "\n"), strings.Count(base, "\n"))
	}
	return ""
}

// narrower: the longest line is shorter (a name column capped).
func narrower(base, got string) string {
	w := func(s string) int {
		m := 0
		for _, l := range strings.Split(s, "\n") {
			m = max(m, len([]rune(l)))
		}
		return m
	}
	if w(got) >= w(base) {
		return fmt.Sprintf("widest line %d with the flag, %d without", w(got), w(base))
	}
	return ""
}

// gains: the output gained s.
func gains(s string) func(base, got string) string {
	return func(base, got string) string {
		if !strings.Contains(got, s) || strings.Contains(base, s) {
			return fmt.Sprintf("want %q in the output with the flag only", s)
		}
		return ""
	}
}

// lacks: the output lost s.
func lacks(s string) func(base, got string) string {
	return func(base, got string) string {
		if strings.Contains(got, s) || !strings.Contains(base, s) {
			return fmt.Sprintf("want %q in the output without the flag only", s)
		}
		return ""
	}
}

// flagRow is one flag of one command in one mode.
type flagRow struct {
	cmd  string
	flag []string
	base fxBase
	mode fxMode
	want outcome
	// out: the command writes to a file (-o), which is its output.
	out bool
}

// fmtRows are the --format rows of the table-like commands.
func fmtRows(cmd string, b fxBase, m fxMode) []flagRow {
	return []flagRow{
		{cmd, []string{"--format", "json"}, b, m, effect(isJSON), false},
		{cmd, []string{"--format", "csv"}, b, m, effect(isCSV), false},
		{cmd, []string{"--format", "markdown"}, b, m, effect(isMarkdown), false},
	}
}

func flagMatrix() []flagRow {
	var rows []flagRow
	add := func(r ...flagRow) { rows = append(rows, r...) }
	refuse := refused()

	// table: traces in every form; summaries are merge's (table refuses them itself).
	for _, m := range []fxMode{mTrace, mGz, mDir, mRanks, mStdin} {
		add(fmtRows("table", baseLink, m)...)
		add(
			flagRow{"table", []string{"--sort-by", "count"}, baseLink, m, differs, false},
			flagRow{"table", []string{"--row-limit", "3"}, baseLink, m, effect(fewerLines), false},
			flagRow{"table", []string{"--max-name-column-width", "12"}, baseLink, m, effect(narrower), false},
			flagRow{"table", []string{"--pytorch-1.13"}, baseHand, m, effect(gains("Kb")), false},
			flagRow{"table", []string{"--by-rank"}, baseLink, m, differs, false},
			flagRow{"table", []string{"--link", "external-id"}, baseLink, m, differs, false},
			flagRow{"table", []string{"--group-by-input-shape"}, baseHand, m, differs, false},
			flagRow{"table", []string{"--group-by-stack-n", "2"}, baseHand, m, differs, false},
			flagRow{"table", []string{"--no-scope-metrics"}, baseMetrics, m, effect(lacks("metrics: ")), false},
		)
	}

	// merge: table summaries (files, directories, stdin), report summaries (their table),
	// traces; kernels summaries print the kernels view.
	for _, m := range []fxMode{mTableSum, mSumDir, mStdinSum, mReportSum, mTrace, mGz, mDir, mStdin} {
		add(fmtRows("merge", baseLink, m)...)
		add(
			flagRow{"merge", []string{"--sort-by", "count"}, baseLink, m, differs, false},
			flagRow{"merge", []string{"--row-limit", "3"}, baseLink, m, effect(fewerLines), false},
			flagRow{"merge", []string{"--max-name-column-width", "12"}, baseLink, m, effect(narrower), false},
			flagRow{"merge", []string{"--pytorch-1.13"}, baseHand, m, effect(gains("Kb")), false},
			flagRow{"merge", []string{"--by-rank"}, baseLink, m, differs, false},
			// Grouping is chosen when a summary is written.
			flagRow{"merge", []string{"--group-by-input-shape"}, baseHand, m, refuse, false},
			flagRow{"merge", []string{"--group-by-stack-n", "2"}, baseHand, m, refuse, false},
			flagRow{"merge", []string{"--no-scope-metrics"}, baseMetrics, m, effect(lacks("metrics: ")), false},
		)
		switch m {
		case mTrace, mGz, mDir, mStdin:
			add(flagRow{"merge", []string{"--link", "external-id"}, baseLink, m, differs, false})
		default: // summaries: their device time was linked when they were written
			add(flagRow{"merge", []string{"--link", "external-id"}, baseLink, m, refuse, false})
		}
	}
	for _, m := range []fxMode{mKernelsSum, mStdinKSum} {
		add(fmtRows("merge", baseLink, m)...)
		add(
			flagRow{"merge", []string{"--row-limit", "3"}, baseLink, m, effect(fewerLines), false},
			flagRow{"merge", []string{"--max-name-column-width", "12"}, baseLink, m, effect(narrower), false},
			flagRow{"merge", []string{"--sort-by", "count"}, baseLink, m, refuse, false},
			flagRow{"merge", []string{"--pytorch-1.13"}, baseLink, m, refuse, false},
			flagRow{"merge", []string{"--by-rank"}, baseLink, m, refuse, false},
			flagRow{"merge", []string{"--group-by-input-shape"}, baseLink, m, refuse, false},
			flagRow{"merge", []string{"--group-by-stack-n", "2"}, baseLink, m, refuse, false},
			flagRow{"merge", []string{"--no-scope-metrics"}, baseLink, m, refuse, false},
			flagRow{"merge", []string{"--link", "external-id"}, baseLink, m, refuse, false},
		)
	}

	// diff: each side a trace, a summary, a directory, stdin; two kernels summaries (not on
	// stdin: diff takes kernels summaries as files only).
	for _, m := range []fxMode{mTrace, mGz, mDir, mStdin, mTableSum, mSumDir, mStdinSum, mReportSum, mKernelsSum} {
		add(fmtRows("diff", baseLink, m)...)
		add(
			flagRow{"diff", []string{"--row-limit", "3"}, baseLink, m, effect(fewerLines), false},
			flagRow{"diff", []string{"--max-name-column-width", "12"}, baseLink, m, effect(narrower), false},
		)
		switch m {
		case mTrace, mGz, mDir, mStdin:
			add(flagRow{"diff", []string{"--link", "external-id"}, baseLink, m, differs, false})
			add(flagRow{"diff", []string{"--no-scope-metrics"}, baseMetrics, m, effect(lacks("metrics: ")), false})
		case mKernelsSum, mStdinKSum:
			add(flagRow{"diff", []string{"--link", "external-id"}, baseLink, m, refuse, false})
			add(flagRow{"diff", []string{"--no-scope-metrics"}, baseLink, m, refuse, false})
		default:
			add(flagRow{"diff", []string{"--link", "external-id"}, baseLink, m, refuse, false})
			add(flagRow{"diff", []string{"--no-scope-metrics"}, baseMetrics, m, effect(lacks("metrics: ")), false})
		}
	}

	// kernels: traces in every form and kernels summaries.
	for _, m := range []fxMode{mTrace, mGz, mDir, mRanks, mStdin, mKernelsSum, mStdinKSum} {
		add(fmtRows("kernels", baseLink, m)...)
		add(
			flagRow{"kernels", []string{"--row-limit", "3"}, baseLink, m, effect(fewerLines), false},
			flagRow{"kernels", []string{"--max-name-column-width", "12"}, baseLink, m, effect(narrower), false},
			flagRow{"kernels", []string{"--by-op"}, baseLink, m, differs, false},
			flagRow{"kernels", []string{"--rules", "{rules}"}, baseLink, m, differs, false},
		)
		switch m {
		case mKernelsSum, mStdinKSum:
			add(flagRow{"kernels", []string{"--link", "external-id"}, baseLink, m, refuse, false})
		default:
			add(flagRow{"kernels", []string{"--link", "external-id"}, baseLink, m, differs, false})
		}
	}

	// timeline: traces in every form and timeline summaries.
	for _, m := range []fxMode{mTrace, mGz, mDir, mRanks, mStdin, mTimelineSum} {
		add(fmtRows("timeline", baseSteps, m)...)
		add(
			flagRow{"timeline", []string{"--view", "idle"}, baseSteps, m, effect(fewerLines), false},
			flagRow{"timeline", []string{"--ranks", "0"}, baseLink, m, noopOrEffect(m), false},
		)
		if m == mTimelineSum {
			// The analyses ran when the summary was written.
			add(
				flagRow{"timeline", []string{"--steps", "2"}, baseSteps, m, refuse, false},
				flagRow{"timeline", []string{"--micro-idle", "1ms"}, baseSteps, m, refuse, false},
				flagRow{"timeline", []string{"--short-kernel", "1ms"}, baseSteps, m, refuse, false},
				flagRow{"timeline", []string{"--queue-length", "2"}, baseSteps, m, refuse, false},
			)
			continue
		}
		add(
			flagRow{"timeline", []string{"--steps", "2"}, baseSteps, m, differs, false},
			flagRow{"timeline", []string{"--micro-idle", "1us"}, baseLink, m, differs, false},
			flagRow{"timeline", []string{"--short-kernel", "1ms"}, baseSteps, m, differs, false},
			flagRow{"timeline", []string{"--queue-length", "2"}, baseSteps, m, differs, false},
		)
	}

	// report: traces in every form, summaries of both kinds, --diff.
	for _, m := range []fxMode{mTrace, mGz, mDir, mRanks, mStdin, mTableSum, mReportSum, mDiff} {
		if m != mDiff {
			add(flagRow{"report", []string{"--format", "json"}, baseLink, m, effect(isJSON), true})
		} else {
			add(flagRow{"report", []string{"--format", "json"}, baseLink, m, refuse, true})
		}
		switch m {
		case mTableSum, mReportSum:
			add(
				flagRow{"report", []string{"--link", "external-id"}, baseLink, m, refuse, true},
				flagRow{"report", []string{"--group-by-input-shape"}, baseHand, m, refuse, true},
				flagRow{"report", []string{"--group-by-stack-n", "2"}, baseHand, m, refuse, true},
			)
		default:
			add(
				flagRow{"report", []string{"--link", "external-id"}, baseLink, m, differs, true},
				flagRow{"report", []string{"--group-by-input-shape"}, baseHand, m, differs, true},
				flagRow{"report", []string{"--group-by-stack-n", "2"}, baseHand, m, differs, true},
			)
		}
		add(flagRow{"report", []string{"--no-scope-metrics"}, baseMetrics, m, effect(lacks("metrics: ")), true})
	}

	// pprof: one trace, plain, gzip or on stdin.
	for _, m := range []fxMode{mTrace, mGz, mStdin} {
		add(flagRow{"pprof", []string{"--link", "external-id"}, baseLink, m, differs, true})
	}
	return rows
}

// noopOrEffect is --ranks 0: of one rank (rank 0), it selects what there is.
func noopOrEffect(m fxMode) outcome {
	switch m {
	case mDir, mRanks:
		return differs
	}
	return noop("one input is rank 0: --ranks 0 keeps all of it")
}

// TestFlagMatrix runs every row of flagMatrix.
func TestFlagMatrix(t *testing.T) {
	fx := &flagFixtures{t: t, dir: t.TempDir()}
	rules := filepath.Join(fx.dir, "rules.txt")
	require.NoError(t, os.WriteFile(rules, []byte("attention .\n"), 0o644))
	for _, r := range flagMatrix() {
		name := fmt.Sprintf("%s/%s/%s", r.cmd, strings.Join(r.flag, "="), r.mode)
		t.Run(name, func(t *testing.T) {
			in, stdin := fx.inputs(r.base, r.mode)
			flag := make([]string, len(r.flag))
			for i, f := range r.flag {
				flag[i] = strings.ReplaceAll(f, "{rules}", rules)
			}
			runOnce := func(withFlag bool, tag string) (int, string, string) {
				args := []string{r.cmd}
				if withFlag {
					args = append(args, flag...)
				}
				var outPath string
				if r.out {
					outPath = filepath.Join(t.TempDir(), tag+".out")
					args = append(args, "-o", outPath)
				}
				args = append(args, in...)
				if r.cmd == "diff" {
					args = append(args, fx.diffAfter(r.base, r.mode)...)
				}
				var out, errb bytes.Buffer
				code := dispatch(args, bytes.NewReader(stdin), &out, &errb)
				if outPath != "" && code == 0 {
					b, err := os.ReadFile(outPath)
					require.NoError(t, err)
					out.Reset()
					out.Write(b)
				}
				return code, out.String(), errb.String()
			}
			code, base, berr := runOnce(false, "base")
			require.Equal(t, 0, code, "without %s: %s", r.flag[0], berr)
			code, got, gerr := runOnce(true, "flag")
			switch {
			case r.want.refused:
				require.Equal(t, 2, code, "want %s refused in mode %s; stderr: %s", r.flag[0], r.mode, gerr)
				lines := strings.Split(strings.TrimSuffix(gerr, "\n"), "\n")
				assert.Len(t, lines, 1, "one line: %q", gerr)
				assert.Contains(t, gerr, r.flag[0], "the line names the flag")
				assert.True(t, strings.HasSuffix(strings.TrimSpace(gerr), "run 'orprof "+r.cmd+" -h'"), "a bad flag's line points to -h: %q", gerr)
				assert.Empty(t, got, "a refused run writes nothing")
			case r.want.noop != "":
				require.Equal(t, 0, code, "stderr: %s", gerr)
				assert.Equal(t, base, got, "a no-op by definition (%s)", r.want.noop)
			default:
				require.Equal(t, 0, code, "want %s to take effect in mode %s; stderr: %s", r.flag[0], r.mode, gerr)
				if msg := r.want.effect(base, got); msg != "" {
					t.Errorf("%s in mode %s: %s", strings.Join(r.flag, " "), r.mode, msg)
				}
			}
		})
	}
}

// diffAfter is diff's AFTER in mode m: BEFORE again, or for stdin a file of the same kind.
func (fx *flagFixtures) diffAfter(b fxBase, m fxMode) []string {
	var args []string
	switch m {
	case mStdin:
		args, _ = fx.inputs(b, mTrace)
	case mStdinSum:
		args, _ = fx.inputs(b, mTableSum)
	case mStdinKSum:
		args, _ = fx.inputs(b, mKernelsSum)
	default:
		args, _ = fx.inputs(b, m)
	}
	return args
}

// TestLinkMixedInputs: --link with traces and summaries among the inputs applies to the traces
// (the output changes) and a note on stderr names the summaries it did not apply to.
func TestLinkMixedInputs(t *testing.T) {
	fx := &flagFixtures{t: t, dir: t.TempDir()}
	tr, _ := fx.inputs(baseLink, mTrace)
	other, _ := fx.inputs(baseSteps, mTrace)
	sum, _ := fx.inputs(baseSteps, mTableSum)
	ksum, _ := fx.inputs(baseSteps, mKernelsSum)
	rsum, _ := fx.inputs(baseSteps, mReportSum)
	for _, tc := range []struct {
		name    string
		args    []string
		summary string // the summary the note names
		out     bool   // -o: the output is the file
	}{
		{"merge trace and table summary", []string{"merge", tr[0], sum[0]}, sum[0], false},
		{"merge trace and report summary", []string{"merge", tr[0], rsum[0]}, rsum[0], false},
		{"diff trace against table summary", []string{"diff", tr[0], sum[0]}, sum[0], false},
		{"kernels trace and kernels summary", []string{"kernels", tr[0], ksum[0]}, ksum[0], false},
		{"report trace and report summary", []string{"report", tr[0], rsum[0]}, rsum[0], true},
		{"report --diff of two traces", []string{"report", "--diff", other[0], tr[0]}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runIt := func(extra ...string) (string, string) {
				args := append([]string{tc.args[0]}, extra...)
				var o string
				if tc.out {
					o = filepath.Join(t.TempDir(), "out")
					args = append(args, "-o", o)
				}
				args = append(args, tc.args[1:]...)
				var out, errb bytes.Buffer
				require.Equal(t, 0, dispatch(args, bytes.NewReader(nil), &out, &errb), "%v: %s", args, errb.String())
				if o != "" {
					return string(mustRead(t, o)), errb.String()
				}
				return out.String(), errb.String()
			}
			base, _ := runIt()
			got, errOut := runIt("--link", "external-id")
			assert.NotEqual(t, base, got, "--link took effect on the trace")
			if tc.summary == "" {
				assert.NotContains(t, errOut, "note: --link", "no summary among the inputs")
				return
			}
			assert.Contains(t, errOut, "orprof: note: --link applies to the traces among the inputs, not to "+fmt.Sprintf("%q", tc.summary))
		})
	}
}
