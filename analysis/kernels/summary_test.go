package kernels

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/golden"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace/tracefile"
)

// testTraces are every trace in testdata/ that has device events, and a few without.
func testTraces(t *testing.T) []string {
	var files []string
	for _, g := range []string{"../../testdata/kineto/*.json.gz", "../../testdata/kineto-extra/*.json.gz",
		"../../trace/tracefile/testdata/*.json", "../../testdata/pytorch-1.13/*/trace.json"} {
		m, err := filepath.Glob(g)
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.Greater(t, len(files), 10)
	return files
}

// TestKernelTotalsPerOpEqualTheTable: on every trace in testdata, read once for the table and
// the kernels together (as orprof report reads), the kernel summary is the one orprof kernels'
// own read gives, byte for byte, and the device time the kernel view charges to each operator is the
// table's self device time of that operator's rows (its own kernels), and the kernels' total
// is the device time the reader counted. Two things the table counts are not kernels, as
// PyTorch has them: a device-side user annotation (gpu_user_annotation) linked to its op by its
// External id, whose span the op's row counts as device time (added to the view here), and
// legacy rows (orprof's fallback device time: one fake kernel per op, no device event; left
// out).
func TestKernelTotalsPerOpEqualTheTable(t *testing.T) {
	for _, f := range testTraces(t) {
		for _, link := range []tracefile.LinkMode{tracefile.LinkAll, tracefile.LinkExternalID} {
			t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f)+"/"+link.String(), func(t *testing.T) {
				if testing.Short() && strings.Contains(f, "mtia") {
					t.Skip("large trace skipped in -short mode")
				}
				c := NewCollector()
				ann := annotations{}
				av, err := tracefile.OpenAverages(f, tracefile.Options{Link: link, Consumers: []tracefile.Consumer{c, ann}}, events.AverageOptions{})
				require.NoError(t, err)
				s, err := c.Summary()
				require.NoError(t, err)
				if link == tracefile.LinkAll {
					// The table's read (the report's) and orprof kernels' own (Load: a read,
					// then a merge of the one rank) give the same bytes.
					own, _, err := Load([]string{f}, ReadOptions{AllowEmpty: true})
					require.NoError(t, err)
					if len(s.Kernels) == 0 {
						// orprof kernels refuses it, saying why.
						_, _, err := Load([]string{f}, ReadOptions{})
						var nd *NoDeviceError
						require.ErrorAs(t, err, &nd)
					}
					if a, b := render(t, own, text.JSON), render(t, s, text.JSON); a != b {
						t.Fatalf("orprof kernels' read and the table's differ: %s", firstDiff(a, b))
					}
				}
				table := map[string]float64{}
				for _, r := range av.Rows {
					if r.DeviceType == devices.CPU && !r.IsLegacy {
						table[r.Key] += r.SelfDeviceTimeTotal
					}
				}
				view := map[string]float64{}
				for op, us := range ann {
					view[op] += us
				}
				for _, op := range s.ByOp() {
					if op.Op != "" {
						view[op.Op] += op.TotalUs()
					}
				}
				for k, us := range table {
					assert.InDelta(t, us, view[k], 1e-6*max(1, us), "op %q", k)
				}
				for k, us := range view {
					assert.InDelta(t, table[k], us, 1e-6*max(1, us), "op %q", k)
				}
				l := av.Data.DeviceLink
				assert.InDelta(t, l.TotalUs, s.DeviceUs(), 1e-6*max(1, l.TotalUs), "every device event is a kernel's call")
				unlinked := 0.0
				for _, op := range s.ByOp() {
					if op.Op == "" {
						unlinked = op.TotalUs()
					}
				}
				assert.InDelta(t, l.UnlinkedUs, unlinked, 1e-6*max(1, l.UnlinkedUs))
			})
		}
	}
}

// firstDiff is the first line where a and b differ, with its number.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: %q against %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(al), len(bl))
}

// annotations sums the device-side user annotations linked to each op.
type annotations map[string]float64

