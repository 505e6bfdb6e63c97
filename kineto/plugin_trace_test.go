package kineto

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/trace"
)

// These tests drive the trace builder with Go values, as the C callbacks do after copying.

func event(typ int32, start, end, id int64, dev, res int32) *cProfileEvent {
	return &cProfileEvent{size: eventSize, eventType: typ, startNs: start, endNs: end, eventID: id, device: dev, resource: res}
}

func TestBuilderExternalID(t *testing.T) {
	b := newTraceBuilder()
	add := func(typ int32, id int64, name string, meta ...string) {
		require.Zero(t, b.addEvent(eventSize, event(typ, 100, 200, id, 0, 1)))
		require.Zero(t, b.setLastEventName(name, true))
		for i := 0; i+1 < len(meta); i += 2 {
			b.addLastEventMetadata(meta[i], true, meta[i+1], true)
		}
	}
	add(1, 1<<40, "cpu op with a 64-bit id")
	add(2, 0, "annotation with id 0")
	add(6, 9, "unlinked kernel")
	add(6, 9, "linked kernel", "External id", "77", "x", "1")
	add(8, 5, "unlinked runtime")
	add(22, 3, "counter", "External id", "77", "v", "1.5")
	tr := &trace.Trace{}
	acts := b.appendTo(tr, pluginSpan{name: "P"})
	args := map[string][]trace.Arg{}
	for _, e := range tr.Events[2:] {
		args[e.Name] = e.Args
	}
	assert.Equal(t, []trace.Arg{trace.Int(trace.ArgExternalID, 1099511627776)}, args["cpu op with a 64-bit id"])
	assert.Nil(t, args["annotation with id 0"], "0 is omitted")
	assert.Nil(t, args["unlinked kernel"], "device work has no External id of its own")
	assert.Equal(t, []trace.Arg{trace.Int(trace.ArgExternalID, 77), trace.Raw("x", "1")}, args["linked kernel"])
	assert.Nil(t, args["unlinked runtime"])
	assert.Equal(t, []trace.Arg{trace.Raw("v", "1.5")}, args["counter"], "counters never carry External id")
	require.Len(t, acts, 3)
	assert.Equal(t, int64(0), acts[0].Correlation)
	assert.Equal(t, int64(77), acts[1].Correlation)
	assert.True(t, acts[2].IsHost(), "the runtime call is the host side of a launch")
	assert.Equal(t, int64(1), acts[2].Thread, "its resource id")
	assert.NoError(t, b.err())
}

func TestBuilderMetadata(t *testing.T) {
	b := newTraceBuilder()
	require.Zero(t, b.addEvent(eventSize, event(1, 0, 10, 1, 0, 0)))
	for _, kv := range [][2]string{
		{"s", `"quoted"`}, {"n", " 42 "}, {"l", "[1, 2, 3]"}, {"o", `{"a": 1}`}, {"bad", "not json"},
		{"ctl", "a\x01b\xff"}, {"External id", "x"},
	} {
		b.addLastEventMetadata(kv[0], true, kv[1], true)
	}
	assert.Equal(t, int32(-1), b.addLastEventMetadata("k", false, "1", true), "NULL key")
	tr := &trace.Trace{}
	b.appendTo(tr, pluginSpan{})
	got := tr.Events[2].Args
	assert.Equal(t, []trace.Arg{trace.Int(trace.ArgExternalID, 1), trace.Raw("s", `"quoted"`), trace.Raw("n", "42"),
		trace.Raw("l", "[1, 2, 3]"), trace.Raw("o", `{"a": 1}`), trace.Raw("bad", `"not json"`),
		trace.Raw("ctl", `"a\u0001b\ufffd"`)}, got)
	for _, a := range got {
		assert.True(t, json.Valid([]byte(a.JSON())), a.Key)
	}
	err := b.err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `metadata "bad": "not json" is not JSON; written as a string`)
	assert.Contains(t, err.Error(), `metadata "External id" = x is not an integer correlation id`)
	assert.Contains(t, err.Error(), "NULL or unterminated key or value")
}

