package orprof

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

func TestTensorBoardTraceHandler(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "traces") // created by the handler
	clk := devices.NewFakeClock(1_700_000_000_123_456_789)
	for _, gz := range []bool{false, true} {
		h := TensorBoardTraceHandler(dir, TraceHandlerOptions{Worker: "w0", Gzip: gz, Clock: clk})
		// Three cycles in one millisecond: torch.profiler would write one file three times.
		p, err := NewProfiler(ProfilerOptions{Schedule: &Schedule{Active: 1, Repeat: 3}, OnTraceReady: h})
		require.NoError(t, err)
		ctx := WithThread(context.Background(), NewThread())
		require.NoError(t, p.Start(ctx))
		for i := 0; i < 3; i++ {
			Begin(ctx, Op{Name: "aten::mm"}).End()
			require.NoError(t, p.Step(ctx))
		}
		require.NoError(t, p.Stop())
	}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	assert.Equal(t, []string{
		"w0.1700000000123.pt.trace.json", "w0.1700000000123.pt.trace.json.gz",
		"w0.1700000000124.pt.trace.json", "w0.1700000000124.pt.trace.json.gz",
		"w0.1700000000125.pt.trace.json", "w0.1700000000125.pt.trace.json.gz",
	}, names, "no temporary file left, none replaced")
	for i, n := range names {
		st, err := os.Stat(filepath.Join(dir, n))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), st.Mode().Perm(), "%s: a trace file is 0644, as --trace's", n)
		data, err := tracefile.Open(filepath.Join(dir, n), tracefile.Options{})
		require.NoError(t, err, n)
		steps := 0
		for _, e := range data.Events {
			if strings.HasPrefix(e.TraceName, "ProfilerStep#") {
				steps++
				assert.Equal(t, StepName(i/2), e.TraceName, n)
			}
		}
		assert.Equal(t, 1, steps, n)
		if !strings.HasSuffix(n, ".gz") {
			raw, err := os.ReadFile(filepath.Join(dir, n))
			require.NoError(t, err)
			require.NoError(t, trace.Check(raw), n)
			assert.Contains(t, string(raw), `"traceName": "`+n+`"`)
		}
	}

	// A file already there is kept.
	clk.Set(1_700_000_000_500_000_000)
	keep := filepath.Join(dir, "w0.1700000000500.pt.trace.json")
	require.NoError(t, os.WriteFile(keep, []byte("mine"), 0o644))
	s, err := Start(Options{})
	require.NoError(t, err)
	res, err := s.Stop()
	require.NoError(t, err)
	path, err := WriteTraceFile(dir, res, TraceHandlerOptions{Worker: "w0", Clock: clk})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "w0.1700000000501.pt.trace.json"), path)
	b, _ := os.ReadFile(keep)
	assert.Equal(t, "mine", string(b))

	assert.True(t, strings.HasSuffix(DefaultWorkerName(), "_"+strconv.Itoa(os.Getpid())))
	_, err = WriteTraceFile(filepath.Join(keep, "sub"), res, TraceHandlerOptions{})
	assert.ErrorContains(t, err, "trace handler: ")
}

// TestTensorBoardTraceHandlerPerfetto: with Perfetto, the handler writes .pt.trace.pftrace
// files, Perfetto's protobuf (a Trace of packets) holding the cycle's step.
func TestTensorBoardTraceHandlerPerfetto(t *testing.T) {
	dir := t.TempDir()
	clk := devices.NewFakeClock(1_700_000_000_123_456_789)
	h := TensorBoardTraceHandler(dir, TraceHandlerOptions{Worker: "w0", Perfetto: true, Clock: clk})
	p, err := NewProfiler(ProfilerOptions{Schedule: &Schedule{Active: 1, Repeat: 1}, OnTraceReady: h})
	require.NoError(t, err)
	ctx := WithThread(context.Background(), NewThread())
	require.NoError(t, p.Start(ctx))
	Begin(ctx, Op{Name: "aten::mm"}).End()
	require.NoError(t, p.Step(ctx))
	require.NoError(t, p.Stop())
	raw, err := os.ReadFile(filepath.Join(dir, "w0.1700000000123.pt.trace.pftrace"))
	require.NoError(t, err)
	require.NotEmpty(t, raw)
	assert.Equal(t, byte(1<<3|2), raw[0], "a Trace's first field is a packet")
	assert.Contains(t, string(raw), "aten::mm")
	assert.Contains(t, string(raw), StepName(0))
}
