package tracefile

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace"
)

// consumerTraces are the real traces (testdata's kineto and kineto-extra) and the reader's
// own openreg.json and legacy.json, then own, more of the reader's own.
func consumerTraces(t *testing.T, own ...string) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"kineto", "kineto-extra"} {
		m, err := filepath.Glob(filepath.Join(requireShared(t, dir), "*.json.gz"))
		require.NoError(t, err)
		files = append(files, m...)
	}
	for _, f := range append([]string{"openreg.json", "legacy.json"}, own...) {
		files = append(files, filepath.Join(readerTestdata, f))
	}
	return files
}

// consumerReads are the reads that feed consumers: the table's (no event kept), the
// consumers' alone, and the one that keeps its events.
var consumerReads = []struct {
	name string
	read func(path string, o Options) error
}{
	{"averages", func(path string, o Options) error {
		_, err := OpenAverages(path, o, events.AverageOptions{})
		return err
	}},
	{"consumers", func(path string, o Options) error { _, err := OpenConsumers(path, o); return err }},
	{"read", func(path string, o Options) error { _, err := Open(path, o); return err }},
	{"averages-paced", func(path string, o Options) error {
		o.Paced = true
		_, err := OpenAverages(path, o, events.AverageOptions{})
		return err
	}},
	{"read-paced", func(path string, o Options) error { o.Paced = true; _, err := Open(path, o); return err }},
}

// linked is the rest of a test consumer that needs the links and counts nothing.
type linked struct{}

func (linked) Needs() Needs { return NeedLinks }
func (linked) Begin(*Info)  {}
func (linked) Finish()      {}

// collect keeps a copy of every event a read hands over.
type collect struct {
	linked
	evs []Event
}

func (c *collect) Event(ev *Event) { c.evs = append(c.evs, *ev) }

// TestConsumerSeesWhatTheTableSees: on every real trace, a consumer gets one event per
// FunctionEvent the read makes (memory events aside), in file order, with the kinds, times and
// links the events have: the device time a consumer charges to each op is the op's kernels, the
// links' rules sum to DeviceLink's, and runtime calls name the op their work went to.
// The large traces are TestConsumerSeesWhatTheTableSeesLarge's.
func TestConsumerSeesWhatTheTableSees(t *testing.T) {
	consumerSees(t, slices.DeleteFunc(consumerTraces(t), isLarge))
}

// TestConsumerSeesWhatTheTableSeesLarge is TestConsumerSeesWhatTheTableSees on the large
// traces, run without -race (.ci/run's second step), which makes it take minutes.
func TestConsumerSeesWhatTheTableSeesLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large traces: run without -race and -short")
	}
	consumerSees(t, slices.DeleteFunc(consumerTraces(t), func(f string) bool { return !isLarge(f) }))
}

// isLarge reports whether f is one of the three traces of 15 MB and more uncompressed (the
// 87 MB MTIA trace, the 35 MB and 15 MB CUDA ones): the ...Large tests read them, without -race.
func isLarge(f string) bool {
	return strings.Contains(f, "mtia") || strings.Contains(f, "cuda_train_step") || strings.Contains(f, "cuda_ns_resolution")
}

