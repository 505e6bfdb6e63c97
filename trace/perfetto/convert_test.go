package perfetto

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// jsonTrace is a trace read by encoding/json: the independent reading the output is held to.
type jsonTrace struct {
	base   int64
	events []map[string]any
}

func readJSONTrace(t testing.TB, data []byte) *jsonTrace {
	t.Helper()
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		z, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(z); err != nil {
			t.Fatal(err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top struct {
		TraceEvents []map[string]any `json:"traceEvents"`
		Base        json.Number      `json:"baseTimeNanoseconds"`
	}
	if err := dec.Decode(&top); err != nil {
		t.Fatal(err)
	}
	jt := &jsonTrace{events: top.TraceEvents}
	if top.Base != "" {
		jt.base, _ = strconv.ParseInt(string(top.Base), 10, 64)
	}
	return jt
}

// nsOf converts µs as JSON text to ns: whole digits and three decimals, the fourth rounding.
func nsOf(v any) int64 {
	s := string(v.(json.Number))
	ip, frac, _ := strings.Cut(s, ".")
	n, _ := strconv.ParseInt(ip, 10, 64)
	f := (frac + "000")[:3]
	fn, _ := strconv.ParseInt(f, 10, 64)
	r := n*1000 + fn
	if len(frac) > 3 && frac[3] >= '5' {
		r++
	}
	return r
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// sliceKey is one slice as both sides see it.
func sliceKey(cat, name string, start, dur int64, args []string) string {
	return cat + "|" + name + "|" + strconv.FormatInt(start, 10) + "|" + strconv.FormatInt(dur, 10) + "|" + strings.Join(args, ";")
}

type expectation struct {
	slices   []string
	byCat    map[string]int
	instants []string
	samples  []string
	flowEnds map[string]int // by phase: "s", "f"
}

func expect(jt *jsonTrace) *expectation {
	e := &expectation{byCat: map[string]int{}, flowEnds: map[string]int{}}
	for _, ev := range jt.events {
		args, _ := ev["args"].(map[string]any)
		switch str(ev["ph"]) {
		case "X":
			dur := int64(0)
			if d, ok := ev["dur"]; ok {
				dur = max(nsOf(d), 0)
			}
			e.slices = append(e.slices, sliceKey(str(ev["cat"]), str(ev["name"]), jt.base+nsOf(ev["ts"]), dur, canonArgs(args)))
			e.byCat[str(ev["cat"])]++
		case "i", "I":
			e.instants = append(e.instants, sliceKey(str(ev["cat"]), str(ev["name"]), jt.base+nsOf(ev["ts"]), 0, canonArgs(args)))
		case "C":
			for k, v := range args {
				name := str(ev["name"])
				if k != name {
					name += " · " + k
				}
				e.samples = append(e.samples, name+"|"+strconv.FormatInt(jt.base+nsOf(ev["ts"]), 10)+"|"+canon(v)[2:])
			}
		case "s", "t", "f":
			e.flowEnds[str(ev["ph"])]++
		}
	}
	slices.Sort(e.slices)
	slices.Sort(e.instants)
	slices.Sort(e.samples)
	return e
}

// replay is what the decoded trace holds: slices rebuilt from begin/end pairs per track, as
// Perfetto pairs them, and the flows.
type replay struct {
	slices        []string
	byCat         map[string]int
	instants      []string
	samples       []string
	starts, terms map[uint64]int
	maxDepth      int
}

func replayTrace(t testing.TB, d *decoded) *replay {
	t.Helper()
	rp := &replay{byCat: map[string]int{}, starts: map[uint64]int{}, terms: map[uint64]int{}}
	open := map[uint64][]dEvent{}
	last := map[uint64]uint64{}
	for i, e := range d.events {
		if e.ts < last[e.track] {
			t.Fatalf("event %d at %d after one at %d on its track: the packets are not in time order", i, e.ts, last[e.track])
		}
		last[e.track] = e.ts
		tr := d.tracks[e.track]
		if e.typ != 4 && (tr.counter || tr.parent == 0) {
			t.Fatalf("event %d (%q) on track %q, which is a counter or a group", i, e.name, tr.name)
		}
		for _, f := range e.flows {
			rp.starts[f]++
		}
		for _, f := range e.terms {
			rp.terms[f]++
		}
		switch e.typ {
		case 1:
			open[e.track] = append(open[e.track], e)
			rp.maxDepth = max(rp.maxDepth, len(open[e.track]))
		case 2:
			st := open[e.track]
			if len(st) == 0 {
				t.Fatalf("event %d: a slice end on track %q with no slice open", i, tr.name)
			}
			b := st[len(st)-1]
			open[e.track] = st[:len(st)-1]
			args := slices.Clone(b.args)
			slices.Sort(args)
			rp.slices = append(rp.slices, sliceKey(strings.Join(b.cats, ","), b.name, int64(b.ts), int64(e.ts-b.ts), args))
			rp.byCat[strings.Join(b.cats, ",")]++
		case 3:
			if len(e.flows)+len(e.terms) > 0 {
				continue // a flow end no slice held
			}
			args := slices.Clone(e.args)
			slices.Sort(args)
			rp.instants = append(rp.instants, sliceKey(strings.Join(e.cats, ","), e.name, int64(e.ts), 0, args))
		case 4:
			if !tr.counter || !e.hasCounter {
				t.Fatalf("event %d: a counter value on track %q without a counter or a value", i, tr.name)
			}
			v := strconv.FormatInt(e.counterI, 10)
			if e.isDouble {
				v = strconv.FormatFloat(e.counterD, 'g', -1, 64)
			}
			rp.samples = append(rp.samples, tr.name+"|"+strconv.FormatInt(int64(e.ts), 10)+"|"+v)
		default:
			t.Fatalf("event %d: type %d", i, e.typ)
		}
	}
	for uuid, st := range open {
		if len(st) > 0 {
			t.Fatalf("track %q: %d slices never end", d.tracks[uuid].name, len(st))
		}
	}
	slices.Sort(rp.slices)
	slices.Sort(rp.instants)
	slices.Sort(rp.samples)
	return rp
}

func convertBytes(t testing.TB, opts Options, asJSON bool, paths ...string) ([]byte, *Stats) {
	t.Helper()
	var ins []Input
	for _, p := range paths {
		ins = append(ins, FileInput(p))
	}
	var buf bytes.Buffer
	st, err := convert(&buf, ins, opts, asJSON)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), st
}

// holdsTo checks the decoded output against the JSON: every slice (category, name, start,
// duration, args), instant and counter value, the flows, and nesting on every track.
func holdsTo(t *testing.T, d *decoded, exp *expectation) *replay {
	t.Helper()
	rp := replayTrace(t, d)
	if !d.cleared || d.needsFlag != countEvents(d) || !d.seqIDs[1] {
		t.Errorf("sequence: cleared %v, %d of %d events need incremental state, sequence ids %v", d.cleared, d.needsFlag, countEvents(d), d.seqIDs)
	}
	if !slices.Equal(rp.slices, exp.slices) {
		t.Errorf("slices differ: %d decoded, %d in the JSON; first difference:\n%s", len(rp.slices), len(exp.slices), firstDiff(rp.slices, exp.slices))
	}
	for cat, n := range exp.byCat {
		if rp.byCat[cat] != n {
			t.Errorf("category %q: %d slices, the JSON has %d", cat, rp.byCat[cat], n)
		}
	}
	if !slices.Equal(rp.instants, exp.instants) {
		t.Errorf("instants differ:\n%s", firstDiff(rp.instants, exp.instants))
	}
	if !slices.Equal(rp.samples, exp.samples) {
		t.Errorf("counter values differ:\n%s", firstDiff(rp.samples, exp.samples))
	}
	starts, terms := 0, 0
	for id, n := range rp.starts {
		starts += n
		if rp.terms[id] == 0 && exp.flowEnds["f"] > 0 {
			// A flow whose end the JSON lacks is allowed only when the JSON has such starts.
			continue
		}
	}
	for _, n := range rp.terms {
		terms += n
	}
	if starts != exp.flowEnds["s"]+exp.flowEnds["t"] || terms != exp.flowEnds["f"] {
		t.Errorf("flows: %d starts and %d ends decoded, the JSON has %d and %d", starts, terms, exp.flowEnds["s"]+exp.flowEnds["t"], exp.flowEnds["f"])
	}
	return rp
}

func countEvents(d *decoded) int { return len(d.events) }

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return "decoded: " + a[i] + "\njson:    " + b[i]
		}
	}
	if len(a) > len(b) {
		return "decoded has more: " + a[len(b)]
	}
	if len(b) > len(a) {
		return "json has more: " + b[len(a)]
	}
	return ""
}

