package orprof

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/stubs"
	"github.com/orprof/orprof/trace"
)

// bufferingProfiler is a child activity profiler whose sessions say they hold held activities
// (kineto.RecordCounter) when counts is true: the kernels a backend's profiler buffers while
// the ops run.
type bufferingProfiler struct {
	counts bool
	held   int
}

type bufferingSession struct{ held atomic.Int64 }

type countingSession struct{ *bufferingSession }

func (p *bufferingProfiler) Name() string { return "buffering" }
func (p *bufferingProfiler) AvailableActivities() kineto.ActivitySet {
	return kineto.NewActivitySet(kineto.ConcurrentKernel)
}
func (p *bufferingProfiler) Configure(kineto.ActivitySet, *kineto.Config) (kineto.ActivityProfilerSession, error) {
	s := &bufferingSession{}
	s.held.Store(int64(p.held))
	if p.counts {
		return countingSession{s}, nil
	}
	return s, nil
}
func (s *bufferingSession) Start() error                    { return nil }
func (s *bufferingSession) Stop() error                     { return nil }
func (s *bufferingSession) PushCorrelationID(uint64)        {}
func (s *bufferingSession) PopCorrelationID()               {}
func (s *bufferingSession) ProcessTrace(*trace.Trace) error { return nil }
func (s countingSession) Records() int                      { return int(s.held.Load()) }

// TestCaptureBoundCountsDeviceRecords: a capture's MaxEvents counts the device activities a
// child profiler holds (kernels mode) with the host records, so a capture of few ops and many
// kernels ends at its bound instead of growing until its time is up; a profiler that cannot
// count is not counted.
func TestCaptureBoundCountsDeviceRecords(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prof    *bufferingProfiler
		bounded bool
	}{
		{"device records counted", &bufferingProfiler{counts: true, held: 2_000_000}, true},
		{"device records under the bound", &bufferingProfiler{counts: true, held: 10}, false},
		{"a profiler that cannot count", &bufferingProfiler{counts: false, held: 2_000_000}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewProfiler(ProfilerOptions{Options: Options{Activities: kineto.NewActivitySet(kineto.ConcurrentKernel),
				Profilers: []kineto.ActivityProfiler{tc.prof}}})
			require.NoError(t, err)
			stop := stepLoop(t, p, time.Millisecond)
			defer stop()
			d := 300 * time.Millisecond
			if tc.bounded {
				d = 15 * time.Second
			}
			start := time.Now()
			res, err := p.Capture(context.Background(), CaptureOptions{Duration: d, MaxEvents: 1_000_000})
			require.NoError(t, err)
			warn := strings.Join(res.Warnings, "; ")
			if tc.bounded {
				assert.Less(t, time.Since(start), 10*time.Second, "the bound ended the capture")
				assert.Contains(t, warn, CaptureBoundWarning+"1000000 records")
				return
			}
			assert.GreaterOrEqual(t, time.Since(start), d, "the capture ran its time")
			assert.NotContains(t, warn, CaptureBoundWarning)
		})
	}
}

// TestRecordsCountsFallbackDeviceEvents: in a fallback session each op's record also holds its
// device events, counted as a second record; a CPU-only session counts its host records once.
func TestRecordsCountsFallbackDeviceEvents(t *testing.T) {
	stubs.Register("boundfake", &fakeDevice{usPerTick: 1})
	for _, tc := range []struct {
		device string
		per    int
	}{{"", 1}, {"boundfake", 2}} {
		s, err := Start(Options{Device: tc.device})
		require.NoError(t, err)
		ctx := WithThread(context.Background(), NewThread())
		for range 50 {
			Begin(ctx, Op{Name: "aten::add"}).End()
		}
		assert.Equal(t, 50*tc.per, s.records(), "device %q", tc.device)
		_, err = s.Stop()
		require.NoError(t, err)
	}
}
