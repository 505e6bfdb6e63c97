// Package pprof turns a profile's operators into a pprof profile (profile.proto, written with
// github.com/google/pprof/profile), so that `go tool pprof -top`, `-http` flame graphs and every
// other pprof view work on orprof's and PyTorch's profiles. It is its own package because it is
// one more output format with its own dependency, which programs that only print tables need not
// link.
//
// The profile has three sample types: cpu_time and device_time in nanoseconds, and calls. Each
// distinct call stack of operators gets one sample. A stack is the chain of an operator's CPU
// parents on its host thread (events.List's tree), root last in pprof's leaf-first order. Its
// cpu_time is the operators' self CPU time, calls their number. Device time: in fallback mode
// (an operator's device time is one interval measured around it, IsLegacy) it is the operator's
// self device time on the operator's own sample; in kernel mode each kernel is a leaf frame
// under the operator that launched it, carrying that kernel's time, and calls counts the
// launches. Device activity linked to no operator (GPU-only traces, graph replay, MTIA work)
// is a root frame of its own. Device-side user annotations (gpu_user_annotation) are left out:
// they label spans of device work that the kernels under them already count, and the table's
// footer leaves them out too.
//
// So an operator frame's flat cpu_time and calls are the table's Self CPU and # of Calls of that
// operator; its device time (its own sample's plus that of the kernel frames right under it) is
// the table's Self <device> of the operator, less any annotation spans PyTorch attached to it; a
// kernel frame's flat device_time is the table's Self <device> of that kernel; and the
// device_time total is the table's "Self <device> time total" — each up to the rounding of
// every sample to whole nanoseconds.
package pprof

import (
	"math"

	"github.com/google/pprof/profile"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
)

// Sample value indexes.
const (
	CPUTime    = 0
	DeviceTime = 1
	Calls      = 2
)

// KernelSystemName and OpSystemName mark the functions of kernel and operator frames
// (Function.SystemName), so that an op and a kernel with the same name stay two functions.
const (
	KernelSystemName = "kernel"
	OpSystemName     = "op"
)

// FromList builds the profile of l's events.
func FromList(l *events.List) *profile.Profile {
	b := newBuilder()
	n := l.Len()
	// path[i] is the id of event i's stack; paths are interned as (parent path, location).
	path := make([]int32, n)
	devTotal := map[string]float64{}
	devCount := map[string]int64{}
	linkedTotal := map[string]float64{}
	linkedCount := map[string]int64{}
	var devNames []string
	annotation := map[string]bool{} // names of device-side user annotations
	for i := 0; i < n; i++ {
		if e := l.Event(i); e.DeviceType != devices.CPU && e.IsUserAnnotation {
			annotation[e.Name] = true
		}
	}
	minStart, maxEnd := math.Inf(1), math.Inf(-1)
	for i := 0; i < n; i++ {
		e := l.Event(i)
		minStart, maxEnd = math.Min(minStart, e.StartUs), math.Max(maxEnd, e.EndUs)
		if e.DeviceType != devices.CPU {
			if e.IsUserAnnotation || events.IsScopeMetrics(e.Name, e.DeviceType) {
				continue // not device work of its own
			}
			if _, ok := devTotal[e.Name]; !ok {
				devNames = append(devNames, e.Name)
			}
			devTotal[e.Name] += e.EndUs - e.StartUs
			devCount[e.Name]++
			continue
		}
		parent := int32(0)
		if p := l.Parent(i); p >= 0 {
			parent = path[p]
		}
		p := b.intern(parent, b.location(e.Name, false))
		path[i] = p
		s := b.sample(p)
		s[CPUTime] += ns(l.SelfCPUTimeTotal(i))
		s[Calls]++
		selfDev := l.SelfDeviceTimeTotal(i)
		if !e.IsLegacy {
			for _, k := range e.Kernels {
				if annotation[k.Name] {
					selfDev -= k.DurationUs
					continue
				}
				ks := b.sample(b.intern(p, b.location(k.Name, true)))
				ks[DeviceTime] += ns(k.DurationUs)
				ks[Calls]++
				selfDev -= k.DurationUs
				linkedTotal[k.Name] += k.DurationUs
				linkedCount[k.Name]++
			}
		}
		if d := ns(selfDev); d != 0 {
			s[DeviceTime] += d
		}
	}
	for _, name := range devNames {
		rest := ns(devTotal[name] - linkedTotal[name])
		calls := devCount[name] - linkedCount[name]
		if rest <= 0 && calls <= 0 {
			continue
		}
		s := b.sample(b.intern(0, b.location(name, true)))
		s[DeviceTime] += max(rest, 0)
		s[Calls] += max(calls, 0)
	}
	p := b.profile()
	if n > 0 && maxEnd > minStart {
		p.DurationNanos = ns(maxEnd - minStart)
	}
	return p
}

