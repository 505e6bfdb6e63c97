//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package kineto

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPluginProbe: Probe drives one session of a plugin through create, start, stop and
// processEvents, naming each step first, and returns the call that failed; a library the
// loader cannot open, or without KinetoPlugin_register, is refused with ErrNotLoadable or
// ErrNotPlugin; a library named without a slash (the directory ".") is opened from the
// working directory, not searched for on the system's library path.
func TestPluginProbe(t *testing.T) {
	needGCC(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name, src, define string
		err               string
	}{
		{"sample.so", "sample_plugin.c", "", ""},
		{"create_fails.so", "broken_plugin.c", "CREATE_FAILS", "profilerCreate returned -7"},
		{"bad_events.so", "broken_plugin.c", "BAD_EVENTS", ""}, // a profile's warnings, not the probe's
	} {
		var defs []string
		if tc.define != "" {
			defs = append(defs, tc.define)
		}
		ps, errs := LoadPluginFile(buildPlugin(t, dir, tc.name, tc.src, defs...))
		require.Empty(t, errs, tc.name)
		require.NotEmpty(t, ps, tc.name)
		var steps []string
		err := ps[0].Probe(func(s string) { steps = append(steps, s) })
		if tc.err == "" {
			assert.NoError(t, err, tc.name)
			assert.Equal(t, []string{"profilerCreate", "profilerStart", "profilerStop", "profilerProcessEvents and profilerDestroy"}, steps, tc.name)
			continue
		}
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.err, tc.name)
		assert.Equal(t, []string{"profilerCreate"}, steps, tc.name)
	}

	require.NoError(t, os.WriteFile(filepath.Join(dir, "garbage.so"), []byte("hello\n"), 0o644))
	_, errs := LoadPluginFile(filepath.Join(dir, "garbage.so"))
	require.Len(t, errs, 1)
	assert.True(t, errors.Is(errs[0], ErrNotLoadable), "%v", errs[0])
	_, errs = LoadPluginFile(buildPlugin(t, dir, "no_register.so", "broken_plugin.c", "NO_REGISTER"))
	require.Len(t, errs, 1)
	assert.True(t, errors.Is(errs[0], ErrNotPlugin), "%v", errs[0])

	dot := t.TempDir()
	buildPlugin(t, dot, "dot.so", "sample_plugin.c")
	t.Chdir(dot)
	ps, errs := LoadPlugins(".")
	assert.Empty(t, errs, "a library of the directory \".\" loads")
	assert.Len(t, ps, 1)
}

// ExamplePlugin_Probe loads the plugins of a directory and keeps those whose probe session
// succeeds. Probe runs plugin code: a host that must survive a crashing plugin runs this in a
// child process first, as orprof run --plugin-dir does.
func ExamplePlugin_Probe() {
	ps, _ := LoadPlugins("/opt/plugins")
	for _, p := range ps {
		if err := p.Probe(nil); err != nil {
			continue // refused: err names the plugin and the call that failed
		}
		RegisterPlugin(p)
	}
}
