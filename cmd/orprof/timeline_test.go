package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/errtext"
	"github.com/orprof/orprof/internal/golden"
)

// TestTimelineGolden: every view of a ROCm trace and of two ranks at once, in every format.
func TestTimelineGolden(t *testing.T) {
	rocm := filepath.Join("..", "..", "testdata", "kineto", "rocm_mi250_train.json.gz")
	exts := map[string]string{"text": "txt", "markdown": "md", "csv": "csv", "json": "json"}
	for _, format := range []string{"text", "markdown", "csv", "json"} {
		out, _ := run(t, "timeline", "--format", format, rocm)
		golden.Check(t, filepath.Join("testdata", "golden", "timeline_rocm."+exts[format]), []byte(out))
	}
	out, _ := run(t, "timeline", "--view", "breakdown,steps,stragglers", "--micro-idle", "5us", rankFiles[0], rankFiles[3])
	golden.Check(t, filepath.Join("testdata", "golden", "timeline_two_ranks.txt"), []byte(out))
	// Four ranks whose collectives carry their process group and sequence number.
	pg := filepath.Join("..", "..", "analysis", "timeline", "testdata", "pgseq")
	out, _ = run(t, "timeline", "--view", "stragglers", filepath.Join(pg, "rank0.json"), filepath.Join(pg, "rank1.json"),
		filepath.Join(pg, "rank2.json"), filepath.Join(pg, "rank3.json"))
	golden.Check(t, filepath.Join("testdata", "golden", "timeline_pgseq.txt"), []byte(out))
}

// TestTimelineMerge: the json of each rank, given back to `orprof timeline`, prints what the
// traces print read together; --ranks keeps the ranks it names.
func TestTimelineMerge(t *testing.T) {
	dir := t.TempDir()
	var sums []string
	for i, f := range []string{rankFiles[0], rankFiles[3]} {
		out, _ := run(t, "timeline", "--format", "json", f)
		p := filepath.Join(dir, "s"+string(rune('0'+i))+".json")
		require.NoError(t, os.WriteFile(p, []byte(out), 0o644))
		sums = append(sums, p)
	}
	direct, _ := run(t, "timeline", rankFiles[0], rankFiles[3])
	merged, _ := run(t, append([]string{"timeline"}, sums...)...)
	assert.Equal(t, direct, merged)
	mixed, _ := run(t, "timeline", sums[0], rankFiles[3])
	assert.Equal(t, direct, mixed)

	out, _ := run(t, "timeline", "--format", "json", "--view", "breakdown", "--ranks", "0", rankFiles[0], rankFiles[3])
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Contains(t, doc, "breakdown")
	assert.NotContains(t, doc, "idle")
	var ranks []struct{ Rank int64 }
	require.NoError(t, json.Unmarshal(doc["ranks"], &ranks))
	require.Len(t, ranks, 1) // rank 0 of the NCCL job; the ROCm trace has none (rank 1: its position)
	assert.Equal(t, int64(0), ranks[0].Rank)
}

// TestTimelineOwnTrace: a trace of orprof's own OpenReg backend in kernel mode gives the
// device analyses as a CUDA trace does: busy and idle time per stream, launches, steps.
func TestTimelineOwnTrace(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "k.json")
	run(t, "run", "--workload", "multistream", "--steps", "3", "--activities", "cpu_op,privateuse1_runtime,kernel,gpu_memcpy", "--trace", trace)
	doc := timelineOf(t, trace)
	assert.GreaterOrEqual(t, len(doc.Idle), 2, "the multistream workload runs on several streams")
	assert.Len(t, doc.Steps[0].Steps, 3)
}

