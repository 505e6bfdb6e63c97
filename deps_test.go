package orprof

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestControlPlaneFreeOfPresentation: the root package (the control plane every backend
// imports, for orprof.RecordMemory among others) pulls in no table renderer: neither report
// nor tablewriter is among its dependencies. Tables are the caller's choice (optable.WriteTable
// with optable.TableOptions{UseDevice: res.Device, ...}).
func TestControlPlaneFreeOfPresentation(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not found on PATH: the dependency list comes from go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "go list -deps: %s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/orprof/orprof")
	for _, d := range deps {
		assert.NotEqual(t, "github.com/orprof/orprof/analysis/optable", d, "the root package imports report")
		assert.NotContains(t, d, "tablewriter", "the root package pulls in a table renderer")
	}
}
