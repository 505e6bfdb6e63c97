package trace

import (
	"cmp"
	"slices"
	"strconv"
)

// overlapTidBase is the first tid of the rows Write adds for complete events that overlap
// without nesting: past any system's thread ids.
const overlapTidBase = 1 << 40

// rowKey names an event's row (thread or stream).
type rowKey struct {
	pid, tid       int64
	pidStr, tidStr string
}

// moved is where Write puts an event that overlaps another on its row without nesting.
type moved struct {
	tid    int64
	tidStr string
}

// overlapRows finds, row by row, the complete events that overlap without nesting: Perfetto's
// JSON importer drops those. Sorted by start (longer first, then file order), each event goes
// to the first level of its row where it nests; level 0 is the row itself, each further level
// a row of its own ("NAME · overlap L"), returned with its metadata. Rows whose events
// already nest (the usual case) cost one pass.
func overlapRows(t *Trace) (map[int]moved, []Thread) {
	// One pass: each row's events checked as they come (sorted by start, they nest or not);
	// only the rows that fail are laid out below.
	type rowState struct {
		last  int64
		stack []int64
		bad   bool
	}
	states := map[rowKey]*rowState{}
	var lastKey rowKey
	var st *rowState
	var keys []rowKey
	for i := range t.Events {
		e := &t.Events[i]
		if e.Ph != 'X' || t.OmitSpans && e.PidStr != "" {
			continue
		}
		k := rowKey{e.Pid, e.Tid, e.PidStr, e.TidStr}
		if st == nil || k != lastKey {
			if st = states[k]; st == nil {
				st = &rowState{last: -1 << 63}
				states[k] = st
			}
			lastKey = k
		}
		if st.bad {
			continue
		}
		end := e.TsNs + max(e.DurNs, 0)
		for len(st.stack) > 0 && st.stack[len(st.stack)-1] <= e.TsNs {
			st.stack = st.stack[:len(st.stack)-1]
		}
		if e.TsNs < st.last || len(st.stack) > 0 && end > st.stack[len(st.stack)-1] {
			st.bad, st.stack = true, nil
			keys = append(keys, k)
			continue
		}
		st.stack = append(st.stack, end)
		st.last = e.TsNs
	}
	if len(keys) == 0 {
		return nil, nil
	}
	rows := map[rowKey][]int32{}
	for i := range t.Events {
		e := &t.Events[i]
		if e.Ph != 'X' || t.OmitSpans && e.PidStr != "" {
			continue
		}
		k := rowKey{e.Pid, e.Tid, e.PidStr, e.TidStr}
		if s := states[k]; s != nil && s.bad {
			rows[k] = append(rows[k], int32(i))
		}
	}
	var out map[int]moved
	var extra []Thread
	slices.SortFunc(keys, func(a, b rowKey) int {
		return cmp.Or(cmp.Compare(a.pidStr, b.pidStr), cmp.Compare(a.pid, b.pid), cmp.Compare(a.tidStr, b.tidStr), cmp.Compare(a.tid, b.tid))
	})
	out = map[int]moved{}
	next := int64(0)
	for _, k := range keys {
		idx := rows[k]
		evs := t.Events
		slices.SortFunc(idx, func(a, b int32) int {
			x, y := &evs[a], &evs[b]
			return cmp.Or(cmp.Compare(x.TsNs, y.TsNs), cmp.Compare(y.TsNs+y.DurNs, x.TsNs+x.DurNs), cmp.Compare(a, b))
		})
		var open [][]int64
		var rowsOf []moved
		name, sort := rowName(t, k)
		for _, i := range idx {
			e := &evs[i]
			end := e.TsNs + max(e.DurNs, 0)
			level := -1
			for l := range open {
				st := open[l]
				for len(st) > 0 && st[len(st)-1] <= e.TsNs {
					st = st[:len(st)-1]
				}
				open[l] = st
				if len(st) == 0 || end <= st[len(st)-1] {
					open[l] = append(st, end)
					level = l
					break
				}
			}
			if level < 0 {
				level = len(open)
				open = append(open, []int64{end})
			}
			if level == 0 {
				continue
			}
			for len(rowsOf) < level {
				next++
				m := moved{tid: overlapTidBase + next}
				if k.tidStr != "" {
					m = moved{tidStr: k.tidStr + " · overlap " + strconv.Itoa(len(rowsOf)+1)}
				}
				rowsOf = append(rowsOf, m)
				if k.tidStr == "" && k.pidStr == "" {
					// A row of a string tid names itself; metadata needs numeric ids.
					extra = append(extra, Thread{Pid: k.pid, Tid: m.tid, Name: name + " · overlap " + strconv.Itoa(len(rowsOf)), SortIndex: sort})
				}
			}
			out[int(i)] = rowsOf[level-1]
		}
	}
	return out, extra
}

// rowName is a row's thread name and sort index, as its Thread gives them.
func rowName(t *Trace, k rowKey) (string, int64) {
	for _, th := range t.Threads {
		if th.Pid == k.pid && th.Tid == k.tid && k.pidStr == "" && k.tidStr == "" {
			return th.Name, th.SortIndex
		}
	}
	if k.tidStr != "" {
		return k.tidStr, 0
	}
	return "thread " + strconv.FormatInt(k.tid, 10), k.tid
}
