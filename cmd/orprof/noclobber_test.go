//go:build unix

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

// smallTrace is a trace the no-clobber tests read: what a clobbered input would lose.
const smallTrace = `[{"name": "a", "ph": "X", "ts": 0, "dur": 10, "tid": 1, "pid": "CPU functions", "args": {}}]`

// TestNoClobberInputs: no command writes over one of its inputs, however the output names it
// (the same string, ./x, an absolute path, a symbolic link, a hard link): one line, exit 2,
// and the input is left as it was.
func TestNoClobberInputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("t.json", []byte(smallTrace), 0o644))
	require.NoError(t, os.Symlink("t.json", "sym.json"))
	require.NoError(t, os.Link("t.json", "hard.json"))
	conf := "k.conf"
	require.NoError(t, os.WriteFile(conf, []byte("ACTIVITIES_WARMUP_PERIOD_SECS = 0\n"), 0o644))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"pprof", "t.json", "-o", "t.json"}, "pprof: -o t.json: the same file as the input t.json"},
		{[]string{"pprof", "t.json", "-o", "./t.json"}, "pprof: -o ./t.json: the same file as the input t.json"},
		{[]string{"pprof", "t.json", "-o", filepath.Join(dir, "t.json")}, "the same file as the input t.json"},
		{[]string{"pprof", "sym.json", "-o", "t.json"}, "the same file as the input sym.json"},
		{[]string{"pprof", "t.json", "-o", "sym.json"}, "-o sym.json: the same file as the input t.json"},
		{[]string{"pprof", "t.json", "-o", "hard.json"}, "-o hard.json: the same file as the input t.json"},
		{[]string{"run", "--trace", conf}, "run: --trace k.conf: the same file as --config k.conf"},
		{[]string{"run", "--trace", "", "--pprof", "./" + conf, "--config", conf}, "run: --pprof ./k.conf: the same file as --config k.conf"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			args := tt.args
			if args[0] == "run" && !contains(args, "--config") {
				args = append(args, "--config", conf)
			}
			var out, errb bytes.Buffer
			assert.Equal(t, 2, dispatch(args, strings.NewReader(""), &out, &errb))
			assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %q", errb.String())
			assert.Contains(t, errb.String(), tt.want)
			got, err := os.ReadFile("t.json")
			require.NoError(t, err)
			assert.Equal(t, smallTrace, string(got), "the input is kept")
			got, err = os.ReadFile(conf)
			require.NoError(t, err)
			assert.Equal(t, "ACTIVITIES_WARMUP_PERIOD_SECS = 0\n", string(got), "the config is kept")
		})
	}
	// A new file beside the input is written.
	var out, errb bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"pprof", "t.json", "-o", "t.pb.gz"}, nil, &out, &errb), errb.String())
	require.FileExists(t, "t.pb.gz")
}

// TestRunOutputsDistinct: two outputs of one run that name the same file are refused with one
// line before the workload runs (nothing is written), however they spell it.
func TestRunOutputsDistinct(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("old.json", []byte("old"), 0o644))
	require.NoError(t, os.Symlink("old.json", "link.json"))
	require.NoError(t, os.Symlink("x", "dangling"))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--trace", "x", "--pprof", "x"}, "run: --pprof x: the same file as --trace x: one would replace the other"},
		{[]string{"--trace", "x", "--metrics", "GpuTime", "--metrics-out", "x"}, "--metrics-out x: the same file as --trace x"},
		{[]string{"--trace", "", "--pprof", "x", "--metrics", "GpuTime", "--metrics-out", "x"}, "--metrics-out x: the same file as --pprof x"},
		{[]string{"--trace", "./x", "--metrics", "GpuTime", "--metrics-out", "x"}, "--metrics-out x: the same file as --trace ./x"},
		{[]string{"--trace", "old.json", "--pprof", "link.json"}, "--pprof link.json: the same file as --trace old.json"},
		{[]string{"--trace", "dangling", "--pprof", "x"}, "--pprof x: the same file as --trace dangling"},
		{[]string{"--pprof", "trace.json"}, "--pprof trace.json: the same file as --trace trace.json"}, // --trace's default
		{[]string{"--steps", "1", "--trace", "x", "--pprof", "./x"}, "--pprof ./x: the same file as --trace x"},
		{[]string{"--trace", "-", "--pprof", "-"}, "run: --pprof -: --trace writes to stdout too"},
		{[]string{"--trace", "x", "--report", "./x"}, "--report ./x: the same file as --trace x"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append([]string{"run"}, tt.args...)
			assert.Equal(t, 2, dispatch(args, nil, &out, &errb))
			assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %q", errb.String())
			assert.Contains(t, errb.String(), tt.want)
			assert.Empty(t, out.String(), "refused before the workload runs")
			assert.NoFileExists(t, "x")
			got, _ := os.ReadFile("old.json")
			assert.Equal(t, "old", string(got))
		})
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
