//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package stubs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/errtext"
)

// buildFixture compiles testdata/good.c with the given -D macros into dir and returns the path.
func buildFixture(t testing.TB, dir, name string, defs ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	out := filepath.Join(dir, "lib"+name+".so")
	args := []string{"-shared", "-fPIC", "-O2", "-I.", "-o", out, "testdata/good.c", "-lpthread"}
	for _, d := range defs {
		args = append(args, "-D"+d)
	}
	if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v\n%s", defs, err, b)
	}
	return out
}

var (
	goodOnce sync.Once
	goodPath string
	goodDir  string
)

// goodLib is the correct fixture, built once for the package's tests.
func goodLib(t *testing.T) *CStubs {
	t.Helper()
	goodOnce.Do(func() {
		goodDir, _ = os.MkdirTemp("", "orprof-stubs-test")
		goodPath = buildFixture(t, goodDir, "good")
	})
	s, err := Open(goodPath)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestMain(m *testing.M) {
	code := m.Run()
	if goodDir != "" {
		_ = os.RemoveAll(goodDir)
	}
	os.Exit(code)
}

func TestABILayoutMatchesHeader(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "layout.c")
	require.NoError(t, os.WriteFile(src, []byte(`#include <stdio.h>
#include "orprof_stubs.h"
#define F(f) printf("%zu\n", offsetof(ORProf_Stubs, f));
int main(void) {
  F(unpaddedStructSize) F(abiVersion) F(deviceName) F(enabled) F(deviceCount) F(record) F(elapsed)
  F(destroyEvent) F(mark) F(rangePush) F(rangePop) F(onEachDevice) F(synchronize) F(lastError)
  F(queueWork)
  printf("%zu\n", (size_t)ORPROF_STUBS_UNPADDED_SIZE_V1);
  printf("%zu\n", (size_t)ORPROF_STUBS_UNPADDED_SIZE);
  return 0;
}
`), 0o644))
	bin := filepath.Join(dir, "layout")
	b, err := exec.Command("gcc", "-std=c99", "-Wall", "-Werror", "-I.", "-o", bin, src).CombinedOutput()
	require.NoError(t, err, "%s", b)
	b, err = exec.Command(bin).Output()
	require.NoError(t, err)
	var c cTable
	want := []uintptr{
		unsafe.Offsetof(c.unpaddedStructSize), unsafe.Offsetof(c.abiVersion), unsafe.Offsetof(c.deviceName),
		unsafe.Offsetof(c.enabled), unsafe.Offsetof(c.deviceCount), unsafe.Offsetof(c.record),
		unsafe.Offsetof(c.elapsed), unsafe.Offsetof(c.destroyEvent), unsafe.Offsetof(c.mark),
		unsafe.Offsetof(c.rangePush), unsafe.Offsetof(c.rangePop), unsafe.Offsetof(c.onEachDevice),
		unsafe.Offsetof(c.synchronize), unsafe.Offsetof(c.lastError), unsafe.Offsetof(c.queueWork),
		cTableSize, cTableSizeWork,
	}
	var got []uintptr
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.ParseUint(f, 10, 64)
		require.NoError(t, err)
		got = append(got, uintptr(n))
	}
	assert.Equal(t, want, got, "Go mirror vs C offsets (last: the unpadded sizes of the first ABI 1 table and of this one)")
}

func TestHeaderCompilesAsCPlusPlus(t *testing.T) {
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("g++ not found")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "x.cc")
	require.NoError(t, os.WriteFile(src, []byte(`#include "orprof_stubs.h"
static ORProf_Stubs t = {};
const ORProf_Stubs* ORProf_GetStubs(void) { return &t; }
`), 0o644))
	b, err := exec.Command("g++", "-Wall", "-Werror", "-I.", "-c", "-o", filepath.Join(dir, "x.o"), src).CombinedOutput()
	require.NoError(t, err, "%s", b)
}

