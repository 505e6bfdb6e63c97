package kernels

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/orprof/orprof/internal/namecap"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// Summary is the kernel view of one or more ranks in a form that merges: per kernel name (and
// kind: a copy and a kernel of the same name are two rows), the statistics of its durations,
// the streams it ran on and the operators that launched it. Merging the summaries of ranks
// 0…n−1 in order, in any grouping, gives the summary of reading the n traces in order, bit
// for bit: the durations are whole ns and a kernel keeps their count, their sum and the sum
// of their squares as integers (exact.go), from which the mean and the standard deviation
// are computed, and the median is read from a histogram of the durations that merges by
// adding counts (see Kernel.MedianUs). The order of the events within a trace changes
// nothing but the order of the rows.
type Summary struct {
	// Device is the lower-case accelerator name of the traces ("cuda", "mtia", …).
	Device string
	// Ranks are the traces summed, in order.
	Ranks []Rank
	// Kernels are the rows in first-occurrence order over the ranks in order.
	Kernels []*Kernel

	index map[kernelKey]int
}

// Rank is one trace of a summary.
type Rank struct {
	// Rank is the trace's (its distributedInfo.rank when Named, else its position among the
	// traces).
	trace.Rank
	// DeviceNs is the device time of the rank's kernels, copies, fills and syncs (ns): the
	// sum of the Kernels' totals, which the table's device total also counts.
	DeviceNs int64 `json:"device_ns"`
}

// DeviceUs is DeviceNs in µs.
func (r Rank) DeviceUs() float64 { return nsToUs(r.DeviceNs) }

type kernelKey struct {
	name string
	kind tracefile.Kind
}

// Kernel is one row: every device event with one name and kind.
type Kernel struct {
	Name string
	// Kind is what the trace says the event is: kernel, memcpy, memset, sync, device_other.
	Kind tracefile.Kind
	// Calls, TotalNs, MinNs and MaxNs are the count, sum, least and greatest of the
	// durations, in whole ns (tracefile.Event's EndNs − StartNs); sumSq is the sum of their
	// squares (ns²). TotalUs, MeanUs, MinUs, MaxUs and StdUs derive the µs figures from them.
	Calls                 int64
	TotalNs, MinNs, MaxNs int64
	sumSq                 u128
	// Hist counts the durations by histogram bucket (bucketOf).
	Hist map[int32]int64
	// Streams are the (device, stream) pairs it ran on, sorted.
	Streams []Stream
	// Ops are the operators that launched it, by the name the table gives them ("" for calls
	// that reached no operator), with how many calls and how much time each launched.
	Ops map[string]*OpShare
	// Ranks counts the ranks it ran on.
	Ranks int
}

// Stream is a device and a stream on it.
type Stream struct {
	Device int64 `json:"device"`
	Stream int64 `json:"stream"`
}

// OpShare is what one operator launched of a kernel.
type OpShare struct {
	Calls   int64 `json:"calls"`
	TotalNs int64 `json:"total_ns"`
}

// TotalUs is TotalNs in µs.
func (o OpShare) TotalUs() float64 { return nsToUs(o.TotalNs) }

// TotalUs is the sum of the durations in µs (TotalNs/1000, rounded once).
func (k *Kernel) TotalUs() float64 { return nsToUs(k.TotalNs) }

// MinUs and MaxUs are the least and the greatest duration in µs.
func (k *Kernel) MinUs() float64 { return nsToUs(k.MinNs) }
func (k *Kernel) MaxUs() float64 { return nsToUs(k.MaxNs) }

// MeanUs is the mean duration in µs: TotalNs/(1000·Calls), rounded once.
func (k *Kernel) MeanUs() float64 { return meanUs(k.TotalNs, k.Calls) }

// StdUs is the sample standard deviation of the durations (n − 1 in the denominator, as
// pandas' std that HolisticTraceAnalysis reports; 0 for one call), from the exact sums.
func (k *Kernel) StdUs() float64 { return stdUs(k.Calls, k.TotalNs, k.sumSq) }

// histogram buckets: a duration of d ns (d ≥ 1) falls in bucket ⌊64·log2 d⌋, 1.09 % wide; 0 ns
// in bucket −1.
const bucketsPerOctave = 64