func (annotations) Needs() tracefile.Needs { return tracefile.NeedLinks }
func (annotations) Begin(*tracefile.Info)  {}
func (annotations) Finish()                {}

func (a annotations) Event(ev *tracefile.Event) {
	if ev.Kind == tracefile.KindDeviceAnnotation && ev.Op != "" {
		a[ev.Op] += ev.EndUs - ev.StartUs
	}
}

// TestMergeEqualsReadingTogether: the summaries of two traces merged, directly or through their
// JSON, equal reading both at once; a summary's JSON reads back into the same summary.
func TestMergeEqualsReadingTogether(t *testing.T) {
	a, b := "../../testdata/kineto/cuda_alexnet.json.gz", "../../testdata/kineto-extra/hta_sampled_rank0.json.gz"
	both, warns, err := Load([]string{a, b}, ReadOptions{Workers: 2})
	require.NoError(t, err)
	assert.Len(t, warns, 1, "alexnet's one copy launched outside any op")
	one, _, err := Load([]string{a, b}, ReadOptions{Workers: 1})
	require.NoError(t, err)
	assert.Equal(t, render(t, one, text.JSON), render(t, both, text.JSON), "the result does not depend on the order reads finish in")

	dir := t.TempDir()
	var paths []string
	for i, p := range []string{a, b} {
		s, _, err := Open(p, i, ReadOptions{})
		require.NoError(t, err)
		js := render(t, s, text.JSON)
		back, err := ReadSummary(strings.NewReader(js), "s.json")
		require.NoError(t, err)
		assert.Equal(t, js, render(t, back, text.JSON), "a summary reads back as written")
		out := filepath.Join(dir, filepath.Base(p)+".kernels.json")
		if i == 1 {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write([]byte(js))
			zw.Close()
			js = z.String()
			out += ".gz"
		}
		require.NoError(t, os.WriteFile(out, []byte(js), 0o644))
		paths = append(paths, out)
	}
	merged, _, err := Load(paths, ReadOptions{})
	require.NoError(t, err)
	for _, f := range []text.Format{text.JSON, text.Text, text.CSV} {
		assert.Equal(t, render(t, both, f), render(t, merged, f), "format %s", f)
	}
	require.Len(t, merged.Ranks, 2)
	assert.Equal(t, int64(0), merged.Ranks[1].Number, "hta_sampled_rank0 names its rank")
	assert.True(t, merged.Ranks[1].Named)
	mtiaSum := collect([]tracefile.Event{{Kind: tracefile.KindKernel, Name: "k", EndNs: 1000}}, 0)
	mtiaSum.Device = "mtia"
	_, err = Merge(both, mtiaSum)
	assert.ErrorContains(t, err, `summary 2 is of device "mtia", summary 1 of "cuda"`)
	// ReadAll names the files (it said "summary 2").
	mtia := filepath.Join(t.TempDir(), "mtia.json")
	var mb bytes.Buffer
	require.NoError(t, Write(&mb, text.JSON, mtiaSum, WriteOptions{}))
	require.NoError(t, os.WriteFile(mtia, mb.Bytes(), 0o644))
	_, _, err = Load([]string{paths[0], mtia}, ReadOptions{})
	assert.EqualError(t, err, quote.String(mtia)+` is of device "mtia", `+quote.String(paths[0])+` of "cuda"`)
}

func render(t *testing.T, s *Summary, f text.Format) string {
	var b bytes.Buffer
	require.NoError(t, Write(&b, f, s, WriteOptions{}))
	return b.String()
}