func consumerSees(t *testing.T, files []string) {
	for _, f := range files {
		for _, o := range []Options{{}, {Link: LinkExternalID}} {
			t.Run(filepath.Base(f)+"/"+o.Link.String(), func(t *testing.T) {
				var c, c2 collect
				o.Consumers = []Consumer{&c, &c2}
				td, err := Open(f, o)
				require.NoError(t, err)
				assert.Equal(t, c.evs, c2.evs, "every consumer sees the same events")
				var evs []events.FunctionEvent
				for _, e := range td.Events {
					if e.TraceName != "" || e.DeviceType != devices.CPU || e.Name != "[memory]" && e.Name != "[OutOfMemory]" {
						evs = append(evs, e)
					}
				}
				require.Len(t, c.evs, len(evs))
				var byRule [NumLinkRules]float64
				kernelUs := map[int]float64{}
				for i, ev := range c.evs {
					fe := &evs[i]
					eq(t, fe.TraceName, ev.Name, "event %d", i)
					eq(t, fe.StartUs, ev.StartUs, "event %d", i)
					eq(t, fe.EndUs, ev.EndUs, "event %d", i)
					eq(t, usToNsSat(ev.StartUs)+td.OriginNs, ev.StartNs, "event %d: the same time in ns on the trace's clock", i)
					eq(t, usToNsSat(ev.EndUs)+td.OriginNs, ev.EndNs, "event %d", i)
					eq(t, fe.DeviceType != devices.CPU, ev.Kind.Device(), "event %d %q", i, ev.Name)
					if ev.Kind.Device() {
						eq(t, fe.ID, ev.Correlation, "event %d", i)
						if ev.Kind.DeviceTime() {
							byRule[ev.Rule] += ev.EndUs - ev.StartUs
						}
						if ev.Op != "" {
							ne(t, Unlinked, ev.Rule, "event %d", i)
							op := &evs[ev.OpIndex]
							eq(t, op.Name, ev.Op, "event %d", i)
							kernelUs[ev.OpIndex] += ev.EndUs - ev.StartUs
							if ev.Rule == ByLaunch || ev.Rule == ByOrder {
								ne(t, 0, ev.Launch, "event %d %q", i, ev.Name)
							}
						} else {
							eq(t, Unlinked, ev.Rule, "event %d", i)
							eq(t, -1, ev.OpIndex, "event %d", i)
						}
					} else {
						eq(t, int64(-1), ev.Stream, "event %d", i)
						eq(t, Unlinked, ev.Rule, "event %d", i)
					}
					if ev.Kind.Host() && fe.Scope != events.ScopeUserScope || ev.Kind == KindUserAnnotation {
						eq(t, fe.ID, ev.ExternalID, "event %d", i)
					}
				}
				for i := range evs {
					var sum float64
					for _, k := range evs[i].Kernels {
						sum += k.DurationUs
					}
					if !evs[i].IsLegacy {
						assert.InDelta(t, sum, kernelUs[i], 1e-6, "op %d %q", i, evs[i].Name)
					}
				}
				for r := range byRule {
					assert.InDelta(t, td.DeviceLink.ByRuleUs[r], byRule[r], 1e-3, "rule %s", LinkRule(r))
				}
			})
		}
	}
}

// TestLinkCoverage is the issue's promise: on the five traces whose kernels the External id
// links to nothing, the rules charge at least 98 % of the device time to operators (99.9 %
// where the rule can reach every event), and each of the range profiler's 77 kernels gets an op.
// The large traces are TestLinkCoverageLarge's.
func TestLinkCoverage(t *testing.T) { linkCoverage(t, false) }

// TestLinkCoverageLarge is TestLinkCoverage on the large traces, run without -race (.ci/run's
// second step).
func TestLinkCoverageLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large traces: run without -race and -short")
	}
	linkCoverage(t, true)
}

func linkCoverage(t *testing.T, large bool) {
	for _, tt := range []struct {
		file    string
		min     float64 // % of the device time linked
		mainBy  LinkRule
		unlinks int
	}{
		{"kineto/cuda_alexnet.json.gz", 99.9, ByLaunch, 1},
		{"kineto/cuda_train_step.json.gz", 99.9, ByLaunch, 0},
		{"kineto-extra/hta_sampled_rank0.json.gz", 99.9, ByLaunch, 0},
		{"kineto/cuda_cupti_range_profiler.json.gz", 100, ByOrder, 0},
		{"kineto/mtia_rank0.json.gz", 99.9, ByLaunch, 2},
	} {
		if isLarge(tt.file) != large {
			continue
		}
		t.Run(tt.file, func(t *testing.T) {
			var c collect
			td, err := Open(filepath.Join(sharedTestdata, tt.file), Options{Consumers: []Consumer{&c}})
			require.NoError(t, err)
			l := td.DeviceLink
			pct := 100 * (l.TotalUs - l.UnlinkedUs) / l.TotalUs
			assert.GreaterOrEqual(t, pct, tt.min, l.Coverage())
			assert.Equal(t, tt.unlinks, l.Unlinked, l.Warning())
			best := Unlinked
			for r := ByExternalID; r < numRules; r++ {
				if l.ByRuleUs[r] > l.ByRuleUs[best] {
					best = r
				}
			}
			assert.Equal(t, tt.mainBy, best, l.Coverage())
			if strings.Contains(tt.file, "range") {
				n := 0
				for _, ev := range c.evs {
					if ev.Kind == KindKernel {
						n++
						assert.NotEmpty(t, ev.Op, "kernel %q", ev.Name)
					}
				}
				assert.Equal(t, 77, n)
			}
		})
	}
}

