//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package kineto

import (
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/trace"
)

// edgeVariants are the ways testdata/broken_plugin.c is compiled for the loading edge cases:
// library name → define.
var edgeVariants = map[string]string{
	"register_null.so":  "REGISTER_NULL",
	"query_fails.so":    "QUERY_FAILS",
	"long_name.so":      "LONG_NAME",
	"name_overflow.so":  "NAME_OVERFLOW",
	"empty_name.so":     "EMPTY_NAME",
	"register_none.so":  "REGISTER_NONE",
	"register_two.so":   "REGISTER_TWO",
	"types_overflow.so": "TYPES_OVERFLOW",
}

func edgePluginDir(tb testing.TB) string {
	tb.Helper()
	needGCC(tb)
	dir := tb.TempDir()
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for name, def := range edgeVariants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			buildPlugin(tb, dir, name, "broken_plugin.c", def)
		}()
	}
	wg.Wait()
	if tb.Failed() {
		tb.FailNow()
	}
	return dir
}

// TestPluginLoadingEdgeCases: each edge case of loading has one documented outcome (kineto
// package doc, "Differences from Kineto").
func TestPluginLoadingEdgeCases(t *testing.T) {
	dir := edgePluginDir(t)
	ps, errs := LoadPlugins(dir)

	type got struct {
		names    []string
		indexes  []int
		warnings []string
		refused  []string
	}
	res := map[string]*got{}
	at := func(path string) *got {
		k := filepath.Base(path)
		if res[k] == nil {
			res[k] = &got{}
		}
		return res[k]
	}
	for _, p := range ps {
		g := at(p.Path)
		g.names = append(g.names, p.Name())
		g.indexes = append(g.indexes, p.Index)
		g.warnings = append(g.warnings, p.Warnings...)
	}
	for _, e := range errs {
		at(e.Path).refused = append(at(e.Path).refused, e.Err.Error())
	}

	for _, tc := range []struct {
		lib  string
		want got
	}{
		// registerProfiler(NULL) answers -1 (the plugin returns 99 otherwise), is reported,
		// and the good profiler registered after it loads as interface #1.
		{"register_null.so", got{names: []string{"BrokenPlugin"}, indexes: []int{1},
			refused: []string{"interface #0 refused: registerProfiler called with a NULL interface"}}},
		// A failing query refuses the profiler (Kineto: name "N/A", types used anyway).
		{"query_fails.so", got{refused: []string{"interface #0 refused: profilerQuery returned -3"}}},
		// A name cut to 31 characters, as the header asks, is taken as it is.
		{"long_name.so", got{names: []string{"ABrokenPluginWithANameOf40Chara"}, indexes: []int{0}}},
		// A name written past the buffer is caught by the guard bytes and refused.
		{"name_overflow.so", got{refused: []string{"interface #0 refused: profilerQuery wrote a name past its 32-byte buffer (profilerNameMaxLen is 31, plus the NUL)"}}},
		// Types written past the 25-slot array are caught by the guard bytes too.
		{"types_overflow.so", got{refused: []string{"interface #0 refused: profilerQuery wrote past the 25-slot type array (supportedActivityTypesMaxLen)"}}},
		// An empty name: named after the library, with a warning.
		{"empty_name.so", got{names: []string{"empty_name"}, indexes: []int{0},
			warnings: []string{"profilerQuery gave an empty name: named after its library"}}},
		// No profiler registered: reported; the library stays loaded (its register returned 0).
		{"register_none.so", got{refused: []string{"registered no profiler"}}},
		// Two profilers: both load, in registration order.
		{"register_two.so", got{names: []string{"BrokenPlugin", "SecondPlugin"}, indexes: []int{0, 1}}},
	} {
		t.Run(tc.lib, func(t *testing.T) {
			g := res[tc.lib]
			require.NotNil(t, g, "nothing loaded or refused")
			assert.Equal(t, tc.want, *g)
		})
	}
	assert.Len(t, ps, 5)
	assert.Len(t, errs, 5)

	// The two profilers of one library run as two sessions with their own types.
	var two []*Plugin
	for _, p := range ps {
		if filepath.Base(p.Path) == "register_two.so" {
			two = append(two, p)
		}
	}
	require.Len(t, two, 2)
	assert.Equal(t, NewActivitySet(CPUOp, ConcurrentKernel), two[0].AvailableActivities())
	assert.Equal(t, NewActivitySet(GPUMemcpy), two[1].AvailableActivities())
	for _, p := range two {
		s, err := p.Configure(NewActivitySet(CPUOp, GPUMemcpy), NewConfig())
		require.NoError(t, err)
		require.NotNil(t, s)
		require.NoError(t, s.Start())
		require.NoError(t, s.Stop())
		require.NoError(t, s.ProcessTrace(&trace.Trace{}))
	}
}
