//go:build unix

package outfile

import (
	"errors"
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

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// entries lists dir, so that tests can see no temporary file is left behind.
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

func TestWriteRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	require.NoError(t, Write(p, writeString("one")))
	got, _ := os.ReadFile(p)
	assert.Equal(t, "one", string(got))

	require.NoError(t, os.Chmod(p, 0o600))
	require.NoError(t, Write(p, writeString("two")))
	got, _ = os.ReadFile(p)
	assert.Equal(t, "two", string(got))
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), st.Mode().Perm(), "the replaced file keeps its mode")

	err = Write(p, func(w io.Writer) error {
		_, _ = io.WriteString(w, "partial")
		return errors.New("boom")
	})
	require.EqualError(t, err, "boom")
	got, _ = os.ReadFile(p)
	assert.Equal(t, "two", string(got), "a failed write leaves the old file")
	assert.Equal(t, []string{"out.json"}, entries(t, dir), "no temporary file left")

	require.NoError(t, os.WriteFile(p+".tmp", []byte("mine"), 0o644))
	require.NoError(t, Write(p, writeString("three")))
	got, _ = os.ReadFile(p + ".tmp")
	assert.Equal(t, "mine", string(got), "PATH.tmp is not the temporary file")
}

func TestWriteSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "sub", "target.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("sub/target.json", link))
	require.NoError(t, Write(link, writeString("new")))
	st, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeSymlink, "the link is kept")
	got, _ := os.ReadFile(target)
	assert.Equal(t, "new", string(got), "its target is written")

	dangling := filepath.Join(dir, "dangling.json")
	require.NoError(t, os.Symlink("created.json", dangling))
	require.NoError(t, Write(dangling, writeString("made")))
	got, _ = os.ReadFile(filepath.Join(dir, "created.json"))
	assert.Equal(t, "made", string(got))

	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	assert.ErrorContains(t, Write(loop, writeString("x")), "symbolic links")
}

func TestWriteSpecialFiles(t *testing.T) {
	require.NoError(t, Write(os.DevNull, writeString("discarded")))

	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("/dev/full missing: " + err.Error())
	}
	err := Write("/dev/full", writeString(strings.Repeat("x", 1<<16)))
	require.Error(t, err)
	assert.True(t, errors.Is(err, syscall.ENOSPC), "%v", err)
	st, err := os.Stat("/dev/full")
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeCharDevice, "/dev/full is still a device")

	assert.ErrorContains(t, Write(t.TempDir(), writeString("x")), "is a directory")
	assert.Error(t, Write(filepath.Join(t.TempDir(), "missing", "x.json"), writeString("x")))
}

func TestWriteFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo: " + err.Error())
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	require.NoError(t, Write(fifo, writeString("through the pipe")))
	assert.Equal(t, "through the pipe", <-got)
	st, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeNamedPipe, "the FIFO is still a FIFO")
	assert.Equal(t, []string{"fifo"}, entries(t, dir))

	// A reader that goes away: the write fails with EPIPE.
	go func() {
		f, err := os.Open(fifo)
		if err == nil {
			f.Close()
		}
	}()
	err = Write(fifo, func(w io.Writer) error {
		buf := make([]byte, 1<<16)
		for range 1 << 10 { // 64 MB at most, far more than a pipe holds
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	})
	require.Error(t, err)
	assert.True(t, errors.Is(err, syscall.EPIPE), "%v", err)
}

// TestWriteTempFileError: when the temporary file cannot be created beside the target (a
// directory that is not writable, or missing), the error says that is what failed: a bare
// "permission denied" for a file the user may write reads as nonsense.
func TestWriteTempFileError(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, path string
		errno      error
	}{
		{"missing directory", filepath.Join(dir, "nope", "out.json"), syscall.ENOENT},
	}
	ro := filepath.Join(dir, "ro")
	require.NoError(t, os.Mkdir(ro, 0o555))
	if f, err := os.CreateTemp(ro, "probe"); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Log("running as root: a read-only directory is writable, only the missing directory is checked")
	} else {
		cases = append(cases, struct {
			name, path string
			errno      error
		}{"read-only directory", filepath.Join(ro, "out.json"), syscall.EACCES})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Write(c.path, writeString("x"))
			require.Error(t, err)
			assert.ErrorIs(t, err, c.errno)
			assert.Contains(t, err.Error(), "cannot create the temporary file beside it in "+filepath.Dir(c.path)+" (")
			assert.NotContains(t, err.Error(), "out.json", "the caller names the file")
		})
	}
}