func bucketOf(ns int64) int32 {
	if ns < 1 {
		return -1
	}
	return int32(math.Floor(bucketsPerOctave * math.Log2(float64(ns))))
}

// MedianUs is the median duration, read from the histogram: the geometric middle of the bucket
// that holds the middle call (the lower middle for an even count), within [MinUs, MaxUs]. It
// is within 0.55 % of the exact median of the bucket's values, and it is the same whether the
// traces were read at once or their summaries merged, since merging adds bucket counts.
func (k *Kernel) MedianUs() float64 {
	if k.Calls == 0 {
		return 0
	}
	if k.MinNs == k.MaxNs {
		return k.MinUs()
	}
	bs := make([]int32, 0, len(k.Hist))
	for b := range k.Hist {
		bs = append(bs, b)
	}
	slices.Sort(bs)
	mid := (k.Calls + 1) / 2
	var seen int64
	for _, b := range bs {
		seen += k.Hist[b]
		if seen >= mid {
			return min(max(bucketMidNs(b), float64(k.MinNs)), float64(k.MaxNs)) / 1000
		}
	}
	return k.MaxUs()
}

// Op is the operator that launched the most calls of the kernel ("" when most reached none;
// ties go to the name that sorts first) and the number of distinct operators that launched it.
func (k *Kernel) Op() (name string, ops int) {
	best := int64(-1)
	for n, s := range k.Ops {
		if n != "" {
			ops++
		}
		if s.Calls > best || s.Calls == best && n < name {
			name, best = n, s.Calls
		}
	}
	return name, ops
}

// Category is the kernel's category under rules (Rules.Of): a user's rule first, then copies
// and fills are memory and device synchronizations other whatever their names, then the name.
func (k *Kernel) Category(rules *Rules) Category { return rules.Of(k.Kind, k.Name) }

// add counts one call of d ns (d ≥ 0) on stream s launched by op. The caller keeps the
// summary's device time below 2⁶³ ns, so that nothing here overflows.
func (k *Kernel) add(d int64, s Stream, op string) {
	if k.Calls == 0 {
		k.MinNs, k.MaxNs = d, d
	} else {
		k.MinNs, k.MaxNs = min(k.MinNs, d), max(k.MaxNs, d)
	}
	k.Calls++
	k.TotalNs += d
	k.sumSq, _ = k.sumSq.add(square(d))
	if k.Hist == nil {
		k.Hist = map[int32]int64{}
	}
	k.Hist[bucketOf(d)]++
	if i, ok := slices.BinarySearchFunc(k.Streams, s, cmpStream); !ok {
		k.Streams = slices.Insert(k.Streams, i, s)
	}
	if k.Ops == nil {
		k.Ops = map[string]*OpShare{}
	}
	o := k.Ops[op]
	if o == nil {
		o = &OpShare{}
		k.Ops[op] = o
	}
	o.Calls++
	o.TotalNs += d
}

func cmpStream(a, b Stream) int {
	return cmp.Or(cmp.Compare(a.Device, b.Device), cmp.Compare(a.Stream, b.Stream))
}

// merge adds o's calls to k (o is a later rank): every figure is a sum, a least or a
// greatest of integers, so the result does not depend on how ranks are grouped. It fails,
// changing nothing, when a sum leaves its range.
func (k *Kernel) merge(o *Kernel) error {
	if o.Calls == 0 {
		return nil
	}
	calls, of1 := addNs(k.Calls, o.Calls)
	total, of2 := addNs(k.TotalNs, o.TotalNs)
	sq, of3 := k.sumSq.add(o.sumSq)
	if of1 || of2 || of3 {
		return fmt.Errorf("kernel %s: its calls or device time pass 2^63 (ns)", quote.String(k.Name))
	}
	if k.Calls == 0 {
		k.MinNs, k.MaxNs = o.MinNs, o.MaxNs
	} else {
		k.MinNs, k.MaxNs = min(k.MinNs, o.MinNs), max(k.MaxNs, o.MaxNs)
	}
	k.Calls, k.TotalNs, k.sumSq = calls, total, sq
	if k.Hist == nil {
		k.Hist = map[int32]int64{}
	}
	for b, c := range o.Hist {
		k.Hist[b] += c
	}
	for _, s := range o.Streams {
		if i, ok := slices.BinarySearchFunc(k.Streams, s, cmpStream); !ok {
			k.Streams = slices.Insert(k.Streams, i, s)
		}
	}
	if k.Ops == nil {
		k.Ops = map[string]*OpShare{}
	}
	for n, s := range o.Ops {
		t := k.Ops[n]
		if t == nil {
			t = &OpShare{}
			k.Ops[n] = t
		}
		t.Calls += s.Calls
		t.TotalNs += s.TotalNs
	}
	k.Ranks += o.Ranks
	return nil
}

