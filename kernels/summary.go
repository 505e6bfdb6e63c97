package kernels

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/orprof/orprof/report/tracefile"
)

// Summary is the kernel view of one or more ranks in a form that merges: per kernel name (and
// kind: a copy and a kernel of the same name are two rows), the statistics of its durations,
// the streams it ran on and the operators that launched it. Merging the summaries of ranks
// 0…n−1 in order gives the summary of reading the n traces in order, value for value: count,
// total, min, max, mean and standard deviation merge exactly (the last two by Chan's pairwise
// update, to float64 rounding), and the median is read from a histogram of the durations that
// merges by adding counts (see Kernel.MedianUs).
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
	// Rank is the trace's distributedInfo.rank when FromTrace, else its position among the
	// traces.
	Rank      int64  `json:"rank"`
	FromTrace bool   `json:"rank_from_trace"`
	File      string `json:"file"`
	// DeviceUs is the device time of the rank's kernels, copies, fills and syncs (µs): the
	// sum of the Kernels' totals, which the table's device total also counts.
	DeviceUs float64 `json:"device_us"`
}

type kernelKey struct {
	name string
	kind tracefile.Kind
}

// Kernel is one row: every device event with one name and kind.
type Kernel struct {
	Name string
	// Kind is what the trace says the event is: kernel, memcpy, memset, sync, device_other.
	Kind tracefile.Kind
	// Calls, TotalUs, MinUs, MaxUs, MeanUs are the statistics of the durations (µs); M2 is the
	// sum of squared deviations from the mean (Welford), from which StdUs comes.
	Calls                         int64
	TotalUs, MinUs, MaxUs, MeanUs float64
	M2                            float64
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
	Calls   int64   `json:"calls"`
	TotalUs float64 `json:"total_us"`
}

// StdUs is the sample standard deviation of the durations (n − 1 in the denominator, as
// pandas' std that HolisticTraceAnalysis reports; 0 for one call).
func (k *Kernel) StdUs() float64 {
	if k.Calls < 2 {
		return 0
	}
	return math.Sqrt(k.M2 / float64(k.Calls-1))
}

// histogram buckets: a duration of d ns (d ≥ 1) falls in bucket ⌊64·log2 d⌋, 1.09 % wide; 0 ns
// in bucket −1.
const bucketsPerOctave = 64

func bucketOf(us float64) int32 {
	ns := math.Round(us * 1000)
	if ns < 1 {
		return -1
	}
	return int32(math.Floor(bucketsPerOctave * math.Log2(ns)))
}

// bucketMid is the geometric middle of bucket b, in µs.
func bucketMid(b int32) float64 {
	if b < 0 {
		return 0
	}
	return math.Exp2((float64(b)+0.5)/bucketsPerOctave) / 1000
}

// MedianUs is the median duration, read from the histogram: the geometric middle of the bucket
// that holds the middle call (the lower middle for an even count), within [MinUs, MaxUs]. It
// is within 0.55 % of the exact median of the bucket's values, and it is the same whether the
// traces were read at once or their summaries merged, since merging adds bucket counts.
func (k *Kernel) MedianUs() float64 {
	if k.Calls == 0 {
		return 0
	}
	if k.MinUs == k.MaxUs {
		return k.MinUs
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
			return min(max(bucketMid(b), k.MinUs), k.MaxUs)
		}
	}
	return k.MaxUs
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

// Category is the kernel's category under rules: copies and fills are memory, device
// synchronizations other, whatever their names; kernels by their names.
func (k *Kernel) Category(rules *Rules) Category {
	switch k.Kind {
	case tracefile.KindMemcpy, tracefile.KindMemset:
		return Memory
	case tracefile.KindSync, tracefile.KindDeviceOther:
		return Other
	}
	return rules.Classify(k.Name)
}

// add counts one call of d µs on stream s launched by op.
func (k *Kernel) add(d float64, s Stream, op string) {
	if k.Calls == 0 {
		k.MinUs, k.MaxUs = d, d
	} else {
		k.MinUs, k.MaxUs = min(k.MinUs, d), max(k.MaxUs, d)
	}
	k.Calls++
	k.TotalUs += d
	delta := d - k.MeanUs
	k.MeanUs += delta / float64(k.Calls)
	k.M2 += delta * (d - k.MeanUs)
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
	o.TotalUs += d
}

func cmpStream(a, b Stream) int {
	return cmp.Or(cmp.Compare(a.Device, b.Device), cmp.Compare(a.Stream, b.Stream))
}