// ExampleConsumer charges each kernel's time to the op that launched it, in the read that
// makes the table.
func ExampleConsumer() {
	in := `{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 50, "args": {"External id": 12}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"External id": 77, "correlation": 77}},
 {"ph": "X", "cat": "kernel", "name": "sgemm_128x64", "pid": 0, "tid": 7, "ts": 120, "dur": 20, "args": {"External id": 77, "correlation": 77, "stream": 7}}
]}`
	var p printer
	if _, err := Read(strings.NewReader(in), "t.json", Options{Consumers: []Consumer{&p}}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// op aten::mm
	// runtime cudaLaunchKernel correlation 77 → aten::mm
	// kernel sgemm_128x64 stream 7 20 µs → aten::mm (launch, correlation 77)
}

type printer struct{ linked }

func (printer) Event(ev *Event) {
	switch {
	case ev.Kind.Device():
		fmt.Printf("%s %s stream %d %g µs → %s (%s, correlation %d)\n", ev.Kind, ev.Name, ev.Stream,
			ev.EndUs-ev.StartUs, ev.Op, ev.Rule, ev.Launch)
	case ev.Kind == KindRuntime:
		fmt.Printf("%s %s correlation %d → %s\n", ev.Kind, ev.Name, ev.Correlation, ev.Op)
	default:
		fmt.Printf("%s %s\n", ev.Kind, ev.Name)
	}
}

// TestConsumerNsTimes: a consumer's StartNs and EndNs are the file's ns in the Kineto form,
// fractions of a ns rounded as read; the legacy form's float µs rounded to the ns at each
// end, saturated far out (a plain int64 conversion of 1e303 ns gave −2⁶³).
func TestConsumerNsTimes(t *testing.T) {
	for _, c := range []struct {
		name, trace    string
		startNs, endNs int64
	}{
		{"kineto, ns exact", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1000.001, "dur": 1.5, "pid": 0, "tid": 7}]}`,
			1_000_001, 1_001_501},
		{"kineto, a fraction of a ns", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1000, "dur": 1.5005, "pid": 0, "tid": 7}]}`,
			1_000_000, 1_001_501},
		{"legacy, a fraction of a ns", `[{"name": "k", "ph": "X", "ts": 12.5004, "dur": 1.5005, "tid": 1, "pid": "CPU functions", "args": {}}]`,
			12_500, 14_001},
		{"legacy, past 2^63 ns", `[{"name": "k", "ph": "X", "ts": 1e300, "dur": 1, "tid": 1, "pid": "CPU functions", "args": {}}]`,
			math.MaxInt64, math.MaxInt64},
	} {
		t.Run(c.name, func(t *testing.T) {
			var col collect
			_, err := ReadConsumers(strings.NewReader(c.trace), "t.json", Options{Consumers: []Consumer{&col}})
			require.NoError(t, err)
			require.Len(t, col.evs, 1)
			assert.Equal(t, [2]int64{c.startNs, c.endNs}, [2]int64{col.evs[0].StartNs, col.evs[0].EndNs})
		})
	}
}

