package timeline

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/golden"
	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace/tracefile"
)

// allTraces are the traces in the repository's testdata.
func allTraces(t testing.TB) []string {
	var out []string
	for _, g := range []string{"../../testdata/kineto/*.json.gz", "../../testdata/kineto-extra/*.json.gz", "../../testdata/pytorch-1.13/*/trace.json"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 12 {
		t.Fatalf("found %d traces in ../testdata", len(out))
	}
	return out
}

// oracle reads a Kineto trace with encoding/json, apart from the reader, and returns the
// device work intervals by class.
func oracle(t *testing.T, path string) map[Class][]span {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	var doc struct {
		TraceEvents []struct {
			Ph, Cat, Name string
			Ts, Dur       json.Number
		} `json:"traceEvents"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return nil // the legacy array: no device events
	}
	out := map[Class][]span{}
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		switch e.Cat {
		case "kernel", "Kernel", "gpu_memcpy", "gpu_memset", "Memcpy", "Memset", "cuda_sync", "cuda_profiler_range",
			"mtia_ccp_events", "mtia_workloadd", "hpu_op":
		default:
			continue
		}
		c := Classify(e.Name)
		if c == Sync {
			continue
		}
		start := exactNs(t, e.Ts)
		out[c] = append(out[c], span{start, start + exactNs(t, e.Dur)})
	}
	return out
}

// exactNs reads a decimal µs number as ns: exactly with at most three decimals, else by
// rounding its float value (as the reader does: ns-resolution traces have more).
func exactNs(t *testing.T, n json.Number) int64 {
	s := string(n)
	ip, fp, _ := strings.Cut(s, ".")
	if !strings.ContainsAny(s, "eE") && len(fp) <= 3 {
		i, err := strconv.ParseInt(ip, 10, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		frac, _ := strconv.ParseInt((fp + "000")[:3], 10, 64)
		if strings.HasPrefix(s, "-") {
			return i*1000 - frac
		}
		return i*1000 + frac
	}
	f, err := n.Float64()
	if err != nil {
		t.Fatal(err)
	}
	return int64(math.Round(f * 1000))
}

// TestEveryTrace runs every analysis on every trace in testdata: the invariants hold (no
// negative durations, the exclusive categories sum to the total, no union above the wall
// time), and the unions equal those of the same trace read by encoding/json.
// (Named for .ci/run's run without the race detector, under which the large traces are skipped.)
func TestEveryTraceKineto(t *testing.T) {
	for _, path := range allTraces(t) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			if st, err := os.Stat(path); err == nil && st.Size() > 1<<20 && raceEnabled {
				t.Skip("a large trace: read without the race detector (.ci/run's second run)")
			}
			s, _, err := OpenTrace(path, DefaultOptions(), 0)
			if nd := (*kernels.NoDeviceError)(nil); errors.As(err, &nd) {
				// Refused, saying why: the oracle must find no device event either.
				if want := oracle(t, path); len(want) > 0 {
					t.Fatalf("refused as without device activity, but the oracle has %d classes of device work", len(want))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s)
			if st, err := os.Stat(path); err == nil && st.Size() > 2<<20 && testing.Short() {
				return // the oracle's encoding/json read takes 10 s of the large MTIA trace
			}
			want := oracle(t, path)
			var all []span
			for _, u := range want {
				all = append(all, u...)
			}
			b := s.Breakdown[0]
			for _, c := range []struct {
				name string
				got  int64
				u    []span
			}{{"busy", b.BusyNs, all}, {"compute", b.ComputeNs, want[Computation]}, {"communication", b.CommunicationNs, want[Communication]},
				{"memory", b.MemoryNs, want[Memory]}} {
				if w := total(union(append([]span(nil), c.u...))); c.got != w {
					t.Errorf("%s: %d ns, the oracle's union is %d", c.name, c.got, w)
				}
			}
			for _, rs := range s.Steps {
				var sum Times
				for _, st := range rs.Steps {
					sum = sum.Add(st.Times)
				}
				if sum.BusyNs > b.BusyNs+b.IdleNs+sum.IdleNs {
					t.Errorf("steps busy %d above the rank's", sum.BusyNs)
				}
			}
		})
	}
}

// TestConsumerInSharedRead: the analyses as one consumer of a read shared with the table's
// Averager, its op tree walk and the kernel view (what orprof report does) give the summary of
// orprof timeline's own read (OpenTrace), on every testdata trace; so does one that runs its
// analyses after the read (AfterRead, orprof export's), which has not run them at its Finish.
func TestConsumerInSharedRead(t *testing.T) {
	for _, path := range allTraces(t) {
		if st, err := os.Stat(path); err == nil && st.Size() > 1<<20 && (raceEnabled || testing.Short()) {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, _, err := OpenTrace(path, DefaultOptions(), 0)
			var nd *kernels.NoDeviceError
			if err != nil && !errors.As(err, &nd) {
				t.Fatal(err)
			}
			c := NewConsumer(DefaultOptions(), nil)
			late := NewConsumer(DefaultOptions(), nil)
			late.AfterRead()
			walked := 0
			av, err := tracefile.OpenAverages(path, tracefile.Options{
				Consumers: []tracefile.Consumer{kernels.NewCollector(), c, late},
				Tree:      func(*events.TreeEvent) { walked++ },
			}, events.AverageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if walked == 0 && len(av.Rows) > 0 {
				t.Fatal("the tree was not walked")
			}
			if late.done != nil {
				t.Fatal("AfterRead: the analyses ran at Finish")
			}
			got := c.Summary()
			if nd != nil {
				// orprof timeline refuses it; the shared read (the report's) finds no device event too.
				if got.Ranks[0].DeviceEvents != 0 {
					t.Errorf("refused as without device activity, but the shared read has %d device events", got.Ranks[0].DeviceEvents)
				}
				return
			}
			var x, y bytes.Buffer
			if err := Write(&x, text.JSON, want, Views); err != nil {
				t.Fatal(err)
			}
			if err := Write(&y, text.JSON, got, Views); err != nil {
				t.Fatal(err)
			}
			if x.String() != y.String() {
				t.Errorf("the two reads differ:\n%s", diffLines(x.String(), y.String()))
			}
			var z bytes.Buffer
			if err := Write(&z, text.JSON, late.Summary(), Views); err != nil {
				t.Fatal(err)
			}
			if x.String() != z.String() {
				t.Errorf("AfterRead's summary differs:\n%s", diffLines(x.String(), z.String()))
			}
		})
	}
}

// diffLines is the first lines where a and b differ.
func diffLines(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return "own read:    " + la[i][:min(len(la[i]), 600)] + "\nshared read: " + lb[i][:min(len(lb[i]), 600)]
		}
	}
	return "lengths differ"
}

// TestGolden pins every view of a few traces in every format.
func TestGolden(t *testing.T) {
	for _, name := range []string{"kineto/rocm_mi250_train.json.gz", "kineto-extra/tbplugin_2021_small.json.gz", "kineto/cuda_alexnet.json.gz"} {
		s, _, err := OpenTrace("../../testdata/"+name, DefaultOptions(), 0)
		if err != nil {
			t.Fatal(err)
		}
		s.Ranks[0].Trace = filepath.Base(name)
		base := strings.TrimSuffix(filepath.Base(name), ".json.gz")
		for _, f := range []text.Format{text.Text, text.Markdown, text.CSV, text.JSON} {
			var buf bytes.Buffer
			if err := Write(&buf, f, s, Views); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", base+"."+string(f)), buf.Bytes())
		}
	}
}

// TestMergeExact: reading two traces at once gives the summary of merging their summaries'
// JSON, and the stragglers of ranks whose collectives match.
func TestMergeExactKineto(t *testing.T) {
	if raceEnabled {
		t.Skip("reads a 100k-event trace: run without the race detector (.ci/run's second run)")
	}
	a := "../../testdata/kineto/cuda_train_step.json.gz"
	b := "../../testdata/kineto-extra/hta_sampled_rank0.json.gz"
	both, _, err := Load([]string{a, b}, DefaultOptions(), ReadOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var paths []string
	for i, p := range []string{a, b} {
		s, _, err := OpenTrace(p, DefaultOptions(), i)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, text.JSON, s, Views); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, filepath.Base(p)+".timeline.json")
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, out)
	}
	merged, _, err := Load(paths, DefaultOptions(), ReadOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var x, y bytes.Buffer
	if err := Write(&x, text.JSON, both, Views); err != nil {
		t.Fatal(err)
	}
	if err := Write(&y, text.JSON, merged, Views); err != nil {
		t.Fatal(err)
	}
	if x.String() != y.String() {
		t.Errorf("merged summaries differ from reading both traces")
	}
	// Two ranks of different jobs share no collective name.
	if both.Stragglers.Matched != 0 || len(both.Stragglers.Ranks) != 2 {
		t.Errorf("collectives of two jobs matched: %+v", both.Stragglers)
	}
	// The same rank twice: every collective matches, nobody arrives last.
	twice, _, err := Load([]string{b, b}, DefaultOptions(), ReadOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(twice.Stragglers.Collectives[0].Items); n == 0 || twice.Stragglers.Matched != n ||
		twice.Stragglers.Ranks[0].ArrivedLast+twice.Stragglers.Ranks[1].ArrivedLast != 0 {
		t.Errorf("the same trace twice: %d collectives, %+v", n, twice.Stragglers)
	}
	if err := both.SelectRanks([]int64{3}); err != nil || len(both.Ranks) != 1 || both.Ranks[0].Number != 3 || both.Stragglers.Matched != 0 {
		t.Errorf("SelectRanks(3): %v, %+v", err, both.Ranks)
	}
	if err := both.SelectRanks([]int64{7}); err == nil {
		t.Errorf("SelectRanks of a missing rank did not fail")
	}
}

// TestHTADifferencesKineto shows where orprof and HolisticTraceAnalysis part on the
// traces in testdata.
func TestHTADifferencesKineto(t *testing.T) {
	if raceEnabled {
		t.Skip("reads the 87 MB MTIA trace: run without the race detector (.ci/run's second run)")
	}
	// MTIA: overlapping events on stream 4 give HTA a negative kernel-wait total.
	s, _, err := OpenTrace("../../testdata/kineto/mtia_rank0.json.gz", DefaultOptions(), 0)
	if err != nil {
		t.Fatal(err)
	}
	neg := false
	for _, si := range s.Idle {
		neg = neg || si.HTA.KernelWaitNs < 0
	}
	if !neg {
		t.Errorf("mtia_rank0: no stream with HTA's negative kernel wait")
	}
	// alexnet: its Context Sync events carry stream 4294967295 (uint32 −1), which HTA takes for
	// a stream: they are busy time to it and stretch its kernel time past the last kernel.
	s, _, err = OpenTrace("../../testdata/kineto/cuda_alexnet.json.gz", DefaultOptions(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if b := s.Breakdown[0]; b.HTA.KernelTimeNs <= b.TotalNs || b.HTA.IdleNs <= b.IdleNs {
		t.Errorf("cuda_alexnet: HTA %+v against orprof's window %d and idle %d", b.HTA, b.TotalNs, b.IdleNs)
	}
	// ns-resolution trace with several steps: HTA's last-step filter drops the last step.
	s, _, err = OpenTrace("../../testdata/kineto/cuda_ns_resolution.json.gz", DefaultOptions(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if h := s.Breakdown[0].HTA; h.Dropped == 0 || h.ComputeNs >= s.Breakdown[0].ComputeNs {
		t.Errorf("cuda_ns_resolution: HTA %+v, orprof compute %d", h, s.Breakdown[0].ComputeNs)
	}
	// --steps: the HTA columns cover the selected step as orprof's do (they read the whole
	// trace: 371 ms of compute in a 95.7 ms step).
	o := DefaultOptions()
	o.Steps = []int64{102}
	one, _, err := OpenTrace("../../testdata/kineto/cuda_ns_resolution.json.gz", o, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b := one.Breakdown[0]; b.HTA.KernelTimeNs == 0 || b.HTA.KernelTimeNs > b.TotalNs || b.HTA.ComputeNs > b.ComputeNs {
		t.Errorf("cuda_ns_resolution --steps 102: HTA %+v against orprof's window %d, compute %d", b.HTA, b.TotalNs, b.ComputeNs)
	}
	steps := s.Steps[0].Steps
	if len(steps) < 2 {
		t.Fatalf("cuda_ns_resolution: %d steps", len(steps))
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i].StartNs < steps[j].StartNs })
	for i := 1; i < len(steps); i++ {
		if steps[i].StartNs < steps[i-1].EndNs {
			t.Errorf("step windows overlap: %+v %+v", steps[i-1], steps[i])
		}
	}
}

// TestHTAIdleRoundsAndFilters: HolisticTraceAnalysis's idle columns are its numbers: on a
// hand-written ns trace (testdata/hta_idle.json: two steps, four kernels on one stream) they
// round times to whole µs and drop the last step's kernel, while orprof's own figures keep the
// exact ns and every step.
func TestHTAIdleRoundsAndFilters(t *testing.T) {
	s, _, err := OpenTrace("testdata/hta_idle.json", DefaultOptions(), 0)
	if err != nil {
		t.Fatal(err)
	}
	si := s.Idle[0]
	// orprof: k1→k2 100 ns (launched ahead: kernel wait), k2→k3 29.9 µs and k3→k4 45 µs (each
	// launched after the stream went idle: host wait).
	if si.KernelWaitNs != 100 || si.HostWaitNs != 74_900 || si.OtherNs != 0 || si.Events != 4 {
		t.Errorf("orprof's idle: %+v", si)
	}
	// HTA: 120.4 → 120 and 120.5 → 121 make the first gap 1 µs; 130.3 → 130 and 160.2 → 161
	// make the second 31 µs; k4, launched in the last step, is not read.
	if want := (HTAIdle{HostWaitNs: 31_000, KernelWaitNs: 1_000}); si.HTA != want {
		t.Errorf("HTA's idle: %+v, want %+v", si.HTA, want)
	}
	if b := s.Breakdown[0].HTA; b.Dropped != 1 {
		t.Errorf("HTA breakdown dropped %d events, want 1 (k4)", b.Dropped)
	}
	// HTA's queue: launches at 101, 104, 151 (150.5 up), work starting at 111 (110.6 up), 121,
	// 161: lengths 1 2 1 0 1 0 over its change points; k4 left out. orprof's keeps all four.
	if q := s.Queue[0]; q.HTAMax != 2 || q.HTAMean != 5.0/6 || q.Launches != 4 {
		t.Errorf("queue %+v", q)
	}
}