func TestBuilderRejections(t *testing.T) {
	b := newTraceBuilder()
	assert.Equal(t, int32(-1), b.setLastEventName("x", true))
	assert.Equal(t, int32(-1), b.addEvent(24, nil))
	assert.Equal(t, int32(-1), b.setLastEventName("dropped", true), "set-last after a rejected event")
	assert.Equal(t, int32(-1), b.addEvent(eventSize, event(0, 0, 0, 0, 0, 0)), "INVALID type")
	assert.Equal(t, int32(0), b.addEvent(eventSize, event(99, 5, 1, 0, 0, math.MinInt32)), "unknown type: a kernel")
	assert.Equal(t, int32(-1), b.setLastEventFlow(16, nil))
	assert.Equal(t, int32(-1), b.addDeviceInfo(32, nil))
	assert.Equal(t, int32(-1), b.addResourceInfo(8, nil))
	assert.Equal(t, int32(-1), b.nullArg("addEvent", true))
	tr := &trace.Trace{}
	b.appendTo(tr, pluginSpan{})
	require.Len(t, tr.Events, 3)
	assert.Equal(t, trace.Event{Ph: 'X', Cat: "kernel", Tid: 1 << 31, TsNs: 5, DurNs: 0}, tr.Events[2], "negative durations clamp; tid = abs(int64(resource)) as on Kineto main")
	err := b.err()
	require.Error(t, err)
	for _, want := range []string{
		"setLastEventName called before any addEvent",
		"event #1 rejected: KinetoPlugin_ProfileEvent: unpaddedStructSize 24 < 48",
		"event #2 rejected: event type INVALID (0)",
		"event #3: unknown event type 99, recorded as kernel",
		"flow rejected: KinetoPlugin_ProfileEventFlow: unpaddedStructSize 16 < 17",
		"device info rejected: KinetoPlugin_ProfileDeviceInfo: unpaddedStructSize 32 < 40",
		"resource info rejected: KinetoPlugin_ProfileResourceInfo: unpaddedStructSize 8 < 32",
		"addEvent called with NULL",
	} {
		assert.Contains(t, err.Error(), want)
	}
}

func TestBuilderFlowsAndRows(t *testing.T) {
	b := newTraceBuilder()
	require.Zero(t, b.addEvent(eventSize, event(1, 10, 20, 0, 3, -4)))
	require.Zero(t, b.setLastEventFlow(flowSize, &cEventFlow{flowType: pluginFlowFwdBwd, flowID: 9, isStartPoint: 1}))
	require.Zero(t, b.addEvent(eventSize, event(10, 30, 30, 0, 3, 4)))
	require.Zero(t, b.setLastEventFlow(flowSize, &cEventFlow{flowType: pluginFlowFwdBwd, flowID: 9, isStartPoint: 0}))
	require.Zero(t, b.addEvent(eventSize, event(1, 40, 50, 0, 3, 4)))
	require.Zero(t, b.setLastEventFlow(flowSize, &cEventFlow{flowType: pluginFlowAsyncGPU, flowID: 0, isStartPoint: 1}))
	require.Zero(t, b.addDeviceInfo(deviceInfoSize, &cDeviceInfo{deviceID: 3, sortIndex: 9}))
	require.Zero(t, b.addDeviceInfo(deviceInfoSize, &cDeviceInfo{deviceID: 1}))
	require.Zero(t, b.addResourceInfo(resourceInfoSize, &cResourceInfo{device: 3, resource: -4, displayOrder: 2}))
	require.Zero(t, b.addResourceInfo(resourceInfoSize, &cResourceInfo{device: 1, resource: 1}))

	tr := &trace.Trace{Processes: []trace.Process{{Pid: 1, Name: "host"}}, Threads: []trace.Thread{{Pid: 1, Tid: 1, Name: "main"}}}
	b.appendTo(tr, pluginSpan{name: "P", startNs: 5, stopNs: 60})
	assert.Equal(t, []trace.Process{{Pid: 1, Name: "host"}, {Pid: 3, Name: "3", SortIndex: 9}}, tr.Processes)
	assert.Equal(t, []trace.Thread{{Pid: 1, Tid: 1, Name: "main"}, {Pid: 3, Tid: 4, Name: "-4", SortIndex: 2}}, tr.Threads)
	assert.Equal(t, []trace.Event{
		{Ph: 'X', Cat: "Trace", Name: "P (-1)", PidStr: "Spans", TidStr: "P", TsNs: 5, DurNs: 55, Args: []trace.Arg{trace.Int(trace.ArgOpCount, 0)}},
		{Ph: 'i', Name: "Iteration Start: P", PidStr: "Traces", TidStr: "Trace P", TsNs: 5, Scope: 'g'},
		{Ph: 'X', Cat: "cpu_op", Pid: 3, Tid: 4, TsNs: 10, DurNs: 10},
		{Ph: 's', Cat: "fwdbwd", Name: "fwdbwd", Pid: 3, Tid: 4, TsNs: 10, ID: 9},
		{Ph: 'i', Cat: "cpu_instant_event", Pid: 3, Tid: 4, TsNs: 30, Scope: 't'},
		{Ph: 'f', Cat: "fwdbwd", Name: "fwdbwd", Pid: 3, Tid: 4, TsNs: 30, ID: 9},
		{Ph: 'X', Cat: "cpu_op", Pid: 3, Tid: 4, TsNs: 40, DurNs: 10},
	}, tr.Events, "flow id 0 is no flow")
	err := b.err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already has a process row with pid 1")
	assert.Contains(t, err.Error(), "already has that thread row")
}

