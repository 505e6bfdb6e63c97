package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Bad input to orprof report: one line naming what is wrong, exit 2, no file written over
// (the inputs by any name: the same string, ./x, a symbolic link, a hard link, a file of an
// input directory).
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.json.gz")
	copyFile(t, filepath.Join("..", "..", "testdata", "kineto", "cpu_only.json.gz"), tr)
	orig, _ := os.ReadFile(tr)
	if err := os.Symlink(tr, filepath.Join(dir, "link.json.gz")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(tr, filepath.Join(dir, "hard.json.gz")); err != nil {
		t.Fatal(err)
	}
	rdir := filepath.Join(dir, "ranks")
	os.Mkdir(rdir, 0o755)
	copyFile(t, tr, filepath.Join(rdir, "r0.json.gz"))
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte(`{"traceEvents":[]}`), 0o644)
	sum := filepath.Join(dir, "sum.json")
	os.WriteFile(sum, runCLI(t, "table", "--format", "json", tr), 0o644)
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"report"}, "", "report: need a TRACE argument"},
		{[]string{"report", "--diff", tr}, "", "--diff needs BEFORE and AFTER, got 1"},
		{[]string{"report", "--bogus", tr}, "", "report: unknown flag --bogus; run 'orprof report -h'"},
		{[]string{"report", "--group-by-stack-n", "-1", tr}, "", "--group-by-stack-n -1: must be ≥ 0"},
		{[]string{"report", "-o", tr, tr}, "", "the same file as the input"},
		{[]string{"report", "-o", filepath.Join(dir, ".", "t.json.gz"), tr}, "", "the same file as the input"},
		{[]string{"report", "-o", filepath.Join(dir, "link.json.gz"), tr}, "", "the same file as the input"},
		{[]string{"report", "-o", filepath.Join(dir, "hard.json.gz"), tr}, "", "the same file as the input"},
		{[]string{"report", "-o", tr, "--diff", sum, tr}, "", "the same file as the input"},
		{[]string{"report", "-o", filepath.Join(rdir, "r0.json.gz"), rdir}, "", "the same file as the input"},
		{[]string{"report", "-o", dir, tr}, "", "is a directory"},
		{[]string{"report", "-"}, "[]", "reading stdin: give -o FILE"},
		{[]string{"report", "-o", "-", "-", tr}, "", "- (stdin) can only be read alone"},
		{[]string{"report", filepath.Join(dir, "missing.json")}, "", "missing.json"},
		{[]string{"report", "-o", filepath.Join(dir, "e.html"), empty}, "", "report: no operators in"},
		{[]string{"report", "-o", filepath.Join(dir, "e.html"), "--diff", tr, empty}, "", "report: no operators in"},
		{[]string{"report", "--group-by-input-shape", "-o", filepath.Join(dir, "s.html"), sum}, "", "chosen when summaries are written"},
		{[]string{"run", "--report", filepath.Join(dir, "r.html"), "--trace", filepath.Join(dir, "r.html")}, "", "the same file as --trace"},
		{[]string{"run", "--report", filepath.Join(dir, "r.html"), "--loop"}, "", "--report: a report is of one profile"},
		{[]string{"run", "--report", "-"}, "", "--report -: stdout has the table"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch(c.args, strings.NewReader(c.stdin), &out, &errb)
			if code != 2 || !strings.Contains(errb.String(), c.want) || strings.Count(errb.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", code, errb.String(), c.want)
			}
			if b, _ := os.ReadFile(tr); !bytes.Equal(b, orig) {
				t.Fatal("the input trace was changed")
			}
		})
	}
}

// The report's default place is beside its input; -o - is stdout; a directory of ranks and a
// diff get their own default names.
func TestReportOutputs(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "step.json.gz")
	copyFile(t, filepath.Join("..", "..", "testdata", "kineto", "rocm_mi250_train.json.gz"), tr)
	rdir := filepath.Join(dir, "ranks")
	os.Mkdir(rdir, 0o755)
	copyFile(t, tr, filepath.Join(rdir, "r0.json.gz"))
	copyFile(t, tr, filepath.Join(rdir, "r1.json.gz"))
	for _, c := range []struct {
		args []string
		file string
	}{
		{[]string{"report", tr}, filepath.Join(dir, "step.report.html")},
		{[]string{"report", rdir + "/"}, filepath.Join(dir, "ranks.report.html")},
		{[]string{"report", "--diff", filepath.Join(rdir, "r0.json.gz"), tr}, filepath.Join(dir, "step.diff.report.html")},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(c.args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errb.String())
		}
		b, err := os.ReadFile(c.file)
		if err != nil || !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) {
			t.Errorf("%v: %s: %v", c.args, c.file, err)
		}
		if !strings.Contains(errb.String(), "report written to "+c.file) {
			t.Errorf("%v: stderr %q", c.args, errb.String())
		}
	}
	out := runCLI(t, "report", "-o", "-", tr)
	if !bytes.HasPrefix(out, []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(out, []byte("</html>\n")) {
		t.Errorf("-o - wrote %d bytes that are not a page", len(out))
	}
	// A trace on stdin.
	b, _ := os.ReadFile(tr)
	var so, se bytes.Buffer
	if code := dispatch([]string{"report", "-o", "-", "-"}, bytes.NewReader(b), &so, &se); code != 0 || !bytes.Contains(so.Bytes(), []byte(`"title":"-"`)) {
		t.Errorf("stdin: exit %d, %s", code, se.String())
	}
	// orprof run --report.
	rep := filepath.Join(dir, "run.html")
	runCLI(t, "run", "--report", rep, "--trace", "")
	if b, err := os.ReadFile(rep); err != nil || !bytes.Contains(b, []byte("orprof run --workload mlp")) {
		t.Errorf("run --report: %v", err)
	}
}

// A report of any trace in testdata is at most 5 MB.
func TestReportSize(t *testing.T) {
	const limit = 5 << 20
	dir := t.TempDir()
	root := filepath.Join("..", "..", "testdata")
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".json.gz")) || strings.Contains(p, "fuzz") {
			return nil
		}
		if strings.Contains(p, "pytorch-1.13") && !strings.HasSuffix(p, "trace.json") {
			return nil
		}
		out := filepath.Join(dir, "r.html")
		var so, se bytes.Buffer
		if code := dispatch([]string{"report", "-o", out, p}, strings.NewReader(""), &so, &se); code != 0 {
			t.Errorf("%s: exit %d: %s", p, code, se.String())
			return nil
		}
		st, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > limit {
			t.Errorf("%s: report of %d bytes, above %d", p, st.Size(), limit)
		}
		t.Logf("%s: %d bytes", p, st.Size())
		n++
		return nil
	})
	if n < 10 {
		t.Errorf("only %d traces reported", n)
	}
}