func TestOpenRefusesBadLibraries(t *testing.T) {
	dir := t.TempDir()
	notSO := filepath.Join(dir, "notes.so")
	require.NoError(t, os.WriteFile(notSO, []byte("not an ELF file"), 0o644))
	cases := []struct {
		name string
		path func() string
		want []string
	}{
		{"missing file", func() string { return filepath.Join(dir, "missing.so") }, []string{"missing.so", "no such file"}},
		{"not a library", func() string { return notSO }, []string{"notes.so", "dlopen"}},
		{"no entry point", func() string { return buildFixture(t, dir, "nosym", "NO_GETSTUBS") }, []string{"libnosym.so", "no ORProf_GetStubs symbol"}},
		{"NULL table", func() string { return buildFixture(t, dir, "nulltable", "NULL_TABLE") }, []string{"libnulltable.so", "returned NULL"}},
		{"too small", func() string { return buildFixture(t, dir, "small", "SMALL_STRUCT") }, []string{"libsmall.so", "96 bytes", "at least 112"}},
		{"ABI version", func() string { return buildFixture(t, dir, "abi2", "ABI_VERSION=2") }, []string{"libabi2.so", "ABI version 2", "version 1"}},
		{"NULL hook", func() string { return buildFixture(t, dir, "nullsync", "NULL_SYNCHRONIZE") }, []string{"libnullsync.so", "synchronize is NULL"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Open(c.path())
			require.Error(t, err)
			assert.Nil(t, s)
			var le *LoadError
			require.ErrorAs(t, err, &le)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestCStubsRecordAndElapsed(t *testing.T) {
	s := goodLib(t)
	ctx := context.Background()
	assert.True(t, s.Enabled())
	assert.Equal(t, "testreg", s.DeviceName())
	n, err := s.DeviceCount()
	require.NoError(t, err)
	assert.Equal(t, 2, n)

	r, err := s.Record(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, Recorded{}, r)

	a, err := s.Record(ctx, WantDevice|WantEvent|WantCPUTime)
	require.NoError(t, err)
	assert.Equal(t, 0, a.Device)
	assert.NotNil(t, a.Event)
	assert.Positive(t, a.CPUNs)
	b, err := s.Record(ctx, WantEvent)
	require.NoError(t, err)
	d, err := s.Elapsed(a.Event, b.Event)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d, 0.0)

	_, err = s.Elapsed(nil, b.Event)
	assert.ErrorContains(t, err, "nil event")
	_, err = s.ElapsedRaw(nil, b.Event)
	assert.ErrorContains(t, err, "testreg: elapsed: NULL event", "the backend's lastError is wrapped once")
	_, err = s.Elapsed(a.Event, "not an event")
	assert.ErrorContains(t, err, "not from this backend")

	other := goodLib(t)
	_, err = other.Elapsed(a.Event, b.Event)
	assert.ErrorContains(t, err, "another backend")

	s.ReleaseEvent(a.Event)
	s.ReleaseEvent(a.Event) // ignored
	other.ReleaseEvent(b.Event)
	_, err = s.Elapsed(a.Event, b.Event)
	assert.ErrorContains(t, err, "already released")
	s.ReleaseEvent(b.Event)
}

func TestCStubsOnEachDevice(t *testing.T) {
	s := goodLib(t)
	ctx := context.Background()
	var seen, current []int
	err := s.OnEachDevice(ctx, func(ctx context.Context, dev int) error {
		seen = append(seen, dev)
		r, err := s.Record(ctx, WantDevice)
		current = append(current, r.Device)
		return err
	})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1}, seen)
	assert.Equal(t, []int{0, 1}, current)

	stop := errors.New("stop")
	seen = nil
	err = s.OnEachDevice(ctx, func(_ context.Context, dev int) error {
		seen = append(seen, dev)
		return stop
	})
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, []int{0}, seen, "devices after the first error are skipped")

	err = s.OnEachDevice(ctx, func(_ context.Context, dev int) error {
		if dev == 1 {
			panic("boom")
		}
		return nil
	})
	assert.ErrorContains(t, err, "panicked on device 1: boom")

	// The C side restored device 0 even though fn panicked: the panic never crossed C frames.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, err := s.Record(ctx, WantDevice)
	require.NoError(t, err)
	assert.Equal(t, 0, r.Device)
}

// purego's callback table holds 2000 entries and never frees one: 10,000 calls would panic if
// OnEachDevice made a callback per call.
func TestOnEachDeviceReusesOneCallback(t *testing.T) {
	s := goodLib(t)
	ctx := context.Background()
	visits := 0
	fn := func(context.Context, int) error { visits++; return nil }
	require.NoError(t, s.OnEachDevice(ctx, fn))
	first := eachCallback()
	for range 10_000 {
		require.NoError(t, s.OnEachDevice(ctx, fn))
	}
	assert.Equal(t, first, eachCallback(), "one callback per process")
	assert.Equal(t, 2*10_001, visits)
	eachMu.Lock()
	defer eachMu.Unlock()
	assert.Empty(t, eachCalls, "every handle was released")
}

func TestCStubsRangesAndMarks(t *testing.T) {
	s := goodLib(t)
	require.NoError(t, s.RangePush("outer"))
	// A push and its pop from different goroutines still meet on the annotation thread.
	done := make(chan error)
	go func() { done <- s.RangePush("inner") }()
	require.NoError(t, <-done)
	require.NoError(t, s.RangePop())
	require.NoError(t, s.RangePop())
	assert.EqualError(t, s.RangePop(), "testreg: rangePop: nothing pushed on this thread",
		"a lastError that repeats the hook name loses the repeat")
	require.NoError(t, s.Mark(""))
	require.NoError(t, s.Mark(strings.Repeat("x", 4096)))
	assert.ErrorContains(t, s.Mark("a\x00b"), "NUL")

	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	assert.ErrorIs(t, s.RangePush("late"), ErrClosed)
	_, err := s.Record(context.Background(), WantEvent)
	assert.ErrorIs(t, err, ErrClosed)
	assert.False(t, s.Enabled())
}

