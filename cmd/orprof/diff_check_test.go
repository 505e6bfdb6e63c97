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

// TestDiffGroupingAndDevices: a diff of two summaries grouped differently is refused in one
// line naming both files, as merge refuses them (before, every op was "before only" or "after
// only"); a diff of a CUDA trace and an OpenReg trace labels each side with its own device.
func TestDiffGroupingAndDevices(t *testing.T) {
	dir := t.TempDir()
	trace := "../../testdata/kineto/cpu_only.json.gz"
	plain, byShape := filepath.Join(dir, "plain.json"), filepath.Join(dir, "shape.json")
	out, _ := run(t, "table", "--format", "json", trace)
	require.NoError(t, os.WriteFile(plain, []byte(out), 0o644))
	out, _ = run(t, "table", "--format", "json", "--group-by-input-shape", trace)
	require.NoError(t, os.WriteFile(byShape, []byte(out), 0o644))
	for _, args := range [][]string{{"diff", plain, byShape}, {"merge", plain, byShape}} {
		var o, errb bytes.Buffer
		assert.Equal(t, 2, dispatch(args, nil, &o, &errb), args[0])
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "%q", errb.String())
		assert.Contains(t, errb.String(), `shape.json" was grouped differently (group by input shape true, stack frames 0) from "`+plain+`"`, args[0])
		assert.Empty(t, o.String())
	}

	or := filepath.Join(dir, "openreg.json")
	run(t, "run", "--trace", or, "--row-limit", "0")
	out, _ = run(t, "diff", "--row-limit", "1", "../../testdata/kineto/rocm_mi250_train.json.gz", or)
	assert.Contains(t, out, "Self CUDA before")
	assert.Contains(t, out, "Self OPENREG after")
	assert.Contains(t, out, "Self device time total (CUDA -> OPENREG)")
	out, _ = run(t, "diff", "--row-limit", "1", or, or)
	assert.Contains(t, out, "Self OPENREG before")
	assert.Contains(t, out, "Self OPENREG after")
}

// TestReportDiffGrouping: orprof report --diff refuses the pair diff refuses.
func TestReportDiffGrouping(t *testing.T) {
	dir := t.TempDir()
	trace := "../../testdata/kineto/cpu_only.json.gz"
	plain, byStack := filepath.Join(dir, "plain.json"), filepath.Join(dir, "stack.json")
	out, _ := run(t, "table", "--format", "json", trace)
	require.NoError(t, os.WriteFile(plain, []byte(out), 0o644))
	out, _ = run(t, "table", "--format", "json", "--group-by-stack-n", "2", trace)
	require.NoError(t, os.WriteFile(byStack, []byte(out), 0o644))
	var o, errb bytes.Buffer
	assert.Equal(t, 2, dispatch([]string{"report", "--diff", "-o", filepath.Join(dir, "r.html"), plain, byStack}, nil, &o, &errb))
	assert.Contains(t, errb.String(), "report: --diff: ")
	assert.Contains(t, errb.String(), "stack frames 2) from ")
	assert.NoFileExists(t, filepath.Join(dir, "r.html"))
}
