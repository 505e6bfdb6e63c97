package tracefile

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orprof/orprof/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pyCollect records what a consumer that needs the Python layer is handed, in order.
type pyCollect struct {
	got    []string
	events int
}

func (c *pyCollect) Event(ev *Event) {
	switch ev.Kind {
	case KindPython, KindFlow:
		if c.events > 0 {
			c.got = append(c.got, "python after an event")
		}
		if ev.Kind == KindFlow {
			end := byte('f')
			if ev.FlowStart {
				end = 's'
			}
			c.got = append(c.got, fmt.Sprintf("flow %c %d tid=%d at=%d", end, ev.FlowID, ev.Tid, ev.StartNs))
			return
		}
		c.got = append(c.got, fmt.Sprintf("py %s tid=%d %d-%d", ev.Name, ev.Tid, ev.StartNs, ev.EndNs))
		return
	}
	c.events++
	if ev.Kind == KindOp {
		c.got = append(c.got, fmt.Sprintf("op %s seq=%d fwd=%d", ev.Name, ev.SequenceNr, ev.FwdThread))
	}
}

// pyTrace has a module call, a frame, a forward op with its sequence number, the backward op
// of it on another thread, the fwdbwd flow between them, an ac2g flow (not the Python layer's)
// and padding events so that a parallel read cuts it into several segments.
func pyTrace(pad int) string {
	var b strings.Builder
	b.WriteString(`{"traceEvents": [
{"ph": "X", "cat": "python_function", "name": "train.py(3): <module>", "pid": 1, "tid": 1, "ts": 1.000, "dur": 99.000, "args": {"Python parent id": null, "Python id": 1}},
{"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 1, "tid": 1, "ts": 2.000, "dur": 20.000, "args": {"Python parent id": 1, "Python id": 2, "Python module id": 0}},
`)
	for i := range pad {
		fmt.Fprintf(&b, `{"ph": "X", "cat": "cpu_op", "name": "pad%d", "pid": 1, "tid": 9, "ts": %d.000, "dur": 0.500, "args": {"External id": %d}},`+"\n", i, 200+i, 1000+i)
	}
	b.WriteString(`{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 3.000, "dur": 5.000, "args": {"External id": 1, "Sequence number": 7}},
{"ph": "s", "id": 4, "pid": 1, "tid": 1, "ts": 3.000, "cat": "fwdbwd", "name": "fwdbwd"},
{"ph": "s", "id": 5, "pid": 1, "tid": 1, "ts": 3.000, "cat": "ac2g", "name": "ac2g"},
{"ph": "X", "cat": "cpu_op", "name": "AddmmBackward0", "pid": 1, "tid": 2, "ts": 50.000, "dur": 5.000, "args": {"External id": 2, "Sequence number": 7, "Fwd thread id": 1}},
{"ph": "f", "id": 4, "pid": 1, "tid": 2, "ts": 50.000, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"}
]}`)
	return b.String()
}

// TestPythonConsumer: a consumer that needs the Python layer gets the python_function events and the fwdbwd flows,
// in file order, before the events; host ops carry their sequence number and forward
// thread; a sequential and a parallel read agree.
func TestPythonConsumer(t *testing.T) {
	want := []string{
		"py train.py(3): <module> tid=1 1000-100000",
		"py nn.Module: Linear_0 tid=1 2000-22000",
		"flow s 4 tid=1 at=3000",
		"flow f 4 tid=2 at=50000",
		"op aten::addmm seq=7 fwd=0",
		"op AddmmBackward0 seq=7 fwd=1",
	}
	for _, tc := range []struct {
		name string
		par  parConfig
		pad  int
	}{{"sequential", parConfig{workers: 1}, 0}, {"parallel", parConfig{workers: 3, segSize: 4096}, 400}} {
		t.Run(tc.name, func(t *testing.T) {
			var c pyCollect
			_, err := readTrace(bytes.NewReader([]byte(pyTrace(tc.pad))), "py.json", Options{Consumers: []Consumer{&c}}, tc.par)
			require.NoError(t, err)
			var got []string
			for _, s := range c.got {
				if !strings.HasPrefix(s, "op pad") {
					got = append(got, s)
				}
			}
			assert.Equal(t, want, got)
		})
	}
}

// plainCollect is a Consumer that does not need the Python layer.
type plainCollect struct{ n int }

func (c *plainCollect) Event(*Event) { c.n++ }

