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

// TestTableTruncatedGzipLarge: a .json.gz cut at any point, header and trailer included, is
// reported as such in one line, exit 2 — never as a JSON error about bytes decoded from past
// its end (before, most cut points gave "found 'o'" or "invalid number").
func TestTableTruncatedGzipLarge(t *testing.T) {
	in, err := os.ReadFile("../../testdata/kineto/cpu_only.json.gz")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "cut.json.gz")
	step := 1
	if conformanceRaceEnabled {
		step = 17 // every cut runs in .ci/run's no-race step (the name says Large)
	}
	for cut := 2; cut < len(in); cut += step {
		require.NoError(t, os.WriteFile(path, in[:cut], 0o644))
		var out, errb bytes.Buffer
		code := dispatch([]string{"table", path}, nil, &out, &errb)
		msg := errb.String()
		if code != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "the .gz ends inside a member") {
			t.Fatalf("cut at %d of %d: exit %d, %q", cut, len(in), code, msg)
		}
		assert.Empty(t, out.String())
	}
}
