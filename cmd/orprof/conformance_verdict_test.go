package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orprof/orprof/internal/verdict"
	"github.com/orprof/orprof/kineto/plugintest"
	"github.com/orprof/orprof/stubs/stubstest"
)

// TestConformanceVerdictLines: orprof conformance prints the results of both kits (--lib and
// --device run stubstest's checks, --plugin plugintest's) through one verdictTally: one line
// each, a reason of several lines folded the same way, a status neither PASS nor SKIP (a child
// that wrote none) counted and printed as FAIL, the rule under each with -v.
func TestConformanceVerdictLines(t *testing.T) {
	const reason = "panic: boom\ngoroutine 7 [running]:\n\tmain.f()\n"
	for _, tc := range []struct {
		name    string
		results []verdict.Result
		verbose bool
		want    string
		exit    int
	}{
		{"stubs kit", []verdict.Result{
			stubstest.Result{Name: "enabled", Status: stubstest.Pass},
			stubstest.Result{Name: "record", Status: stubstest.Fail, Reason: reason},
		}, false, "PASS enabled\nFAIL record: panic: boom; goroutine 7 [running]: main.f()\n1 passed, 1 failed\n", 1},
		{"plugin kit", []verdict.Result{
			plugintest.Result{Name: "lifecycle", Status: plugintest.Pass},
			plugintest.Result{Name: "trace", Status: plugintest.Fail, Reason: reason},
		}, false, "PASS lifecycle\nFAIL trace: panic: boom; goroutine 7 [running]: main.f()\n1 passed, 1 failed\n", 1},
		{"no status is a failure", []verdict.Result{{Name: "x"}}, false, "FAIL x\n0 passed, 1 failed\n", 1},
		{"skips counted, exit 0", []verdict.Result{
			{Name: "enabled", Status: verdict.Pass},
			{Name: "rest", Status: verdict.Skip, Reason: "not enabled\n"},
		}, false, "PASS enabled\nSKIP rest: not enabled\n1 passed, 0 failed, 1 skipped\n", 0},
		{"verbose prints the rule", []verdict.Result{{Name: "a", Status: verdict.Pass}}, true, "PASS a\n    the rule\n1 passed, 0 failed\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			var tally verdictTally
			for _, r := range tc.results {
				tally.print(&out, r, tc.verbose, "the rule")
			}
			assert.Equal(t, tc.exit, tally.finish(&out))
			assert.Equal(t, tc.want, out.String())
		})
	}
}