// TestPythonLayerOnlyOnRequest: without a consumer that needs it the Python layer is not kept (the
// same events and no skipped ones), and a python_function event with a bad time is skipped
// and counted only when it is read.
func TestPythonLayerOnlyOnRequest(t *testing.T) {
	bad := strings.Replace(pyTrace(0), `"dur": 20.000`, `"dur": "x"`, 1)
	var plain plainCollect
	d, err := Read(strings.NewReader(bad), "py.json", Options{Consumers: []Consumer{&plain}})
	require.NoError(t, err)
	assert.Equal(t, 2, plain.n)
	assert.Zero(t, d.Skipped)
	var c pyCollect
	d, err = Read(strings.NewReader(bad), "py.json", Options{Consumers: []Consumer{&c}})
	require.NoError(t, err)
	assert.Equal(t, 1, d.Skipped)
	assert.Contains(t, d.SkipReason, `"dur"`)
}

// TestPythonLayerRealTrace: the TraceLens BERT trace (recorded with_stack=True) hands over
// its 1,389 python_function events; the CUDA training trace its 905 fwdbwd flows (both ends).
func TestPythonLayerRealTrace(t *testing.T) {
	count := func(path string) (spans, flows int) {
		var c pyCollect
		_, err := OpenConsumers(path, Options{Consumers: []Consumer{&c}})
		require.NoError(t, err)
		for _, s := range c.got {
			switch {
			case strings.HasPrefix(s, "py "):
				spans++
			case strings.HasPrefix(s, "flow "):
				flows++
			}
		}
		return spans, flows
	}
	spans, _ := count(filepath.Join(requireShared(t, "kineto-extra"), "tracelens_mi300_bert_small.json.gz"))
	assert.Equal(t, 1389, spans)
	spans, flows := count(filepath.Join(requireShared(t, "kineto"), "cuda_ns_resolution.json.gz"))
	assert.Equal(t, 0, spans)
	assert.Equal(t, 1810, flows)
}

// moduleCalls counts the nn.Module calls of a trace: a consumer that needs the Python layer.
type moduleCalls struct{ n map[string]int }

func (m *moduleCalls) Event(ev *Event) {
	if name, ok := strings.CutPrefix(ev.Name, "nn.Module: "); ok && ev.Kind == KindPython {
		m.n[name]++
	}
}

