package events

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
)

func ev(id int64, name string, thread int64, start, end float64) FunctionEvent {
	e := NewFunctionEvent(id, name, thread, start, end)
	e.InputShapes = "[]"
	return e
}

// parents returns name → parent name ("" for roots) of a built list.
func parents(l *List) map[string]string {
	out := map[string]string{}
	for i := 0; i < l.Len(); i++ {
		p := ""
		if j := l.Parent(i); j >= 0 {
			p = l.Event(j).Name
		}
		out[l.Event(i).Name] = p
	}
	return out
}

func TestTreeContainment(t *testing.T) {
	cases := []struct {
		name string
		evs  []FunctionEvent
		want map[string]string
	}{
		{"nested", []FunctionEvent{ev(1, "a", 1, 0, 10), ev(2, "b", 1, 1, 5), ev(3, "c", 1, 2, 3)},
			map[string]string{"a": "", "b": "a", "c": "b"}},
		{"child ends exactly at the parent's end", []FunctionEvent{ev(1, "a", 1, 0, 10), ev(2, "b", 1, 5, 10)},
			map[string]string{"a": "", "b": "a"}},
		{"starting at the parent's end is not a child", []FunctionEvent{ev(1, "a", 1, 0, 10), ev(2, "b", 1, 10, 12)},
			map[string]string{"a": "", "b": ""}},
		{"partial overlap gets no relation", []FunctionEvent{ev(1, "a", 1, 0, 10), ev(2, "b", 1, 5, 15)},
			map[string]string{"a": "", "b": ""}},
		{"equal intervals: the first is the parent", []FunctionEvent{ev(1, "a", 1, 0, 10), ev(2, "b", 1, 0, 10)},
			map[string]string{"a": "", "b": "a"}},
		{"equal starts: the longer is the parent, whatever the input order", []FunctionEvent{ev(2, "b", 1, 0, 5), ev(1, "a", 1, 0, 10)},
			map[string]string{"a": "", "b": "a"}},
		{"other threads do not nest", []FunctionEvent{ev(1, "a", 1, 0, 10), ev(2, "b", 2, 1, 5)},
			map[string]string{"a": "", "b": ""}},
		{"siblings", []FunctionEvent{ev(1, "a", 1, 0, 10), ev(2, "b", 1, 1, 3), ev(3, "c", 1, 3, 6)},
			map[string]string{"a": "", "b": "a", "c": "a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, parents(NewList(c.evs, ListOptions{})))
		})
	}
}

func TestAsyncAndDeviceEventsStayOutOfTheTree(t *testing.T) {
	async := ev(2, "async", 1, 1, 5)
	async.IsAsync = true
	kernel := ev(3, "kernel", 1, 2, 3)
	kernel.DeviceType = devices.CUDA
	l := NewList([]FunctionEvent{ev(1, "a", 1, 0, 10), async, kernel}, ListOptions{})
	assert.Equal(t, map[string]string{"a": "", "async": "", "kernel": ""}, parents(l))
	for i := 0; i < l.Len(); i++ {
		switch l.Event(i).Name {
		case "async":
			assert.Zero(t, l.SelfCPUTimeTotal(i), "async events have no self CPU time")
			assert.Zero(t, l.DeviceTimeTotal(i))
		case "a":
			assert.Equal(t, 10.0, l.SelfCPUTimeTotal(i), "the async event is not a child")
		case "kernel":
			assert.Equal(t, 1.0, l.DeviceTimeTotal(i))
			assert.Zero(t, l.SelfCPUTimeTotal(i))
		}
	}
}

func TestSameNameCollapse(t *testing.T) {
	// aten::add → aten::add (only child) → aten::add (only child): one event remains, with
	// the innermost's children and kernels.
	outer := ev(1, "aten::add", 1, 0, 10)
	outer.Kernels = []Kernel{{Name: "outer", DurationUs: 1}}
	mid := ev(2, "aten::add", 1, 1, 9)
	inner := ev(3, "aten::add", 1, 2, 8)
	inner.Kernels = []Kernel{{Name: "inner", DurationUs: 3}}
	leaf := ev(4, "aten::empty", 1, 3, 4)
	l := NewList([]FunctionEvent{outer, mid, inner, leaf}, ListOptions{})
	require.Equal(t, 2, l.Len())
	assert.Equal(t, int64(1), l.Event(0).ID)
	assert.Equal(t, []Kernel{{Name: "inner", DurationUs: 3}}, l.Event(0).Kernels)
	assert.Equal(t, []int{1}, l.Children(0))
	assert.Equal(t, 0, l.Parent(1))
	assert.Equal(t, 9.0, l.SelfCPUTimeTotal(0))

	// Two same-name children: nothing collapses.
	l = NewList([]FunctionEvent{ev(1, "x", 1, 0, 10), ev(2, "x", 1, 1, 2), ev(3, "x", 1, 3, 4)}, ListOptions{})
	assert.Equal(t, 3, l.Len())
}

func TestDeviceTimes(t *testing.T) {
	// Non-legacy host events add their children's device time; legacy ones do not.
	parent := ev(1, "p", 1, 0, 100)
	parent.Kernels = []Kernel{{Name: "k0", DurationUs: 5}}
	child := ev(2, "c", 1, 10, 20)
	child.Kernels = []Kernel{{Name: "k1", DurationUs: 7}}
	l := NewList([]FunctionEvent{parent, child}, ListOptions{})
	assert.Equal(t, 12.0, l.DeviceTimeTotal(0))
	assert.Equal(t, 5.0, l.SelfDeviceTimeTotal(0))

	parent.IsLegacy, child.IsLegacy = true, true
	parent.Kernels = []Kernel{{Name: "p", DurationUs: 6}}
	l = NewList([]FunctionEvent{parent, child}, ListOptions{})
	assert.Equal(t, 6.0, l.DeviceTimeTotal(0), "a legacy event's one kernel covers its children")
	assert.Equal(t, -1.0, l.SelfDeviceTimeTotal(0), "and self device time can go negative, as in PyTorch")
}

func TestBackwardStacks(t *testing.T) {
	fwd := ev(1, "aten::mul", 1, 0, 10)
	fwd.SequenceNr, fwd.Stack = 0, []string{"model.py(3): forward"}
	bw := ev(2, "MulBackward0", 2, 20, 30)
	bw.Scope, bw.SequenceNr, bw.FwdThread = ScopeBackwardFunction, 0, 1
	inner := ev(3, "aten::mul", 2, 21, 29)
	l := NewList([]FunctionEvent{fwd, bw, inner}, ListOptions{})
	for i := 0; i < l.Len(); i++ {
		assert.Equal(t, []string{"model.py(3): forward"}, l.Event(i).Stack, l.Event(i).Name)
	}
	orphan := bw
	orphan.SequenceNr = 9
	l = NewList([]FunctionEvent{fwd, orphan}, ListOptions{})
	assert.Empty(t, l.Event(1).Stack, "no forward op with that sequence number")
}

func TestNewListDoesNotModifyItsInput(t *testing.T) {
	evs := []FunctionEvent{ev(2, "b", 1, 1, 2), ev(1, "a", 1, 0, 10)}
	before := append([]FunctionEvent(nil), evs...)
	NewList(evs, ListOptions{})
	assert.Equal(t, before, evs)
}
