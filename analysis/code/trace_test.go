package code

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/trace/tracefile"
)

// The traces PyTorch recorded (testdata/gen) and the real GPU traces with python stacks.
var (
	genTraces = []string{"testdata/mlp_train.json.gz", "testdata/conv_train.json"}
	gpuTraces = []string{"../../testdata/kineto-extra/tracelens_mi300_bert_small.json.gz",
		"../../testdata/kineto-extra/tracelens_rocm7_sglang_decode.json.gz"}
)

// rawEv is a trace event as the test reads it, with encoding/json, apart from the reader.
type rawEv struct {
	Ph   string         `json:"ph"`
	Cat  string         `json:"cat"`
	Name string         `json:"name"`
	Tid  any            `json:"tid"`
	Ts   json.Number    `json:"ts"`
	Dur  json.Number    `json:"dur"`
	Args map[string]any `json:"args"`
}

func loadRaw(t *testing.T, path string) []rawEv {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		require.NoError(t, err)
		r = zr
	}
	var doc struct {
		TraceEvents []rawEv `json:"traceEvents"`
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	require.NoError(t, dec.Decode(&doc))
	return doc.TraceEvents
}

// nsOf is a Kineto time (µs, up to three decimals) in ns, from its text.
func nsOf(n json.Number) int64 {
	s := string(n)
	whole, frac, _ := strings.Cut(s, ".")
	frac = (frac + "000")[:3]
	var v int64
	for _, c := range whole + frac {
		v = v*10 + int64(c-'0')
	}
	return v
}

func argInt(a map[string]any, k string) (int64, bool) {
	v, ok := a[k].(json.Number)
	if !ok {
		return 0, false
	}
	i, err := v.Int64()
	return i, err == nil
}

type bop struct {
	name       string
	tid        string
	start, end int64
	seq, fwd   int64
}

type bspan struct {
	name       string
	tid        string
	start, end int64
	order      int
}

// bruteModules computes, by brute force over the JSON, each module path's forward and
// backward self CPU time: an op's parent is the shortest op of its thread that contains it;
// its module path the module spans of its thread that hold its start, outermost first; a
// backward op's (one with a "Fwd thread id", or inside one) module is that of the latest
// forward op with the same sequence number. One forward thread: the traces here have one.
func bruteModules(t *testing.T, evs []rawEv) (fwd, bwd map[string]int64, total int64) {
	var ops []bop
	var spans []bspan
	for i, e := range evs {
		if e.Ph != "X" {
			continue
		}
		tid := strings.TrimSpace(jsonText(e.Tid))
		start := nsOf(e.Ts)
		end := start + nsOf(e.Dur)
		switch {
		case e.Cat == "python_function":
			spans = append(spans, bspan{e.Name, tid, start, end, i})
		case e.Cat == "cpu_op" || e.Cat == "user_annotation" || strings.HasSuffix(e.Cat, "_runtime") || strings.HasSuffix(e.Cat, "_driver"):
			seq, ok := argInt(e.Args, "Sequence number")
			if !ok {
				seq = -1
			}
			f, _ := argInt(e.Args, "Fwd thread id")
			ops = append(ops, bop{e.Name, tid, start, end, seq, f})
		}
	}
	contains := func(p, c *bop) bool {
		return p.tid == c.tid && p.start <= c.start && c.end <= p.end && (p.end-p.start > c.end-c.start || p.start < c.start)
	}
	self := make([]int64, len(ops))
	root := make([]int, len(ops))
	for i := range ops {
		self[i] += ops[i].end - ops[i].start
		total += ops[i].end - ops[i].start
		parent := -1
		root[i] = -1
		if ops[i].fwd > 0 {
			root[i] = i
		}
		for j := range ops {
			if j != i && contains(&ops[j], &ops[i]) {
				if parent < 0 || ops[j].end-ops[j].start < ops[parent].end-ops[parent].start {
					parent = j
				}
				if ops[j].fwd > 0 && root[i] != i {
					root[i] = j
				}
			}
		}
		if parent >= 0 {
			self[parent] -= ops[i].end - ops[i].start
			total -= ops[i].end - ops[i].start
		}
	}
	moduleOf := func(o *bop) string {
		var in []bspan
		for _, s := range spans {
			if s.tid == o.tid && s.start <= o.start && o.start < s.end && strings.HasPrefix(s.name, "nn.Module: ") {
				in = append(in, s)
			}
		}
		sort.Slice(in, func(a, b int) bool {
			if in[a].start != in[b].start {
				return in[a].start < in[b].start
			}
			if in[a].end != in[b].end {
				return in[a].end > in[b].end
			}
			return in[a].order < in[b].order
		})
		var names []string
		for _, s := range in {
			names = append(names, strings.TrimPrefix(s.name, "nn.Module: "))
		}
		return strings.Join(names, "/")
	}
	fwd, bwd = map[string]int64{}, map[string]int64{}
	for i := range ops {
		if root[i] < 0 {
			fwd[moduleOf(&ops[i])] += self[i]
			continue
		}
		r := &ops[root[i]]
		first := -1
		for j := range ops {
			if ops[j].seq == r.seq && r.seq >= 0 && root[j] < 0 && (first < 0 || ops[j].start >= ops[first].start) {
				first = j
			}
		}
		if first < 0 {
			bwd[""] += self[i]
			continue
		}
		bwd[moduleOf(&ops[first])] += self[i]
	}
	return fwd, bwd, total
}

