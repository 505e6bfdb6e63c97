// Package golden compares test output with golden files and rewrites them when the tests run
// with -update (`go test ./... -update`, as google/pprof and the Go tools do). Every package
// with tests imports it (a blank import where it has no golden file), so that the flag is
// defined in each test binary the command builds.
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with the output of the tests")

// Update reports whether the tests run with -update.
func Update() bool { return *update }

// Check compares got with the file at path; under -update it writes got there instead. A
// mismatch fails t with a line diff of the two. A missing file fails t (run with -update to
// create it); it never skips.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (run go test -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs (- golden, + got; go test -update rewrites it):\n%s", path, Diff(string(want), string(got)))
	}
}

// Diff is a line diff of want and got for a test failure: each differing line quoted (so
// trailing spaces and control characters show), "-" for want's and "+" for got's, with the
// line number, at most 40 lines. It is "" when they are equal.
func Diff(want, got string) string {
	if want == got {
		return ""
	}
	a, b := strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n")
	// Longest common subsequence over lines; inputs here are tables and small traces.
	if len(a)*len(b) > 4e6 {
		return fmt.Sprintf("(too long to diff: %d and %d lines; first difference at byte %d)", len(a), len(b), firstDiff(want, got))
	}
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	lines := 0
	emit := func(sign byte, n int, s string) {
		if lines++; lines <= 40 {
			fmt.Fprintf(&out, "%c%4d %q\n", sign, n+1, s)
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			emit('-', i, a[i])
			i++
		default:
			emit('+', j, b[j])
			j++
		}
	}
	if lines > 40 {
		fmt.Fprintf(&out, "… and %d more differing lines\n", lines-40)
	}
	return out.String()
}

func firstDiff(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
