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

	RegisterPrivateUse1Profiler(func() ActivityProfiler { return &fakeProfiler{"second"} })
	assert.Contains(t, logs.String(), "already registered; overwriting")
	assert.Equal(t, "second", PrivateUse1Profiler().Name(), "last writer wins")

	RegisterPrivateUse1Profiler(func() ActivityProfiler { panic("boom") })
	assert.Nil(t, PrivateUse1Profiler())
	assert.Contains(t, logs.String(), "factory panicked: boom")

	RegisterPrivateUse1Profiler(func() ActivityProfiler { return nil })
	assert.Nil(t, PrivateUse1Profiler())
	assert.Empty(t, RegisteredProfilers())

	RegisterPrivateUse1Profiler(nil)
	assert.Nil(t, PrivateUse1Profiler())
}
