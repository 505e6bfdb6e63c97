//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package kineto

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/errtext"
	"github.com/orprof/orprof/trace"
)

// TestHeaderLayout compiles testdata/layout.c against kineto_plugin.h and checks every offset
// and size against the Go mirrors; it also checks the header is valid C11 and C++.
func TestHeaderLayout(t *testing.T) {
	needGCC(t)
	dir := t.TempDir()
	exe := filepath.Join(dir, "layout")
	compileC(t, exe, "layout.c", "-pedantic")
	out, err := exec.Command(exe).Output()
	require.NoError(t, err)
	got := map[string]uintptr{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		require.Len(t, f, 2)
		n, err := strconv.ParseUint(f[1], 10, 64)
		require.NoError(t, err)
		got[f[0]] = uintptr(n)
	}
	var (
		ev  cProfileEvent
		fl  cEventFlow
		dev cDeviceInfo
		res cResourceInfo
		tb  cTraceBuilder
		cr  cCreateParams
		hp  cHandleParams
		q   cQueryParams
		pe  cProcessEventsParams
		pu  cPushParams
		ifc cInterface
		reg cRegistry
	)
	want := map[string]uintptr{
		"KinetoPlugin_ProfileEvent.eventType": unsafe.Offsetof(ev.eventType), "KinetoPlugin_ProfileEvent.startTimeUtcNs": unsafe.Offsetof(ev.startNs),
		"KinetoPlugin_ProfileEvent.endTimeUtcNs": unsafe.Offsetof(ev.endNs), "KinetoPlugin_ProfileEvent.eventId": unsafe.Offsetof(ev.eventID),
		"KinetoPlugin_ProfileEvent.deviceId": unsafe.Offsetof(ev.device), "KinetoPlugin_ProfileEvent.resourceId": unsafe.Offsetof(ev.resource),
		"KinetoPlugin_ProfileEvent.sizeof": unsafe.Sizeof(ev), "KinetoPlugin_ProfileEvent.unpadded": eventSize,
		"KinetoPlugin_ProfileEventFlow.flowType": unsafe.Offsetof(fl.flowType), "KinetoPlugin_ProfileEventFlow.flowId": unsafe.Offsetof(fl.flowID),
		"KinetoPlugin_ProfileEventFlow.isStartPoint": unsafe.Offsetof(fl.isStartPoint), "KinetoPlugin_ProfileEventFlow.sizeof": unsafe.Sizeof(fl),
		"KinetoPlugin_ProfileEventFlow.unpadded":  flowSize,
		"KinetoPlugin_ProfileDeviceInfo.deviceId": unsafe.Offsetof(dev.deviceID), "KinetoPlugin_ProfileDeviceInfo.sortIndex": unsafe.Offsetof(dev.sortIndex),
		"KinetoPlugin_ProfileDeviceInfo.pName": unsafe.Offsetof(dev.name), "KinetoPlugin_ProfileDeviceInfo.pLabel": unsafe.Offsetof(dev.label),
		"KinetoPlugin_ProfileDeviceInfo.sizeof": unsafe.Sizeof(dev), "KinetoPlugin_ProfileDeviceInfo.unpadded": deviceInfoSize,
		"KinetoPlugin_ProfileResourceInfo.deviceId": unsafe.Offsetof(res.device), "KinetoPlugin_ProfileResourceInfo.resourceId": unsafe.Offsetof(res.resource),
		"KinetoPlugin_ProfileResourceInfo.displayOrder": unsafe.Offsetof(res.displayOrder), "KinetoPlugin_ProfileResourceInfo.pName": unsafe.Offsetof(res.name),
		"KinetoPlugin_ProfileResourceInfo.sizeof": unsafe.Sizeof(res), "KinetoPlugin_ProfileResourceInfo.unpadded": resourceInfoSize,
		"KinetoPlugin_TraceBuilder.pTraceBuilderHandle": unsafe.Offsetof(tb.handle), "KinetoPlugin_TraceBuilder.addEvent": unsafe.Offsetof(tb.addEvent),
		"KinetoPlugin_TraceBuilder.setLastEventName": unsafe.Offsetof(tb.setLastEventName), "KinetoPlugin_TraceBuilder.setLastEventFlow": unsafe.Offsetof(tb.setLastEventFlow),
		"KinetoPlugin_TraceBuilder.addLastEventMetadata": unsafe.Offsetof(tb.addLastEventMetadata), "KinetoPlugin_TraceBuilder.addDeviceInfo": unsafe.Offsetof(tb.addDeviceInfo),
		"KinetoPlugin_TraceBuilder.addResourceInfo": unsafe.Offsetof(tb.addResourceInfo), "KinetoPlugin_TraceBuilder.sizeof": unsafe.Sizeof(tb),
		"KinetoPlugin_TraceBuilder.unpadded":                 traceBuilderSize,
		"KinetoPlugin_ProfilerCreate_Params.pProfilerHandle": unsafe.Offsetof(cr.handle), "KinetoPlugin_ProfilerCreate_Params.pEnabledActivityTypes": unsafe.Offsetof(cr.enabled),
		"KinetoPlugin_ProfilerCreate_Params.enabledActivityTypesMaxLen": unsafe.Offsetof(cr.enabledLen), "KinetoPlugin_ProfilerCreate_Params.sizeof": unsafe.Sizeof(cr),
		"KinetoPlugin_ProfilerCreate_Params.unpadded":         createParamsSize,
		"KinetoPlugin_ProfilerDestroy_Params.pProfilerHandle": unsafe.Offsetof(hp.handle), "KinetoPlugin_ProfilerDestroy_Params.sizeof": unsafe.Sizeof(hp),
		"KinetoPlugin_ProfilerDestroy_Params.unpadded":      handleParamsSize,
		"KinetoPlugin_ProfilerQuery_Params.pProfilerHandle": unsafe.Offsetof(q.handle), "KinetoPlugin_ProfilerQuery_Params.pProfilerName": unsafe.Offsetof(q.name),
		"KinetoPlugin_ProfilerQuery_Params.profilerNameMaxLen": unsafe.Offsetof(q.nameMax), "KinetoPlugin_ProfilerQuery_Params.pSupportedActivityTypes": unsafe.Offsetof(q.types),
		"KinetoPlugin_ProfilerQuery_Params.supportedActivityTypesMaxLen": unsafe.Offsetof(q.typesMax), "KinetoPlugin_ProfilerQuery_Params.sizeof": unsafe.Sizeof(q),
		"KinetoPlugin_ProfilerQuery_Params.unpadded":                queryParamsSize,
		"KinetoPlugin_ProfilerProcessEvents_Params.pProfilerHandle": unsafe.Offsetof(pe.handle), "KinetoPlugin_ProfilerProcessEvents_Params.pTraceBuilder": unsafe.Offsetof(pe.builder),
		"KinetoPlugin_ProfilerProcessEvents_Params.sizeof": unsafe.Sizeof(pe), "KinetoPlugin_ProfilerProcessEvents_Params.unpadded": processParamsSize,
		"KinetoPlugin_ProfilerPushCorrelationId_Params.correlationId": unsafe.Offsetof(pu.id), "KinetoPlugin_ProfilerPushCorrelationId_Params.pProfilerHandle": unsafe.Offsetof(pu.handle),
		"KinetoPlugin_ProfilerPushCorrelationId_Params.sizeof": unsafe.Sizeof(pu), "KinetoPlugin_ProfilerPushCorrelationId_Params.unpadded": pushParamsSize,
		"KinetoPlugin_ProfilerInterface.profilerCreate": unsafe.Offsetof(ifc.create), "KinetoPlugin_ProfilerInterface.profilerDestroy": unsafe.Offsetof(ifc.destroy),
		"KinetoPlugin_ProfilerInterface.profilerQuery": unsafe.Offsetof(ifc.query), "KinetoPlugin_ProfilerInterface.profilerStart": unsafe.Offsetof(ifc.start),
		"KinetoPlugin_ProfilerInterface.profilerStop": unsafe.Offsetof(ifc.stop), "KinetoPlugin_ProfilerInterface.profilerPushCorrelationId": unsafe.Offsetof(ifc.pushCorrelation),
		"KinetoPlugin_ProfilerInterface.profilerPopCorrelationId": unsafe.Offsetof(ifc.popCorrelation), "KinetoPlugin_ProfilerInterface.profilerPushUserCorrelationId": unsafe.Offsetof(ifc.pushUserCorrelation),
		"KinetoPlugin_ProfilerInterface.profilerPopUserCorrelationId": unsafe.Offsetof(ifc.popUserCorrelation), "KinetoPlugin_ProfilerInterface.profilerProcessEvents": unsafe.Offsetof(ifc.processEvents),
		"KinetoPlugin_ProfilerInterface.sizeof": unsafe.Sizeof(ifc), "KinetoPlugin_ProfilerInterface.unpadded": interfaceSize,
		"KinetoPlugin_Registry.pRegistryHandle": unsafe.Offsetof(reg.handle), "KinetoPlugin_Registry.registerProfiler": unsafe.Offsetof(reg.registerProfiler),
		"KinetoPlugin_Registry.sizeof": unsafe.Sizeof(reg), "KinetoPlugin_Registry.unpadded": registrySize,
	}
	assert.Equal(t, want, got)
	// The sizes kineto.md §2.3 lists.
	assert.Equal(t, []uintptr{48, 17, 40, 32, 64, 32, 16, 48, 24, 24, 88, 24},
		[]uintptr{eventSize, flowSize, deviceInfoSize, resourceInfoSize, traceBuilderSize, createParamsSize,
			handleParamsSize, queryParamsSize, processParamsSize, pushParamsSize, interfaceSize, registrySize})

	t.Run("as C++", func(t *testing.T) {
		if _, err := exec.LookPath("g++"); err != nil {
			t.Skip("g++ not found: kineto_plugin.h is not checked as C++")
		}
		src := filepath.Join(dir, "h.cc")
		require.NoError(t, os.WriteFile(src, []byte("#include \"kineto_plugin.h\"\nint main() { return 0; }\n"), 0o644))
		msg, err := exec.Command("g++", "-std=c++11", "-pedantic", "-Wall", "-Wextra", "-Werror", "-I.", "-fsyntax-only", src).CombinedOutput()
		assert.NoError(t, err, "kineto_plugin.h as C++: %s", msg)
	})
}