// TestStatistics: the figures of one kernel, against values worked out by hand; the standard
// deviation is the sample one (n − 1), as pandas' std in HolisticTraceAnalysis; the median is
// within half a histogram bucket of the exact one; and a merge of two halves gives the figures
// of the whole, bit for bit.
func TestStatistics(t *testing.T) {
	durs := []int64{2000, 4000, 4000, 4000, 5000, 5000, 7000, 9000, 1_000_000} // ns
	whole, a, b := &Kernel{}, &Kernel{}, &Kernel{}
	for i, d := range durs {
		whole.add(d, Stream{0, 7}, "aten::mm")
		if i < 4 {
			a.add(d, Stream{0, 7}, "aten::mm")
		} else {
			b.add(d, Stream{1, 3}, "")
		}
	}
	assert.Equal(t, int64(9), whole.Calls)
	assert.Equal(t, int64(1_040_000), whole.TotalNs)
	assert.Equal(t, 1040.0, whole.TotalUs())
	assert.Equal(t, 1040.0/9, whole.MeanUs(), "the total over the calls, rounded once")
	assert.Equal(t, 2.0, whole.MinUs())
	assert.Equal(t, 1000.0, whole.MaxUs())
	// Σd² = 1,000,000² + 9000² + 7000² + 2·5000² + 3·4000² + 2000² ns²; n·Σd² − (Σd)² over
	// n(n−1), in µs²: (9·1000232 − 1040²)/72 = 110,006.777…
	assert.Equal(t, "1000232000000", whole.sumSq.String())
	assert.InDelta(t, math.Sqrt((9*1000232.0-1040*1040)/72), whole.StdUs(), 1e-12)
	assert.InDelta(t, 5.0, whole.MedianUs(), 5*0.0055, "exact median 5")
	require.NoError(t, a.merge(b))
	assert.Equal(t, whole.Calls, a.Calls)
	assert.Equal(t, whole.TotalNs, a.TotalNs)
	assert.Equal(t, whole.sumSq, a.sumSq)
	assert.Equal(t, math.Float64bits(whole.MeanUs()), math.Float64bits(a.MeanUs()))
	assert.Equal(t, math.Float64bits(whole.StdUs()), math.Float64bits(a.StdUs()))
	assert.Equal(t, whole.MedianUs(), a.MedianUs())
	assert.Equal(t, []Stream{{0, 7}, {1, 3}}, a.Streams)
	op, n := a.Op()
	assert.Equal(t, "", op, "five of nine calls reached no op")
	assert.Equal(t, 1, n)
	one := &Kernel{}
	one.add(3500, Stream{}, "x")
	assert.Equal(t, 0.0, one.StdUs())
	assert.Equal(t, 3.5, one.MedianUs())
	same := &Kernel{}
	for range 7 {
		same.add(1234567, Stream{}, "x") // a float mean of these drifts; the exact one does not
	}
	assert.Equal(t, 0.0, same.StdUs(), "equal durations deviate by exactly 0")
	assert.Equal(t, 1234.567, same.MeanUs())
	zero := &Kernel{}
	zero.add(0, Stream{}, "x")
	zero.add(0, Stream{}, "x")
	assert.Equal(t, 0.0, zero.MedianUs())
	assert.Equal(t, 0.0, zero.MeanUs())
}

// htaKernel is what HolisticTraceAnalysis's per-kernel breakdown gives a kernel name (sum,
// max, min, mean, std of the durations), computed here over encoding/json's reading of the
// file as hta.md describes it, for the events that are device time.
type htaKernel struct {
	n                        int
	sum, max, min, mean, std float64
}

func htaBreakdown(t *testing.T, path string) map[string]*htaKernel {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	raw, err := io.ReadAll(zr)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []struct {
			Ph, Cat, Name string
			Dur           float64
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	durs := map[string][]float64{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" && (e.Cat == "kernel" || e.Cat == "gpu_memcpy" || e.Cat == "gpu_memset") {
			durs[e.Name] = append(durs[e.Name], e.Dur)
		}
	}
	out := map[string]*htaKernel{}
	for n, ds := range durs {
		k := &htaKernel{n: len(ds), min: math.Inf(1), max: math.Inf(-1)}
		for _, d := range ds {
			k.sum += d
			k.min, k.max = min(k.min, d), max(k.max, d)
		}
		k.mean = k.sum / float64(len(ds))
		if len(ds) > 1 {
			var ss float64
			for _, d := range ds {
				ss += (d - k.mean) * (d - k.mean)
			}
			k.std = math.Sqrt(ss / float64(len(ds)-1))
		}
		out[n] = k
	}
	return out
}

