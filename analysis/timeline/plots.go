package timeline

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/trace/tracefile"
)

// The figures the report's Device view plots (package doc, Plots): a stream's queue length
// over time and its launch delays, each step's device time by kernel category, and each
// device's GPU summary. Every one is bounded: a fixed number of points or buckets per stream,
// one figure per category per step, one summary per device.

// QueueSeriesPoints bounds the points of a stream's queue series.
const QueueSeriesPoints = 256

// QueueSeries is a stream's queue length over time as a step series: Points are (ns after
// StartNs, length), each length holding until the next point's time; the first point is at
// StartNs (the stream's first launch), the last the time the queue emptied for good (length
// 0). Times are offsets so that a page's JavaScript numbers hold them exactly. Exact: every
// change of the length, when the stream has at most QueueSeriesPoints; otherwise its span is
// cut into QueueSeriesPoints buckets of BucketNs and each point is a bucket's start and the
// greatest length during it.
type QueueSeries struct {
	Exact    bool       `json:"exact"`
	StartNs  int64      `json:"start_ns"`
	BucketNs int64      `json:"bucket_ns"`
	Points   [][2]int64 `json:"points"`
}

// DelayBoundsNs are the bounds of a launch-delay histogram's buckets (StreamDelay.Buckets):
// bucket 0 holds the negative delays (the work started before its call returned), bucket i
// (1 ≤ i < len) the delays in [DelayBoundsNs[i−1], DelayBoundsNs[i]), the last bucket those
// of DelayBoundsNs' last value (2¹⁹ µs, about half a second) or more: 0, 1 µs, then doublings.
var DelayBoundsNs = func() []int64 {
	b := []int64{0}
	for us := int64(1); us <= 1<<19; us *= 2 {
		b = append(b, us*1000)
	}
	return b
}()

// StreamDelay is the launch delays of a stream's work (from the launch call's end to the
// work's start, as Launches.Delay): their count, sum, least and greatest, and their histogram
// over DelayBoundsNs (len(DelayBoundsNs)+1 buckets; histograms of streams add).
type StreamDelay struct {
	Count   int     `json:"count"`
	SumNs   int64   `json:"sum_ns"`
	MinNs   int64   `json:"min_ns"`
	MaxNs   int64   `json:"max_ns"`
	Buckets []int64 `json:"buckets"`
}

// delayBucket is the bucket of a delay of d ns.
func delayBucket(d int64) int {
	if d < 0 {
		return 0
	}
	i, found := slices.BinarySearch(DelayBoundsNs, d)
	if found {
		i++
	}
	return i
}

// CategoryTime is the device work of one kernel category (kernels.Category's name) in a step:
// how many events and their summed durations (not their union: work on several streams at
// once counts on each).
type CategoryTime struct {
	Category string `json:"category"`
	Count    int    `json:"count"`
	Ns       int64  `json:"ns"`
}

// DeviceGPU is the TensorBoard plugin's GPU summary of one device of a rank, over the rank's
// window (its breakdown's; the selected steps' windows with --steps), from its kernels
// (computation and communication; not copies, fills or other device work).
type DeviceGPU struct {
	Device int `json:"device"`
	// WindowNs is the window's length; BusyNs the union of the device's kernels in it, so
	// utilization is BusyNs / WindowNs.
	WindowNs int64 `json:"window_ns"`
	BusyNs   int64 `json:"busy_ns"`
	// Kernels and KernelNs are the kernels and their summed durations; TensorCoreNs those of
	// the kernels whose names say they run on tensor cores (kernels.TensorCore).
	Kernels      int   `json:"kernels"`
	KernelNs     int64 `json:"kernel_ns"`
	TensorCoreNs int64 `json:"tensor_core_ns"`
	// Estimated counts the kernels that carry CUPTI's estimates ("blocks per SM", "est.
	// achieved occupancy %"). SMEfficiency is in [0, 1]: at each instant of the window, the
	// sum of the blocks per SM of the kernels running then, at most 1, averaged over the
	// window (idle time counts 0); AchievedOccupancyPct the kernels' occupancy averaged
	// weighted by their time in the window. Each is absent when no kernel carries it.
	Estimated            int      `json:"estimated_kernels"`
	SMEfficiency         *float64 `json:"sm_efficiency,omitempty"`
	AchievedOccupancyPct *float64 `json:"achieved_occupancy_pct,omitempty"`
}

// Utilization is BusyNs / WindowNs (0 for an empty window).
func (g *DeviceGPU) Utilization() float64 {
	if g.WindowNs == 0 {
		return 0
	}
	return float64(g.BusyNs) / float64(g.WindowNs)
}

