package orprof

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// layers is the floor plan, bottom first. A package may import packages of its own
// layer or of a layer below it, never one above. Each line names packages by path
// below the module: "x" is that package, "x/..." x and every package under it. The
// most specific name decides a package's layer. A package no line names fails the
// test: a new package is placed here first.
var layers = []struct {
	name string
	pkgs []string
}{
	{"support", []string{"internal/...", "text/..."}},
	{"model", []string{"devices", "events", "stubs", "trace", "internal/tracetest"}},
	{"readers and hooks", []string{"trace/...", "stubs/...", "kineto/...", "xpu/..."}},
	{"runtime", []string{"", "devices/...", "openreg/..."}},
	{"input", []string{"input/..."}},
	{"analyses", []string{"analysis/..."}},
	{"composition", []string{"report", "export/..."}},
	{"pages", []string{"report/..."}},
	{"commands", []string{"cmd/...", "httpprof/...", "scripts/..."}},
}

const module = "github.com/orprof/orprof"

// layerOf returns the index in layers of the package at path rel (below the
// module; "" is the root package), or -1 when no line names it.
func layerOf(rel string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l.pkgs {
			n := -1
			dir, tree := strings.CutSuffix(p, "/...")
			switch {
			case p == rel:
				n = len(p) + 1 // an exact name beats a tree of the same length
			case tree && (rel == dir || strings.HasPrefix(rel, dir+"/")):
				n = len(dir)
			}
			if n > bestLen {
				best, bestLen = i, n
			}
		}
	}
	return best
}

func TestLayerOf(t *testing.T) {
	for _, c := range []struct {
		rel  string
		want string
	}{
		{"", "runtime"},
		{"trace", "model"},
		{"trace/tracefile", "readers and hooks"},
		{"devices", "model"},
		{"devices/opencl", "runtime"},
		{"internal/tracetest", "model"},
		{"internal/quote", "support"},
		{"internal/segment", "support"},
		{"analysis/kernels", "analyses"},
		{"report", "composition"},
		{"report/html", "pages"},
		{"cmd/orprof", "commands"},
		{"reportx", ""},
	} {
		got := ""
		if i := layerOf(c.rel); i >= 0 {
			got = layers[i].name
		}
		assert.Equal(t, c.want, got, "layer of %q", c.rel)
	}
}

// TestLayers fails on an import from a lower layer into a higher one, and on a
// package the layers do not place.
func TestLayers(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not found on PATH: the imports come from go list")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").CombinedOutput()
	require.NoError(t, err, "go list: %s", out)
	rel := func(p string) (string, bool) {
		if p == module {
			return "", true
		}
		return strings.CutPrefix(p, module+"/")
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, _ := rel(f[0])
		pl := layerOf(pkg)
		if pl < 0 {
			t.Errorf("package %q is in no layer: add it to layers in deps_test.go", f[0])
			continue
		}
		seen++
		for _, imp := range f[1:] {
			r, ok := rel(imp)
			if !ok {
				continue
			}
			if il := layerOf(r); il > pl {
				t.Errorf("%s (%s) imports %s (%s): an upward import", f[0], layers[pl].name, imp, layers[il].name)
			}
		}
	}
	assert.Greater(t, seen, 30, "go list named too few packages")
}

// TestControlPlaneFreeOfPresentation: the root package (the control plane every backend
// imports, for orprof.RecordMemory among others) pulls in no table renderer: neither the
// op table nor tablewriter is among its dependencies.
func TestControlPlaneFreeOfPresentation(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not found on PATH: the dependency list comes from go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "go list -deps: %s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, module)
	for _, d := range deps {
		assert.NotEqual(t, module+"/analysis/optable", d, "the root package imports the op table")
		assert.NotContains(t, d, "tablewriter", "the root package pulls in a table renderer")
	}
}