func TestOverlapsKeepEverySlice(t *testing.T) {
	path := filepath.Join("testdata", "overlaps.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, st := convertBytes(t, Options{}, false, path)
	d := decode(t, out)
	holdsTo(t, d, expect(readJSONTrace(t, data)))
	var names []string
	for _, u := range d.order {
		names = append(names, d.tracks[u].name)
	}
	want := []string{
		"rank 3 · host", "thread 4243 (python)", "thread 4243 (python) · overlap 1",
		"rank 3 · GPU 0", "stream 7", "stream 7 · overlap 1", "Memory · Total Allocated", "Memory · Total Reserved",
	}
	if !slices.Equal(names, want) {
		t.Errorf("tracks %q, want %q", names, want)
	}
	if st.OverlapTracks != 2 || st.Unbound != 0 || st.FlowEnds != 4 {
		t.Errorf("stats %+v: want 2 overlap tracks, 4 flow ends all bound", st)
	}
	for _, u := range d.order {
		tr := d.tracks[u]
		if strings.HasPrefix(tr.name, "Memory") && (tr.unit != 3 || tr.unitName != "bytes") {
			t.Errorf("counter %q: unit %d %q, want bytes", tr.name, tr.unit, tr.unitName)
		}
	}
	// The ac2g flow goes from the launch to the kernel, the fwdbwd one between the two ops.
	ends := map[string]string{}
	for _, e := range d.events {
		for range e.flows {
			ends["start "+e.cats[0]] = e.name
		}
		for range e.terms {
			ends["end "+e.cats[0]] = e.name
		}
	}
	wantEnds := map[string]string{"start cuda_runtime": "cudaLaunchKernel", "end kernel": "sm90_gemm_pdl_a",
		"start cpu_op": "aten::linear", "end python_function": "torch/nn/modules/linear.py(124): forward"}
	for k, v := range wantEnds {
		if ends[k] != v {
			t.Errorf("flow %s on %q, want %q (all: %v)", k, ends[k], v, ends)
		}
	}
}

// testTraces are the real traces the conversion is held to.
func testTraces(t *testing.T) []string {
	var paths []string
	for _, dir := range []string{"kineto", "kineto-extra"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "testdata", dir, "*.json.gz"))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		t.Fatal("no traces in testdata")
	}
	return paths
}

// TestLargeRealTracesKeepEverything holds the conversion of every trace in testdata to the
// JSON's reading; under -race only those under 1 MiB compressed (.ci/run's run without -race,
// which picks names with "Large", reads them all).
func TestLargeRealTracesKeepEverything(t *testing.T) {
	for _, path := range testTraces(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if (testing.Short() || raceEnabled) && len(data) > 1<<20 {
				t.Skip("-short or -race: a trace of more than 1 MiB compressed (the run without -race reads it)")
			}
			out, st := convertBytes(t, Options{}, false, path)
			d := decode(t, out)
			exp := expect(readJSONTrace(t, data))
			holdsTo(t, d, exp)
			t.Logf("%d slices, %d overlap tracks, %d flow ends (%d unbound), %d counter values; %d bytes", st.Slices, st.OverlapTracks, st.FlowEnds, st.Unbound, st.Samples, len(out))
		})
	}
}