// TestMatchesHTA: on HolisticTraceAnalysis's own sampled rank-0 trace, each kernel's sum, max,
// min, mean and std are HTA's per-kernel figures. Where the definitions differ (package doc):
// HTA drops the last ProfilerStep and kernels of other iterations when a trace has several
// steps (this one has none to drop), folds small kernels into "others", and rounds
// sub-µs times (this trace's are whole µs).
func TestMatchesHTA(t *testing.T) {
	path := "../../testdata/kineto-extra/hta_sampled_rank0.json.gz"
	want := htaBreakdown(t, path)
	s, _, err := Open(path, 0, ReadOptions{})
	require.NoError(t, err)
	require.Len(t, s.Kernels, len(want))
	for _, k := range s.Kernels {
		h := want[k.Name]
		require.NotNil(t, h, k.Name)
		assert.Equal(t, int64(h.n), k.Calls, k.Name)
		assert.InDelta(t, h.sum, k.TotalUs(), 1e-9*h.sum, k.Name)
		assert.Equal(t, h.max, k.MaxUs(), k.Name)
		assert.Equal(t, h.min, k.MinUs(), k.Name)
		assert.InDelta(t, h.mean, k.MeanUs(), 1e-9*h.mean, k.Name)
		assert.InDelta(t, h.std, k.StdUs(), 1e-9*max(1, h.std), k.Name)
		assert.Equal(t, htaType(k.Name), k.Category(nil).Group(), k.Name)
	}
}

// TestGolden pins every format of a small real trace and the --by-op view.
func TestGolden(t *testing.T) {
	s, _, err := Open("../../testdata/kineto/rocm_mi250_train.json.gz", 0, ReadOptions{})
	require.NoError(t, err)
	s.Ranks[0].Trace = "rocm_mi250_train.json.gz"
	for _, f := range []text.Format{text.Text, text.Markdown, text.CSV, text.JSON} {
		for _, byOp := range []bool{false, true} {
			if byOp && f == text.JSON {
				continue
			}
			var b bytes.Buffer
			require.NoError(t, Write(&b, f, s, WriteOptions{ByOp: byOp, MaxNameWidth: 40}))
			name := "rocm." + string(f)
			if byOp {
				name = "rocm_by_op." + string(f)
			}
			golden.Check(t, filepath.Join("testdata", "golden", name), b.Bytes())
		}
	}
}

