package tracefile

import (
	"math"
	"strconv"

	"github.com/orprof/orprof/internal/jsonscan"
)

// CounterSeries is one series of a trace's counter ("C") events: a value sampled over time,
// such as a CUPTI PM-sampling metric (cat hardware_counters, one metric per event name, the
// value under the empty key, pid "GPU N Counters"), MTIA's mtia_counters or the XPU scope
// profiler's xpu_scope_profiler series. Counters are never device activity.
type CounterSeries struct {
	// Cat and Name are the events' "cat" and "name"; Key is the args member the value is
	// under ("" for PM sampling).
	Cat, Name, Key string
	// Process is the events' pid as written: a number, or a string ("GPU 0 Counters").
	Process string
	// Device is the device index the pid names: the pid itself, or the first number in a
	// string pid; −1 when it has none.
	Device int64
	// Samples counts the events; FirstNs and LastNs are the first and last sample's times on
	// the trace's own clock (the file's ts in ns).
	Samples         int
	FirstNs, LastNs int64
	// Min, Max and Last are the values' extremes and the last one in file order; Sum their
	// sum (Sum / Samples is the mean of the samples, not of time).
	Min, Max, Last, Sum float64
}

// counterValue is one args member of a counter event as it is scanned.
type counterValue struct {
	key string
	v   float64
}

// counterArgs reads a counter event's args: each member with a number value is a series.
func (d *decoder) counterArgs() error {
	s := d.s
	d.ctr = d.ctr[:0]
	it := s.ObjectOrSkip()
	for it.Next() {
		key := d.ctrString(it.Key())
		c, _ := s.Peek()
		if c != '-' && c-'0' > 9 {
			if err := s.Skip(); err != nil {
				return err
			}
			continue
		}
		tok, _, err := s.Num()
		if err != nil {
			return err
		}
		v, err := strconv.ParseFloat(jsonscan.Bstr(tok), 64)
		if err != nil || math.IsInf(v, 0) {
			continue
		}
		d.ctr = append(d.ctr, counterValue{key, v})
	}
	return it.Err()
}

// keepCounter adds a counter event's samples to their series.
func (d *decoder) keepCounter(ev *evFields) {
	vals := d.ctr
	d.ctr = d.ctr[:0] // the next counter event's, whatever becomes of this one
	if !ev.hasName || ev.nameErr != nil || !ev.hasTS || ev.tsErr != nil || len(vals) == 0 {
		return
	}
	cat := ""
	if ev.hasCat {
		cat = d.ctrCat
	}
	proc := strconv.FormatInt(ev.pid, 10)
	dev := ev.pid
	if ev.pidIsStr {
		proc = d.ctrString(d.ctrPid)
		dev = -1
		if v, ok := firstInt(d.ctrPid); ok {
			dev = v
		}
	}
	for _, c := range vals {
		d.counterSample(CounterSeries{Cat: cat, Name: d.nameStrs[ev.name], Key: c.key, Process: proc, Device: dev,
			Samples: 1, FirstNs: ev.tsNs, LastNs: ev.tsNs, Min: c.v, Max: c.v, Last: c.v, Sum: c.v})
	}
}

// ctrString is b as a string, made once per distinct value: a trace's counter events repeat
// a few keys and pids.
func (d *decoder) ctrString(b []byte) string {
	if v, ok := d.ctrStrs[string(b)]; ok {
		return v
	}
	if d.ctrStrs == nil {
		d.ctrStrs = map[string]string{}
	}
	v := string(b)
	d.ctrStrs[v] = v
	return v
}

// counterSample merges one sample, or a later part's series, into the scan's series.
func (f *scanFacts) counterSample(s CounterSeries) {
	k := counterKey{s.Cat, s.Name, s.Key, s.Process}
	i, ok := f.counterOf[k]
	if !ok {
		if f.counterOf == nil {
			f.counterOf = map[counterKey]int{}
		}
		f.counterOf[k] = len(f.counters)
		f.counters = append(f.counters, s)
		return
	}
	c := &f.counters[i]
	c.Samples += s.Samples
	c.FirstNs, c.LastNs = min(c.FirstNs, s.FirstNs), max(c.LastNs, s.LastNs)
	c.Min, c.Max, c.Last, c.Sum = min(c.Min, s.Min), max(c.Max, s.Max), s.Last, c.Sum+s.Sum
}

// counterKey identifies a series.
type counterKey struct{ cat, name, key, proc string }