// sampleHooks are the test-only functions of testdata/sample_plugin.c.
type sampleHooks struct {
	counts      func(out *[6]int64)
	lastEnabled func(out *[pluginNumTypes]int32, max uintptr) uintptr
	resetPushed func()
}

// Counts is creates, destroys, starts, stops, pushes, pops so far.
func (h sampleHooks) Counts() [6]int64 {
	var c [6]int64
	h.counts(&c)
	return c
}

func (h sampleHooks) LastEnabled() []int32 {
	var a [pluginNumTypes]int32
	n := h.lastEnabled(&a, pluginNumTypes)
	return append([]int32{}, a[:n]...)
}

// openSampleHooks opens the already-loaded sample library again (the same copy) for its hooks.
func openSampleHooks(t *testing.T, path string) sampleHooks {
	t.Helper()
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	var hooks sampleHooks
	purego.RegisterLibFunc(&hooks.counts, h, "sample_counts")
	purego.RegisterLibFunc(&hooks.lastEnabled, h, "sample_last_enabled")
	purego.RegisterLibFunc(&hooks.resetPushed, h, "sample_reset_last_pushed")
	return hooks
}

func loadSample(t *testing.T) (*Plugin, sampleHooks) {
	t.Helper()
	dir := SamplePluginDir(t)
	ps, errs := LoadPlugins(dir)
	require.Empty(t, errs)
	require.Len(t, ps, 1)
	return ps[0], openSampleHooks(t, ps[0].Path)
}