// Collector is the analysis (analysis.Analysis) that builds one rank's Summary from a read:
//
//	c := kernels.NewCollector()
//	_, err := tracefile.OpenConsumers(path, tracefile.Options{Consumers: []tracefile.Consumer{c}})
//	s, err2 := c.Summary()
type Collector struct {
	s        Summary
	rank     Rank
	deviceNs int64
	err      error
	done     *Summary
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector {
	return &Collector{s: Summary{index: map[kernelKey]int{}}}
}

// Needs asks for the links: a kernel's row names the operators that launched it.
func (c *Collector) Needs() tracefile.Needs { return tracefile.NeedLinks }

// Begin takes the trace's rank and device.
func (c *Collector) Begin(info *tracefile.Info) {
	c.rank = Rank{Rank: info.Rank}
	c.s.Device = info.DeviceName
}

// Event counts a device event whose duration is device time (tracefile.Kind.DeviceTime), in
// whole ns (ev.EndNs − ev.StartNs); it ignores the others. A duration that takes the read's
// device time past 2⁶³ ns (292 years) stops the collector with an error.
func (c *Collector) Event(ev *tracefile.Event) {
	if !ev.Kind.DeviceTime() || c.err != nil {
		return
	}
	d := ev.EndNs - ev.StartNs
	total, over := addNs(c.deviceNs, d)
	if d < 0 || over { // d < 0: the difference left int64's range
		c.err = fmt.Errorf("kernel %s: the device time passes 2^63 ns (292 years): not a trace whose durations can be summed",
			quote.String(ev.Name))
		return
	}
	c.deviceNs = total
	key := kernelKey{ev.Name, ev.Kind}
	i, ok := c.s.index[key]
	if !ok {
		i = len(c.s.Kernels)
		c.s.index[key] = i
		c.s.Kernels = append(c.s.Kernels, &Kernel{Name: ev.Name, Kind: ev.Kind, Ranks: 1})
	}
	// The launching operator by its capped name (internal/namecap): a megabyte name is kept
	// once, by the table, not again per kernel it launched.
	c.s.Kernels[i].add(d, Stream{ev.Pid, ev.Stream}, namecap.Cap(ev.Op))
}

// Finish makes the rank's summary.
func (c *Collector) Finish() {
	s := c.s
	r := c.rank
	r.DeviceNs = c.deviceNs
	s.Ranks = []Rank{r}
	c.done = &s
}

// Summary is the rank's summary, after Finish, or the error that stopped the collector.
func (c *Collector) Summary() (*Summary, error) { return c.done, c.err }

// Merge sums summaries in order into one, as if every rank of every summary had been read at
// once in that order: kernels are matched by name and kind; ranks not numbered by their
// traces are renumbered by their position. The device names must agree (an empty one agrees
// with any), and the device time of all the ranks must stay below 2⁶³ ns. The result is the
// same, bit for bit, however the summaries were themselves merged: Merge(a, b, c) equals
// Merge(Merge(a, b), c) and Merge(a, Merge(b, c)).
func Merge(sums ...*Summary) (*Summary, error) {
	out := &Summary{index: map[kernelKey]int{}}
	var deviceNs int64
	devAt := 0 // the first summary with a device name
	for si, s := range sums {
		if s.Device != "" && len(s.Kernels) > 0 {
			// (A summary without kernels ran on no device: it names one only if none else does.)
			if out.Device != "" && out.Device != s.Device {
				return nil, &MergeError{Index: si, Other: devAt, Err: fmt.Errorf("is of device %q, %%s of %q", s.Device, out.Device)}
			}
			if out.Device == "" {
				devAt = si
			}
			out.Device = s.Device
		}
		for _, r := range s.Ranks {
			if !r.Named {
				r.Number = int64(len(out.Ranks))
			}
			var over bool
			if deviceNs, over = addNs(deviceNs, r.DeviceNs); over {
				return nil, &MergeError{Index: si, Other: -1, Err: errors.New("the device time of the ranks passes 2^63 ns (292 years)")}
			}
			out.Ranks = append(out.Ranks, r)
		}
		for _, k := range s.Kernels {
			key := kernelKey{k.Name, k.Kind}
			i, ok := out.index[key]
			if !ok {
				i = len(out.Kernels)
				out.index[key] = i
				out.Kernels = append(out.Kernels, &Kernel{Name: k.Name, Kind: k.Kind})
			}
			if err := out.Kernels[i].merge(k); err != nil {
				return nil, &MergeError{Index: si, Other: -1, Err: err}
			}
		}
	}
	if out.Device == "" {
		for _, s := range sums {
			if s.Device != "" {
				out.Device = s.Device
				break
			}
		}
	}
	return out, nil
}

// MergeError is Merge's error about the summary at Index of its arguments; Other is the
// earlier one it disagrees with (−1: none), named where Err has a %s.
type MergeError struct {
	Index, Other int
	Err          error
}

func (e *MergeError) Error() string {
	return e.Named(func(i int) string { return "summary " + strconv.Itoa(i+1) })
}

// Named is the error with the summaries named by name(index): "NAME: why", or, about two,
// "NAME why OTHER".
func (e *MergeError) Named(name func(int) string) string {
	if e.Other < 0 {
		return name(e.Index) + ": " + e.Err.Error()
	}
	return name(e.Index) + " " + fmt.Sprintf(e.Err.Error(), name(e.Other))
}

func (e *MergeError) Unwrap() error { return e.Err }

// DeviceNs is the device time of all the ranks (ns).
func (s *Summary) DeviceNs() int64 {
	var t int64
	for _, r := range s.Ranks {
		t += r.DeviceNs
	}
	return t
}

// DeviceUs is DeviceNs in µs.
func (s *Summary) DeviceUs() float64 { return nsToUs(s.DeviceNs()) }

// ByTotal returns the kernels sorted by total time, largest first (ties in first-occurrence
// order).
func (s *Summary) ByTotal() []*Kernel {
	out := slices.Clone(s.Kernels)
	slices.SortStableFunc(out, func(a, b *Kernel) int { return cmp.Compare(b.TotalNs, a.TotalNs) })
	return out
}

// OpKernels is one operator of the --by-op view: the kernels it launched.
type OpKernels struct {
	Op      string // "" for the calls that reached no operator
	Calls   int64
	TotalNs int64
	// Kernels are the kernels it launched with what it launched of each, largest first.
	Kernels []OpKernel
}

// OpKernel is one kernel under an operator.
type OpKernel struct {
	Kernel *Kernel
	Share  OpShare
}

// ByOp groups the kernels under the operators that launched them, the operators sorted by the
// device time they launched, largest first (ties by name).
func (s *Summary) ByOp() []OpKernels {
	idx := map[string]int{}
	var out []OpKernels
	for _, k := range s.Kernels {
		for op, sh := range k.Ops {
			i, ok := idx[op]
			if !ok {
				i = len(out)
				idx[op] = i
				out = append(out, OpKernels{Op: op})
			}
			o := &out[i]
			o.Calls += sh.Calls
			o.TotalNs += sh.TotalNs
			o.Kernels = append(o.Kernels, OpKernel{k, *sh})
		}
	}
	for i := range out {
		slices.SortStableFunc(out[i].Kernels, func(a, b OpKernel) int {
			return cmp.Or(cmp.Compare(b.Share.TotalNs, a.Share.TotalNs), cmp.Compare(a.Kernel.Name, b.Kernel.Name),
				cmp.Compare(a.Kernel.Kind, b.Kernel.Kind))
		})
	}
	slices.SortFunc(out, func(a, b OpKernels) int {
		return cmp.Or(cmp.Compare(b.TotalNs, a.TotalNs), cmp.Compare(a.Op, b.Op))
	})
	return out
}

// TotalUs is TotalNs in µs.
func (o *OpKernels) TotalUs() float64 { return nsToUs(o.TotalNs) }
