package timeline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace/tracefile"
)

// loaders are the data loader ranges plotOracle read last.
var loaders []span

// plotEvent is a device work event as plotOracle reads it from the JSON.
type plotEvent struct {
	dev, stream, corr int64
	start, end        int64
	lstart, lend      int64
	launched          bool
	class             Class
	cat               kernels.Category
	name              string
	blocks, occ       float64 // −1: absent
}

// plotOracle reads a Kineto trace with encoding/json, apart from the reader: its device work
// (kernels, copies, fills) with their launches, and its ProfilerStep ranges (united by number,
// in start order).
func plotOracle(t *testing.T, path string) ([]plotEvent, []span) {
	t.Helper()
	b := gunzipFile(t, path)
	var doc struct {
		TraceEvents []struct {
			Ph, Cat, Name string
			Pid, Tid      any
			Ts, Dur       json.Number
			Args          map[string]any
		} `json:"traceEvents"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	num := func(v any) (int64, bool) {
		n, ok := v.(json.Number)
		if !ok {
			return 0, false
		}
		i, err := n.Int64()
		return i, err == nil
	}
	fnum := func(v any) float64 {
		n, ok := v.(json.Number)
		if !ok {
			return -1
		}
		f, _ := n.Float64()
		return float64(float32(f)) // as the reader keeps it
	}
	launches := map[int64][2]int64{}
	loaders = nil
	stepRanges := map[int64]span{}
	var evs []plotEvent
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		start := exactNs(t, e.Ts)
		end := start + exactNs(t, e.Dur)
		corr, _ := num(e.Args["correlation"])
		switch strings.ToLower(e.Cat) {
		case "cuda_runtime", "cuda_driver", "runtime":
			if _, dup := launches[corr]; !dup && corr != 0 {
				launches[corr] = [2]int64{start, end}
			}
		case "cpu_op", "user_annotation", "operator":
			if strings.HasPrefix(e.Name, "enumerate(DataLoader)#") && strings.HasSuffix(e.Name, ".__next__") {
				loaders = append(loaders, span{start, end})
			}
			if n, ok := stepNumber(e.Name); ok {
				if r, seen := stepRanges[n]; seen {
					stepRanges[n] = span{min(r.start, start), max(r.end, end)}
				} else {
					stepRanges[n] = span{start, end}
				}
			}
		case "kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset":
			kind := tracefile.KindKernel
			switch strings.ToLower(e.Cat) {
			case "gpu_memcpy", "memcpy":
				kind = tracefile.KindMemcpy
			case "gpu_memset", "memset":
				kind = tracefile.KindMemset
			}
			cat := kernels.Default().Of(kind, e.Name)
			pid, _ := num(e.Pid)
			stream, ok := num(e.Args["stream"])
			if !ok {
				stream, _ = num(e.Tid)
			}
			ev := plotEvent{dev: pid, stream: stream, corr: corr, start: start, end: end, class: ClassOf(kind, cat), cat: cat,
				name: e.Name, blocks: -1, occ: -1}
			if kind == tracefile.KindKernel {
				ev.blocks, ev.occ = fnum(e.Args["blocks per SM"]), fnum(e.Args["est. achieved occupancy %"])
			}
			evs = append(evs, ev)
		}
	}
	for i := range evs {
		if l, ok := launches[evs[i].corr]; ok && evs[i].corr != 0 {
			evs[i].lstart, evs[i].lend, evs[i].launched = l[0], l[1], true
		}
	}
	var steps []span
	for _, r := range stepRanges {
		steps = append(steps, r)
	}
	slices.SortFunc(steps, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	return evs, steps
}

// The plots' figures of real traces equal those worked out from their JSON by brute force:
// each stream's queue length at every change (or each bucket's greatest), its launch delays by
// bucket, each step's work by category, each device's kernel time, tensor-core time, busy
// time, SM efficiency and achieved occupancy.
func TestPlotsOnTraces(t *testing.T) {
	for _, path := range []string{"../../testdata/kineto/cuda_alexnet.json.gz", "../../testdata/kineto/cuda_train_step.json.gz",
		"../../testdata/kineto-extra/tbplugin_2021_small.json.gz"} {
		t.Run(path, func(t *testing.T) {
			if testing.Short() && path == "../../testdata/kineto/cuda_train_step.json.gz" {
				t.Skip("brute force over 9,000 kernels")
			}
			s, _, err := Load([]string{path}, DefaultOptions(), ReadOptions{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			evs, steps := plotOracle(t, path)
			checkQueues(t, s, evs)
			checkSteps(t, s, evs, steps)
			checkGPU(t, s, evs)
		})
	}
}

func checkQueues(t *testing.T, s *Summary, evs []plotEvent) {
	byStream := map[[2]int64][]plotEvent{}
	for _, e := range evs {
		if e.launched {
			k := [2]int64{e.dev, e.stream}
			byStream[k] = append(byStream[k], e)
		}
	}
	if len(s.Queue) != len(byStream) {
		t.Fatalf("%d streams with a queue, the JSON has %d", len(s.Queue), len(byStream))
	}
	for _, q := range s.Queue {
		es := byStream[[2]int64{int64(q.Device), q.Stream}]
		// The queue length at t: launches called by t whose work has not ended by t.
		at := func(t int64) int64 {
			var n int64
			for _, e := range es {
				if e.lstart < e.end && e.lstart <= t && t < e.end {
					n++
				}
			}
			return n
		}
		var times []int64
		for _, e := range es {
			if e.lstart < e.end {
				times = append(times, e.lstart, e.end)
			}
		}
		slices.Sort(times)
		times = slices.Compact(times)
		var changes [][2]int64
		for _, tm := range times {
			if v := at(tm); len(changes) == 0 || changes[len(changes)-1][1] != v {
				changes = append(changes, [2]int64{tm, v})
			}
		}
		sr := q.Series
		switch {
		case sr == nil:
			t.Errorf("stream %d: no series", q.Stream)
		case sr.StartNs != changes[0][0]:
			t.Errorf("stream %d: series from %d, the first launch at %d", q.Stream, sr.StartNs, changes[0][0])
		case len(changes) <= QueueSeriesPoints:
			for i := range changes {
				changes[i][0] -= sr.StartNs
			}
			if !sr.Exact || !reflect.DeepEqual(sr.Points, changes) {
				t.Errorf("stream %d: series %+v, want the %d changes exactly", q.Stream, sr, len(changes))
			}
		default:
			if sr.Exact || len(sr.Points) > QueueSeriesPoints+1 {
				t.Errorf("stream %d: %d points, exact %v", q.Stream, len(sr.Points), sr.Exact)
			}
			for i, p := range sr.Points[:len(sr.Points)-1] {
				lo, hi := sr.StartNs+p[0], sr.StartNs+p[0]+sr.BucketNs
				top := at(lo)
				for _, c := range changes {
					if c[0] >= lo && c[0] < hi {
						top = max(top, c[1])
					}
				}
				if p[1] != top {
					t.Errorf("stream %d bucket %d at %d: %d, want %d", q.Stream, i, lo, p[1], top)
					break
				}
			}
		}
		var peak int64
		for _, c := range changes {
			peak = max(peak, c[1])
		}
		if int(peak) != q.Max {
			t.Errorf("stream %d: max %d, the series' %d", q.Stream, q.Max, peak)
		}
		want := &StreamDelay{Count: len(es), Buckets: make([]int64, len(DelayBoundsNs)+1)}
		for i, e := range es {
			d := e.start - e.lend
			want.SumNs += d
			if i == 0 || d < want.MinNs {
				want.MinNs = d
			}
			if i == 0 || d > want.MaxNs {
				want.MaxNs = d
			}
			b := 0
			if d >= 0 {
				b = len(DelayBoundsNs)
				for j := 1; j < len(DelayBoundsNs); j++ {
					if d < DelayBoundsNs[j] {
						b = j
						break
					}
				}
			}
			want.Buckets[b]++
		}
		if !reflect.DeepEqual(q.Delay, want) {
			t.Errorf("stream %d: delays %+v, want %+v", q.Stream, q.Delay, want)
		}
	}
}

func checkSteps(t *testing.T, s *Summary, evs []plotEvent, steps []span) {
	if len(steps) == 0 {
		if len(s.Steps[0].Steps) != 0 {
			t.Errorf("%d steps, the JSON has none", len(s.Steps[0].Steps))
		}
		return
	}
	want := make([]map[string][2]int64, len(steps))
	for i := range want {
		want[i] = map[string][2]int64{}
	}
	for _, e := range evs {
		at := e.start
		if e.launched {
			at = e.lstart
		}
		for i, st := range steps {
			if st.start <= at && at < st.end {
				c := want[i][e.cat.String()]
				want[i][e.cat.String()] = [2]int64{c[0] + 1, c[1] + e.end - e.start}
			}
		}
	}
	if len(s.Steps[0].Steps) != len(steps) {
		t.Fatalf("%d steps, the JSON has %d", len(s.Steps[0].Steps), len(steps))
	}
	for i, st := range s.Steps[0].Steps {
		got := map[string][2]int64{}
		for _, c := range st.Kernels {
			got[c.Category] = [2]int64{int64(c.Count), c.Ns}
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("step %d: %v, want %v", st.Step, got, want[i])
		}
		// The data loader's time in the step's window: the union of its ranges, by the ns.
		var dl int64
		for tm := st.StartNs; tm < st.EndNs && len(loaders) > 0; tm += 1000 {
			for _, l := range loaders {
				if l.start <= tm && tm < l.end {
					dl += 1000
					break
				}
			}
		}
		if st.DataLoaderNs != dl {
			t.Errorf("step %d: data loader %d ns, want %d", st.Step, st.DataLoaderNs, dl)
		}
	}
}

func checkGPU(t *testing.T, s *Summary, evs []plotEvent) {
	var lo, hi int64
	for i, e := range evs {
		if i == 0 || e.start < lo {
			lo = e.start
		}
		if i == 0 || e.end > hi {
			hi = e.end
		}
	}
	win := hi - lo
	byDev := map[int64][]plotEvent{}
	for _, e := range evs {
		if e.class == Computation || e.class == Communication {
			byDev[e.dev] = append(byDev[e.dev], e)
		}
	}
	gpu := s.Breakdown[0].GPU
	if len(gpu) != len(byDev) {
		t.Fatalf("%d devices, the JSON has %d", len(gpu), len(byDev))
	}
	for _, g := range gpu {
		ks := byDev[int64(g.Device)]
		var kernelNs, tcNs int64
		var spans []span
		for _, k := range ks {
			kernelNs += k.end - k.start
			if kernels.TensorCore(k.name) {
				tcNs += k.end - k.start
			}
			spans = append(spans, span{k.start, k.end})
		}
		busy := total(union(spans))
		if g.WindowNs != win || g.Kernels != len(ks) || g.KernelNs != kernelNs || g.TensorCoreNs != tcNs || g.BusyNs != busy {
			t.Errorf("device %d: %+v, want window %d, %d kernels, %d ns, tensor cores %d ns, busy %d ns",
				g.Device, g, win, len(ks), kernelNs, tcNs, busy)
		}
		// SM efficiency: over every elementary interval between kernel boundaries, the blocks
		// per SM of the kernels running then, at most 1.
		var cuts []int64
		var occSum, occW float64
		for _, k := range ks {
			if k.blocks > 0 {
				cuts = append(cuts, k.start, k.end)
			}
			if k.occ >= 0 {
				occSum += k.occ * float64(k.end-k.start)
				occW += float64(k.end - k.start)
			}
		}
		slices.Sort(cuts)
		cuts = slices.Compact(cuts)
		var area float64
		for i := 0; i+1 < len(cuts); i++ {
			a, b := cuts[i], cuts[i+1]
			var sum float64
			for _, k := range ks {
				if k.blocks > 0 && k.start <= a && b <= k.end {
					sum += k.blocks
				}
			}
			area += math.Min(sum, 1) * float64(b-a)
		}
		near := func(got *float64, want float64, has bool) bool {
			if !has {
				return got == nil
			}
			return got != nil && math.Abs(*got-want) <= 1e-9*math.Max(1, math.Abs(want))
		}
		if !near(g.SMEfficiency, area/float64(win), len(cuts) > 0) {
			t.Errorf("device %d: SM efficiency %v, want %v", g.Device, g.SMEfficiency, area/float64(win))
		}
		wantOcc := 0.0
		if occW > 0 {
			wantOcc = occSum / occW
		}
		if !near(g.AchievedOccupancyPct, wantOcc, occW > 0 || slices.ContainsFunc(ks, func(k plotEvent) bool { return k.occ >= 0 })) {
			t.Errorf("device %d: occupancy %v, want %v", g.Device, g.AchievedOccupancyPct, wantOcc)
		}
		t.Logf("device %d: %d kernels, tensor cores %.1f%%, busy %.1f%%, SM efficiency %v, occupancy %v", g.Device, g.Kernels,
			100*float64(g.TensorCoreNs)/float64(max(1, g.KernelNs)), 100*g.Utilization(), deref(g.SMEfficiency), deref(g.AchievedOccupancyPct))
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// A summary read back whose plot figures no Analyzer could have made is refused, naming the
// member and the entry.
func TestReadRefusesBadPlots(t *testing.T) {
	const head = `{"orprof_timeline": 1, "options": {"micro_idle_ns":30000,"short_kernel_ns":10000,"queue_length":16}, `
	long := "[" + strings.Repeat("[0,1],", QueueSeriesPoints+1) + "[0,0]]"
	buckets := "[" + strings.Repeat("0,", len(DelayBoundsNs)) + "3]"
	for _, tc := range []struct{ name, doc, want string }{
		{"long series", `"queue": [{"rank":0,"device":0,"stream":7,"series":{"exact":false,"start_ns":0,"bucket_ns":1,"points":` + long + `}}]}`,
			"queue: entry 1 (rank 0, device 0, stream 7): series: 258 points, more than 257"},
		{"series out of order", `"queue": [{"rank":0,"device":0,"stream":7,"series":{"exact":true,"start_ns":0,"points":[[5,1],[3,0]]}}]}`,
			"series: point 2 (3, 0) before the start, out of order or negative"},
		{"short histogram", `"queue": [{"rank":0,"device":0,"stream":7,"delay":{"count":1,"buckets":[1]}}]}`,
			"delay: 1 buckets holding 1 delays, not 22 holding its count 1"},
		{"histogram off its count", `"queue": [{"rank":0,"device":0,"stream":7,"delay":{"count":2,"buckets":` + buckets + `}}]}`,
			"delay: 22 buckets holding 3 delays, not 22 holding its count 2"},
		{"SM efficiency", `"breakdown": [{"rank":0,"gpu":[{"device":0,"sm_efficiency":1.5}]}]}`,
			"breakdown: rank 0 device 0: SM efficiency 1.5 outside [0, 1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadSummary(strings.NewReader(head + tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	// What an Analyzer made reads back.
	s, _, err := Load([]string{"../../testdata/kineto/cuda_alexnet.json.gz"}, DefaultOptions(), ReadOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, text.JSON, s, Views); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummary(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Queue, s.Queue) || !reflect.DeepEqual(back.Breakdown, s.Breakdown) {
		t.Error("the plots' figures differ once read back")
	}
}
