package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVersionFromBuild builds orprof with VCS stamping and checks that `orprof version` prints
// the revision of the checkout it was built from.
func TestVersionFromBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped in -short mode")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	if st, err := os.Stat(filepath.Join(root, ".git")); err != nil || !st.IsDir() {
		t.Skip("the module root has no .git directory (an export, or a git worktree, where go build records no VCS information)")
	}
	rev, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("git cannot read the checkout: " + err.Error())
	}
	bin := filepath.Join(t.TempDir(), "orprof")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(bin, arg).Output()
		require.NoError(t, err)
		assert.Contains(t, string(out), "revision "+strings.TrimSpace(string(rev)))
	}
}