// counting checks the order of its calls: Begin once, its events, Finish once.
type counting struct {
	needs                          Needs
	begins, finishes, n            int
	beforeBegin, afterFinish, atFn int
	info                           Info
}

func (c *counting) Needs() Needs { return c.needs }
func (c *counting) Begin(i *Info) {
	c.begins++
	c.beforeBegin, c.info = c.n, *i
}
func (c *counting) Event(*Event) {
	c.n++
	if c.finishes > 0 {
		c.afterFinish++
	}
}
func (c *counting) Finish() { c.finishes, c.atFn = c.finishes+1, c.n }

// Begin is called once, before the first event, with the trace's Info; Finish once, after the
// last event, before the read returns — in every kind of read that has consumers, linked or
// not.
func TestConsumerBeginFinish(t *testing.T) {
	path := filepath.Join(sharedTestdata, "kineto", "rocm_mi250_train.json.gz")
	reads := []struct {
		name string
		read func(o Options) (*Data, error)
	}{
		{"averages", func(o Options) (*Data, error) {
			av, err := OpenAverages(path, o, events.AverageOptions{})
			if err != nil {
				return nil, err
			}
			return av.Data, nil
		}},
		{"averages by stack", func(o Options) (*Data, error) {
			av, err := OpenAverages(path, o, events.AverageOptions{GroupByStackN: 1})
			if err != nil {
				return nil, err
			}
			return av.Data, nil
		}},
		{"consumers", func(o Options) (*Data, error) { return OpenConsumers(path, o) }},
		{"read", func(o Options) (*Data, error) { return Open(path, o) }},
	}
	for _, r := range reads {
		for _, needs := range []Needs{NeedLinks, 0, NeedDeviceNames, NeedLinks | NeedDeviceNames | NeedMemory} {
			t.Run(fmt.Sprintf("%s/needs=%d", r.name, needs), func(t *testing.T) {
				c := counting{needs: needs}
				td, err := r.read(Options{Consumers: []Consumer{&c}, Position: 5})
				require.NoError(t, err)
				assert.Equal(t, 1, c.begins, "calls of Begin")
				assert.Equal(t, 1, c.finishes, "calls of Finish")
				assert.Zero(t, c.beforeBegin, "events before Begin")
				assert.Zero(t, c.afterFinish, "events after Finish")
				assert.Positive(t, c.n)
				assert.Equal(t, c.n, c.atFn)
				assert.Equal(t, td.OriginNs, c.info.OriginNs)
				assert.Equal(t, td.DeviceName, c.info.DeviceName)
				assert.Equal(t, trace.Rank{Number: 5, Trace: path}, c.info.Rank, "a trace without a rank is at its Position")
			})
		}
	}
}

// sized needs the memory records and counts what it is told and what it gets.
type sized struct {
	told, got    Counts
	expects      int
	eventsBefore int // events handed over before Begin
}

func (s *sized) Needs() Needs { return NeedLinks | NeedMemory }
func (s *sized) Finish()      {}
func (s *sized) Begin(i *Info) {
	s.told, s.expects = i.Counts, s.expects+1
	s.eventsBefore = s.got.Host + s.got.Runtime + s.got.Device + s.got.Memory
}

func (s *sized) Event(ev *Event) {
	switch {
	case ev.Kind.Host():
		s.got.Host++
	case ev.Kind == KindRuntime:
		s.got.Runtime++
	case ev.Kind.Device():
		s.got.Device++
	case ev.Kind == KindMemory:
		s.got.Memory++
	}
}

// A consumer is told at Begin, once and before its first event, exactly how many events of
// each kind the read hands it, in every kind of read, on every real trace and orprof's own.
// The large traces are TestConsumerIsToldTheCountsLarge's.
func TestConsumerIsToldTheCounts(t *testing.T) {
	memory := toldTheCounts(t, slices.DeleteFunc(consumerTraces(t, "memory.json", "orprof_fallback.json"), isLarge))
	assert.Positive(t, memory, "some trace has memory records")
}