// TestTimelineOpenCL: the same of a real OpenCL device (pocl here) in kernel mode.
func TestTimelineOpenCL(t *testing.T) {
	needOpenCL(t)
	trace := filepath.Join(t.TempDir(), "ocl.json")
	run(t, "run", "--device", "opencl", "--workload", "mlp", "--activities", "cpu_op,privateuse1_runtime,kernel,gpu_memcpy", "--trace", trace)
	doc := timelineOf(t, trace)
	assert.NotEmpty(t, doc.Idle)
	assert.NotEmpty(t, doc.Steps[0].Steps)
}

type timelineDoc struct {
	Breakdown []struct {
		BusyNs int64 `json:"busy_ns"`
	}
	Idle     []struct{ Stream int64 }
	Launches []struct{ CPU struct{ Count int } }
	Steps    []struct{ Steps []struct{ Step int64 } }
}

// timelineOf is orprof timeline's json of a trace of orprof's own, with the figures every such
// trace has: busy device time and launches.
func timelineOf(t *testing.T, trace string) timelineDoc {
	t.Helper()
	out, _ := run(t, "timeline", "--format", "json", trace)
	var doc timelineDoc
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Breakdown, 1)
	assert.Positive(t, doc.Breakdown[0].BusyNs)
	assert.Positive(t, doc.Launches[0].CPU.Count)
	return doc
}