func TestLoadSamplePlugin(t *testing.T) {
	p, _ := loadSample(t)
	assert.Equal(t, "SamplePlugin", p.Name())
	assert.Equal(t, 0, p.Index)
	assert.Equal(t, NewActivitySet(CUDARuntime, CUDADriver, ConcurrentKernel, GPUMemcpy, GPUPMCounter), p.AvailableActivities())
	assert.True(t, p.HasCorrelation())
	assert.Empty(t, p.Warnings)
	assert.Equal(t, "SamplePlugin ("+p.Path+")", p.String())

	again, errs := LoadPlugins(filepath.Dir(p.Path))
	assert.Empty(t, errs)
	require.Len(t, again, 1)
	assert.Same(t, p, again[0], "a library is loaded and registered once per process")
}

// runSample drives one full session of the sample plugin with one op pushed and popped.
func runSample(t *testing.T, p *Plugin, want ActivitySet, op uint64) (*trace.Trace, []DeviceActivity, error) {
	t.Helper()
	s, err := p.Configure(want, NewConfig())
	require.NoError(t, err)
	require.NotNil(t, s)
	require.NoError(t, s.Start())
	s.PushCorrelationID(op)
	s.PopCorrelationID()
	require.NoError(t, s.Stop())
	tr := &trace.Trace{BaseTimeNs: 1}
	err = s.ProcessTrace(tr)
	return tr, s.(DeviceActivitySource).DeviceActivities(), err
}

