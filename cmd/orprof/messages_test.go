package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orprofIn runs orprof with args in dir (relative paths resolve there) and returns the exit
// code and both outputs.
func orprofIn(t *testing.T, dir string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	if dir != "" {
		t.Chdir(dir)
	}
	var out, errb bytes.Buffer
	code := dispatch(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestMessagesUserCanActOn: each bad input of issue 27's "Messages a user cannot act on" gets
// one line on stderr that names what is wrong as the user gave it (the file, the flag or the
// environment variable), and exit 2.
func TestMessagesUserCanActOn(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644))
	}
	// Two summaries grouped differently, and one of another device.
	code, _, stderr := orprofIn(t, dir, "", "run", "--trace", "t.json", "--row-limit", "0")
	require.Equal(t, 0, code, stderr)
	for _, c := range [][]string{
		{"s1.json", "table", "--format", "json", "t.json"},
		{"s2.json", "table", "--format", "json", "--group-by-input-shape", "t.json"},
	} {
		code, out, stderr := orprofIn(t, dir, "", c[1:]...)
		require.Equal(t, 0, code, stderr)
		write(c[0], out)
	}
	write("bad.cfg", "FOO\n")
	write("empty.json", `{"traceEvents": []}`)
	write("meta.json", `{"traceEvents": [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "x"}}]}`)
	write("array.json", `[]`)

	tests := []struct {
		name  string
		env   map[string]string
		stdin string
		args  []string
		want  []string
	}{
		{"merge names the file", nil, "", []string{"merge", "s1.json", "s2.json"},
			[]string{`merge: "s2.json" was grouped differently`, `from "s1.json"`}},
		{"--steps 0", nil, "", []string{"run", "--steps", "0"},
			[]string{"run: --steps 0: must be ≥ 1", "run 'orprof run -h'"}},
		{"empty trace", nil, "", []string{"table", "empty.json"}, []string{`table: no operators in "empty.json"`}},
		{"metadata-only trace", nil, "", []string{"table", "meta.json"}, []string{`table: no operators in "meta.json"`}},
		{"empty legacy array", nil, "", []string{"table", "array.json"}, []string{`table: no operators in "array.json"`}},
		{"empty trace on stdin", nil, `{"traceEvents": []}`, []string{"table", "-"}, []string{`no operators in "<stdin>"`}},
		{"pprof of an empty trace", nil, "", []string{"pprof", "empty.json", "-o", "e.pb.gz"}, []string{`pprof: no operators in "empty.json"`}},
		{"diff with an empty trace", nil, "", []string{"diff", "t.json", "meta.json"}, []string{`diff: no operators in "meta.json"`}},
		{"empty traces", nil, "", []string{"table", "empty.json", "meta.json"},
			[]string{`table: no operators in any of the 2 inputs ("empty.json", …)`}},
		{"KINETO_CONFIG", map[string]string{"KINETO_CONFIG": "bad.cfg"}, "", []string{"run", "--trace", ""},
			[]string{"run: $KINETO_CONFIG: kineto config bad.cfg:1"}},
		{"--config", nil, "", []string{"run", "--trace", "", "--config", "bad.cfg"},
			[]string{"run: --config: kineto config bad.cfg:1"}},
		{"table --sort-by", nil, "", []string{"table", "--sort-by", "nope", "t.json"},
			[]string{`table: --sort-by "nope": FunctionEventAvg has no such attribute`, "; run 'orprof table -h'"}},
		{"table --format", nil, "", []string{"table", "--format", "nope", "t.json"},
			[]string{`table: --format "nope"`, "; run 'orprof table -h'"}},
		{"table --row-limit", nil, "", []string{"table", "--row-limit", "-5", "t.json"},
			[]string{"table: --row-limit -5", "; run 'orprof table -h'"}},
		{"merge --format", nil, "", []string{"merge", "--format", "x", "s1.json"}, []string{"; run 'orprof merge -h'"}},
		{"run --sort-by", nil, "", []string{"run", "--sort-by", "x"}, []string{"; run 'orprof run -h'"}},
		{"diff --format", nil, "", []string{"diff", "--format", "x", "t.json", "t.json"}, []string{"; run 'orprof diff -h'"}},
		{"diff --row-limit", nil, "", []string{"diff", "--row-limit", "-3", "t.json", "t.json"}, []string{"; run 'orprof diff -h'"}},
		{"long --format is quoted short", nil, "", []string{"table", "--format", strings.Repeat("x", 5000), "t.json"},
			[]string{`--format "xxxx`, `"…: must be`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KINETO_CONFIG", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, stdout, stderr := orprofIn(t, dir, tc.stdin, tc.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, stdout)
			require.Len(t, lines(stderr), 1, "one line: %q", stderr)
			assert.Less(t, len(stderr), 400)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
}

// TestWarningPlurals: a count of one is not written as a plural.
func TestWarningPlurals(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := orprofIn(t, dir, "", "run", "--device", "cpu", "--trace", "a.json", "--row-limit", "0")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = orprofIn(t, dir, "", "run", "--device", "cpu", "--trace", "b.json", "--row-limit", "0")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = orprofIn(t, dir, "", "table", "--row-limit", "0", "a.json", "b.json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "rank 0 is claimed by more than one trace (1 rank repeats)")
	assert.NotContains(t, stderr, "1 ranks")
}

// TestNoOperatorsOneLine: a trace whose only event is malformed has no operators: one line
// says so and why (the skipped event), not a warning and an error.
func TestNoOperatorsOneLine(t *testing.T) {
	code, stdout, stderr := orprofIn(t, "", `[{"name": "a", "ph": "X", "ts": 1, "dur": -5}]`, "table", "-")
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	require.Len(t, lines(stderr), 1, stderr)
	assert.Contains(t, stderr, `table: no operators in "<stdin>"; <stdin>: skipped 1 malformed or unknown trace event (it is at byte`)
}

// TestDashIsStdio: "-" is stdout for --pprof and pprof -o (no file named "-" is written), and
// stdin for diff, as it is for table and --trace.
func TestDashIsStdio(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := orprofIn(t, dir, "", "run", "--trace", "t.json", "--row-limit", "0")
	require.Equal(t, 0, code, stderr)

	// run --pprof -: the profile on stdout, the table on stderr.
	code, stdout, stderr := orprofIn(t, dir, "", "run", "--trace", "", "--pprof", "-", "--row-limit", "3")
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "\x1f\x8b"), "a gzip-compressed profile on stdout")
	assert.Contains(t, stderr, "Self CPU time total", "the table on stderr")
	// pprof -o -: the same bytes as -o FILE.
	code, stdout, stderr = orprofIn(t, dir, "", "pprof", "t.json", "-o", "-")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = orprofIn(t, dir, "", "pprof", "t.json", "-o", "p.pb.gz")
	require.Equal(t, 0, code, stderr)
	file, err := os.ReadFile(filepath.Join(dir, "p.pb.gz"))
	require.NoError(t, err)
	assert.Equal(t, file, []byte(stdout))
	assert.NoFileExists(t, filepath.Join(dir, "-"))
	// Two outputs on stdout are refused.
	code, _, stderr = orprofIn(t, dir, "", "run", "--trace", "-", "--pprof", "-")
	assert.Equal(t, 2, code)
	assert.Len(t, lines(stderr), 1)

	// diff -: a summary or a trace on stdin against a file.
	code, sum, stderr := orprofIn(t, dir, "", "table", "--format", "json", "t.json")
	require.Equal(t, 0, code, stderr)
	trace, err := os.ReadFile(filepath.Join(dir, "t.json"))
	require.NoError(t, err)
	for _, in := range []string{sum, string(trace)} {
		code, stdout, stderr = orprofIn(t, dir, in, "diff", "-", "t.json")
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, "(0.000us, 0.0%)", "the same profile on both sides")
	}
	code, _, stderr = orprofIn(t, dir, "", "diff", "-", "-")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "- (stdin) can be only one of BEFORE and AFTER")
}

// TestOpenCLKernelModeFinalCopies: orprof's own OpenCL trace in kernel mode without the
// runtime activity, read back: the weights read back after the last op reached no operator,
// and the warning says so instead of blaming a CUDA graph replay.
func TestOpenCLKernelModeFinalCopies(t *testing.T) {
	needOpenCL(t)
	dir := t.TempDir()
	code, _, stderr := orprofIn(t, dir, "", "run", "--device", "opencl", "--activities", "cpu_op,kernel,gpu_memcpy",
		"--trace", "ocl.json", "--row-limit", "0")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = orprofIn(t, dir, "", "table", "--row-limit", "0", "ocl.json")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "CUDA")
	if strings.Contains(stderr, "reached no operator") {
		assert.Contains(t, stderr, "ran after every operator had ended")
	}
}

func TestCountNoun(t *testing.T) {
	assert.Equal(t, "1 rank repeats", countNoun(1, "rank repeats", "ranks repeat"))
	assert.Equal(t, "2 ranks repeat", countNoun(2, "rank repeats", "ranks repeat"))
	assert.Equal(t, "0 steps", countNoun(0, "step", "steps"))
}
