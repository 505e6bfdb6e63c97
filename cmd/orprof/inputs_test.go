package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDirectoryWithFIFO: a FIFO named x.json in a directory of traces is skipped with a
// warning naming it, never opened: every command that reads directories finishes (it hung).
func TestDirectoryWithFIFO(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "r0.json.gz"), mustRead(t, viewTraces[0]), 0o644))
	if err := syscall.Mkfifo(filepath.Join(dir, "x.json"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	for _, args := range [][]string{{"table", dir}, {"kernels", dir}, {"timeline", dir}, {"merge", dir}, {"report", "-o", "-", dir},
		{"diff", dir, dir}} {
		done := make(chan [3]string, 1)
		go func() {
			code, out, errOut := cliRun(nil, args...)
			done <- [3]string{fmt.Sprint(code), out, errOut}
		}()
		select {
		case r := <-done:
			assert.Equal(t, "0", r[0], "%v: %s", args, r[2])
			assert.NotEmpty(t, r[1], "%v", args)
			assert.Contains(t, r[2], `x.json": skipped: a FIFO, not a regular file`, "%v", args)
		case <-time.After(60 * time.Second):
			t.Fatalf("orprof %v: still running after 60 s (the FIFO was opened)", args)
		}
	}
}

// TestCorruptGzip: a byte flipped inside a .gz is reported as a corrupt gzip stream (what
// gzip -t says), not as the JSON error the wrong bytes it decodes to give.
func TestCorruptGzip(t *testing.T) {
	dir := t.TempDir()
	data := mustRead(t, "../../testdata/kineto/cuda_alexnet.json.gz")
	data[len(data)/2] ^= 0x55
	bad := filepath.Join(dir, "c.json.gz")
	require.NoError(t, os.WriteFile(bad, data, 0o644))
	sum := runCLI(t, "kernels", "--format", "json", viewTraces[0])
	zs := gzipBytes(t, sum)
	zs[len(zs)-6] ^= 0xff // its CRC-32
	badSum := filepath.Join(dir, "k.json.gz")
	require.NoError(t, os.WriteFile(badSum, zs, 0o644))
	for _, c := range []struct {
		args  []string
		stdin []byte
	}{
		{[]string{"table", bad}, nil}, {[]string{"table", "-"}, data}, {[]string{"kernels", bad}, nil},
		{[]string{"timeline", bad}, nil}, {[]string{"merge", bad}, nil}, {[]string{"report", "-o", "-", bad}, nil},
		{[]string{"kernels", badSum}, nil}, {[]string{"merge", badSum}, nil},
	} {
		code, out, errOut := cliRun(c.stdin, c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Empty(t, out, "%v", c.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line: %q", c.args, errOut)
		assert.Contains(t, errOut, "the gzip stream is corrupt", "%v", c.args)
		assert.NotContains(t, errOut, "expected", "%v: not a JSON error", c.args)
	}
}

// TestResavedSummaries: a timeline, kernels or table summary re-saved by a JSON tool (keys
// sorted, another indentation: jq -S, python3 -m json.tool --sort-keys) reads back as the
// summary it was; the timeline's was refused as "not a trace".
func TestResavedSummaries(t *testing.T) {
	dir := t.TempDir()
	tr := viewTraces[0]
	for _, cmd := range []string{"timeline", "kernels", "merge"} {
		write := cmd
		if cmd == "merge" {
			write = "table"
		}
		doc := runCLI(t, write, "--format", "json", tr)
		var generic any
		require.NoError(t, json.Unmarshal(doc, &generic))
		resaved, err := json.MarshalIndent(generic, "", "\t")
		require.NoError(t, err)
		orig, re := filepath.Join(dir, write+".json"), filepath.Join(dir, write+".resaved.json")
		require.NoError(t, os.WriteFile(orig, doc, 0o644))
		require.NoError(t, os.WriteFile(re, resaved, 0o644))
		want := runCLI(t, cmd, orig)
		code, got, errOut := cliRun(nil, cmd, re)
		require.Equal(t, 0, code, "%s: %s", cmd, errOut)
		assert.Equal(t, string(want), strings.ReplaceAll(got, re, orig), cmd)
		code, got, errOut = cliRun(resaved, cmd, "-")
		require.Equal(t, 0, code, "%s -: %s", cmd, errOut)
		assert.NotEmpty(t, got)
	}
}

// TestDefaultReportName: the report's default name comes from the first input; several
// inputs are named after the first and how many follow it (it came from the last).
func TestDefaultReportName(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json.gz"), filepath.Join(dir, "b.json.gz")
	require.NoError(t, os.WriteFile(a, mustRead(t, viewTraces[0]), 0o644))
	require.NoError(t, os.WriteFile(b, mustRead(t, viewTraces[0]), 0o644))
	code, _, errOut := cliRun(nil, "report", "--format", "json", a, b)
	require.Equal(t, 0, code, errOut)
	assert.FileExists(t, filepath.Join(dir, "a.and-1-more.report.json"))
	assert.NoFileExists(t, filepath.Join(dir, "b.report.json"))
	code, _, errOut = cliRun(nil, "report", "--format", "json", b)
	require.Equal(t, 0, code, errOut)
	assert.FileExists(t, filepath.Join(dir, "b.report.json"))
	for _, c := range []struct {
		in   []string
		diff bool
		want string
	}{
		{[]string{"x.json.gz"}, false, "x.report.html"},
		{[]string{"d/x.json", "d/y.json", "d/z.json"}, false, "d/x.and-2-more.report.html"},
		{[]string{"before.json", "after.json.gz"}, true, "after.diff.report.html"},
		{[]string{"runs/"}, false, "runs.report.html"},
	} {
		assert.Equal(t, filepath.FromSlash(c.want), defaultReportPath(c.in, c.diff, false), "%v", c.in)
	}
}

// TestFIFOArgument: a FIFO given by name (as <(zcat t.json.gz) gives one) is read once, in
// full: kernels, timeline, merge and report read it (they opened it twice, the second time
// empty).
func TestFIFOArgument(t *testing.T) {
	dir := t.TempDir()
	data := mustRead(t, viewTraces[0])
	file := filepath.Join(dir, "t.json.gz")
	require.NoError(t, os.WriteFile(file, data, 0o644))
	for _, args := range [][]string{{"table"}, {"kernels"}, {"timeline"}, {"merge"}, {"report", "-o", "-"}} {
		fifo := filepath.Join(dir, args[0]+".json")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("no FIFO here: %v", err)
		}
		go func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Write(data)
				f.Close()
			}
		}()
		done := make(chan [3]string, 1)
		go func() {
			code, out, errOut := cliRun(nil, append(args, fifo)...)
			done <- [3]string{fmt.Sprint(code), out, errOut}
		}()
		select {
		case r := <-done:
			require.Equal(t, "0", r[0], "%v: %s", args, r[2])
			if args[0] != "report" {
				_, want, _ := cliRun(nil, append(args, file)...)
				assert.Equal(t, want, strings.ReplaceAll(r[1], fifo, file), "%v", args)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("orprof %v FIFO: still running after 60 s", args)
		}
	}
}