// TensorCoreShare is TensorCoreNs / KernelNs, and false without kernels.
func (g *DeviceGPU) TensorCoreShare() (float64, bool) {
	if g.KernelNs == 0 {
		return 0, false
	}
	return float64(g.TensorCoreNs) / float64(g.KernelNs), true
}

// catTC is a device record's kernel category (1 + kernels.Category; 0: unknown) and, in its
// top bit, whether it runs on tensor cores.
type catTC uint8

const catTCBit = 0x80

func makeCatTC(c kernels.Category, tc bool) catTC {
	x := catTC(1 + c)
	if tc {
		x |= catTCBit
	}
	return x
}

func (x catTC) category() kernels.Category { return kernels.Category(x&^catTCBit) - 1 }
func (x catTC) tensorCore() bool           { return x&catTCBit != 0 }

// catTC is e's category and tensor-core flag: the caller's, else from its name and class c.
func (e *Event) catTC(c Class) catTC {
	if e.cat != 0 {
		return e.cat
	}
	var k kernels.Category
	switch c {
	case Communication:
		k = kernels.Communication
	case Memory:
		k = kernels.Memory
	case Computation:
		k = kernels.Default().Of(tracefile.KindKernel, e.Name)
		if k == kernels.Communication || k == kernels.Memory || k == kernels.Other {
			k = kernels.ComputeOther
		}
	default:
		k = kernels.Other
	}
	return makeCatTC(k, kernels.TensorCore(e.Name))
}

// dataLoader reports whether a host range is a data loader's fetch, as the TensorBoard plugin
// has it: "enumerate(DataLoader)#…" ending ".__next__", or "enumerate(DataPipe)#…".
func dataLoader(name string) bool {
	return strings.HasPrefix(name, "enumerate(DataLoader)#") && strings.HasSuffix(name, ".__next__") ||
		strings.HasPrefix(name, "enumerate(DataPipe)#")
}

// kargRec is a kernel that carries CUPTI's estimates.
type kargRec struct {
	start, end  int64
	blocks, occ float32
	device      int32
}

// plotRecs are what the plots need beside the device records: the kernels that carry
// estimates and the data loader's host ranges (few, or none, in most traces).
type plotRecs struct {
	kargs   []kargRec
	loaders []span
}

// add takes o's records, shifted onto the trace's clock.
func (x *plotRecs) add(o *plotRecs, shift int64) {
	for _, k := range o.kargs {
		k.start, k.end = k.start+shift, k.end+shift
		x.kargs = append(x.kargs, k)
	}
	for _, l := range o.loaders {
		x.loaders = append(x.loaders, span{l.start + shift, l.end + shift})
	}
}

// plots fills the plots' figures of the one-rank summary s: the queue series and launch
// delays of its streams (s.Queue), the categories and data loading of its steps (s.Steps),
// its devices' GPU summaries (s.Breakdown).
func plots(s *Summary, recs []rec, in func(*rec) bool, groups [][]*rec, windows []span, selected []bool,
	rankWin []span, x *plotRecs) {
	queuePlots(s.Queue, groups)
	// Steps: the work of each selected step by category; the data loader's time in its window.
	pos := make([]int, len(windows))
	k := 0
	for i := range windows {
		pos[i] = -1
		if selected[i] {
			pos[i] = k
			k++
		}
	}
	if len(s.Steps) == 1 && len(s.Steps[0].Steps) == k && k > 0 {
		per := make([][]CategoryTime, k)
		for i := range recs {
			r := &recs[i]
			if r.step < 0 || pos[r.step] < 0 || !r.work() {
				continue
			}
			p := pos[r.step]
			if per[p] == nil {
				per[p] = make([]CategoryTime, len(kernels.Categories()))
			}
			c := &per[p][r.cat.category()]
			c.Count++
			c.Ns += r.end - r.start
		}
		loaders := union(x.loaders)
		for i, w := range windows {
			if pos[i] < 0 {
				continue
			}
			st := &s.Steps[0].Steps[pos[i]]
			st.Kernels = []CategoryTime{}
			for c, ct := range per[pos[i]] {
				if ct.Count > 0 {
					ct.Category = kernels.Category(c).String()
					st.Kernels = append(st.Kernels, ct)
				}
			}
			st.DataLoaderNs = coveredLen(w, loaders)
		}
	}
	if len(s.Breakdown) == 1 && len(rankWin) > 0 {
		s.Breakdown[0].GPU = gpuSummaries(recs, in, rankWin, x.kargs)
	}
}

