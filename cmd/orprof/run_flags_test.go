package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunStepFlagsTakeEffect: --pprof and --no-spans work in the step-by-step modes as in a
// plain run — --pprof with --steps N writes the cycle's profile, --no-spans leaves the span
// event out of --trace with --steps and of every --trace-dir file with --schedule — and
// "--trace -" with --steps leaves stdout to the trace. Before, both flags were ignored there.
func TestRunStepFlagsTakeEffect(t *testing.T) {
	dir := t.TempDir()
	tr, pp := filepath.Join(dir, "t.json"), filepath.Join(dir, "p.pb.gz")
	var out, errb bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"run", "--steps", "2", "--trace", tr, "--pprof", pp, "--no-spans"}, nil, &out, &errb), errb.String())
	f, err := os.Open(pp)
	require.NoError(t, err, "--pprof with --steps writes the profile")
	prof, err := profile.Parse(f)
	f.Close()
	require.NoError(t, err)
	assert.NotEmpty(t, prof.Sample)
	raw, err := os.ReadFile(tr)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), `"pid": "Spans"`, "--no-spans with --steps")
	assert.Contains(t, string(raw), "ProfilerStep#1")

	traces := filepath.Join(dir, "traces")
	out.Reset()
	errb.Reset()
	require.Equal(t, 0, dispatch([]string{"run", "--schedule", "wait=0,warmup=0,active=1,repeat=2", "--trace-dir", traces, "--no-spans"}, nil, &out, &errb), errb.String())
	ents, err := os.ReadDir(traces)
	require.NoError(t, err)
	require.Len(t, ents, 2)
	for _, e := range ents {
		raw, err := os.ReadFile(filepath.Join(traces, e.Name()))
		require.NoError(t, err)
		assert.NotContains(t, string(raw), `"pid": "Spans"`, "--no-spans with --schedule: %s", e.Name())
	}
	out.Reset()
	errb.Reset()
	require.Equal(t, 0, dispatch([]string{"run", "--schedule", "wait=0,warmup=0,active=1,repeat=1", "--trace-dir", traces}, nil, &out, &errb), errb.String())
	withSpans := 0
	ents, _ = os.ReadDir(traces)
	for _, e := range ents {
		raw, _ := os.ReadFile(filepath.Join(traces, e.Name()))
		if strings.Contains(string(raw), `"pid": "Spans"`) {
			withSpans++
		}
	}
	assert.Equal(t, 1, withSpans, "without --no-spans the span is written: the test can fail")

	out.Reset()
	errb.Reset()
	require.Equal(t, 0, dispatch([]string{"run", "--steps", "1", "--trace", "-"}, nil, &out, &errb), errb.String())
	assert.True(t, strings.HasPrefix(strings.TrimSpace(out.String()), "{"), "stdout holds the trace only")
	assert.Contains(t, errb.String(), "Self CPU", "the table goes to stderr")
}

// TestRunStepFlagsRefused: what a mode cannot honour is refused with one line naming the flag
// before the workload runs, and an output that cannot be written is refused before it runs.
func TestRunStepFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(t.TempDir()) // where --trace's default would go
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--schedule", "active=1,repeat=1", "--pprof", filepath.Join(dir, "p")}, "run: --pprof: with --schedule each cycle is a profile of its own"},
		{[]string{"--http", "127.0.0.1:0", "--steps", "1", "--pprof", filepath.Join(dir, "p")}, "run: --pprof: with --http the profiles go to the HTTP clients"},
		{[]string{"--steps", "1", "--pprof", filepath.Join(dir, "missing", "p")}, "run: --pprof " + filepath.Join(dir, "missing", "p") + ": cannot create the temporary file beside it"},
		{[]string{"--steps", "1", "--trace", dir}, "run: --trace " + dir + ": is a directory"},
		{[]string{"--pprof", filepath.Join(dir, "missing", "p")}, "run: --pprof"},
		{[]string{"--http-max-events", "10"}, "run: --http-max-events: needs --http"},
		{[]string{"--http", "127.0.0.1:0", "--steps", "1", "--http-max-events", "-5"}, "run: --http-max-events -5: must be -1 (no bound) or a count ≥ 1"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			assert.Equal(t, 2, dispatch(append([]string{"run"}, tc.args...), nil, &out, &errb))
			assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %q", errb.String())
			assert.Contains(t, errb.String(), tc.want)
			assert.Empty(t, out.String(), "refused before the workload runs")
		})
	}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, ents, "nothing written")
}
