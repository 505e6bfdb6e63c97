//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runTrace runs `orprof run --trace path` with a small workload and returns the exit code,
// stdout and stderr.
func runTrace(t *testing.T, path string, stdout io.Writer) (int, string) {
	t.Helper()
	var errb bytes.Buffer
	code := dispatch([]string{"run", "--device", "cpu", "--row-limit", "3", "--trace", path}, nil, stdout, &errb)
	return code, errb.String()
}

func requireTrace(t *testing.T, data []byte) {
	t.Helper()
	var doc struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	require.NotEmpty(t, doc.TraceEvents)
}

// TestRunTraceTargets: --trace writes through symbolic links (the link kept) and special files
// (FIFO, /dev/null), replaces a regular file only when complete, and "-" is stdout.
func TestRunTraceTargets(t *testing.T) {
	t.Run("regular file replaced", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "t.json")
		require.NoError(t, os.WriteFile(p, []byte("old"), 0o640))
		code, errs := runTrace(t, p, io.Discard)
		require.Equal(t, 0, code, errs)
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		requireTrace(t, data)
		st, _ := os.Stat(p)
		assert.Equal(t, fs.FileMode(0o640), st.Mode().Perm())
		assert.Len(t, entries(t, filepath.Dir(p)), 1, "no temporary file left")
	})
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "target.json")
		link := filepath.Join(dir, "link.json")
		require.NoError(t, os.Symlink(target, link))
		code, errs := runTrace(t, link, io.Discard)
		require.Equal(t, 0, code, errs)
		st, err := os.Lstat(link)
		require.NoError(t, err)
		assert.NotZero(t, st.Mode()&fs.ModeSymlink, "the link is kept")
		data, err := os.ReadFile(target)
		require.NoError(t, err)
		requireTrace(t, data)
	})
	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "trace.fifo")
		require.NoError(t, syscall.Mkfifo(fifo, 0o600))
		got := make(chan []byte, 1)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				got <- nil
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			got <- b
		}()
		code, errs := runTrace(t, fifo, io.Discard)
		require.Equal(t, 0, code, errs)
		requireTrace(t, <-got)
		st, err := os.Lstat(fifo)
		require.NoError(t, err)
		assert.NotZero(t, st.Mode()&fs.ModeNamedPipe, "still a FIFO")
	})
	t.Run("dev null", func(t *testing.T) {
		code, errs := runTrace(t, os.DevNull, io.Discard)
		require.Equal(t, 0, code, errs)
		st, err := os.Stat(os.DevNull)
		require.NoError(t, err)
		assert.NotZero(t, st.Mode()&fs.ModeCharDevice)
	})
	t.Run("stdout", func(t *testing.T) {
		var out bytes.Buffer
		code, errs := runTrace(t, "-", &out)
		require.Equal(t, 0, code, errs)
		requireTrace(t, out.Bytes())
		assert.Contains(t, errs, "Self CPU time total", "the table goes to stderr when stdout has the trace")
		assert.NotContains(t, errs, "trace written")
	})
}

// failAfter accepts n bytes, then fails every write with err.
type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) <= f.n {
		f.n -= len(p)
		return len(p), nil
	}
	n := f.n
	f.n = 0
	return n, f.err
}

// TestRunTraceWriteErrors: a write error is one line naming --trace, exit 2, and nothing
// partial left where a regular file was.
func TestRunTraceWriteErrors(t *testing.T) {
	t.Run("dev full", func(t *testing.T) {
		if _, err := os.Stat("/dev/full"); err != nil {
			t.Skip("/dev/full missing: " + err.Error())
		}
		code, errs := runTrace(t, "/dev/full", io.Discard)
		assert.Equal(t, 2, code)
		assert.Equal(t, "orprof: run: --trace /dev/full: write: no space left on device\n", errs)
	})
	t.Run("stdout closed", func(t *testing.T) {
		code, errs := runTrace(t, "-", &failAfter{n: 100, err: syscall.EPIPE})
		assert.Equal(t, 2, code)
		assert.True(t, strings.HasSuffix(errs, "orprof: run: --trace -: broken pipe\n"), errs)
	})
	t.Run("unwritable directory keeps the old file", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("running as root: a read-only directory does not stop root (internal/outfile's tests cover a write failing half-way)")
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "t.json")
		require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
		require.NoError(t, os.Chmod(dir, 0o555))
		defer os.Chmod(dir, 0o755)
		code, errs := runTrace(t, p, io.Discard)
		assert.Equal(t, 2, code)
		assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
		data, _ := os.ReadFile(p)
		assert.Equal(t, "old", string(data))
	})
	t.Run("missing directory", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "no", "such", "t.json")
		code, errs := runTrace(t, p, io.Discard)
		assert.Equal(t, 2, code)
		assert.Contains(t, errs, "--trace "+p+": ")
		assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	})
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}