// queuePlots adds each stream's queue series and launch delays to its StreamQueue (queues'
// entries: the streams of groups with a launch, in order).
func queuePlots(qs []StreamQueue, groups [][]*rec) {
	type point struct {
		t int64
		d int
	}
	var pts []point
	j := 0
	for _, g := range groups {
		if j >= len(qs) {
			return
		}
		q := &qs[j]
		if len(g) == 0 || int(g[0].device) != q.Device || g[0].stream != q.Stream {
			continue
		}
		j++
		pts = pts[:0]
		d := &StreamDelay{Buckets: make([]int64, len(DelayBoundsNs)+1)}
		for _, r := range g {
			if !r.launched {
				continue
			}
			if r.lstart < r.end {
				pts = append(pts, point{r.lstart, 1}, point{r.end, -1})
			}
			delay := r.start - r.lend
			if d.Count == 0 || delay < d.MinNs {
				d.MinNs = delay
			}
			if d.Count == 0 || delay > d.MaxNs {
				d.MaxNs = delay
			}
			d.Count++
			d.SumNs += delay
			d.Buckets[delayBucket(delay)]++
		}
		q.Delay = d
		slices.SortFunc(pts, func(a, b point) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.d, b.d)) })
		// The changes: the length after every point of one time.
		var ch [][2]int64
		n := int64(0)
		for i, p := range pts {
			n += int64(p.d)
			if i+1 < len(pts) && pts[i+1].t == p.t {
				continue
			}
			if m := len(ch); m > 0 && ch[m-1][1] == n {
				continue
			}
			ch = append(ch, [2]int64{p.t, n})
		}
		q.Series = seriesOf(ch)
	}
}

// seriesOf is the QueueSeries of the changes ch ((time, length after it), in time order,
// ending at length 0).
func seriesOf(ch [][2]int64) *QueueSeries {
	if len(ch) == 0 {
		return nil
	}
	t0 := ch[0][0]
	if len(ch) <= QueueSeriesPoints {
		pts := make([][2]int64, len(ch))
		for i, c := range ch {
			pts[i] = [2]int64{c[0] - t0, c[1]}
		}
		return &QueueSeries{Exact: true, StartNs: t0, Points: pts}
	}
	t1 := ch[len(ch)-1][0]
	w := (t1 - t0 + QueueSeriesPoints - 1) / QueueSeriesPoints
	w = max(w, 1)
	pts := make([][2]int64, 0, QueueSeriesPoints+1)
	cur := int64(0) // the length at the bucket's start
	i := 0
	for b := int64(0); b < QueueSeriesPoints; b++ {
		lo, hi := t0+b*w, t0+(b+1)*w
		if lo >= t1 {
			break
		}
		top := cur
		for ; i < len(ch) && ch[i][0] < hi; i++ {
			top = max(top, ch[i][1])
			cur = ch[i][1]
		}
		pts = append(pts, [2]int64{lo - t0, top})
	}
	pts = append(pts, [2]int64{t1 - t0, 0})
	return &QueueSeries{StartNs: t0, BucketNs: w, Points: pts}
}

// gpuSummaries are the GPU summaries of the devices of the rank's kernels, in device order.
func gpuSummaries(recs []rec, in func(*rec) bool, win []span, kargs []kargRec) []DeviceGPU {
	var window int64
	for _, w := range win {
		window += w.len()
	}
	byDev := map[int32]*DeviceGPU{}
	busy := map[int32][]span{}
	for i := range recs {
		r := &recs[i]
		if !r.work() || !in(r) || r.class == Memory || r.class == Other {
			continue
		}
		g := byDev[r.device]
		if g == nil {
			g = &DeviceGPU{Device: int(r.device), WindowNs: window}
			byDev[r.device] = g
		}
		g.Kernels++
		g.KernelNs += r.end - r.start
		if r.cat.tensorCore() {
			g.TensorCoreNs += r.end - r.start
		}
		busy[r.device] = append(busy[r.device], span{r.start, r.end})
	}
	kdev := map[int32][]kargRec{}
	for _, k := range kargs {
		kdev[k.device] = append(kdev[k.device], k)
	}
	out := make([]DeviceGPU, 0, len(byDev))
	for dev, g := range byDev {
		u := union(busy[dev])
		for _, w := range win {
			g.BusyNs += coveredLen(w, u)
		}
		g.Estimated = len(kdev[dev])
		g.SMEfficiency, g.AchievedOccupancyPct = estimates(kdev[dev], win, window)
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b DeviceGPU) int { return cmp.Compare(a.Device, b.Device) })
	return out
}

