//go:build unix

package outfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckDistinct(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("t.json", []byte("{}"), 0o644))
	require.NoError(t, os.Link("t.json", "hard.json"))
	require.NoError(t, os.Symlink("t.json", "sym.json"))
	require.NoError(t, os.Symlink("new.json", "dangling.json"))
	require.NoError(t, os.Mkdir("sub", 0o755))
	require.NoError(t, os.Symlink(".", "here"))
	require.NoError(t, os.WriteFile("other.json", []byte("{}"), 0o644))

	in := func(p string) []File { return []File{{"the input", p}} }
	out := func(ps ...string) []File {
		var fs []File
		for i, p := range ps {
			fs = append(fs, File{[]string{"--trace", "--pprof", "--metrics-out"}[i], p})
		}
		return fs
	}
	for _, tc := range []struct {
		name    string
		outs    []File
		ins     []File
		wantErr string
	}{
		{"output is the input", out("t.json"), in("t.json"), `--trace t.json: the same file as the input t.json: it would be written over`},
		{"dot slash", out("./t.json"), in("t.json"), "the same file as the input"},
		{"absolute", out(filepath.Join(dir, "t.json")), in("t.json"), "the same file as the input"},
		{"dot dot", out("sub/../t.json"), in("t.json"), "the same file as the input"},
		{"hard link", out("hard.json"), in("t.json"), "the same file as the input"},
		{"symlink to the input", out("sym.json"), in("t.json"), "the same file as the input"},
		{"input through a symlink", out("t.json"), in("sym.json"), "the same file as the input"},
		{"symlinked directory", out("here/t.json"), in("t.json"), "the same file as the input"},
		{"other file", out("other.json"), in("t.json"), ""},
		{"new file", out("new.json"), in("t.json"), ""},
		{"stdin and stdout", out("-"), in("-"), ""},
		{"no output", out(""), in("t.json"), ""},
		{"two outputs", out("x.json", "x.json"), nil, `--pprof x.json: the same file as --trace x.json: one would replace the other`},
		{"two new outputs, ./x and x", out("./x.json", "x.json"), nil, "the same file as --trace"},
		{"two new outputs through a symlinked directory", out("here/x.json", "x.json"), nil, "the same file as --trace"},
		{"dangling link and its target", out("dangling.json", "new.json"), nil, "the same file as --trace"},
		{"existing output and its symlink", out("other.json", "t.json", "sym.json"), nil, `--metrics-out sym.json: the same file as --pprof t.json`},
		{"two outputs on stdout", out("-", "-"), nil, "--pprof -: --trace writes to stdout too"},
		{"stdout and a file", out("-", "x.json"), nil, ""},
		{"distinct outputs", out("a.json", "b.json", "c.json"), nil, ""},
		{"device nodes are shared", out(os.DevNull, os.DevNull), in(os.DevNull), ""},
		{"missing directory", out("missing/x.json", "missing/x.json"), nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckDistinct(tc.outs, tc.ins)
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
	assert.True(t, Same("./t.json", "hard.json"))
	assert.False(t, Same("t.json", "other.json"))
}

// A name too long to echo is clipped as every error line is.
func TestCheckDistinctQuotes(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, string(make([]byte, 0))+"x"+string(repeat('y', 150))+".json")
	require.NoError(t, os.WriteFile(long, nil, 0o644))
	err := CheckDistinct([]File{{"-o", long}}, []File{{"the input", long}})
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 300, err.Error())
}

func repeat(b byte, n int) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = b
	}
	return s
}

// TestCheck: Check refuses what CheckDistinct does, then an output that cannot be written
// (a directory, a missing directory), and leaves nothing behind.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("in.json", nil, 0o644))
	require.NoError(t, os.Mkdir("d", 0o755))
	for _, tc := range []struct {
		out, wantErr string
	}{
		{"in.json", "--trace in.json: the same file as the input in.json"},
		{"d", "--trace d: is a directory"},
		{"missing/x.json", "--trace missing/x.json: cannot create the temporary file beside it in missing ("},
		{"d/x.json", ""},
		{os.DevNull, ""},
		{"-", ""},
	} {
		err := Check([]File{{Name: "--trace", Path: tc.out}}, []File{{Name: "the input", Path: "in.json"}})
		if tc.wantErr == "" {
			assert.NoError(t, err, tc.out)
		} else {
			assert.ErrorContains(t, err, tc.wantErr, tc.out)
		}
	}
	des, err := os.ReadDir("d")
	require.NoError(t, err)
	assert.Empty(t, des, "the probe's temporary file is removed")
	assert.NoFileExists(t, "d/x.json")
}