func findEvent(t *testing.T, tr *trace.Trace, ph byte, name string) trace.Event {
	t.Helper()
	for _, e := range tr.Events {
		if e.Ph == ph && e.Name == name {
			return e
		}
	}
	t.Fatalf("no %c event %q in %+v", ph, name, tr.Events)
	return trace.Event{}
}

func TestSamplePluginTrace(t *testing.T) {
	p, hooks := loadSample(t)
	before := hooks.Counts()
	tr, acts, err := runSample(t, p, DefaultActivities().Add(GPUPMCounter), 42)
	require.NoError(t, err)
	assert.Equal(t, [6]int64{1, 1, 1, 1, 1, 1}, subCounts(hooks.Counts(), before), "create, destroy, start, stop, push, pop once each")

	rt := findEvent(t, tr, 'X', "cudaLaunchKernel")
	base := rt.TsNs
	assert.Equal(t, trace.Event{Ph: 'X', Cat: "cuda_runtime", Name: "cudaLaunchKernel", Pid: 7, Tid: 123, TsNs: base, DurNs: 5000,
		Args: []trace.Arg{trace.Int(trace.ArgExternalID, 42), trace.Raw("cbid", "211")}}, rt)
	assert.Equal(t, trace.Event{Ph: 'X', Cat: "cuda_driver", Name: "cuLaunchKernel", Pid: 7, Tid: 124, TsNs: base + 10000, DurNs: 5000},
		findEvent(t, tr, 'X', "cuLaunchKernel"), "a driver call gets no External id of its own")
	assert.Equal(t, trace.Event{Ph: 'X', Cat: "kernel", Name: "test_kernel", Pid: 7, Tid: 1, TsNs: base + 20000, DurNs: 30000,
		Args: []trace.Arg{trace.Int(trace.ArgExternalID, 42), trace.Raw("kind", `"compute"`),
			trace.Raw("registers per thread", "32"), trace.Raw("grid", "[1, 2, 3]")}},
		findEvent(t, tr, 'X', "test_kernel"))
	assert.Equal(t, trace.Event{Ph: 'X', Cat: "gpu_memcpy", Name: "cudaMemcpyHtoD", Pid: 7, Tid: 2, TsNs: base + 60000, DurNs: 10000,
		Args: []trace.Arg{trace.Raw(trace.ArgBytes, "4096")}}, findEvent(t, tr, 'X', "cudaMemcpyHtoD"))
	assert.Equal(t, trace.Event{Ph: 's', Cat: "ac2g", Name: "ac2g", Pid: 7, Tid: 123, TsNs: base, ID: 77}, findEvent(t, tr, 's', "ac2g"))
	assert.Equal(t, trace.Event{Ph: 'f', Cat: "ac2g", Name: "ac2g", Pid: 7, Tid: 1, TsNs: base + 20000, ID: 77}, findEvent(t, tr, 'f', "ac2g"))

	var counters []trace.Event
	for _, e := range tr.Events {
		if e.Ph == 'C' {
			counters = append(counters, e)
		}
	}
	assert.Equal(t, []trace.Event{
		{Ph: 'C', Cat: "gpu_pm_counter", Name: "gpu_pm", Pid: 7, Tid: 1, TsNs: base + 20000, Args: []trace.Arg{trace.Raw("sm_active", "0.5"), trace.Raw("dram_bw", "120")}},
		{Ph: 'C', Cat: "gpu_pm_counter", Name: "gpu_pm", Pid: 7, Tid: 1, TsNs: base + 35000, Args: []trace.Arg{trace.Raw("sm_active", "0.75"), trace.Raw("dram_bw", "340")}},
		{Ph: 'C', Cat: "gpu_pm_counter", Name: "gpu_pm", Pid: 7, Tid: 1, TsNs: base + 50000, Args: []trace.Arg{trace.Raw("sm_active", "0"), trace.Raw("dram_bw", "0")}},
	}, counters, "counters: metadata as series, no External id, no dur")

	span := findEvent(t, tr, 'X', "SamplePlugin (-1)")
	assert.Equal(t, "Spans", span.PidStr)
	assert.Equal(t, "SamplePlugin", span.TidStr)
	assert.LessOrEqual(t, span.TsNs, base, "the host records its start just before profilerStart")
	assert.Less(t, base-span.TsNs, int64(1e9))
	assert.Equal(t, "Traces", findEvent(t, tr, 'i', "Iteration Start: SamplePlugin").PidStr)

	assert.Equal(t, []trace.Process{{Pid: 7, Name: "Sample GPU 7", Label: "GPU 7", SortIndex: 5000007}}, tr.Processes)
	assert.Equal(t, []trace.Thread{{Pid: 7, Tid: 1, Name: "stream 1 ", SortIndex: 1}, {Pid: 7, Tid: 2, Name: "stream 2 ", SortIndex: 2},
		{Pid: 7, Tid: 123, Name: "runtime thread", SortIndex: 123}, {Pid: 7, Tid: 124, Name: "124", SortIndex: 124}}, tr.Threads)

	assert.Equal(t, []DeviceActivity{
		{Type: CUDARuntime, Name: "cudaLaunchKernel", Device: 7, StartNs: base, EndNs: base + 5000, Correlation: 42, Thread: 123},
		{Type: CUDADriver, Name: "cuLaunchKernel", Device: 7, StartNs: base + 10000, EndNs: base + 15000, Thread: 124},
		{Type: ConcurrentKernel, Name: "test_kernel", Device: 7, Stream: 1, StartNs: base + 20000, EndNs: base + 50000, Correlation: 42},
		{Type: GPUMemcpy, Name: "cudaMemcpyHtoD", Device: 7, Stream: 2, StartNs: base + 60000, EndNs: base + 70000},
	}, acts)

	// The report writer's output is JSON.
	var buf bytes.Buffer
	require.NoError(t, trace.Write(&buf, tr))
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc), buf.String())
	names := map[string]int{}
	for _, e := range doc.TraceEvents {
		if n, ok := e["name"].(string); ok {
			names[n]++
		}
		if args, ok := e["args"].(map[string]any); ok && e["ph"] == "M" {
			if n, ok := args["name"].(string); ok {
				names[n]++ // process and thread names
			}
		}
	}
	for _, n := range []string{"cudaLaunchKernel", "cuLaunchKernel", "test_kernel", "cudaMemcpyHtoD", "Sample GPU 7", "stream 1 "} {
		assert.Positive(t, names[n], n)
	}
	assert.Equal(t, 3, names["gpu_pm"])
	assert.Equal(t, 2, names["ac2g"])
}