func TestBuilderCounterNotNumber(t *testing.T) {
	b := newTraceBuilder()
	require.Zero(t, b.addEvent(eventSize, event(22, 10, 0, 0, 0, 0)))
	require.Zero(t, b.setLastEventName("c", true))
	require.Zero(t, b.addLastEventMetadata("series", true, `"high"`, true))
	b.appendTo(&trace.Trace{}, pluginSpan{})
	assert.ErrorContains(t, b.err(), `counter "c": series "series" = "high" is not a number`)
}

func TestBuilderProblemCap(t *testing.T) {
	b := newTraceBuilder()
	for range 30 {
		b.addEvent(1, nil)
	}
	assert.ErrorContains(t, b.err(), "; and 10 more")
}

func TestSanitizeTid(t *testing.T) {
	assert.Equal(t, int64(5), sanitizeTid(-5))
	assert.Equal(t, int64(5), sanitizeTid(5))
	assert.Equal(t, int64(0), sanitizeTid(math.MinInt64))
}

// A plugin's flows and rows must make a trace Check accepts, or the builder says why: flows
// without exactly one start and one end (end not first) are dropped (half a flow quietly, the
// rest reported), overlapping events reported (and written on rows of their own).
func TestBuilderFlowsAndNesting(t *testing.T) {
	flow := func(typ int32, id uint32, start bool) *cEventFlow {
		s := uint8(0)
		if start {
			s = 1
		}
		return &cEventFlow{size: flowSize, flowType: typ, flowID: id, isStartPoint: s}
	}
	type ev struct {
		start, end int64
		res        int32
		flow       *cEventFlow
	}
	for _, tc := range []struct {
		name      string
		events    []ev
		flows     int    // flow events written
		wantErr   string // "" for none
		checkFail bool
	}{
		{"paired", []ev{{0, 10, 1, flow(1, 7, true)}, {20, 30, 2, flow(1, 7, false)}}, 2, "", false},
		{"start only (end's type not enabled)", []ev{{0, 10, 1, flow(1, 7, true)}}, 0, "", false},
		{"two starts", []ev{{0, 10, 1, flow(2, 7, true)}, {1, 2, 2, flow(2, 7, true)}, {20, 30, 2, flow(2, 7, false)}}, 0,
			"has 2 starts and 1 ends", false},
		{"end first", []ev{{20, 30, 1, flow(1, 7, true)}, {0, 10, 2, flow(1, 7, false)}}, 0, "ends at 0 before it starts at 20", false},
		{"same id other type", []ev{{0, 10, 1, flow(1, 7, true)}, {20, 30, 2, flow(2, 7, false)}}, 0, "", false},
		{"two ends", []ev{{0, 10, 1, flow(1, 7, false)}, {20, 30, 2, flow(1, 7, false)}}, 0, "flow 7 (type 1) has 0 starts and 2 ends", false},
		{"nested", []ev{{0, 10, 1, nil}, {2, 5, 1, nil}, {10, 12, 1, nil}}, 0, "", false},
		// Reported; trace.Write moves the second event to a row of its own, so the file nests.
		{"overlap", []ev{{0, 10, 1, nil}, {5, 15, 1, nil}}, 0, "event #2 \"\" overlaps event #1 \"\" on device 0 resource 1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newTraceBuilder()
			for _, e := range tc.events {
				require.Zero(t, b.addEvent(eventSize, event(1, e.start, e.end, 1, 0, e.res)))
				if e.flow != nil {
					require.Zero(t, b.setLastEventFlow(flowSize, e.flow))
				}
			}
			tr := &trace.Trace{}
			b.appendTo(tr, pluginSpan{name: "P", stopNs: 100})
			flows := 0
			for _, e := range tr.Events {
				if e.Ph == 's' || e.Ph == 'f' {
					flows++
				}
			}
			assert.Equal(t, tc.flows, flows)
			if tc.wantErr == "" {
				assert.NoError(t, b.err())
			} else {
				assert.ErrorContains(t, b.err(), tc.wantErr)
			}
			var out bytes.Buffer
			require.NoError(t, trace.Write(&out, tr))
			if tc.checkFail {
				assert.Error(t, trace.Check(out.Bytes()))
			} else {
				assert.NoError(t, trace.Check(out.Bytes()))
			}
		})
	}
}

// A duration past int64 would wrap to a negative one, written as 0: the event is refused.
func TestBuilderDurationOverflow(t *testing.T) {
	b := newTraceBuilder()
	assert.Equal(t, int32(-1), b.addEvent(eventSize, event(1, math.MinInt64+1, math.MaxInt64, 1, 0, 0)))
	assert.Equal(t, int32(-1), b.setLastEventName("x", true), "the set-last calls of a refused event fail")
	require.Zero(t, b.addEvent(eventSize, event(1, math.MinInt64+1, -1, 2, 0, 0)))
	tr := &trace.Trace{}
	b.appendTo(tr, pluginSpan{})
	assert.Len(t, tr.Events, 3)
	assert.ErrorContains(t, b.err(), "event #1 rejected: its duration, 9223372036854775807 - -9223372036854775807 ns, overflows int64")
}