// estimates are the SM efficiency and achieved occupancy of a device's kernels ks over the
// window win (disjoint spans in time order, window ns long); nil when no kernel carries one.
func estimates(ks []kargRec, win []span, window int64) (sm, occ *float64) {
	type edge struct {
		t int64
		b float64
	}
	var edges []edge
	var occW, occSum float64
	anyOcc := false
	for _, k := range ks {
		if k.blocks > 0 {
			edges = append(edges, edge{k.start, float64(k.blocks)}, edge{k.end, -float64(k.blocks)})
		}
		if k.occ >= 0 {
			anyOcc = true
			var in int64
			for _, w := range win {
				in += max(0, min(k.end, w.end)-max(k.start, w.start))
			}
			occW += float64(in)
			occSum += float64(k.occ) * float64(in)
		}
	}
	if anyOcc {
		v := 0.0
		if occW > 0 {
			v = occSum / occW
		}
		occ = &v
	}
	if len(edges) == 0 || window == 0 {
		return nil, occ
	}
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Compare(a.t, b.t) })
	// The sum of the running kernels' blocks per SM between edges, at most 1, integrated over
	// the window. The sum is kept as the count of kernels running and their blocks, so that
	// rounding never leaves a small sum where no kernel runs.
	var area, sum float64
	running := 0
	for i := 0; i+1 < len(edges); i++ {
		sum += edges[i].b
		if edges[i].b > 0 {
			running++
		} else {
			running--
		}
		if running == 0 {
			sum = 0
		}
		a, b := edges[i].t, edges[i+1].t
		if b <= a || running == 0 {
			continue
		}
		var in int64
		for _, w := range win {
			in += max(0, min(b, w.end)-max(a, w.start))
		}
		area += math.Min(sum, 1) * float64(in)
	}
	v := area / float64(window)
	return &v, occ
}

// The thresholds of the TensorBoard plugin's recommendations (tb_plugin.md §3.4).
const (
	recDataLoader = 0.05 // the data loader's share of the steps' time above it
)

// gpuFindings are the TensorBoard plugin's recommendations the figures support and the other
// findings do not (its low utilization is the idle finding, at 20 % idle rather than 50 %),
// per rank: no kernel on tensor cores while GEMM, convolution or attention kernels ran (on
// devices whose kernels carry CUPTI's estimates: NVIDIA's, whose kernel names the rule knows),
// the data loader's share of the steps' time.
func gpuFindings(s *Summary) []Finding {
	var out []Finding
	mathNs := map[int64]int64{} // rank → GEMM, convolution and attention time
	for _, rs := range s.Steps {
		for _, st := range rs.Steps {
			for _, c := range st.Kernels {
				if c.Category == kernels.GEMM.String() || c.Category == kernels.Convolution.String() || c.Category == kernels.Attention.String() {
					mathNs[rs.Rank] += c.Ns
				}
			}
		}
	}
	for _, b := range s.Breakdown {
		for i := range b.GPU {
			g := &b.GPU[i]
			if tc, ok := g.TensorCoreShare(); ok && tc == 0 && g.Estimated > 0 && mathNs[b.Rank] > 0 {
				out = append(out, Finding{View: "breakdown", Rank: b.Rank, Share: float64(mathNs[b.Rank]) / float64(g.KernelNs),
					Text: fmt.Sprintf("device %d ran no kernel on tensor cores while GEMM, convolution and attention kernels took %.1f%% of its kernel time; mixed precision (AMP, bf16/fp16) or TF32 would use them",
						g.Device, min(100, 100*float64(mathNs[b.Rank])/float64(g.KernelNs)))})
			}
		}
	}
	return out
}