func subCounts(a, b [6]int64) [6]int64 {
	for i := range a {
		a[i] -= b[i]
	}
	return a
}

// TestConfigureActivityTypes mirrors kineto PR #1148's ConfigureActivityTypes: the plugin is
// created with exactly the requested types it supports, and not at all when there are none.
func TestConfigureActivityTypes(t *testing.T) {
	p, hooks := loadSample(t)
	const rt, drv, kern, cpy, pm = 8, 9, 6, 4, 22
	for _, tc := range []struct {
		name string
		want ActivitySet
		got  []int32 // nil: no session
	}{
		{"all supported", NewActivitySet(CUDARuntime, CUDADriver, ConcurrentKernel, GPUMemcpy), []int32{rt, drv, kern, cpy}},
		{"partial", NewActivitySet(CUDARuntime, CPUOp, ConcurrentKernel, UserAnnotation), []int32{rt, kern}},
		{"generic aliases", NewActivitySet(Runtime, Driver, GPUPMCounter), []int32{rt, drv, pm}},
		{"mtia_counters is not gpu_pm_counter", NewActivitySet(MTIACounters), nil},
		{"unsupported", NewActivitySet(CPUOp, UserAnnotation), nil},
		{"single unsupported", NewActivitySet(CPUOp), nil},
		{"empty", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := p.Configure(tc.want, NewConfig())
			require.NoError(t, err)
			if tc.got == nil {
				assert.Nil(t, s)
				return
			}
			require.NotNil(t, s)
			assert.Equal(t, tc.got, hooks.LastEnabled())
			require.NoError(t, s.Start())
			require.NoError(t, s.Stop())
			require.NoError(t, s.ProcessTrace(&trace.Trace{}))
		})
	}
}