// TestReadSummaryErrors: every inconsistency of a summary is one line naming the file and the
// kernel or field; version 1 (float statistics) is refused by name.
func TestReadSummaryErrors(t *testing.T) {
	s, _, err := Open("../../testdata/kineto/rocm_mi250_train.json.gz", 0, ReadOptions{})
	require.NoError(t, err)
	good := render(t, s, text.JSON)
	v1, err := os.ReadFile("testdata/rocm_v1.kernels.json")
	require.NoError(t, err)
	for _, c := range []struct{ name, from, to, want string }{
		{"version 3", `"orprof_kernels": 2`, `"orprof_kernels": 3`, "kernels summary version 3: this orprof reads version 2"},
		{"version 1", good, string(v1), `kernels summary version 1: its float statistics (field "m2") do not merge exactly`},
		{"kind", `"kind": "memcpy"`, `"kind": "cpu"`, `kind "cpu" is not a device event kind`},
		{"annotation kind", `"kind": "memcpy"`, `"kind": "device_annotation"`, `kind "device_annotation" is not a device event kind`},
		{"hist", `"hist": [`, `"hist": [[3, 1],`, "the histogram counts"},
		{"calls", `"calls": 2,`, `"calls": -2,`, "out of range"},
		{"unknown", `"device": "cuda"`, `"device": "cuda", "x": 1`, `unknown field "x"`},
		{"truncated", good, good[:len(good)/2], "unexpected EOF"},
		{"no ranks", `"ranks": [`, `"ranks": [], "r": [`, `unknown field "r"`},
		{"total outside calls × [min, max]", `"total_ns": 38161,`, `"total_ns": 48161,`, "total_ns 48161 is not the sum of 2 durations from min_ns 15720 to max_ns 22441"},
		{"negative variance", `"sum_sq_ns2": "750716881"`, `"sum_sq_ns2": "728000000"`, "sum_sq_ns2 728000000 is not the sum of the squares of 2 durations"},
		{"sum of squares as a number", `"sum_sq_ns2": "750716881"`, `"sum_sq_ns2": 750716881`, "sum_sq_ns2 must be a string of decimal digits below 2^128"},
		{"sum of squares past 2^128", `"sum_sq_ns2": "750716881"`, `"sum_sq_ns2": "340282366920938463463374607431768211456"`, "below 2^128"},
		{"no sum of squares", `"sum_sq_ns2": "750716881",`, ``, "no sum_sq_ns2"},
		{"launched_by time", "\"calls\": 2,\n     \"total_ns\": 38161", "\"calls\": 2,\n     \"total_ns\": 38160", "launched_by counts 2 calls of 38160 ns; the kernel, 2 of 38161 ns"},
		{"ranks' device time", "\"device_ns\": 149042,\n   \"device_us\"", "\"device_ns\": 149043,\n   \"device_us\"", "the kernels' total_ns add up to 149042, the ranks' device_ns to 149043"},
		{"negative device time", "\"device_ns\": 149042,\n   \"device_us\"", "\"device_ns\": -1,\n   \"device_us\"", "rank 1: device_ns -1 out of range"},
	} {
		in := strings.Replace(good, c.from, c.to, 1)
		require.NotEqual(t, good, in, c.name)
		_, err := ReadSummary(strings.NewReader(in), "k.json")
		require.Error(t, err, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
		assert.True(t, strings.HasPrefix(err.Error(), "k.json: "), c.name)
		assert.NotContains(t, err.Error(), "\n", c.name)
	}
	// A row whose name was deleted (it was read as a kernel named "").
	line := regexp.MustCompile(`(?m)^ *"name": "[^"\n]*",\n`)
	loc := line.FindStringIndex(good)
	require.NotNil(t, loc)
	_, err = ReadSummary(strings.NewReader(good[:loc[0]]+good[loc[1]:]), "k.json")
	assert.EqualError(t, err, `k.json: kernel 1: no field "name" (every row names its kernel)`)
}

// FuzzReadSummary: whatever ReadSummary accepts renders in every format, reads back from its
// JSON into the same bytes, and merges with itself (or fails in one line); whatever it
// refuses, it refuses in one line. The seeds (testdata/fuzz/FuzzReadSummary) are a version 2
// summary, the version 1 form it refuses, and edge cases of the exact sums.
func FuzzReadSummary(f *testing.F) {
	f.Add(`{"orprof_kernels": 2, "device": "cuda", "device_ns": 3000, "device_us": 3, "ranks": [{"rank": 0, "rank_from_trace": false, "file": "a", "device_ns": 3000, "device_us": 3}], "kernels": [{"name": "k", "kind": "kernel", "category": "gemm", "group": "computation", "calls": 1, "total_ns": 3000, "total_us": 3, "percent_of_device": 100, "mean_us": 3, "median_us": 3, "min_ns": 3000, "min_us": 3, "max_ns": 3000, "max_us": 3, "std_us": 0, "sum_sq_ns2": "9000000", "streams": [{"device": 0, "stream": 7}], "op": "aten::mm", "ops": 1, "ranks": 1, "hist": [[739, 1]], "launched_by": [{"op": "aten::mm", "calls": 1, "total_ns": 3000, "total_us": 3}]}]}`)
	f.Add(`{"orprof_kernels": 2, "ranks": []}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadSummary(strings.NewReader(in), "f")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err)
			}
			return
		}
		var b bytes.Buffer
		for _, f := range []text.Format{text.Text, text.Markdown, text.CSV, text.JSON} {
			if err := Write(&b, f, s, WriteOptions{ByOp: f == text.CSV}); err != nil {
				t.Fatal(err)
			}
		}
		js := render(t, s, text.JSON)
		back, err := ReadSummary(strings.NewReader(js), "f")
		if err != nil {
			t.Fatalf("its own JSON does not read back: %v", err)
		}
		if again := render(t, back, text.JSON); again != js {
			t.Fatalf("its JSON reads back into other bytes:\n%s\n%s", js, again)
		}
		if _, err := Merge(s, s); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("a multi-line error: %q", err)
		}
	})
}

// TestDiff: every kernel of either side, the largest increase first, new and gone kernels at
// their place, and the totals.
func TestDiff(t *testing.T) {
	mk := func(ks ...*Kernel) *Summary {
		s := &Summary{Ranks: []Rank{{}}, index: map[kernelKey]int{}}
		for _, k := range ks {
			s.Kernels = append(s.Kernels, k)
			s.Ranks[0].DeviceNs += k.TotalNs
		}
		return s
	}
	before := mk(&Kernel{Name: "gemm", Kind: tracefile.KindKernel, Calls: 2, TotalNs: 10000},
		&Kernel{Name: "gone", Kind: tracefile.KindKernel, Calls: 1, TotalNs: 4000},
		&Kernel{Name: "Memcpy HtoD", Kind: tracefile.KindMemcpy, Calls: 1, TotalNs: 3000})
	after := mk(&Kernel{Name: "gemm", Kind: tracefile.KindKernel, Calls: 2, TotalNs: 25000},
		&Kernel{Name: "new_attn", Kind: tracefile.KindKernel, Calls: 1, TotalNs: 7000},
		&Kernel{Name: "Memcpy HtoD", Kind: tracefile.KindMemcpy, Calls: 1, TotalNs: 3000})
	rows := Diff(before, after, nil)
	require.Len(t, rows, 4)
	assert.Equal(t, []string{"gemm", "new_attn", "Memcpy HtoD", "gone"}, []string{rows[0].Name, rows[1].Name, rows[2].Name, rows[3].Name})
	assert.Equal(t, 15.0, rows[0].DeltaUs())
	assert.Equal(t, "memory", rows[2].Category)
	var b bytes.Buffer
	require.NoError(t, WriteDiff(&b, text.Text, rows, before, after, 0, 55))
	assert.Contains(t, b.String(), "+15.000")
	assert.Contains(t, b.String(), "150.00%")
	assert.Contains(t, b.String(), " new ")
	assert.Contains(t, b.String(), "Delta (us)")
	assert.Contains(t, b.String(), "Device time total: 17.000 us before, 35.000 us after (+18.000 us, 105.88%)")
	// One unit per column (it printed 683.000us beside 1.700s), with the footer's %.
	after.Kernels[0].TotalNs, after.Ranks[0].DeviceNs = 1_700_034_000, 1_700_044_000
	rows = Diff(before, after, nil)
	b.Reset()
	require.NoError(t, WriteDiff(&b, text.Text, rows, before, after, 0, 55))
	assert.Contains(t, b.String(), "Before (ms)  After (ms)  Delta (ms)")
	assert.Regexp(t, `gemm +kernel +gemm +2 +2 +0\.010 +1700\.034 +\+1700\.024 +17000240\.00%`, b.String())
	assert.Contains(t, b.String(), "Device time total: 0.017 ms before, 1700.044 ms after (+1700.027 ms, 10000158.82%)")
	assert.NotRegexp(t, `[0-9](us|ms|s)\b`, b.String(), "a unit in a cell")
	b.Reset()
	require.NoError(t, WriteDiff(&b, text.JSON, rows, before, after, 0, 55))
	assert.Contains(t, b.String(), `"delta_us": -4`)
}
