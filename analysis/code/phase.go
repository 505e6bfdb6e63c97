package code

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/trace/tracefile"
)

// PhaseAverages reads the trace in for the table's rows restricted to one phase (`orprof
// table --phase NAME`): the host ops, annotations and runtime calls whose phase (ByPhase's:
// the outermost user annotation naming a phase that holds the event on its thread) is name,
// the phase's annotations themselves among them, and the device events linked to those ops;
// the "[memory]" records outside every op go. The rows are then made as the table makes
// them from the events that remain. It keeps the trace's events (a full read, not the
// table's streaming one). A phase no event has is an error naming the trace's phases.
func PhaseAverages(in *input.Input, name string, opts tracefile.Options, g events.AverageOptions) (*tracefile.Averages, error) {
	rc, err := in.Stream()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var c opLinks
	opts.Consumers = append(opts.Consumers, &c)
	td, err := tracefile.Read(rc, in.Name, opts)
	if err != nil {
		return nil, err
	}
	evs := td.Events
	phase, names := phasesOf(evs[:min(len(c.op), len(evs))])
	keep := make([]bool, len(evs))
	any := false
	for k := range c.op {
		switch {
		case evs[k].DeviceType == devices.CPU:
			keep[k] = phase[k] == name
		case c.op[k] >= 0 && c.op[k] < len(c.op):
			keep[k] = phase[c.op[k]] == name
		}
		any = any || keep[k]
	}
	if !any {
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: --phase %s: the trace has no user annotation naming a phase (record_function(\"decode\") and the like; ProfilerStep#N aside)", in.Name, name)
		}
		return nil, fmt.Errorf("%s: --phase %s: no such phase; the trace's are %s", in.Name, name, strings.Join(names, ", "))
	}
	// The device time's links are the phase's: what its kept device events' rules linked
	// (each is linked: its op is kept).
	td.DeviceLink = tracefile.DeviceLink{}
	n := 0
	for k := range c.op {
		if keep[k] && c.dev[k] {
			us := evs[k].EndUs - evs[k].StartUs
			td.DeviceLink.TotalUs += us
			td.DeviceLink.ByRuleUs[c.rule[k]] += us
		}
		if keep[k] {
			evs[n] = evs[k]
			n++
		}
	}
	td.Events = evs[:n:n]
	return tracefile.AveragesOf(td, g), nil
}

// opLinks keeps, per converted event of a read, the index of the op a device event was linked
// to (−1: none, or not a device event): the events' order is the read's.
type opLinks struct {
	op   []int
	rule []tracefile.LinkRule
	dev  []bool // a device event whose time counts (DeviceLink's)
}

func (c *opLinks) Needs() tracefile.Needs { return tracefile.NeedLinks }
func (c *opLinks) Begin(info *tracefile.Info) {
	n := info.Counts
	c.op = make([]int, 0, n.Host+n.Runtime+n.Device)
	c.rule = make([]tracefile.LinkRule, 0, n.Host+n.Runtime+n.Device)
	c.dev = make([]bool, 0, n.Host+n.Runtime+n.Device)
}
func (c *opLinks) Event(ev *tracefile.Event) {
	if ev.Kind.DeviceTime() || ev.Kind == tracefile.KindDeviceAnnotation || ev.Kind == tracefile.KindScopeMetrics {
		c.op, c.rule, c.dev = append(c.op, ev.OpIndex), append(c.rule, ev.Rule), append(c.dev, ev.Kind.DeviceTime())
		return
	}
	c.op, c.rule, c.dev = append(c.op, -1), append(c.rule, tracefile.Unlinked), append(c.dev, false)
}
func (c *opLinks) Finish() {}

// phasesOf returns the phase of each host event of evs ("" where none holds it) and the
// phases' names in order of first start.
func phasesOf(evs []events.FunctionEvent) ([]string, []string) {
	phase := make([]string, len(evs))
	byThread := map[int64][]int{}
	for k := range evs {
		if evs[k].DeviceType == devices.CPU {
			byThread[evs[k].Thread] = append(byThread[evs[k].Thread], k)
		}
	}
	type first struct {
		name string
		at   float64
	}
	var seen []first
	known := map[string]bool{}
	type open struct {
		end  float64
		name string
	}
	for _, ks := range byThread {
		slices.SortStableFunc(ks, func(a, b int) int {
			return cmp.Or(cmp.Compare(evs[a].StartUs, evs[b].StartUs), cmp.Compare(evs[b].EndUs, evs[a].EndUs))
		})
		var st []open
		for _, k := range ks {
			e := &evs[k]
			for len(st) > 0 && st[len(st)-1].end <= e.StartUs {
				st = st[:len(st)-1]
			}
			p := ""
			if len(st) > 0 {
				p = st[len(st)-1].name
			}
			if e.IsUserAnnotation && e.EndUs > e.StartUs && !strings.HasPrefix(e.TraceName, "ProfilerStep#") && e.Name != "ProfilerStep*" {
				if p == "" {
					p = e.Name
					if !known[p] {
						known[p] = true
						seen = append(seen, first{p, e.StartUs})
					}
				}
				st = append(st, open{e.EndUs, p})
			}
			phase[k] = p
		}
	}
	slices.SortStableFunc(seen, func(a, b first) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.name, b.name)) })
	names := make([]string, len(seen))
	for i, s := range seen {
		names[i] = s.name
	}
	return phase, names
}