func jsonText(v any) string {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case string:
		return x
	}
	return ""
}

// TestGeneratedTracesAgainstBruteForce: on the traces PyTorch recorded, every module's forward
// and backward CPU time is within 1 % of the total of what the brute force finds, and the
// rows sum to the total exactly.
func TestGeneratedTracesAgainstBruteForce(t *testing.T) {
	for _, path := range genTraces {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s, _, err := Open(path, 0, ReadOptions{By: ByModule})
			require.NoError(t, err)
			fwd, bwd, total := bruteModules(t, loadRaw(t, path))
			tol := float64(total) / 100
			assert.InDelta(t, float64(total), float64(s.CPUNs), tol)
			rows := rowsOf(s)
			keys := map[string]bool{}
			for k := range fwd {
				keys[k] = true
			}
			for k := range bwd {
				keys[k] = true
			}
			for k := range keys {
				key := k
				if key == "" {
					key = "(no module)"
				}
				r := rows[key]
				assert.InDelta(t, float64(fwd[k]), float64(r.FwdCPUNs), tol, "%s forward", key)
				assert.InDelta(t, float64(bwd[k]), float64(r.BwdCPUNs), tol, "%s backward", key)
			}
			var sum int64
			for _, r := range s.Rows {
				sum += r.CPUNs()
			}
			assert.Equal(t, s.CPUNs, sum)
		})
	}
}

// TestGeneratedTracesTruth: what the models were built to show.
func TestGeneratedTracesTruth(t *testing.T) {
	s, _, err := Open(genTraces[0], 0, ReadOptions{By: ByModule})
	require.NoError(t, err)
	// Heavy_0 is ten Linear layers like Net_0's first: the largest child of Net_0, with most
	// of the Linear layers' time.
	heavy, _ := s.Inclusive("Net_0/Heavy_0")
	net, _ := s.Inclusive("Net_0")
	for _, other := range []string{"Net_0/Linear_0", "Net_0/ReLU_0", "Net_0/Linear_11"} {
		c, _ := s.Inclusive(other)
		assert.Greater(t, heavy, 3*c, other)
	}
	assert.Greater(t, float64(heavy)/float64(net), 0.6)
	// Every module with parameters has backward time; ReLU's backward is ReLU's.
	for _, r := range s.Rows {
		if strings.Contains(r.Key, "Linear_") {
			assert.Positive(t, r.BwdCPUNs, r.Key)
			assert.Equal(t, int64(3), r.Calls, r.Key)
		}
	}
	assert.Positive(t, rowsOf(s)["Net_0/ReLU_0"].BwdCPUNs)
	c, _, err := Open(genTraces[1], 0, ReadOptions{By: ByModule})
	require.NoError(t, err)
	for _, k := range []string{"Sequential_0/Conv2d_0", "Sequential_0/BatchNorm2d_0", "Sequential_0/Sequential_1/Conv2d_1", "Sequential_0/Linear_0"} {
		assert.Positive(t, rowsOf(c)[k].BwdCPUNs, k)
		assert.Equal(t, int64(2), rowsOf(c)[k].Calls, k)
	}
	// By line: the Heavy's forward (a loop over ten layers) is the user's costliest function.
	l, _, err := Open(genTraces[0], 0, ReadOptions{By: ByLine})
	require.NoError(t, err)
	assert.Equal(t, "gen_traces.py(34): forward", l.Sorted()[0].Key)
}