// plotTables are the plots' figures as tables of the view (text, markdown, csv), after the
// view's own: the GPU summary per device (breakdown), the launch delays per stream (queue),
// the work by category per step (steps); none when the summary has no such figures.
func plotTables(s *Summary, view string) []*table {
	switch view {
	case "breakdown":
		t := &table{title: "GPU summary per device (the TensorBoard plugin's; µs)",
			header: []string{"rank", "device", "kernels", "kernel time", "utilization %", "tensor cores %", "SM efficiency %", "achieved occupancy %"}}
		opt := func(p *float64, scale float64) string {
			if p == nil {
				return "-"
			}
			return strconv.FormatFloat(*p*scale, 'f', 2, 64)
		}
		for _, b := range s.Breakdown {
			for i := range b.GPU {
				g := &b.GPU[i]
				tc := "-"
				if x, ok := g.TensorCoreShare(); ok {
					tc = strconv.FormatFloat(100*x, 'f', 2, 64)
				}
				t.rows = append(t.rows, []string{fmtInt(b.Rank), fmtInt(int64(g.Device)), fmtInt(int64(g.Kernels)), fmtUs(g.KernelNs),
					strconv.FormatFloat(100*g.Utilization(), 'f', 2, 64), tc, opt(g.SMEfficiency, 100), opt(g.AchievedOccupancyPct, 1)})
			}
		}
		if len(t.rows) > 0 {
			return []*table{t}
		}
	case "queue":
		t := &table{title: "Launch delay per stream (µs; the call's end to the work's start)",
			header: []string{"rank", "device", "stream", "launches", "mean", "min", "max", "negative", "≥ 1 ms"}}
		ms := delayBucket(1000_000)
		for _, q := range s.Queue {
			d := q.Delay
			if d == nil || d.Count == 0 {
				continue
			}
			var over int64
			for _, n := range d.Buckets[ms:] {
				over += n
			}
			t.rows = append(t.rows, []string{fmtInt(q.Rank), fmtInt(int64(q.Device)), fmtInt(q.Stream), fmtInt(int64(d.Count)),
				fmtUs(d.SumNs / int64(d.Count)), fmtUs(d.MinNs), fmtUs(d.MaxNs), fmtInt(d.Buckets[0]), fmtInt(over)})
		}
		if len(t.rows) > 0 {
			return []*table{t}
		}
	case "steps":
		has := make([]bool, len(kernels.Categories()))
		for _, rs := range s.Steps {
			for _, st := range rs.Steps {
				for _, c := range st.Kernels {
					if k, ok := kernels.ParseCategory(c.Category); ok {
						has[k] = true
					}
				}
			}
		}
		header := []string{"rank", "step"}
		var cols []string
		for k, h := range has {
			if h {
				cols = append(cols, kernels.Category(k).String())
			}
		}
		if len(cols) == 0 {
			return nil
		}
		t := &table{title: "Device work per step by kernel category (µs, summed over streams), and data loading",
			header: append(append(header, cols...), "data loader")}
		for _, rs := range s.Steps {
			for _, st := range rs.Steps {
				row := []string{fmtInt(rs.Rank), fmtInt(st.Step)}
				for _, c := range cols {
					v := int64(0)
					for _, k := range st.Kernels {
						if k.Category == c {
							v = k.Ns
						}
					}
					row = append(row, fmtUs(v))
				}
				t.rows = append(t.rows, append(row, fmtUs(st.DataLoaderNs)))
			}
		}
		return []*table{t}
	}
	return nil
}

// checkPlots reports the first plot figure of a summary read back that no Analyzer could have
// made, so that a page or a merge never takes an unbounded or misaligned one: a queue series
// of more than QueueSeriesPoints+1 points or out of time order, a delay histogram whose
// buckets are not DelayBoundsNs' or do not add up to its count, an SM efficiency outside
// [0, 1].
func checkPlots(s *Summary) error {
	for i, q := range s.Queue {
		at := func(what string) error {
			return fmt.Errorf("queue: entry %d (rank %d, device %d, stream %d): %s", i+1, q.Rank, q.Device, q.Stream, what)
		}
		if sr := q.Series; sr != nil {
			if len(sr.Points) > QueueSeriesPoints+1 {
				return at(fmt.Sprintf("series: %d points, more than %d", len(sr.Points), QueueSeriesPoints+1))
			}
			for k, p := range sr.Points {
				if p[0] < 0 || k > 0 && p[0] < sr.Points[k-1][0] || p[1] < 0 {
					return at(fmt.Sprintf("series: point %d (%d, %d) before the start, out of order or negative", k+1, p[0], p[1]))
				}
			}
		}
		if d := q.Delay; d != nil {
			var n int64
			for _, c := range d.Buckets {
				n += c
			}
			if len(d.Buckets) != len(DelayBoundsNs)+1 || n != int64(d.Count) {
				return at(fmt.Sprintf("delay: %d buckets holding %d delays, not %d holding its count %d", len(d.Buckets), n, len(DelayBoundsNs)+1, d.Count))
			}
		}
	}
	for _, b := range s.Breakdown {
		for _, g := range b.GPU {
			if e := g.SMEfficiency; e != nil && !(*e >= 0 && *e <= 1) {
				return fmt.Errorf("breakdown: rank %d device %d: SM efficiency %v outside [0, 1]", b.Rank, g.Device, *e)
			}
		}
	}
	return nil
}