func ExampleNeeds_python() {
	m := &moduleCalls{n: map[string]int{}}
	_, err := Read(strings.NewReader(pyTrace(0)), "py.json", Options{Consumers: []Consumer{m}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.n)
	// Output: map[Linear_0:1]
}

func (*pyCollect) Needs() Needs    { return NeedLinks | NeedPython }
func (*pyCollect) Begin(*Info)     {}
func (*pyCollect) Finish()         {}
func (*plainCollect) Needs() Needs { return 0 }
func (*plainCollect) Begin(*Info)  {}
func (*plainCollect) Finish()      {}
func (*moduleCalls) Needs() Needs  { return NeedPython }
func (*moduleCalls) Begin(*Info)   {}
func (*moduleCalls) Finish()       {}

// TestPythonNeedsNoLinks: a consumer that needs the Python layer and no links gets it on
// every read path, the table's (which feeds link-free consumers early) included.
func TestPythonNeedsNoLinks(t *testing.T) {
	path := filepath.Join(requireShared(t, "kineto-extra"), "tracelens_mi300_bert_small.json.gz")
	for name, read := range map[string]func(Options) error{
		"Open":          func(o Options) error { _, err := Open(path, o); return err },
		"OpenConsumers": func(o Options) error { _, err := OpenConsumers(path, o); return err },
		"OpenAverages":  func(o Options) error { _, err := OpenAverages(path, o, events.AverageOptions{}); return err },
	} {
		m := &moduleCalls{n: map[string]int{}}
		require.NoError(t, read(Options{Consumers: []Consumer{m}}), name)
		assert.NotEmpty(t, m.n, "%s: no nn.Module call handed over", name)
	}
}

// pyCount is pyCollect that also keeps the read's Counts.Python.
type pyCount struct {
	pyCollect
	counted int
}

func (c *pyCount) Begin(info *Info) { c.counted = info.Counts.Python }

// TestPythonManySegments: python_function events and flows spread over many segments of a
// parallel read (more than a chunk of records in all, several segments per worker, whose
// lists share the worker's chunks) are handed over as a sequential read hands them, and
// Counts.Python counts them.
func TestPythonManySegments(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"traceEvents": [`)
	const n = 3 * pyChunk
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, `{"ph": "s", "id": %d, "pid": 1, "tid": 1, "ts": %d.000, "cat": "fwdbwd", "name": "fwdbwd"}`, i, i)
		case 1:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "cpu_op", "name": "op%d", "pid": 1, "tid": 1, "ts": %d.000, "dur": 0.500, "args": {"External id": %d}}`, i%7, i, i)
		default:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "python_function", "name": "f.py(%d): g", "pid": 1, "tid": %d, "ts": %d.000, "dur": 0.250, "args": {"Python id": %d}}`, i%97, 1+i%3, i, i)
		}
	}
	b.WriteString("\n]}")
	read := func(par parConfig) *pyCount {
		var c pyCount
		_, err := readTrace(strings.NewReader(b.String()), "py.json", Options{Consumers: []Consumer{&c}}, par)
		require.NoError(t, err)
		return &c
	}
	seq := read(parConfig{workers: 1})
	par := read(parConfig{workers: 3, segSize: 4096})
	want := n - n/5 - 1 // every event but the ops
	assert.Equal(t, want, seq.counted)
	assert.Equal(t, want, par.counted)
	require.Len(t, seq.got, n)
	assert.Equal(t, seq.got, par.got)
	assert.Equal(t, "flow s 0 tid=1 at=0", seq.got[0])
	assert.Equal(t, "py f.py(2): g tid=3 2000-2250", seq.got[1])
}

// pyOrder records, for a consumer of the Python layer with needs, what order its calls come
// in and a digest of what it is handed.
type pyOrder struct {
	needs                  Needs
	begins, beforeBegin    int
	python, other, late    int // late: Python events after another event
	told                   int // Counts.Python at Begin
	sumPy, sumOther, names int64
}

func (c *pyOrder) Needs() Needs { return c.needs }
func (c *pyOrder) Begin(i *Info) {
	c.begins++
	c.beforeBegin = c.python + c.other
	c.told = i.Counts.Python
	c.names = int64(len(i.DeviceNames))
}
func (c *pyOrder) Finish() {}
func (c *pyOrder) Event(ev *Event) {
	if ev.Kind == KindPython || ev.Kind == KindFlow {
		c.python++
		c.sumPy += ev.StartNs ^ int64(len(ev.Name))
		if c.other > 0 {
			c.late++
		}
		return
	}
	c.other++
	c.sumOther += ev.StartNs ^ int64(ev.OpIndex)
}

// TestPythonConsumersAmongOthers: consumers of the Python layer, read beside link-free ones,
// ones that want the device names and ones that need the links (the layer is fed while the
// read links the others' events), are begun once before their first event, get the whole
// layer before any other event, and get what each would get read alone — on every read path.
func TestPythonConsumersAmongOthers(t *testing.T) {
	path := filepath.Join(requireShared(t, "kineto-extra"), "tracelens_mi300_bert_small.json.gz")
	reads := map[string]func(Options) error{
		"Open":          func(o Options) error { _, err := Open(path, o); return err },
		"OpenConsumers": func(o Options) error { _, err := OpenConsumers(path, o); return err },
		"OpenAverages":  func(o Options) error { _, err := OpenAverages(path, o, events.AverageOptions{}); return err },
	}
	pyNeeds := []Needs{NeedPython, NeedPython | NeedLinks, NeedPython | NeedDeviceNames, NeedPython | NeedLinks | NeedMemory}
	alone := map[Needs]pyOrder{}
	for _, n := range pyNeeds {
		c := &pyOrder{needs: n}
		_, err := OpenConsumers(path, Options{Consumers: []Consumer{c}})
		require.NoError(t, err)
		require.Positive(t, c.python)
		alone[n] = *c
	}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			var cs []Consumer
			var pys []*pyOrder
			for _, n := range pyNeeds {
				cs = append(cs, &counting{needs: 0}, &counting{needs: NeedDeviceNames | NeedLinks})
				c := &pyOrder{needs: n}
				pys = append(pys, c)
				cs = append(cs, c)
			}
			require.NoError(t, read(Options{Consumers: cs}))
			for _, c := range pys {
				want := alone[c.needs]
				assert.Equal(t, 1, c.begins, "needs %d: calls of Begin", c.needs)
				assert.Zero(t, c.beforeBegin, "needs %d: events before Begin", c.needs)
				assert.Zero(t, c.late, "needs %d: Python events after the others", c.needs)
				assert.Equal(t, c.python, c.told, "needs %d: Counts.Python", c.needs)
				assert.Equal(t, want, *c, "needs %d: not what it gets read alone", c.needs)
			}
			for _, c := range cs {
				if k, ok := c.(*counting); ok {
					assert.Equal(t, 1, k.begins)
					assert.Zero(t, k.beforeBegin)
				}
			}
		})
	}
}