// TestFlowsAgreeWithSequenceNumbers: the generated traces carry both; each alone gives the
// same rows.
func TestFlowsAgreeWithSequenceNumbers(t *testing.T) {
	for _, path := range genTraces {
		c := NewCollector()
		_, err := tracefile.OpenConsumers(path, tracefile.Options{Consumers: []tracefile.Consumer{c}})
		require.NoError(t, err)
		in := c.Input()
		require.NotEmpty(t, in.Flows)
		both := Attribute(in, ByModule)
		noFlows := *in
		noFlows.Flows = nil
		assert.Equal(t, both, Attribute(&noFlows, ByModule), path)
	}
}

// TestGPUTracesConserve: on the real GPU traces, the rows sum to the device time the reader
// linked to operators (its own report of it) and to the brute-force self CPU time.
func TestGPUTracesConserve(t *testing.T) {
	for _, path := range gpuTraces {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := tracefile.OpenConsumers(path, tracefile.Options{})
			require.NoError(t, err)
			linkedUs := data.DeviceLink.TotalUs - data.DeviceLink.UnlinkedUs
			for _, by := range []By{ByModule, ByLine} {
				s, _, err := Open(path, 0, ReadOptions{By: by})
				require.NoError(t, err)
				var dev, cpu int64
				for _, r := range s.Rows {
					dev += r.DevNs()
					cpu += r.CPUNs()
				}
				assert.Equal(t, s.DevNs, dev)
				assert.InDelta(t, linkedUs, float64(dev)/1e3, 0.01)
				assert.InDelta(t, data.DeviceLink.UnlinkedUs, float64(s.UnlinkedDevNs)/1e3, 0.01)
				_, _, total := bruteModules(t, loadRaw(t, path))
				assert.Equal(t, total, cpu)
				assert.Positive(t, dev)
			}
		})
	}
}

// TestNoStacks: a trace without python_function events, or without module calls, is an
// error saying so.
func TestNoStacks(t *testing.T) {
	_, _, err := Open("../../testdata/kineto/cpu_only.json.gz", 0, ReadOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no python_function events")
	assert.Contains(t, err.Error(), "with_stack=True")
	assert.NotContains(t, err.Error(), "\n")
	dir := t.TempDir()
	p := filepath.Join(dir, "frames.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"traceEvents": [
{"ph": "X", "cat": "python_function", "name": "train.py(1): <module>", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]}`), 0o644))
	_, _, err = Open(p, 0, ReadOptions{By: ByModule})
	assert.ErrorContains(t, err, "no nn.Module call")
	s, _, err := Open(p, 0, ReadOptions{By: ByLine})
	require.NoError(t, err)
	assert.Equal(t, int64(2000), rowsOf(s)["train.py(1): <module>"].FwdCPUNs)
	_ = math.Abs
}

// allSpans keeps every python_function event of a read, Keyed or not.
type allSpans struct{ spans []Span }

func (a *allSpans) Needs() tracefile.Needs { return tracefile.NeedPython }
func (a *allSpans) Begin(*tracefile.Info)  {}
func (a *allSpans) Finish()                {}
func (a *allSpans) Event(ev *tracefile.Event) {
	if ev.Kind == tracefile.KindPython {
		a.spans = append(a.spans, Span{Name: ev.Name, Tid: ev.Tid, StartNs: ev.StartNs, EndNs: ev.EndNs})
	}
}

// TestUnkeyedSpansTransparent: the python calls the Collector leaves out (neither a module
// call nor a function of the user's code) change no row, on every trace with stacks, by
// module and by line.
func TestUnkeyedSpansTransparent(t *testing.T) {
	for _, path := range append(append([]string{}, genTraces...), gpuTraces...) {
		c, all := NewCollector(), &allSpans{}
		_, err := tracefile.OpenConsumers(path, tracefile.Options{Consumers: []tracefile.Consumer{c, all}})
		require.NoError(t, err)
		in := c.Input()
		require.Less(t, len(in.Spans), len(all.spans), path)
		assert.Equal(t, len(all.spans), in.Python, path)
		full := *in
		full.Spans = all.spans
		for _, by := range []By{ByModule, ByLine} {
			assert.Equal(t, Attribute(&full, by), Attribute(in, by), "%s by %s", path, by)
		}
	}
}
