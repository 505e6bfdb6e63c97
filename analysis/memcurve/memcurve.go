// Package memcurve is the memory of each device over a trace's time, from its "[memory]"
// records, as a summary the report's Memory view draws: per device, the allocated (and
// reserved) bytes after each record, the peaks, and the curve cut to at most MaxPoints points.
// A Collector is an analysis that needs the memory records: it takes the reader's "[memory]"
// records one at a time in the same pass as the other consumers, and keeps 56 bytes per memory record, none per
// other event (but the host operators of a trace with memory records: below).
//
// Definitions (the TensorBoard plugin's memory curve, tb_plugin.md §5, in our words): a device
// is a c10 device type and index ("CPU", "CUDA 0"; the type's number when it has no name);
// a record's point is the allocator's "Total Allocated" and "Total Reserved" after it, as the
// trace reports them, plotted as they are. Where the trace has no totals (PyTorch before they
// were written, orprof's own traces) the curve is the running sum of the records' bytes from 0
// at the first record — what was allocated during the profile, not the allocator's total —
// and the Device says so (Relative). The peaks are over every record, before the curve is cut.
// Cutting keeps, per time bucket, the first point and the points of the bucket's lowest and
// highest allocation, so a peak is never cut off the curve.
//
// The blocks behind a peak: replaying the records up to the first allocation peak, an
// allocation makes its block ("Addr") live and a free of that address ends it; the blocks live
// at the peak, the largest MaxPeakAllocs of them listed with their size, time and the host
// operator that allocated them (the innermost cpu_op on the record's thread whose span holds
// its time; "" when none does). Only blocks allocated during the profile are known: one
// allocated before it started and freed after is in the totals, not in the list. To name the
// operators, a Collector keeps the host operators' spans and names of a trace that has memory
// records (40 bytes each), none otherwise.
package memcurve

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/orprof/orprof/internal/reserve"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace/tracefile"
)

// MaxPoints bounds the points of one device's curve.
const MaxPoints = 3000

// MaxPeakAllocs bounds the blocks a device lists as live at its peak.
const MaxPeakAllocs = 20

// Alloc is a block live at a device's peak: its bytes, when it was allocated (µs from the
// summary's StartNs) and by which host operator ("" when unknown).
type Alloc struct {
	Bytes int64   `json:"bytes"`
	AtUs  float64 `json:"at_us"`
	Op    string  `json:"op"`
}

// Device is one device's curve.
type Device struct {
	Name       string `json:"name"`
	DeviceType int64  `json:"device_type"`
	DeviceID   int64  `json:"device_id"`
	// Records counts the device's memory records; Allocs those that allocate.
	Records int `json:"records"`
	Allocs  int `json:"allocs"`
	// Relative says the curve is the running sum of the records' bytes (the trace has no
	// allocator totals); HasReserved that the reserved bytes are known.
	Relative    bool `json:"relative"`
	HasReserved bool `json:"has_reserved"`
	// PeakAllocated and PeakReserved are the largest values of the curve before it is cut;
	// PeakAtNs the time of the first allocation peak.
	PeakAllocated int64 `json:"peak_allocated"`
	PeakReserved  int64 `json:"peak_reserved"`
	PeakAtNs      int64 `json:"peak_at_ns"`
	// Points are [time in µs from the summary's StartNs, allocated bytes, reserved bytes].
	Points [][3]float64 `json:"points"`
	// HasAddr says the records carry block addresses, so the blocks live at the peak are
	// known: PeakLive of them, PeakLiveBytes in all, PeakAllocs the largest (at most
	// MaxPeakAllocs, the largest first; ties the earliest first).
	HasAddr       bool    `json:"has_addr"`
	PeakLive      int     `json:"peak_live"`
	PeakLiveBytes int64   `json:"peak_live_bytes"`
	PeakAllocs    []Alloc `json:"peak_allocs,omitempty"`
}

// rankPrefix and rankSep name a device in a summary of several ranks (Merge): "rank 3 ·
// CUDA 0". A device's own name never does (deviceName).
const rankPrefix, rankSep = "rank ", " · "