func ns(us float64) int64 { return int64(math.Round(us * 1000)) }

// builder interns locations and stacks and sums samples per stack.
type builder struct {
	p     *profile.Profile
	locs  map[string]*profile.Location
	paths map[[2]int32]int32
	// pathParent and pathLoc describe path ids 1…; id 0 is the empty stack.
	pathParent []int32
	pathLoc    []*profile.Location
	values     map[int32][]int64
	order      []int32
}

func newBuilder() *builder {
	m := &profile.Mapping{ID: 1, File: "orprof", HasFunctions: true}
	return &builder{
		p: &profile.Profile{
			SampleType: []*profile.ValueType{{Type: "cpu_time", Unit: "nanoseconds"},
				{Type: "device_time", Unit: "nanoseconds"}, {Type: "calls", Unit: "count"}},
			PeriodType: &profile.ValueType{Type: "cpu_time", Unit: "nanoseconds"},
			Period:     1,
			Mapping:    []*profile.Mapping{m},
		},
		locs:       map[string]*profile.Location{},
		paths:      map[[2]int32]int32{},
		pathParent: []int32{-1},
		pathLoc:    []*profile.Location{nil},
		values:     map[int32][]int64{},
	}
}

// location returns the location of an op or kernel frame.
func (b *builder) location(name string, kernel bool) *profile.Location {
	key, sys := name, OpSystemName
	if kernel {
		key, sys = "\x00k"+name, KernelSystemName
	}
	if l, ok := b.locs[key]; ok {
		return l
	}
	id := uint64(len(b.p.Function) + 1)
	f := &profile.Function{ID: id, Name: name, SystemName: sys}
	l := &profile.Location{ID: id, Mapping: b.p.Mapping[0], Line: []profile.Line{{Function: f}}}
	b.p.Function = append(b.p.Function, f)
	b.p.Location = append(b.p.Location, l)
	b.locs[key] = l
	return l
}

// intern returns the id of the stack loc + parent's stack.
func (b *builder) intern(parent int32, loc *profile.Location) int32 {
	k := [2]int32{parent, int32(loc.ID)}
	if id, ok := b.paths[k]; ok {
		return id
	}
	id := int32(len(b.pathParent))
	b.paths[k] = id
	b.pathParent = append(b.pathParent, parent)
	b.pathLoc = append(b.pathLoc, loc)
	return id
}

// sample returns the values of the sample of stack id.
func (b *builder) sample(id int32) []int64 {
	v, ok := b.values[id]
	if !ok {
		v = make([]int64, 3)
		b.values[id] = v
		b.order = append(b.order, id)
	}
	return v
}

func (b *builder) profile() *profile.Profile {
	hasDev := false
	for _, id := range b.order {
		v := b.values[id]
		if v[CPUTime] == 0 && v[DeviceTime] == 0 && v[Calls] == 0 {
			continue
		}
		hasDev = hasDev || v[DeviceTime] != 0
		var locs []*profile.Location
		for p := id; p > 0; p = b.pathParent[p] {
			locs = append(locs, b.pathLoc[p])
		}
		b.p.Sample = append(b.p.Sample, &profile.Sample{Location: locs, Value: v})
	}
	b.p.DefaultSampleType = "cpu_time"
	if hasDev {
		b.p.DefaultSampleType = "device_time"
	}
	return b.p
}

// FrameName is the name of a location's function, with kernels marked as they are in the
// profile (for tests and tools that match frames to table rows).
func FrameName(l *profile.Location) (name string, kernel bool) {
	if len(l.Line) == 0 || l.Line[0].Function == nil {
		return "", false
	}
	f := l.Line[0].Function
	return f.Name, f.SystemName == KernelSystemName
}