// TestConsumerIsToldTheCountsLarge is TestConsumerIsToldTheCounts on the large traces, run
// without -race (.ci/run's second step).
func TestConsumerIsToldTheCountsLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large traces: run without -race and -short")
	}
	toldTheCounts(t, slices.DeleteFunc(consumerTraces(t), func(f string) bool { return !isLarge(f) }))
}

// toldTheCounts checks the counts Begin gives on files and returns the memory records seen.
func toldTheCounts(t *testing.T, files []string) (memory int) {
	for _, f := range files {
		for _, r := range consumerReads {
			t.Run(filepath.Base(f)+"/"+r.name, func(t *testing.T) {
				var s sized
				require.NoError(t, r.read(f, Options{Consumers: []Consumer{&s}}))
				assert.Equal(t, 1, s.expects, "calls of Begin")
				assert.Zero(t, s.eventsBefore, "events before Begin")
				assert.Equal(t, s.got, s.told)
				memory += s.got.Memory
			})
		}
	}
	return memory
}

// preparing needs the device names and checks they come once, at Begin, before the first
// event, each name once.
type preparing struct {
	needs          Needs
	prepared       map[string]bool
	calls, early   int
	dup            bool
	device, missed map[string]bool
	finished       int
}

func (p *preparing) Needs() Needs {
	if p.needs == 0 {
		return NeedDeviceNames | NeedLinks
	}
	return p.needs
}
func (p *preparing) Finish() { p.finished++ }
func (p *preparing) Begin(i *Info) {
	names := i.DeviceNames
	p.calls++
	if p.prepared == nil {
		p.prepared = map[string]bool{}
	}
	for _, n := range names {
		p.dup = p.dup || p.prepared[n]
		p.prepared[n] = true
	}
}

func (p *preparing) Event(ev *Event) {
	if p.calls == 0 {
		p.early++
	}
	if !ev.Kind.Device() {
		return
	}
	if p.device == nil {
		p.device, p.missed = map[string]bool{}, map[string]bool{}
	}
	p.device[ev.Name] = true
	if !p.prepared[ev.Name] {
		p.missed[ev.Name] = true
	}
}

// The large traces are TestConsumerGetsEveryDeviceNameLarge's.
func TestConsumerGetsEveryDeviceName(t *testing.T) {
	everyDeviceName(t, slices.DeleteFunc(consumerTraces(t), isLarge))
}

// TestConsumerGetsEveryDeviceNameLarge is TestConsumerGetsEveryDeviceName on the large traces,
// run without -race (.ci/run's second step).
func TestConsumerGetsEveryDeviceNameLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large traces: run without -race and -short")
	}
	everyDeviceName(t, slices.DeleteFunc(consumerTraces(t), func(f string) bool { return !isLarge(f) }))
}

func everyDeviceName(t *testing.T, files []string) {
	for _, f := range files {
		for _, r := range consumerReads {
			t.Run(filepath.Base(f)+"/"+r.name, func(t *testing.T) {
				var p preparing
				require.NoError(t, r.read(f, Options{Consumers: []Consumer{&p}}))
				assert.Equal(t, 1, p.calls, "calls of Begin")
				assert.Zero(t, p.early, "events before Begin")
				assert.False(t, p.dup, "a name handed over twice")
				assert.Empty(t, p.missed, "device names Begin was not given")
				for n := range p.prepared {
					assert.True(t, p.device[n], "%q: no device event has this name", n)
				}
			})
		}
	}
}

// linkFree needs no links: it keeps its events and when Finish came.
type linkFree struct {
	collect
	finished, afterFinish int
}

func (l *linkFree) Needs() Needs { return 0 }
func (l *linkFree) Event(ev *Event) {
	if l.finished > 0 {
		l.afterFinish++
	}
	l.collect.Event(ev)
}
func (l *linkFree) Finish() { l.finished++ }

