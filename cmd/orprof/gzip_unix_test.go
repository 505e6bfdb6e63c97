//go:build unix

package main

import (
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGzipTraceDevFull: `--trace x.json.gz` through a link to /dev/full fails with the
// device's ENOSPC in one line and exit 2, however the compressing goroutines meet it, and the
// link stays.
func TestGzipTraceDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("/dev/full missing: " + err.Error())
	}
	link := filepath.Join(t.TempDir(), "t.json.gz")
	require.NoError(t, os.Symlink("/dev/full", link))
	code, errs := runTrace(t, link, io.Discard)
	assert.Equal(t, 2, code)
	assert.Equal(t, "orprof: run: --trace "+link+": write: no space left on device\n", errs)
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	st, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeSymlink, "the link is kept")
}

// TestGzipTraceFileTooLarge: when the disk refuses the compressed trace half-way (here the
// file size limit, EFBIG), `--trace x.json.gz` fails in one line with exit 2 and leaves the old
// file as it was and no partial or temporary file beside it. The limit is set in a child
// process, this test binary run again.
func TestGzipTraceFileTooLarge(t *testing.T) {
	if dir := os.Getenv("ORPROF_TEST_FSIZE_DIR"); dir != "" {
		// The child: at most 4 KiB per file, and the ~10 KB compressed trace of a small run.
		require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 4096, Max: 4096}))
		code, errs := runTrace(t, filepath.Join(dir, "t.json.gz"), io.Discard)
		os.Stderr.WriteString(errs)
		os.Exit(code)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "t.json.gz")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
	cmd := exec.Command(os.Args[0], "-test.run=^TestGzipTraceFileTooLarge$")
	cmd.Env = append(os.Environ(), "ORPROF_TEST_FSIZE_DIR="+dir)
	var errb strings.Builder
	cmd.Stderr = &errb
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "stderr: %s", errb.String())
	t.Logf("the child said: %s", errb.String())
	assert.Equal(t, 2, exit.ExitCode(), errb.String())
	assert.Contains(t, errb.String(), "orprof: run: --trace "+p+": ")
	assert.Contains(t, errb.String(), "file too large\n")
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "old", string(data), "the old file is kept")
	assert.Equal(t, []string{"t.json.gz"}, entries(t, dir), "no partial or temporary file left")
}
