//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package plugintest_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/kineto/plugintest"
)

// build compiles ../testdata/src (C, or C++ for .cc) into dir/name with the given defines.
func build(t *testing.T, dir, name, src string, defines ...string) string {
	t.Helper()
	cc, std := "gcc", "-std=c11"
	if filepath.Ext(src) == ".cc" {
		cc, std = "g++", "-std=c++17"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("%s not found: the plugin fixtures cannot be built", cc)
	}
	out := filepath.Join(dir, name)
	args := []string{"-O2", "-Wall", "-Wextra", "-Werror", std, "-I..", "-shared", "-fPIC", "-D_GNU_SOURCE", "-o", out,
		filepath.Join("..", "testdata", src)}
	for _, d := range defines {
		args = append(args, "-D"+d)
	}
	msg, err := exec.Command(cc, args...).CombinedOutput()
	require.NoError(t, err, "%s %v\n%s", cc, args, msg)
	return out
}

// TestSamplePluginsPass: orprof's sample plugin and a plugin written as Kineto's own tests
// write one pass every check (Run is what a plugin author calls from go test).
func TestSamplePluginsPass(t *testing.T) {
	dir := t.TempDir()
	plugintest.Run(t, build(t, dir, "sample.so", "sample_plugin.c"))
	plugintest.Run(t, build(t, dir, "kineto_style.so", "kineto_style_plugin.cc"))
}

// TestBrokenPluginsFail: each broken plugin fails the check that covers its fault, with a
// reason naming it; the other checks still run.
func TestBrokenPluginsFail(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		define string
		check  string
		reason string
	}{
		{"NULL_HANDLE", "lifecycle", "profilerCreate returned 0 but left params->pProfilerHandle NULL"},
		{"BAD_EVENTS", "trace", "event #1 rejected: KinetoPlugin_ProfileEvent: unpaddedStructSize 24 < 48"},
		{"NO_START", "load", "required function(s) NULL: profilerStart"},
		{"QUERY_FAILS", "load", "profilerQuery returned -3"},
		{"LONG_NAME", "", ""}, // cut to 31 characters as the header asks: passes
		{"REGISTER_NONE", "load", "registered no profiler"},
	} {
		t.Run(tc.define, func(t *testing.T) {
			lib := build(t, dir, tc.define+".so", "broken_plugin.c", tc.define)
			rs := plugintest.Check(lib)
			require.Len(t, rs, len(plugintest.Cases()))
			for _, r := range rs {
				if r.Name == tc.check {
					assert.Equal(t, plugintest.Fail, r.Status, "%v", r)
					assert.Contains(t, r.Reason, tc.reason)
					assert.Contains(t, r.String(), "FAIL "+tc.check+": ")
				} else if tc.check == "" {
					assert.NotEqual(t, plugintest.Fail, r.Status, "%v", r)
				}
			}
		})
	}
}

// TestResultString: a reason of several lines is folded as stubstest's is (verdict.Fold): the
// line breaks stay visible as "; ".
func TestResultString(t *testing.T) {
	for _, tc := range []struct {
		r    plugintest.Result
		want string
	}{
		{plugintest.Result{Name: "load", Status: plugintest.Pass}, "PASS load"},
		{plugintest.Result{Name: "trace", Status: plugintest.Fail, Reason: "a\n  b"}, "FAIL trace: a; b"},
		{plugintest.Result{Name: "flows", Status: plugintest.Skip, Reason: "no flows\n"}, "SKIP flows: no flows"},
	} {
		assert.Equal(t, tc.want, tc.r.String())
	}
}

// TestCasesStateTheirRules: every check has a name, a one-line Doc for -h and a Rule for -v
// that says more than the Doc and where the rule comes from (kineto PR #1148 or orprof).
func TestCasesStateTheirRules(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range plugintest.Cases() {
		assert.Regexp(t, `^[a-z][a-z-]*$`, c.Name)
		assert.False(t, seen[c.Name], "%s twice", c.Name)
		seen[c.Name] = true
		assert.NotContains(t, c.Doc, "\n", c.Name)
		assert.Greater(t, len(c.Rule), len(c.Doc), "%s: the rule says more than the Doc", c.Name)
		assert.Regexp(t, `\((PR #1148|Kineto|orprof)[^()]*\)\.$|PR #1148[^()]*\)\.$`, c.Rule, "%s: the rule ends with its source", c.Name)
	}
}