// Summary is one trace's memory curves, one per device, in (type, index) order.
type Summary struct {
	// StartNs is the time of the first memory record (the trace's own clock).
	StartNs int64    `json:"start_ns"`
	Devices []Device `json:"devices"`
}

type rec struct {
	t, bytes, alloc, res int64
	addr, tid            int64
	typ, id              int32
}

// hostOp is a host operator's span and name, on its thread.
type hostOp struct {
	start, end, tid int64
	name            string
}

// Collector gathers the memory records of one trace: an analysis (analysis.Analysis) that
// needs the memory records and no links.
type Collector struct {
	recs []rec
	// ops are the host operators, kept when the trace has memory records (opsWanted).
	ops       []hostOp
	opsWanted bool
	// done are the curves once drawn (Finish was called).
	done *Summary
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector { return &Collector{} }

// Needs asks for the memory records and no links.
func (c *Collector) Needs() tracefile.Needs { return tracefile.NeedMemory }

// Begin sizes the list for the read's memory records.
func (c *Collector) Begin(info *tracefile.Info) {
	c.recs = reserve.Room(c.recs, info.Counts.Memory)
	c.opsWanted = info.Counts.Memory > 0
}

// Event takes one "[memory]" record (KindMemory), at its time on the trace's own clock; it
// ignores the trace's other events.
func (c *Collector) Event(ev *tracefile.Event) {
	if ev.Kind != tracefile.KindMemory {
		if c.opsWanted && ev.Kind == tracefile.KindOp && !strings.HasPrefix(ev.Name, "ProfilerStep#") {
			c.ops = append(c.ops, hostOp{ev.StartNs, ev.EndNs, ev.Tid, ev.Name})
		}
		return
	}
	m := &ev.Memory
	c.recs = append(c.recs, rec{ev.StartNs, m.Bytes, m.TotalAllocated, m.TotalReserved, m.Addr, ev.Tid, int32(m.DeviceType), int32(m.DeviceID)})
}

// Finish draws the curves of the records handed over.
func (c *Collector) Finish() { c.done = c.finish() }

// Summary is the curves, after Finish; nil when there were no records.
func (c *Collector) Summary() *Summary { return c.done }

// finish is Finish's work.
func (c *Collector) finish() *Summary {
	all, ops := c.recs, c.ops
	c.recs, c.ops = nil, nil
	if len(all) == 0 {
		return nil
	}
	slices.SortStableFunc(all, func(a, b rec) int {
		return cmp.Or(cmp.Compare(a.typ, b.typ), cmp.Compare(a.id, b.id), cmp.Compare(a.t, b.t))
	})
	s := &Summary{StartNs: all[0].t}
	for _, r := range all {
		s.StartNs = min(s.StartNs, r.t)
	}
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].typ == all[i].typ && all[j].id == all[i].id {
			j++
		}
		d, peak := curve(all[i:j], s.StartNs)
		peakBlocks(&d, all[i:j], peak, s.StartNs, ops)
		s.Devices = append(s.Devices, d)
		i = j
	}
	return s
}

