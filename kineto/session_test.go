//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package kineto_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/trace"
)

func profilers(ps []*kineto.Plugin) []kineto.ActivityProfiler {
	out := make([]kineto.ActivityProfiler, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// TestPluginsInSession runs an orprof session with every plugin of a directory where some are
// broken: the good plugin's events land in the trace, linked to the op, and every failure is
// a warning naming its library; the profile itself succeeds.
func TestPluginsInSession(t *testing.T) {
	dir := kineto.MixedPluginDir(t)
	ps, errs := kineto.LoadPlugins(dir)
	require.Len(t, ps, 3)
	require.Len(t, errs, 5)

	sess, err := orprof.Start(orprof.Options{Activities: kineto.DefaultActivities(), Profilers: profilers(ps)})
	require.NoError(t, err)
	r := orprof.RecordFunction(context.Background(), "step")
	handle := r.Handle()
	r.End()
	res, err := sess.Stop()
	require.NoError(t, err)

	warnings := strings.Join(res.Warnings, "\n")
	assert.Contains(t, warnings, filepath.Join(dir, "create_fails.so")+" (BrokenPlugin): profilerCreate returned -7")
	assert.Contains(t, warnings, filepath.Join(dir, "bad_events.so")+" (BrokenPlugin): ")
	assert.Contains(t, warnings, "event #1 rejected: KinetoPlugin_ProfileEvent: unpaddedStructSize 24 < 48")
	assert.NotContains(t, warnings, "sample.so")

	var kernel, step *trace.Event
	for i, e := range res.Trace().Events {
		switch e.Name {
		case "test_kernel":
			kernel = &res.Trace().Events[i]
		case "step":
			step = &res.Trace().Events[i]
		}
	}
	require.NotNil(t, kernel)
	require.NotNil(t, step)
	assert.Equal(t, trace.Int(trace.ArgExternalID, handle), kernel.Args[0], "the kernel is linked to the op")
	assert.Equal(t, trace.Int(trace.ArgExternalID, handle), step.Args[0])
	var found bool
	for _, a := range res.DeviceActivities {
		if a.Name == "test_kernel" {
			found = true
			assert.Equal(t, handle, a.Correlation)
		}
	}
	assert.True(t, found, "the kernel is device work for the table")
}

// BenchmarkRecordFunction measures orprof.RecordFunction(ctx, "x").End() in a running session
// without child profilers and with the sample plugin, whose push/pop correlation functions are
// called through purego on every op.
func BenchmarkRecordFunction(b *testing.B) {
	ps, errs := kineto.LoadPlugins(kineto.SamplePluginDir(b))
	require.Empty(b, errs)
	require.Len(b, ps, 1)
	for _, bc := range []struct {
		name  string
		profs []kineto.ActivityProfiler
	}{
		{"no-plugin", nil},
		{"sample-plugin", profilers(ps)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			opts := orprof.Options{Activities: kineto.DefaultActivities(), Profilers: bc.profs}
			ctx := context.Background()
			// A session keeps every op: restart it every 1<<16 ops, off the clock, so memory
			// stays flat and Stop's processing is not measured.
			const perSession = 1 << 16
			start := func() *orprof.Session {
				s, err := orprof.Start(opts)
				require.NoError(b, err)
				return s
			}
			sess := start()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i > 0 && i%perSession == 0 {
					b.StopTimer()
					_, err := sess.Stop()
					require.NoError(b, err)
					sess = start()
					b.StartTimer()
				}
				orprof.RecordFunction(ctx, "x").End()
			}
			b.StopTimer()
			_, err := sess.Stop()
			require.NoError(b, err)
		})
	}
}