func TestCStubsWithoutAnnotationHooks(t *testing.T) {
	s, err := Open(buildFixture(t, t.TempDir(), "noranges", "NO_RANGES"))
	require.NoError(t, err)
	defer s.Close()
	assert.ErrorIs(t, s.RangePush("x"), errors.ErrUnsupported)
	assert.ErrorIs(t, s.Mark("x"), errors.ErrUnsupported)
}

func TestLoadRegistersUnderDeviceName(t *testing.T) {
	goodLib(t) // builds the fixture
	name, err := Load(goodPath)
	require.NoError(t, err)
	defer Unregister(name)
	assert.Equal(t, "testreg", name)
	s, ok := Lookup("TESTREG").(*CStubs)
	require.True(t, ok)
	defer s.Close()
	assert.True(t, s.Enabled())

	_, err = Load(filepath.Join(t.TempDir(), "missing.so"))
	assert.Error(t, err)
}

func TestCStubsConcurrentRecord(t *testing.T) {
	s := goodLib(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				a, err := s.Record(context.Background(), WantEvent)
				if err != nil {
					errs <- err
					return
				}
				b, err := s.Record(context.Background(), WantEvent)
				if err != nil {
					errs <- err
					return
				}
				if _, err := s.Elapsed(a.Event, b.Event); err != nil {
					errs <- err
					return
				}
				s.ReleaseEvent(a.Event)
				s.ReleaseEvent(b.Event)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.NoError(t, s.Synchronize(context.Background()))
}

// TestCStubsErrorsPrefixedOnce runs the loader's failures through errtext.Repeated: the device
// and hook are named once, whether the failure is the loader's own or the backend's lastError.
func TestCStubsErrorsPrefixedOnce(t *testing.T) {
	s := goodLib(t)
	ctx := context.Background()
	a, err := s.Record(ctx, WantEvent)
	require.NoError(t, err)
	defer s.ReleaseEvent(a.Event)
	_, e1 := s.ElapsedRaw(nil, a.Event)
	_, e2 := s.Elapsed(a.Event, "x")
	_, e3 := s.Elapsed(nil, a.Event)
	e4 := s.RangePop()
	e5 := s.Mark("a\x00b")
	e6 := s.OnEachDevice(ctx, nil)
	for _, err := range []error{e1, e2, e3, e4, e5, e6} {
		require.Error(t, err)
		assert.Empty(t, errtext.Repeated(err.Error()), "a prefix repeated in %q", err)
		var ce *CallError
		require.ErrorAs(t, err, &ce)
		assert.Same(t, ce, err, "one CallError, outermost")
	}
}

func TestWrap(t *testing.T) {
	base := errors.New("queue full")
	inner := Wrap("testreg", "record", base)
	assert.EqualError(t, inner, "testreg: record: queue full")
	assert.ErrorIs(t, inner, base)
	assert.Same(t, inner, Wrap("testreg", "onEachDevice", inner), "a CallError is not wrapped again")
	outer := fmt.Errorf("calibrate: %w", inner)
	assert.Same(t, outer, Wrap("testreg", "onEachDevice", outer), "nor an error holding one")
	assert.NoError(t, Wrap("testreg", "record", nil))
}

// ThreadRangePush and ThreadRangePop use the caller's thread: each thread has the backend's own
// stack, unlike RangePush and RangePop, which share the annotation thread's.
func TestCStubsThreadRanges(t *testing.T) {
	s := goodLib(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	require.NoError(t, s.ThreadRangePush("here"))
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // a thread of its own, ended with the goroutine
		done <- s.ThreadRangePop()
	}()
	assert.EqualError(t, <-done, "testreg: rangePop: nothing pushed on this thread")
	require.NoError(t, s.ThreadRangePop())
	assert.EqualError(t, s.ThreadRangePop(), "testreg: rangePop: nothing pushed on this thread")
}

// queueWork is optional: read only when unpaddedStructSize covers it, so a table compiled against
// the first ABI 1 header (V1_SIZE, with the hook set past its size) has none.
func TestCStubsQueueWork(t *testing.T) {
	s := goodLib(t)
	require.True(t, s.HasQueueWork())
	ctx := context.Background()
	a, err := s.Record(ctx, WantEvent)
	require.NoError(t, err)
	require.NoError(t, s.QueueWork(ctx, 20*time.Millisecond))
	b, err := s.Record(ctx, WantEvent)
	require.NoError(t, err)
	us, err := s.Elapsed(a.Event, b.Event)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, us, 19_900.0)
	s.ReleaseEvent(a.Event)
	s.ReleaseEvent(b.Event)
	assert.EqualError(t, s.QueueWork(ctx, -1), "testreg: queueWork: negative duration -1ns")

	for _, m := range []string{"V1_SIZE", "NO_QUEUE_WORK"} {
		old, err := Open(buildFixture(t, t.TempDir(), strings.ToLower(m), m))
		require.NoError(t, err)
		assert.False(t, old.HasQueueWork(), m)
		assert.ErrorIs(t, old.QueueWork(ctx, time.Millisecond), errors.ErrUnsupported, m)
		_ = old.Close()
	}
}