// merge adds o's calls to k (o is a later rank).
func (k *Kernel) merge(o *Kernel) {
	if o.Calls == 0 {
		return
	}
	if k.Calls == 0 {
		k.MinUs, k.MaxUs = o.MinUs, o.MaxUs
	} else {
		k.MinUs, k.MaxUs = min(k.MinUs, o.MinUs), max(k.MaxUs, o.MaxUs)
	}
	n := k.Calls + o.Calls
	delta := o.MeanUs - k.MeanUs
	k.MeanUs += delta * float64(o.Calls) / float64(n)
	k.M2 += o.M2 + delta*delta*float64(k.Calls)*float64(o.Calls)/float64(n)
	k.Calls = n
	k.TotalUs += o.TotalUs
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
		t.TotalUs += s.TotalUs
	}
	k.Ranks += o.Ranks
}

// Collector is the tracefile.Consumer that builds one rank's Summary from a read:
//
//	c := kernels.NewCollector()
//	data, err := tracefile.OpenConsumers(path, tracefile.Options{Consumers: []tracefile.Consumer{c}})
//	s := c.Summary(kernels.Rank{File: path, Rank: data.Rank, FromTrace: data.HasRank}, data.DeviceName)
type Collector struct {
	s Summary
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector {
	return &Collector{s: Summary{index: map[kernelKey]int{}}}
}

// Event counts a device event whose duration is device time (tracefile.Kind.DeviceTime); it
// ignores the others.
func (c *Collector) Event(ev *tracefile.Event) {
	if !ev.Kind.DeviceTime() {
		return
	}
	key := kernelKey{ev.Name, ev.Kind}
	i, ok := c.s.index[key]
	if !ok {
		i = len(c.s.Kernels)
		c.s.index[key] = i
		c.s.Kernels = append(c.s.Kernels, &Kernel{Name: ev.Name, Kind: ev.Kind, Ranks: 1})
	}
	c.s.Kernels[i].add(ev.EndUs-ev.StartUs, Stream{ev.Pid, ev.Stream}, ev.Op)
}

// Summary returns the summary of what the collector saw, as one rank, and resets nothing: call
// it once, after the read.
func (c *Collector) Summary(r Rank, device string) *Summary {
	s := c.s
	for _, k := range s.Kernels {
		r.DeviceUs += k.TotalUs
	}
	s.Ranks = []Rank{r}
	s.Device = device
	return &s
}

// Merge sums summaries in order into one, as if every rank of every summary had been read at
// once in that order: kernels are matched by name and kind; ranks not numbered by their
// traces are renumbered by their position. The device names must agree (an empty one agrees
// with any).
func Merge(sums ...*Summary) (*Summary, error) {
	out := &Summary{index: map[kernelKey]int{}}
	for si, s := range sums {
		if s.Device != "" {
			if out.Device != "" && out.Device != s.Device {
				return nil, fmt.Errorf("summary %d is of device %q, an earlier one of %q", si+1, s.Device, out.Device)
			}
			out.Device = s.Device
		}
		for _, r := range s.Ranks {
			if !r.FromTrace {
				r.Rank = int64(len(out.Ranks))
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
			out.Kernels[i].merge(k)
		}
	}
	return out, nil
}

// DeviceUs is the device time of all the ranks.
func (s *Summary) DeviceUs() float64 {
	var t float64
	for _, r := range s.Ranks {
		t += r.DeviceUs
	}
	return t
}

// ByTotal returns the kernels sorted by total time, largest first (ties in first-occurrence
// order).
func (s *Summary) ByTotal() []*Kernel {
	out := slices.Clone(s.Kernels)
	slices.SortStableFunc(out, func(a, b *Kernel) int { return cmp.Compare(b.TotalUs, a.TotalUs) })
	return out
}

// OpKernels is one operator of the --by-op view: the kernels it launched.
type OpKernels struct {
	Op      string // "" for the calls that reached no operator
	Calls   int64
	TotalUs float64
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
			o.TotalUs += sh.TotalUs
			o.Kernels = append(o.Kernels, OpKernel{k, *sh})
		}
	}
	for i := range out {
		slices.SortStableFunc(out[i].Kernels, func(a, b OpKernel) int {
			return cmp.Or(cmp.Compare(b.Share.TotalUs, a.Share.TotalUs), cmp.Compare(a.Kernel.Name, b.Kernel.Name),
				cmp.Compare(a.Kernel.Kind, b.Kernel.Kind))
		})
	}
	slices.SortFunc(out, func(a, b OpKernels) int {
		return cmp.Or(cmp.Compare(b.TotalUs, a.TotalUs), cmp.Compare(a.Op, b.Op))
	})
	return out
}
