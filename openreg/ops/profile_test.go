package ops

import (
	"context"
	"strings"
	"testing"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/openreg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// profile runs fn under an "openreg" session on a fresh default runtime and returns the result.
// Sessions are process-wide: tests that call it must not run in parallel.
func profile(t *testing.T, opts orprof.Options, fn func(ctx context.Context, rt *openreg.Runtime) error) *orprof.Result {
	t.Helper()
	rt := newRuntime(t, openreg.Options{})
	prev := openreg.SetDefault(rt)
	t.Cleanup(func() { openreg.SetDefault(prev) })
	opts.Device = "openreg"
	sess, err := orprof.Start(opts)
	require.NoError(t, err)
	ctx := context.Background()
	runErr := fn(ctx, rt)
	res, err := sess.Stop()
	require.NoError(t, runErr)
	require.NoError(t, err)
	return res
}

func TestProfileMLP(t *testing.T) {
	w, ok := LookupWorkload("mlp")
	require.True(t, ok)
	res := profile(t, orprof.Options{RecordShapes: true, ProfileMemory: true}, w.Run)
	avgs := res.KeyAverages(events.AverageOptions{})
	rows := map[string]events.Avg{}
	for _, a := range avgs {
		if _, dup := rows[a.Key]; !dup || a.SelfDeviceTimeTotal > 0 {
			rows[a.Key] = a
		}
	}
	for _, name := range []string{"aten::mm", "aten::addmm", "aten::linear", "aten::relu", "aten::clamp_min",
		"aten::cross_entropy_loss", "aten::nll_loss_forward", "ProfilerStep*", "Optimizer.step#SGD.step",
		"autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0", "torch::autograd::AccumulateGrad",
		"aten::threshold_backward", "aten::add_"} {
		_, ok := rows[name]
		require.True(t, ok, "row %q missing", name)
	}
	var devTotal float64
	for _, a := range avgs {
		devTotal += a.SelfDeviceTimeTotal
	}
	require.Greater(t, devTotal, 0.0, "some op has self device time")
	require.Greater(t, rows["aten::mm"].SelfDeviceTimeTotal+rows["aten::addmm"].SelfDeviceTimeTotal, 0.0)
	assert.Equal(t, int64(mlpDefault.iters), rows["ProfilerStep*"].Count)
	var devMem int64
	for _, a := range avgs {
		devMem += a.SelfDeviceMemoryUsage
	}
	assert.Zero(t, devMem, "every device byte allocated is freed")
	assert.Positive(t, rows["aten::empty"].DeviceMemoryUsage+rows["aten::mm"].DeviceMemoryUsage+rows["aten::addmm"].DeviceMemoryUsage)

	// Backward records: the engine wrapper (scope 0, no sequence number) around the node
	// (backward scope, the forward op's sequence number and thread).
	evs := res.Events.Events()
	fwdSeq := map[int64]string{}
	for _, e := range evs {
		if e.SequenceNr >= 0 && e.Scope == events.ScopeFunction {
			fwdSeq[e.SequenceNr] = e.Name
		}
	}
	var checked int
	for i, e := range evs {
		switch {
		case e.Name == "AddmmBackward0":
			checked++
			assert.Equal(t, events.ScopeBackwardFunction, e.Scope)
			assert.Equal(t, "aten::addmm", fwdSeq[e.SequenceNr], "sequence number %d", e.SequenceNr)
			assert.Equal(t, orprof.MainThread().ID(), e.FwdThread)
			p := res.Events.Parent(i)
			require.GreaterOrEqual(t, p, 0)
			assert.Equal(t, "autograd::engine::evaluate_function: AddmmBackward0", evs[p].Name)
		case e.Name == "torch::autograd::AccumulateGrad":
			assert.Equal(t, int64(-1), e.SequenceNr)
		}
	}
	assert.Equal(t, 2*mlpDefault.iters, checked)
	assert.Equal(t, "[[256], [64, 128], [128, 256], [], []]", firstShapes(evs, "aten::addmm", "[[256]"))
	assert.Equal(t, "[[10], [64, 256], [256, 10], [], []]", firstShapes(evs, "aten::addmm", "[[10]"))
}

// firstShapes is the input shapes of the first event called name whose shapes start with prefix.
func firstShapes(evs []events.FunctionEvent, name, prefix string) string {
	for _, e := range evs {
		if e.Name == name && strings.HasPrefix(e.InputShapes, prefix) {
			return e.InputShapes
		}
	}
	return ""
}

func TestProfileActivitiesCorrelateWithOps(t *testing.T) {
	var acts []openreg.Activity
	res := profile(t, orprof.Options{}, func(ctx context.Context, rt *openreg.Runtime) error {
		rt.EnableActivityTracing()
		a, err := Uniform(ctx, rt, 0, -1, 1, 1, 64, 64)
		if err != nil {
			return err
		}
		c, err := Mm(ctx, a, a)
		if err != nil {
			return err
		}
		if _, err := c.ToHost(ctx); err != nil {
			return err
		}
		acts = rt.DisableActivityTracing()
		return nil
	})
	byID := map[int64]string{}
	for _, e := range res.Events.Events() {
		byID[e.ID] = e.Name
	}
	got := map[string]string{}
	for _, a := range acts {
		got[a.Name] = byID[a.Correlation]
	}
	assert.Equal(t, map[string]string{
		"openreg::uniform_kernel": "aten::uniform_",
		"openreg::gemm_f32":       "aten::mm",
		"Memcpy DtoH":             "aten::copy_",
	}, got)
	for _, a := range acts {
		if a.Name == "openreg::gemm_f32" {
			assert.Equal(t, int64(2*64*64*64), a.Flops)
			assert.Equal(t, int64(4*2*64*64), a.BytesRead)
			assert.Equal(t, int64(4*64*64), a.BytesWritten)
		}
	}
}

func TestProfileMultistream(t *testing.T) {
	rt := newRuntime(t, openreg.Options{})
	prev := openreg.SetDefault(rt)
	t.Cleanup(func() { openreg.SetDefault(prev) })
	sess, err := orprof.Start(orprof.Options{Device: "openreg"})
	require.NoError(t, err)
	_, runErr := multistream(context.Background(), rt, 3)
	res, err := sess.Stop()
	require.NoError(t, runErr)
	require.NoError(t, err)
	var mm int
	for _, e := range res.Events.Events() {
		if e.Name == "aten::mm" {
			mm++
		}
	}
	assert.Equal(t, 3*3, mm)
}