func TestCorrelationConcurrent(t *testing.T) {
	p, hooks := loadSample(t)
	s, err := p.Configure(DefaultActivities(), NewConfig())
	require.NoError(t, err)
	require.NoError(t, s.Start())
	before := hooks.Counts()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				s.PushCorrelationID(uint64(g*1000 + i + 1))
				s.(UserCorrelator).PushUserCorrelationID(1) // NULL in the plugin: nothing happens
				s.(UserCorrelator).PopUserCorrelationID()
				s.PopCorrelationID()
			}
		}()
	}
	wg.Wait()
	c := subCounts(hooks.Counts(), before)
	assert.Equal(t, int64(4000), c[4])
	assert.Equal(t, int64(4000), c[5])
	require.NoError(t, s.Stop())
	require.NoError(t, s.ProcessTrace(&trace.Trace{}))
	err = s.ProcessTrace(&trace.Trace{})
	require.Error(t, err, "a session is processed once")
	assert.Equal(t, PluginError{Path: p.Path, Name: p.Name(), Err: errors.New("session already finished")}.Error(),
		err.Error(), "the session's caller names the step (ProcessTrace), the error does not repeat it")
}

// TestBrokenPlugins loads a directory where every broken plugin is refused with its reason
// while the good ones still load.
func TestBrokenPlugins(t *testing.T) {
	dir := mixedPluginDir(t)
	ps, errs := LoadPlugins(dir)

	var loaded []string
	for _, p := range ps {
		loaded = append(loaded, filepath.Base(p.Path))
	}
	assert.Equal(t, []string{"bad_events.so", "create_fails.so", "sample.so"}, loaded, "sub/inner.so, libfoo.so.1 and notes.txt are not scanned")

	reasons := map[string]string{}
	for _, e := range errs {
		assert.Equal(t, dir, filepath.Dir(e.Path))
		assert.Contains(t, e.Error(), e.Path)
		reasons[filepath.Base(e.Path)] = e.Err.Error()
		assert.Empty(t, errtext.Repeated(e.Error()), "a prefix repeated in %q", e)
	}
	require.Len(t, reasons, 5, "%v", reasons)
	assert.Contains(t, reasons["register_fails.so"], "KinetoPlugin_register returned 3")
	assert.Contains(t, reasons["small_interface.so"], "KinetoPlugin_ProfilerInterface: unpaddedStructSize 80 < 88")
	assert.Contains(t, reasons["no_start.so"], "required function(s) NULL: profilerStart")
	assert.Contains(t, reasons["garbage.so"], "not a loadable library")
	assert.Contains(t, reasons["no_register.so"], "no KinetoPlugin_register symbol")

	byName := map[string]*Plugin{}
	for _, p := range ps {
		byName[filepath.Base(p.Path)] = p
	}

	// Correlation functions are optional (PR #1148's ProfilerValidation).
	assert.False(t, byName["bad_events.so"].HasCorrelation())

	// A failing create is a PluginError naming the library.
	s, err := byName["create_fails.so"].Configure(DefaultActivities(), NewConfig())
	assert.Nil(t, s)
	var pe PluginError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, byName["create_fails.so"].Path, pe.Path)
	assert.Contains(t, err.Error(), "profilerCreate returned -7")

	// Bad events: the event with the too-small struct is rejected with its reason, the good
	// one lands with its invalid metadata quoted, its 64-bit id intact, its repeated key kept
	// first and its unknown flow dropped.
	bad := byName["bad_events.so"]
	s, err = bad.Configure(NewActivitySet(CPUOp), NewConfig())
	require.NoError(t, err)
	require.NoError(t, s.Start())
	s.PushCorrelationID(1) // no correlation functions: nothing to call
	s.PopCorrelationID()
	require.NoError(t, s.Stop())
	tr := &trace.Trace{}
	err = s.ProcessTrace(tr)
	require.Error(t, err)
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, bad.Path, pe.Path)
	for _, want := range []string{
		"setLastEventName called before any addEvent",
		"event #1 rejected: KinetoPlugin_ProfileEvent: unpaddedStructSize 24 < 48",
		`event #2 "good event": metadata "note": "not json" is not JSON; written as a string`,
		`event #2 "good event": metadata key "count" repeated; first value kept`,
		`event #2 "good event": unknown flow type 9, no flow written`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.NotContains(t, err.Error(), "rejected event", "set-last calls after a rejected event fail quietly")
	good := findEvent(t, tr, 'X', "good event")
	assert.Equal(t, []trace.Arg{trace.Int(trace.ArgExternalID, 4294967298), trace.Raw("note", `"not json"`), trace.Raw("count", "3")}, good.Args)
	for _, e := range tr.Events {
		assert.NotContains(t, []byte{'s', 'f'}, e.Ph, "no flow for an unknown flow type")
		assert.NotEqual(t, "rejected event", e.Name)
	}
}

func TestLoadPluginsDirErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	ps, errs := LoadPlugins(missing)
	assert.Empty(t, ps)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrPluginDir)
	assert.ErrorIs(t, errs[0], os.ErrNotExist)
	assert.Equal(t, missing, errs[0].Path)

	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, errs = LoadPlugins(file)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrPluginDir)

	ps, errs = LoadPlugins(t.TempDir())
	assert.Empty(t, ps)
	assert.Empty(t, errs)
}

func TestRegisterPluginsFromEnv(t *testing.T) {
	t.Cleanup(ResetRegisteredForTest)
	ResetRegisteredForTest()

	t.Setenv(PluginDirEnv, "")
	ps, errs := LoadPluginsFromEnv()
	assert.Empty(t, ps)
	assert.Empty(t, errs)
	assert.Empty(t, RegisteredProfilers())

	dir := mixedPluginDir(t)
	t.Setenv(PluginDirEnv, dir)
	ps, errs = LoadPluginsFromEnv()
	require.Len(t, ps, 3)
	require.Len(t, errs, 5)
	reg := RegisteredProfilers()
	require.Len(t, reg, 8, "3 plugins and 5 refusals")
	for i, p := range ps {
		assert.Same(t, p, reg[i])
	}
	// A refusal reaches a session through Configure.
	for _, r := range reg[3:] {
		assert.True(t, r.AvailableActivities().Empty())
		s, err := r.Configure(DefaultActivities(), NewConfig())
		assert.Nil(t, s)
		var pe PluginError
		require.ErrorAs(t, err, &pe)
		assert.Contains(t, r.Name(), filepath.Base(pe.Path))
	}
	// Registering the same directory again adds nothing.
	RegisterPlugins(dir)
	assert.Len(t, RegisteredProfilers(), 8)
}

func TestPluginErrorFormat(t *testing.T) {
	e := PluginError{Path: "/p/x.so", Name: "X", Err: errors.New("boom")}
	assert.Equal(t, "kineto plugin /p/x.so (X): boom", e.Error())
	assert.Equal(t, "kineto plugin /p/x.so: boom", PluginError{Path: "/p/x.so", Err: e.Err}.Error())
	assert.ErrorIs(t, e, e.Err)
}

// BenchmarkCorrelationPushPop is the per-op cost a plugin session adds: one push and one pop
// through purego.
func BenchmarkCorrelationPushPop(b *testing.B) {
	ps, errs := LoadPlugins(SamplePluginDir(b))
	require.Empty(b, errs)
	s, err := ps[0].Configure(DefaultActivities(), NewConfig())
	require.NoError(b, err)
	require.NoError(b, s.Start())
	b.ReportAllocs()
	for b.Loop() {
		s.PushCorrelationID(7)
		s.PopCorrelationID()
	}
	require.NoError(b, s.Stop())
	require.NoError(b, s.ProcessTrace(&trace.Trace{}))
}
