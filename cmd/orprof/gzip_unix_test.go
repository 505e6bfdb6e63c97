//go:build unix

package main

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