// A consumer without NeedLinks gets the events a linked consumer gets, in the same order,
// without their links; Finish once, after the last.
// The large traces are TestLinkFreeConsumerLarge's.
func TestLinkFreeConsumer(t *testing.T) {
	linkFreeConsumer(t, slices.DeleteFunc(consumerTraces(t), isLarge))
}

// TestLinkFreeConsumerLarge is TestLinkFreeConsumer on the large traces, run without -race
// (.ci/run's second step).
func TestLinkFreeConsumerLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large traces: run without -race and -short")
	}
	linkFreeConsumer(t, slices.DeleteFunc(consumerTraces(t), func(f string) bool { return !isLarge(f) }))
}

func linkFreeConsumer(t *testing.T, files []string) {
	for _, f := range files {
		for _, r := range consumerReads {
			t.Run(filepath.Base(f)+"/"+r.name, func(t *testing.T) {
				lf := &linkFree{}
				var linked collect
				o := Options{Consumers: []Consumer{lf, &linked}}
				require.NoError(t, r.read(f, o))
				assert.Equal(t, 1, lf.finished, "calls of Finish")
				assert.Zero(t, lf.afterFinish, "events after Finish")
				require.Len(t, lf.evs, len(linked.evs))
				for i := range linked.evs {
					want, got := linked.evs[i], lf.evs[i]
					assert.Empty(t, got.Op, "event %d", i)
					assert.Equal(t, -1, got.OpIndex, "event %d", i)
					assert.Zero(t, got.Rule, "event %d", i)
					assert.Zero(t, got.Launch, "event %d", i)
					want.Op, want.OpIndex, want.Rule, want.Launch = "", -1, 0, 0
					if want.Kind.Device() {
						want.Comm, got.Comm = nil, nil
					}
					require.Equal(t, want, got, "event %d", i)
				}
			})
		}
	}
}

// A consumer that wants the names and no links is given them before its first event too.
func TestPreparingLinkFreeConsumer(t *testing.T) {
	path := filepath.Join(sharedTestdata, "kineto", "rocm_mi250_train.json.gz")
	p := preparing{needs: NeedDeviceNames}
	_, err := OpenAverages(path, Options{Consumers: []Consumer{&p}}, events.AverageOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, p.calls, "calls of Begin")
	assert.Zero(t, p.early, "events before Begin")
	assert.Empty(t, p.missed, "device names Begin was not given")
	assert.NotEmpty(t, p.device)
	assert.Equal(t, 1, p.finished)
}

// eq and ne fail t unless want and got are equal (unequal): the checks of a loop over every
// event of a trace, where testify's reflection and t.Helper would cost minutes under -race.
func eq[T comparable](t *testing.T, want, got T, format string, args ...any) {
	if want != got {
		t.Fatalf("%s: got %v, want %v", fmt.Sprintf(format, args...), got, want)
	}
}

func ne[T comparable](t *testing.T, bad, got T, format string, args ...any) {
	if bad == got {
		t.Fatalf("%s: got %v", fmt.Sprintf(format, args...), got)
	}
}

// TestLinkingHook: Options.Linking is called with true then false, once each, around the
// linking of a read with consumers that collects after it (collectRecords records or more),
// and not at all for a smaller read or a read without consumers.
func TestLinkingHook(t *testing.T) {
	trace := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"traceEvents": [`)
		for i := range n {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": %d, "dur": 1, "args": {"External id": %d}}`, 2*i, i+1)
		}
		b.WriteString("]}")
		return b.String()
	}
	large, small := trace(collectRecords), trace(10)
	for _, c := range []struct {
		name      string
		trace     string
		consumers bool
		want      []bool
	}{
		{"large, consumers", large, true, []bool{true, false}},
		{"large, no consumer", large, false, nil},
		{"small, consumers", small, true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []bool
			o := Options{Linking: func(start bool) { got = append(got, start) }}
			if c.consumers {
				o.Consumers = []Consumer{&counting{needs: NeedLinks}}
			}
			_, err := ReadAverages(strings.NewReader(c.trace), "t.json", o, events.AverageOptions{})
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}
