package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDiff(t *testing.T) {
	assert.Equal(t, "", Diff("a\nb\n", "a\nb\n"))
	assert.Equal(t, "-   2 \"b \\n\"\n+   2 \"b\\n\"\n", Diff("a\nb \nc\n", "a\nb\nc\n"))
	assert.Equal(t, "+   2 \"x\\n\"\n", Diff("a\nc\n", "a\nx\nc\n"))
	assert.Equal(t, "-   2 \"x\\n\"\n", Diff("a\nx\nc\n", "a\nc\n"))
}

func TestCheck(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g.txt")
	if Update() {
		t.Skip("-update rewrites golden files; this test checks the comparison")
	}
	assert.NoError(t, os.WriteFile(p, []byte("same\n"), 0o644))
	Check(t, p, []byte("same\n"))
}
