package optable

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace"
)

// Summary is the operator table of one or more ranks in a form that merges: each rank's
// key_averages() rows, summed over the ranks in order, with what the table needs to print them
// and a few figures per rank. Merging the summaries of ranks 0…n−1 gives, value for value, the
// summary of reading the n traces at once, so `orprof merge` of per-rank `orprof table --format
// json` outputs prints the same bytes as `orprof table` over all the traces.
type Summary struct {
	// Device is the lower-case accelerator name that labels the device columns ("" for none).
	Device        string
	ProfileMemory bool
	// The grouping the rows were averaged with (events.AverageOptions).
	GroupByInputShape bool
	GroupByStackN     int
	// Ranks are the traces summed, in order.
	Ranks []RankInfo
	// Rows are the key-averages rows in first-occurrence order over the ranks in order: rank 0's
	// rows in its own order, then the keys rank 1 adds, and so on.
	Rows []SummaryRow
}

// RankInfo is one trace of a summary.
type RankInfo struct {
	// Rank is the trace's: its distributedInfo.rank when Named, else its position among all
	// the traces (0, 1, …); Trace names it as it was given ("" when the profile was not read
	// from a file).
	trace.Rank
	// SelfCPUTimeTotal and SelfDeviceTimeTotal are the rank's table footer totals (µs).
	SelfCPUTimeTotal    float64
	SelfDeviceTimeTotal float64
	// DeviceLinks is how the rank's device time reached its operators.
	DeviceLinks DeviceLinks
}

// SummaryRow is one key-averages row summed over the ranks, with where it was slowest.
type SummaryRow struct {
	events.Avg
	// Ranks is the number of ranks the row occurs in.
	Ranks int
	// MaxCPUTimeTotal is the largest CPU total of the row on one rank, MaxCPUAt that rank's
	// index in Summary.Ranks (the first such rank on a tie); MaxDeviceTimeTotal and MaxDeviceAt
	// the same for the device total.
	MaxCPUTimeTotal    float64
	MaxCPUAt           int
	MaxDeviceTimeTotal float64
	MaxDeviceAt        int
}

// Slowest is the rank index where the row took longest and that time (µs): by device total when
// the row has device time, else by CPU total. dev reports which one.
func (r *SummaryRow) Slowest() (at int, us float64, dev bool) {
	if r.DeviceTimeTotal > 0 {
		return r.MaxDeviceAt, r.MaxDeviceTimeTotal, true
	}
	return r.MaxCPUAt, r.MaxCPUTimeTotal, false
}

// SummaryOptions describe how one rank's rows were made.
type SummaryOptions struct {
	Device        string
	ProfileMemory bool
	Grouping      events.AverageOptions
}

// NewSummary is the summary of one trace: rows are its KeyAverages (in their own order) made
// with o.Grouping. rank.SelfCPUTimeTotal and SelfDeviceTimeTotal are filled in from rows.
// rows is not modified.
func NewSummary(rows []events.Avg, rank RankInfo, o SummaryOptions) *Summary {
	t := TableTotals(rows)
	rank.SelfCPUTimeTotal, rank.SelfDeviceTimeTotal = t.SelfCPU, t.SelfDevice
	s := &Summary{Device: o.Device, ProfileMemory: o.ProfileMemory,
		GroupByInputShape: o.Grouping.GroupByInputShape, GroupByStackN: o.Grouping.GroupByStackN,
		Ranks: []RankInfo{rank}, Rows: make([]SummaryRow, len(rows))}
	for i := range rows {
		s.Rows[i] = SummaryRow{Avg: rows[i], Ranks: 1, MaxCPUTimeTotal: rows[i].CPUTimeTotal,
			MaxDeviceTimeTotal: rows[i].DeviceTimeTotal}
	}
	return s
}

// Averages returns the rows as key-averages rows, in first-occurrence order.
func (s *Summary) Averages() []events.Avg {
	out := make([]events.Avg, len(s.Rows))
	for i := range s.Rows {
		out[i] = s.Rows[i].Avg
	}
	return out
}

// DropScopeMetrics removes the scope profiler's "metrics: <kernel>" rows
// (events.IsScopeMetrics), keeping the others in their order, and returns how many it removed.
// No total counts those rows, so s is then the summary of the same traces read without them
// (tracefile.Options.SkipScopeMetrics): the same rows, totals and ranks.
func (s *Summary) DropScopeMetrics() int {
	n := len(s.Rows)
	s.Rows = slices.DeleteFunc(s.Rows, func(r SummaryRow) bool { return events.IsScopeMetrics(r.Key, r.DeviceType) })
	return n - len(s.Rows)
}

// Totals are the table footer totals of the merged rows.
func (s *Summary) Totals() Totals { return TableTotals(s.Averages()) }

// TableOptions fills the device and memory fields of o from the summary.
func (s *Summary) TableOptions(o TableOptions) TableOptions {
	o.UseDevice, o.ProfileMemory = s.Device, s.ProfileMemory
	return o
}

// rowKey is KeyAverages' grouping key of a row: name, node id, device type, legacy and
// user-annotation flags, plus the overload name, input shapes and stack frames when grouped by
// them (Avg keeps only the grouped ones, so they can always be part of the key).
func rowKey(b []byte, a *events.Avg) []byte {
	b = append(b[:0], a.Key...)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(a.NodeID), 10)
	b = append(b, 0, byte(a.DeviceType), boolByte(a.IsLegacy), boolByte(a.IsUserAnnotation), 0)
	b = append(b, a.OverloadName...)
	b = append(b, 0)
	b = append(b, a.InputShapes...)
	for _, f := range a.Stack {
		b = append(b, 0)
		b = append(b, f...)
	}
	return b
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// MergeError is why MergeSummaries refused a summary: the one at Index (0-based, in argument
// order) does not go with the earlier one at Other. Its Error names them "summary N"; Named
// names them as the caller knows them (their files).
type MergeError struct {
	Index, Other int
	pre, post    string // the reason, around the other summary's name
}

