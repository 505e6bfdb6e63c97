package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
)

// Check validates a Chrome trace in Kineto's object form, the rules viewers and HTA rely
// on: valid JSON with a traceEvents array and distributedInfo.rank; every event has a ph and a
// name; ts and dur are finite and ≥ 0; "X" events on one (pid, tid) row nest (no partial
// overlap); every flow start "s" has exactly one end "f" with the same id and category, which
// is not before it; flow ids stay below 2^53; counters ("C") have numeric args. It returns every
// problem found (at most 20), joined.
func Check(data []byte) error {
	var top struct {
		TraceEvents     []map[string]json.RawMessage `json:"traceEvents"`
		DistributedInfo *struct {
			Rank *int `json:"rank"`
		} `json:"distributedInfo"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("trace is not a JSON object with traceEvents: %w", err)
	}
	var errs []error
	add := func(format string, a ...any) {
		if len(errs) < 20 {
			errs = append(errs, fmt.Errorf(format, a...))
		}
	}
	if top.TraceEvents == nil {
		add("no traceEvents array")
	}
	if top.DistributedInfo == nil || top.DistributedInfo.Rank == nil {
		add("distributedInfo.rank is missing")
	}
	type span struct {
		start, end float64
		name       string
	}
	type flowEnd struct {
		ts    float64
		count int
	}
	rows := map[string][]span{}
	starts := map[string]flowEnd{}
	ends := map[string]flowEnd{}
	for i, ev := range top.TraceEvents {
		var ph, name, cat string
		if json.Unmarshal(ev["ph"], &ph) != nil || ph == "" {
			add("event %d: no ph", i)
			continue
		}
		if json.Unmarshal(ev["name"], &name) != nil {
			add("event %d: no name", i)
		}
		_ = json.Unmarshal(ev["cat"], &cat)
		num := func(key string, need bool) (float64, bool) {
			raw, ok := ev[key]
			if !ok {
				if need {
					add("event %d (%s): no %s", i, name, key)
				}
				return 0, false
			}
			var f float64
			if err := json.Unmarshal(raw, &f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				add("event %d (%s): %s is not a finite number: %s", i, name, key, raw)
				return 0, false
			}
			if f < 0 {
				add("event %d (%s): %s is negative: %v", i, name, key, f)
			}
			return f, true
		}
		row := string(ev["pid"]) + "/" + string(ev["tid"])
		switch ph {
		case "X":
			ts, ok1 := num("ts", true)
			dur, ok2 := num("dur", true)
			if ok1 && ok2 {
				rows[row] = append(rows[row], span{ts, ts + dur, name})
			}
		case "i", "I", "M":
			if ph != "M" {
				num("ts", true)
			}
		case "C":
			num("ts", true)
			var args map[string]any
			if err := json.Unmarshal(ev["args"], &args); err != nil {
				add("event %d (%s): counter without args object", i, name)
			}
			for k, v := range args {
				if _, ok := v.(float64); !ok {
					add("event %d (%s): counter series %q is not a number", i, name, k)
				}
			}
		case "s", "f", "t":
			ts, _ := num("ts", true)
			id, ok := num("id", true)
			if ok && id >= 1<<53 {
				add("event %d (%s): flow id %v is not below 2^53", i, name, id)
			}
			key := cat + "#" + string(ev["id"])
			if ph == "s" {
				fe := starts[key]
				fe.count++
				fe.ts = ts
				starts[key] = fe
			} else if ph == "f" {
				fe := ends[key]
				fe.count++
				fe.ts = ts
				ends[key] = fe
			}
		}
	}
	for key, s := range starts {
		e, ok := ends[key]
		switch {
		case !ok:
			add("flow %s has a start and no end", key)
		case s.count != 1 || e.count != 1:
			add("flow %s has %d starts and %d ends", key, s.count, e.count)
		case e.ts < s.ts:
			add("flow %s ends (%v) before it starts (%v)", key, e.ts, s.ts)
		}
	}
	for key := range ends {
		if _, ok := starts[key]; !ok {
			add("flow %s has an end and no start", key)
		}
	}
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	const eps = 1e-3 // one ns at µs scale with 3 decimals
	for _, k := range keys {
		sp := rows[k]
		sort.SliceStable(sp, func(a, b int) bool {
			if sp[a].start != sp[b].start {
				return sp[a].start < sp[b].start
			}
			return sp[a].end > sp[b].end
		})
		var stack []span
		for _, s := range sp {
			for len(stack) > 0 && s.start >= stack[len(stack)-1].end-eps/2 {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 && s.end > stack[len(stack)-1].end+eps/2 {
				p := stack[len(stack)-1]
				add("row %s: %q [%v, %v] overlaps %q [%v, %v] without nesting", k, s.name, s.start, s.end, p.name, p.start, p.end)
			}
			stack = append(stack, s)
		}
	}
	return errors.Join(errs...)
}
