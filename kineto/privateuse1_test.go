package kineto

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fakeProfiler struct{ name string }

func (f *fakeProfiler) Name() string                     { return f.name }
func (f *fakeProfiler) AvailableActivities() ActivitySet { return NewActivitySet(CPUOp) }
func (f *fakeProfiler) Configure(ActivitySet, *Config) (ActivityProfilerSession, error) {
	return nil, nil
}

// captureLog sends log/slog's default output to a buffer for the test.
func captureLog(t *testing.T) *bytes.Buffer {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

func TestPrivateUse1Registry(t *testing.T) {
	t.Cleanup(ResetRegisteredForTest)
	ResetRegisteredForTest()
	logs := captureLog(t)

	assert.Nil(t, PrivateUse1Profiler())
	assert.Empty(t, RegisteredProfilers())

	made := 0
	RegisterPrivateUse1Profiler(func() ActivityProfiler { made++; return &fakeProfiler{"mock_privateuse1"} })
	assert.Equal(t, 0, made, "the factory runs on first use")
	p := PrivateUse1Profiler()
	require.NotNil(t, p)
	assert.Equal(t, "mock_privateuse1", p.Name())
	assert.Same(t, p, PrivateUse1Profiler())
	assert.Equal(t, 1, made)
	reg := RegisteredProfilers()
	require.Len(t, reg, 1)
	assert.Same(t, p, reg[0])
	assert.Empty(t, logs.String())

	// Once made, the profiler is fixed, as in PyTorch (its registry forwards the factory to
	// Kineto once; a later registration warns and does not reach a running Kineto).
	assert.False(t, RegisterPrivateUse1Profiler(func() ActivityProfiler { return &fakeProfiler{"second"} }))
	assert.Contains(t, logs.String(), "already in use; a later registration does not reach it")
	assert.Same(t, p, PrivateUse1Profiler(), "the first profiler made stays")
	assert.False(t, RegisterPrivateUse1Profiler(nil))
	assert.Same(t, p, PrivateUse1Profiler())
}

// TestPrivateUse1RegistryBeforeUse: before the profiler is first made, a later registration
// replaces the earlier one (with a warning), a nil one removes it, and a factory that panics
// or returns nil gives no profiler.
func TestPrivateUse1RegistryBeforeUse(t *testing.T) {
	for _, tc := range []struct {
		name      string
		factories []func() ActivityProfiler
		want      string // "" for no profiler
		log       string
	}{
		{"last before use wins", []func() ActivityProfiler{
			func() ActivityProfiler { return &fakeProfiler{"first"} },
			func() ActivityProfiler { return &fakeProfiler{"second"} }}, "second", "already registered; overwriting"},
		{"nil removes", []func() ActivityProfiler{func() ActivityProfiler { return &fakeProfiler{"first"} }, nil}, "", ""},
		{"factory panics", []func() ActivityProfiler{func() ActivityProfiler { panic("boom") }}, "", "factory panicked: boom"},
		{"factory returns nil", []func() ActivityProfiler{func() ActivityProfiler { return nil }}, "", "factory returned nil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Cleanup(ResetRegisteredForTest)
			ResetRegisteredForTest()
			logs := captureLog(t)
			for _, f := range tc.factories {
				assert.True(t, RegisterPrivateUse1Profiler(f))
			}
			p := PrivateUse1Profiler()
			if tc.want == "" {
				assert.Nil(t, p)
				assert.Empty(t, RegisteredProfilers())
			} else {
				require.NotNil(t, p)
				assert.Equal(t, tc.want, p.Name())
			}
			if tc.log != "" {
				assert.Contains(t, logs.String(), tc.log)
			}
		})
	}
}