func (e *MergeError) Error() string {
	return e.Named(func(i int) string { return "summary " + strconv.Itoa(i+1) })
}

// Named is the error with the summaries named by name(index).
func (e *MergeError) Named(name func(int) string) string {
	return name(e.Index) + " " + e.pre + name(e.Other) + e.post
}

// MergeSummaries sums summaries in order into one, as if every rank of every summary had been
// read at once in that order: rows are matched by their key_averages key and summed; a row's
// first-occurrence fields (async, scope, stack, …) come from its first summary. Ranks numbered by
// file order are renumbered by their position in the result. The summaries must have been
// grouped alike; the device name is the one non-empty name (two different names are an error).
// The inputs are not modified.
func MergeSummaries(sums ...*Summary) (*Summary, error) {
	out := &Summary{}
	if len(sums) == 0 {
		return out, nil
	}
	out.GroupByInputShape, out.GroupByStackN = sums[0].GroupByInputShape, sums[0].GroupByStackN
	n := 0
	for _, s := range sums {
		n += len(s.Ranks)
	}
	out.Ranks = make([]RankInfo, 0, n)
	idx := make(map[string]int, len(sums[0].Rows))
	var kb []byte
	devAt := 0 // the first summary with a device name
	for si, s := range sums {
		if s.GroupByInputShape != out.GroupByInputShape || s.GroupByStackN != out.GroupByStackN {
			return nil, &MergeError{Index: si, Other: 0,
				pre:  fmt.Sprintf("was grouped differently (group by input shape %v, stack frames %d) from ", s.GroupByInputShape, s.GroupByStackN),
				post: fmt.Sprintf(" (%v, %d): make every summary with the same grouping flags", out.GroupByInputShape, out.GroupByStackN)}
		}
		if s.Device != "" {
			if out.Device != "" && out.Device != s.Device {
				return nil, &MergeError{Index: si, Other: devAt,
					pre: fmt.Sprintf("is of device %q, ", s.Device), post: fmt.Sprintf(" of %q", out.Device)}
			}
			if out.Device == "" {
				devAt = si
			}
			out.Device = s.Device
		}
		out.ProfileMemory = out.ProfileMemory || s.ProfileMemory
		off := len(out.Ranks)
		for _, r := range s.Ranks {
			if !r.Named {
				r.Number = int64(len(out.Ranks))
			}
			out.Ranks = append(out.Ranks, r)
		}
		for i := range s.Rows {
			r := &s.Rows[i]
			kb = rowKey(kb, &r.Avg)
			k, ok := idx[string(kb)]
			if !ok {
				idx[string(kb)] = len(out.Rows)
				c := *r
				c.Stack = append([]string(nil), r.Stack...)
				c.MaxCPUAt += off
				c.MaxDeviceAt += off
				out.Rows = append(out.Rows, c)
				continue
			}
			o := &out.Rows[k]
			o.Count += r.Count
			o.CPUTimeTotal += r.CPUTimeTotal
			o.DeviceTimeTotal += r.DeviceTimeTotal
			o.SelfCPUTimeTotal += r.SelfCPUTimeTotal
			o.SelfDeviceTimeTotal += r.SelfDeviceTimeTotal
			o.CPUMemoryUsage += r.CPUMemoryUsage
			o.DeviceMemoryUsage += r.DeviceMemoryUsage
			o.SelfCPUMemoryUsage += r.SelfCPUMemoryUsage
			o.SelfDeviceMemoryUsage += r.SelfDeviceMemoryUsage
			o.Flops += r.Flops
			o.Ranks += r.Ranks
			if r.MaxCPUTimeTotal > o.MaxCPUTimeTotal {
				o.MaxCPUTimeTotal, o.MaxCPUAt = r.MaxCPUTimeTotal, r.MaxCPUAt+off
			}
			if r.MaxDeviceTimeTotal > o.MaxDeviceTimeTotal {
				o.MaxDeviceTimeTotal, o.MaxDeviceAt = r.MaxDeviceTimeTotal, r.MaxDeviceAt+off
			}
		}
	}
	return out, nil
}

// RankSource says where the rank numbers of s came from, for the output: "distributedInfo.rank",
// "file order", or both with counts.
func (s *Summary) RankSource() string {
	fromTrace := 0
	for _, r := range s.Ranks {
		if r.Named {
			fromTrace++
		}
	}
	switch fromTrace {
	case len(s.Ranks):
		return "rank from distributedInfo.rank"
	case 0:
		return "rank = position in the file order"
	}
	return fmt.Sprintf("rank from distributedInfo.rank in %d, position in the file order in %d", fromTrace, len(s.Ranks)-fromTrace)
}

// DuplicateRanks returns the rank numbers that more than one trace claims, in order.
func (s *Summary) DuplicateRanks() []int64 {
	seen := make(map[int64]int, len(s.Ranks))
	var dup []int64
	for _, r := range s.Ranks {
		seen[r.Number]++
		if seen[r.Number] == 2 {
			dup = append(dup, r.Number)
		}
	}
	return dup
}

// c10Type maps a c10::DeviceType number back to a device type.
func c10Type(n int) (devices.Type, bool) {
	for _, t := range []devices.Type{devices.CPU, devices.CUDA, devices.XPU, devices.MTIA, devices.HPU, devices.PrivateUse1} {
		if t.C10() == n {
			return t, true
		}
	}
	return devices.CPU, false
}