// deviceName names a c10 device type and index.
func deviceName(typ, id int64) string {
	name := strconv.FormatInt(typ, 10)
	for _, t := range []devices.Type{devices.CPU, devices.CUDA, devices.XPU, devices.MTIA, devices.HPU, devices.PrivateUse1} {
		if int64(t.C10()) == typ {
			name = t.String()
			break
		}
	}
	if typ == 0 || id < 0 {
		return upper(name)
	}
	return upper(name) + " " + strconv.FormatInt(id, 10)
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// curve is one device's curve from its records in time order, and the index in rs of its
// first allocation peak (−1: none).
func curve(rs []rec, start int64) (Device, int) {
	d := Device{Name: deviceName(int64(rs[0].typ), int64(rs[0].id)), DeviceType: int64(rs[0].typ), DeviceID: int64(rs[0].id),
		Records: len(rs), Relative: true, HasReserved: true}
	for _, r := range rs {
		if r.alloc >= 0 {
			d.Relative = false
		}
		if r.res < 0 {
			d.HasReserved = false
		}
	}
	if d.Relative {
		d.HasReserved = false
	}
	pts := make([][3]float64, 0, len(rs))
	var sum int64
	peak := -1
	for i, r := range rs {
		if r.bytes > 0 {
			d.Allocs++
		}
		a, res := r.alloc, r.res
		if d.Relative {
			sum += r.bytes
			a = sum
		} else if a < 0 {
			continue // a record without the totals in a trace that has them
		}
		if !d.HasReserved {
			res = 0
		}
		if a > d.PeakAllocated || len(pts) == 0 {
			if a > d.PeakAllocated || peak < 0 {
				peak = i
			}
			if a > d.PeakAllocated {
				d.PeakAtNs = r.t
			}
			d.PeakAllocated = max(d.PeakAllocated, a)
		}
		d.PeakReserved = max(d.PeakReserved, res)
		pts = append(pts, [3]float64{float64(r.t-start) / 1000, float64(a), float64(res)})
	}
	d.Points = cut(pts, MaxPoints)
	return d, peak
}

// peakBlocks fills d's blocks live at its peak: the records rs (the device's, in time order)
// replayed through rs[peak]; ops are the host operators that may have allocated them.
func peakBlocks(d *Device, rs []rec, peak int, start int64, ops []hostOp) {
	for _, r := range rs {
		if r.addr != 0 {
			d.HasAddr = true
			break
		}
	}
	if !d.HasAddr || peak < 0 {
		return
	}
	live := map[int64]int{} // address → index in rs of its allocation
	for i, r := range rs[:peak+1] {
		switch {
		case r.addr == 0:
		case r.bytes > 0:
			live[r.addr] = i
		case r.bytes < 0:
			delete(live, r.addr)
		}
	}
	idx := make([]int, 0, len(live))
	for _, i := range live {
		idx = append(idx, i)
		d.PeakLiveBytes += rs[i].bytes
	}
	d.PeakLive = len(idx)
	slices.SortFunc(idx, func(a, b int) int { return cmp.Or(cmp.Compare(rs[b].bytes, rs[a].bytes), cmp.Compare(a, b)) })
	for _, i := range idx[:min(len(idx), MaxPeakAllocs)] {
		r := rs[i]
		d.PeakAllocs = append(d.PeakAllocs, Alloc{Bytes: r.bytes, AtUs: float64(r.t-start) / 1000, Op: opAt(ops, r.tid, r.t)})
	}
}

// opAt is the innermost host operator on thread tid whose span holds t (the latest to start
// among those that do, the shortest on a tie): "" when none does.
func opAt(ops []hostOp, tid, t int64) string {
	best := -1
	for i, o := range ops {
		if o.tid != tid || t < o.start || t >= o.end {
			continue
		}
		if b := best; b < 0 || o.start > ops[b].start || o.start == ops[b].start && o.end < ops[b].end {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return ops[best].name
}

// cut keeps at most max points: per bucket of equal time, its first point and those of
// its lowest and highest allocation, in time order.
func cut(pts [][3]float64, max int) [][3]float64 {
	if len(pts) <= max {
		return pts
	}
	buckets := max / 4
	t0, t1 := pts[0][0], pts[len(pts)-1][0]
	width := (t1 - t0) / float64(buckets)
	out := make([][3]float64, 0, max)
	for i := 0; i < len(pts); {
		b := int((pts[i][0] - t0) / width)
		j, lo, hi := i, i, i
		for j < len(pts) && (int((pts[j][0]-t0)/width) == b || b >= buckets-1) {
			if pts[j][1] < pts[lo][1] {
				lo = j
			}
			if pts[j][1] > pts[hi][1] {
				hi = j
			}
			j++
		}
		keep := []int{i, lo, hi, j - 1}
		slices.Sort(keep)
		keep = slices.Compact(keep)
		for _, k := range keep {
			out = append(out, pts[k])
		}
		i = j
	}
	return out
}

// Merge puts the curves of several ranks in one summary, in order: each device keeps its own
// figures (nothing is summed: the ranks' devices are different memories), is named after its
// rank ("rank 3 · CUDA 0", unless a merge named it already) and has its points moved onto the
// earliest start of the summaries (times re-based, to a float µs: exact to the ns up to
// ~10⁸ s; a curve that need not move is shared with its input). ranks[i] is sums[i]'s rank; nil
// summaries are skipped; nil when none has a curve.
func Merge(ranks []int64, sums []*Summary) *Summary {
	var out *Summary
	for _, s := range sums {
		if s != nil && len(s.Devices) > 0 && (out == nil || s.StartNs < out.StartNs) {
			out = &Summary{StartNs: s.StartNs}
		}
	}
	if out == nil {
		return nil
	}
	for i, s := range sums {
		if s == nil {
			continue
		}
		shift := float64(s.StartNs-out.StartNs) / 1000
		for _, d := range s.Devices {
			if !strings.HasPrefix(d.Name, rankPrefix) {
				d.Name = rankPrefix + strconv.FormatInt(ranks[i], 10) + rankSep + d.Name
			}
			if shift != 0 { // (a merge of many ranks, one at a time, copies no curve twice)
				pts := make([][3]float64, len(d.Points))
				for k, p := range d.Points {
					pts[k] = [3]float64{p[0] + shift, p[1], p[2]}
				}
				d.Points = pts
				if d.PeakAllocs != nil {
					al := slices.Clone(d.PeakAllocs)
					for k := range al {
						al[k].AtUs += shift
					}
					d.PeakAllocs = al
				}
			}
			out.Devices = append(out.Devices, d)
		}
	}
	return out
}

// Renumber renames the devices of a summary of several ranks (Merge's, "rank 3 · CUDA 0")
// after the numbers their ranks get when it is merged behind other ranks: nums maps a rank's
// number to its new one (internal/ranknum.Map); a device of another rank, or not named after a
// rank yet (a one-rank summary's), keeps its name.
func (s *Summary) Renumber(nums map[int64]int64) {
	if s == nil || len(nums) == 0 {
		return
	}
	for i := range s.Devices {
		d := &s.Devices[i]
		num, dev, ok := strings.Cut(strings.TrimPrefix(d.Name, rankPrefix), rankSep)
		if !ok || !strings.HasPrefix(d.Name, rankPrefix) {
			continue
		}
		r, err := strconv.ParseInt(num, 10, 64)
		if to, moves := nums[r]; err == nil && moves {
			d.Name = rankPrefix + strconv.FormatInt(to, 10) + rankSep + dev
		}
	}
}

// Check reports the first figure of s that no Collector could have made (a summary read back
// from a file): a device without records or with more allocations than records, a negative
// peak, more than MaxPoints points, a point before the start or out of time order.
func (s *Summary) Check() error {
	for i, d := range s.Devices {
		bad := func(what string) error { return fmt.Errorf("device %d (%s): %s", i+1, quote.String(d.Name), what) }
		switch {
		case d.Records < 1 || d.Allocs < 0 || d.Allocs > d.Records:
			return bad(fmt.Sprintf("%d records, %d allocations", d.Records, d.Allocs))
		case d.PeakAllocated < 0 || d.PeakReserved < 0:
			return bad("a negative peak")
		case len(d.Points) > MaxPoints:
			return bad(fmt.Sprintf("%d points, more than %d", len(d.Points), MaxPoints))
		case len(d.PeakAllocs) > MaxPeakAllocs || len(d.PeakAllocs) > d.PeakLive:
			return bad(fmt.Sprintf("%d blocks at the peak, more than %d or than its %d live ones", len(d.PeakAllocs), MaxPeakAllocs, d.PeakLive))
		}
		for k, p := range d.Points {
			if p[0] < 0 || p[0] != p[0] || k > 0 && p[0] < d.Points[k-1][0] {
				return bad(fmt.Sprintf("point %d at %v µs: before the start or out of order", k+1, p[0]))
			}
		}
	}
	return nil
}
