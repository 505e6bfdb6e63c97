//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package kineto

import (
	"sync"
	"testing"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/trace"
)

// kineto-style plugin stats, in ks_stats's order.
const (
	ksCreates = iota
	ksDestroys
	ksChecked
	ksBadHandles
	ksBadCreateEntry
	ksBadQueryHandle
	ksPushes
	ksPops
	ksLive
	ksNumStats
)

// TestKinetoStylePluginHandle runs testdata/kineto_style_plugin.cc, a plugin written the way
// kineto PR #1148's tests write one (profilerCreate assigns params->pProfilerHandle), which
// checks the handle it gets in every call. Before the handle was passed by value (the host
// handed a pointer to its own storage in the field and read that storage back), every call
// after create got NULL and profilerStart failed.
func TestKinetoStylePluginHandle(t *testing.T) {
	needGXX(t)
	dir := t.TempDir()
	buildCxxPlugin(t, dir, "kineto_style.so", "kineto_style_plugin.cc")
	ps, errs := LoadPlugins(dir)
	require.Empty(t, errs)
	require.Len(t, ps, 1)
	p := ps[0]
	assert.Equal(t, "KinetoStylePlugin", p.Name())

	lib, err := purego.Dlopen(p.Path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	var statsFn func(out *[ksNumStats]int64)
	purego.RegisterLibFunc(&statsFn, lib, "ks_stats")
	stats := func() [ksNumStats]int64 {
		var s [ksNumStats]int64
		statsFn(&s)
		return s
	}

	// Two sessions at once: each call must get its own session's handle.
	const sessions = 2
	var ss []ActivityProfilerSession
	for range sessions {
		s, err := p.Configure(NewActivitySet(CUDARuntime, CUDADriver, ConcurrentKernel, GPUMemcpy), NewConfig())
		require.NoError(t, err)
		require.NotNil(t, s)
		ss = append(ss, s)
	}
	for _, s := range ss {
		require.NoError(t, s.Start(), "profilerStart got the handle create assigned")
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				for _, s := range ss {
					s.PushCorrelationID(uint64(g*1000 + i + 1))
					s.(UserCorrelator).PushUserCorrelationID(9)
					s.(UserCorrelator).PopUserCorrelationID()
					s.PopCorrelationID()
				}
			}
		}()
	}
	wg.Wait()
	for _, s := range ss {
		require.NoError(t, s.Stop())
		tr := &trace.Trace{}
		require.NoError(t, s.ProcessTrace(tr), "push/pop, processEvents and destroy got the handle")
		for _, name := range []string{"launch", "driver_launch", "ks_kernel", "ks_copy"} {
			findEvent(t, tr, 'X', name)
		}
	}

	st := stats()
	assert.Zero(t, st[ksBadHandles], "calls with a handle create did not hand out")
	assert.Zero(t, st[ksBadCreateEntry], "profilerCreate's params are zero-filled")
	assert.Zero(t, st[ksBadQueryHandle], "profilerQuery gets a NULL handle")
	assert.Equal(t, int64(sessions), st[ksCreates])
	assert.Equal(t, int64(sessions), st[ksDestroys])
	assert.Zero(t, st[ksLive], "every session destroyed")
	assert.Equal(t, int64(sessions*800), st[ksPushes])
	assert.Equal(t, int64(sessions*800), st[ksPops])
	// start, stop, processEvents, destroy, and 4 correlation calls per op, per session.
	assert.Equal(t, int64(sessions*(4+8*100*4)), st[ksChecked])
}
