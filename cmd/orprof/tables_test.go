package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/orprof/orprof/internal/tracetest"
	"github.com/orprof/orprof/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRowLimitZeroEverywhere: --row-limit 0 means no rows, the totals still, in every command
// that takes it (docs/cli.md): one row fewer than --row-limit 1, exit 0.
func TestRowLimitZeroEverywhere(t *testing.T) {
	trace := "../../testdata/kineto/rocm_mi250_train.json.gz"
	dir := t.TempDir()
	ks := filepath.Join(dir, "k.json")
	out, _ := run(t, "kernels", "--format", "json", trace)
	writeFile(t, ks, out)
	ts := filepath.Join(dir, "t.json")
	out, _ = run(t, "table", "--format", "json", trace)
	writeFile(t, ts, out)
	for _, args := range [][]string{
		{"table", trace}, {"table", "--format", "markdown", trace}, {"merge", ts, ts},
		{"diff", trace, trace}, {"kernels", trace}, {"kernels", "--format", "markdown", trace},
		{"merge", ks, ks}, {"diff", ks, ks},
	} {
		one, _ := run(t, append([]string{args[0], "--row-limit", "1"}, args[1:]...)...)
		none, _ := run(t, append([]string{args[0], "--row-limit", "0"}, args[1:]...)...)
		assert.Equal(t, strings.Count(one, "\n")-1, strings.Count(none, "\n"), "%v:\n%s\n---\n%s", args, one, none)
		assert.Contains(t, none, "total", "%v: the totals still", args)
	}
}

// writeIn writes data to dir/name and returns the path.
func writeIn(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHTTPMaxEventsZero: --http-max-events 0 is refused, as a 0 bound meant the default here and
// no bound in orprof.CaptureOptions; -1 is no bound, N ≥ 1 a bound, everywhere.
func TestHTTPMaxEventsZero(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--http", "127.0.0.1:0", "--steps", "1", "--http-max-events", "0"},
		{"run", "--http-max-events", "0"},
	} {
		var out, errb strings.Builder
		code := dispatch(args, nil, &out, &errb)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, out.String(), "%v", args)
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "%v: one line: %s", args, errb.String())
		assert.Contains(t, errb.String(), "--http-max-events", "%v", args)
	}
}

// TestMarkdownOneStyle: every markdown table of a document is in one style (package text,
// tablewriter's): table --by-rank printed its rank tables in another.
func TestMarkdownOneStyle(t *testing.T) {
	a, b := "../../testdata/kineto/rocm_mi250_train.json.gz", "../../testdata/kineto/cuda_alexnet.json.gz"
	dir := t.TempDir()
	ks := filepath.Join(dir, "k.json")
	out, _ := run(t, "kernels", "--format", "json", a)
	writeFile(t, ks, out)
	align := regexp.MustCompile(`^\|(:?-+:?\|)+$`)
	for _, args := range [][]string{
		{"table", "--by-rank", "--format", "markdown", a, b}, {"kernels", "--format", "markdown", a},
		{"timeline", "--format", "markdown", a}, {"diff", "--format", "markdown", a, b}, {"diff", "--format", "markdown", ks, ks},
	} {
		out, _ := run(t, args...)
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "|") && strings.Contains(l, "---") {
				n++
				assert.Regexp(t, align, l, "%v", args)
			}
		}
		assert.Positive(t, n, "%v: no table", args)
	}
}

// TestCSVSafe: no CSV of any command holds a raw control character or a cell a spreadsheet
// runs as a formula (docs/cli.md, "Tables"); negative numbers stay numbers.
func TestCSVSafe(t *testing.T) {
	tr := tracetest.Session(400)
	for i := range tr.Events {
		switch e := &tr.Events[i]; {
		case e.Cat == "kernel" && i%3 == 0:
			e.Name = "=HYPERLINK(\"http://x\")\x1b[31m"
		case e.Cat == "cpu_op" && i%5 == 0:
			e.Name = "-cmd|' /C calc'!A0\n"
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "t.json")
	var b strings.Builder
	require.NoError(t, trace.Write(&b, tr))
	writeFile(t, p, b.String())
	q := filepath.Join(dir, "u.json")
	writeFile(t, q, strings.Replace(b.String(), `"dur": 2.000`, `"dur": 1.000`, -1))
	for _, args := range [][]string{
		{"table", "--format", "csv", p}, {"kernels", "--format", "csv", p}, {"timeline", "--format", "csv", p},
		{"diff", "--format", "csv", p, q},
	} {
		out, _ := run(t, args...)
		cr := csv.NewReader(strings.NewReader(out))
		cr.FieldsPerRecord = -1 // timeline: a table per view
		recs, err := cr.ReadAll()
		require.NoError(t, err, "%v", args)
		formulas := 0
		for _, r := range recs {
			for _, c := range r {
				for _, ch := range c {
					require.False(t, ch < 0x20 || ch == 0x7f, "%v: control character in %q", args, c)
				}
				if c != "" && strings.ContainsRune("=+-@", rune(c[0])) {
					_, err := strconv.ParseFloat(c, 64)
					require.NoError(t, err, "%v: a formula cell %q", args, c)
				}
				if strings.HasPrefix(c, "'=") || strings.HasPrefix(c, "'-") {
					formulas++
				}
			}
		}
		if args[0] != "timeline" {
			assert.Positive(t, formulas, "%v: the names are there, defused", args)
		}
	}
}