// TestTimelineBadInput: one line naming the flag or file, exit 2.
func TestTimelineBadInput(t *testing.T) {
	rocm := filepath.Join("..", "..", "testdata", "kineto", "rocm_mi250_train.json.gz")
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"traceEvents": [{"ph": "X", "ts": 1,`), 0o644))
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"timeline"}, []string{"need a TRACE"}},
		{[]string{"timeline", "--view", "nope", rocm}, []string{`--view "nope"`, "breakdown, idle", "run 'orprof timeline -h'"}},
		{[]string{"timeline", "--format", "xml", rocm}, []string{`--format "xml"`, "run 'orprof timeline -h'"}},
		{[]string{"timeline", "--steps", "3-1", rocm}, []string{`--steps "3-1"`, "run 'orprof timeline -h'"}},
		{[]string{"timeline", "--micro-idle", "-5us", rocm}, []string{`--micro-idle "-5us": must be ≥ 0`}},
		{[]string{"timeline", "--short-kernel", "fast", rocm}, []string{`--short-kernel "fast"`, "duration"}},
		{[]string{"timeline", "--queue-length", "0", rocm}, []string{"--queue-length 0", "run 'orprof timeline -h'"}},
		{[]string{"timeline", "--ranks", "9", rocm}, []string{"--ranks", "no rank 9"}},
		{[]string{"timeline", "--bogus", rocm}, []string{"unknown flag --bogus", "run 'orprof timeline -h'"}},
		{[]string{"timeline", "missing.json"}, []string{"missing.json"}},
		{[]string{"timeline", bad}, []string{"bad.json"}},
		{[]string{"timeline", "-", rocm}, []string{"stdin"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			assert.Equal(t, 2, dispatch(tt.args, strings.NewReader(""), &out, &errb))
			msg := errb.String()
			assert.Equal(t, 1, strings.Count(msg, "\n"), "one line: %q", msg)
			assert.Empty(t, errtext.Repeated(msg), "a prefix repeated in %q", msg)
			for _, w := range tt.want {
				assert.Contains(t, msg, w)
			}
			assert.Empty(t, out.String())
		})
	}
}

// TestTimelineDuplicateRank: two traces that claim one rank (here one file given twice) are
// warned of as table and report warn of them: the stragglers view would match a rank's
// collectives with themselves.
func TestTimelineDuplicateRank(t *testing.T) {
	r0 := filepath.Join("..", "..", "analysis", "timeline", "testdata", "pgseq", "rank0.json")
	var out, errb bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"timeline", "--view", "stragglers", r0, r0}, strings.NewReader(""), &out, &errb), errb.String())
	assert.Equal(t, "orprof: warning: rank 0 is claimed by more than one trace (1 rank repeats); the stragglers view matches their collectives as different ranks'\n", errb.String())
	errb.Reset()
	require.Equal(t, 0, dispatch([]string{"table", r0, r0}, strings.NewReader(""), &out, &errb), errb.String())
	assert.Contains(t, errb.String(), "orprof: warning: rank 0 is claimed by more than one trace (1 rank repeats);")
}

// TestTimelineOptionsMismatch: a summary made with other thresholds than asked is named with
// the flags on both sides and their values; before, the message blamed the trace merged with
// it ("timeline summaries made with different thresholds or steps cannot merge") or said only
// "the default thresholds".
func TestTimelineOptionsMismatch(t *testing.T) {
	dir := t.TempDir()
	rocm := filepath.Join("..", "..", "testdata", "kineto", "rocm_mi250_train.json.gz")
	s5, sdef := filepath.Join(dir, "s5.json"), filepath.Join(dir, "sdef.json")
	out, _ := run(t, "timeline", "--format", "json", "--micro-idle", "5us", rocm)
	require.NoError(t, os.WriteFile(s5, []byte(out), 0o644))
	out, _ = run(t, "timeline", "--format", "json", rankFiles[0])
	require.NoError(t, os.WriteFile(sdef, []byte(out), 0o644))
	made5 := `"` + s5 + `" is a summary made with --micro-idle 5µs; this run asks for --micro-idle 30µs (the default): give the traces, or the flags it was made with; run 'orprof timeline -h'`
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{s5}, made5},
		{[]string{sdef, s5}, made5},
		{[]string{s5, sdef}, made5},
		{[]string{s5, rankFiles[0]}, made5},
		{[]string{"--micro-idle", "5us", "--steps", "1-2", s5},
			`"` + s5 + `" is a summary made with --steps all (the default); this run asks for --steps 1,2`},
		{[]string{"--queue-length", "4", "--micro-idle", "5us", sdef},
			`"` + sdef + `" is a summary made with --micro-idle 30µs (the default), --queue-length 16 (the default); this run asks for --micro-idle 5µs, --queue-length 4`},
	} {
		var o, errb bytes.Buffer
		assert.Equal(t, 2, dispatch(append([]string{"timeline"}, c.args...), strings.NewReader(""), &o, &errb), "%v", c.args)
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %q", errb.String())
		assert.Contains(t, errb.String(), "orprof: timeline: "+c.want, "%v", c.args)
		assert.Empty(t, o.String())
	}
}

// TestTimelinePartialSummary: a summary written with --view breakdown prints its other views
// as not in it (they printed "(none)"), and merged with a full summary it is warned of, the
// merge holding the views both hold.
func TestTimelinePartialSummary(t *testing.T) {
	dir := t.TempDir()
	part, full := filepath.Join(dir, "part.json"), filepath.Join(dir, "full.json")
	out, _ := run(t, "timeline", "--format", "json", "--view", "breakdown", rankFiles[0])
	require.NoError(t, os.WriteFile(part, []byte(out), 0o644))
	out, _ = run(t, "timeline", "--format", "json", rankFiles[3])
	require.NoError(t, os.WriteFile(full, []byte(out), 0o644))
	out, stderr := run(t, "timeline", part)
	assert.Empty(t, stderr)
	assert.Contains(t, out, "idle: not in this summary (it was written with --view breakdown)\n")
	assert.NotContains(t, out, "(none)")
	out, stderr = run(t, "timeline", "--view", "breakdown,launches", part, full)
	assert.Equal(t, "orprof: warning: "+part+" holds only the views breakdown (it was written with --view): the merge holds only the views every input holds\n", stderr)
	assert.Contains(t, out, "launches: not in this summary (it was written with --view breakdown)\n")
	breakdown, _, _ := strings.Cut(out, "\n\n") // (the GPU summary's table follows)
	assert.Equal(t, 2, strings.Count(breakdown, "\n   "), "both ranks' breakdown rows:\n%s", out)
}
