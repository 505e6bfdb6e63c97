package perfetto

import (
	"github.com/orprof/orprof/trace"
	"strconv"
)

// jsonState is what the JSON writer keeps across ranks.
type jsonState struct {
	multi   bool // several inputs: pids renumbered, processes named after their rank
	nextPid int64
	nextTid int64
	sortPos int64
	events  int
}

// overlapTidBase is the first tid of the rows the JSON writer adds for overlapping events:
// past any system's thread ids.
const overlapTidBase = 1 << 40

// jsonPayload is an event's members but pid, tid and ts, as JSON text: the writer puts
// those in front.
func (c *converter) jsonPayload(ev *event, complete bool) []byte {
	b := c.buf[:0]
	b = append(b, `"ph": "`...)
	b = append(b, ev.ph)
	b = append(b, '"')
	if len(ev.cat) > 0 || complete {
		b = append(b, `, "cat": `...)
		b = trace.AppendString(b, string(ev.cat))
	}
	b = append(b, `, "name": `...)
	b = trace.AppendString(b, string(ev.name))
	if ev.hasDur || complete {
		b = append(b, `, "dur": `...)
		b = appendUs(b, max(ev.dur, 0))
	}
	if len(ev.id) > 0 {
		b = append(b, `, "id": `...)
		b = append(b, ev.id...)
	}
	if ev.bp != 0 {
		b = append(b, `, "bp": "`...)
		b = append(b, ev.bp, '"')
	}
	if ev.scope != 0 {
		b = append(b, `, "s": "`...)
		b = append(b, ev.scope, '"')
	}
	if len(ev.extra) > 0 {
		b = append(b, ", "...)
		b = append(b, ev.extra...)
	}
	if len(ev.args) > 0 {
		b = append(b, `, "args": `...)
		b = append(b, ev.args...)
	}
	c.buf = b
	return b
}

// appendUs appends ns as µs with three decimals.
func appendUs(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	r := ns % 1000
	return append(b, '.', byte('0'+r/100), byte('0'+r/10%10), byte('0'+r%10))
}

// writeJSONRank writes one rank's events: the header first (from the first rank), the
// process and thread rows (one per level of a thread), then its events in file order, each
// complete event on its level's row and each flow end on its slice's.
func (c *converter) writeJSONRank(r *rank, last bool) error {
	js := &c.jsonOut
	b := c.buf[:0]
	if !c.started {
		c.started = true
		b = append(b, "{\n  \"schemaVersion\": 1"...)
		for _, m := range r.hdr.members {
			if string(m.key) == "schemaVersion" {
				continue
			}
			b = append(b, ",\n  "...)
			b = trace.AppendString(b, string(m.key))
			b = append(b, ": "...)
			b = append(b, m.raw...)
		}
		if !js.multi && len(r.hdr.distributedInfo) > 0 {
			b = append(b, ",\n  \"distributedInfo\": "...)
			b = append(b, r.hdr.distributedInfo...)
		}
		if r.hdr.hasBase {
			b = append(b, ",\n  \"baseTimeNanoseconds\": "...)
			b = strconv.AppendInt(b, c.outBase, 10)
		}
		b = append(b, ",\n  \"traceEvents\": ["...)
	}
	sep := func() {
		if js.events > 0 {
			b = append(b, ',')
		}
		js.events++
		b = append(b, "\n  {"...)
	}
	pidOf := make([]string, len(r.procs))
	meta := func(name, pid, tid string, key string, val []byte) {
		if pid == "" || tid == "" {
			return // a row without a pid or tid takes no metadata
		}
		sep()
		b = append(b, `"ph": "M", "name": "`...)
		b = append(b, name...)
		b = append(b, `", "pid": `...)
		b = append(b, pid...)
		b = append(b, `, "tid": `...)
		b = append(b, tid...)
		b = append(b, `, "ts": 0, "args": {"`...)
		b = append(b, key...)
		b = append(b, `": `...)
		b = append(b, val...)
		b = append(b, "}}"...)
	}
	for _, pi := range r.procOrder() {
		p := &r.procs[pi]
		pid := p.pid
		switch {
		case js.multi:
			js.nextPid++
			pid = strconv.FormatInt(js.nextPid, 10)
		case pid == "" && r.hasThreadRows(pi):
			// Rows added to a process without a pid need one to be told apart.
			js.nextPid++
			pid = strconv.FormatInt(overlapTidBase+js.nextPid, 10)
		}
		pidOf[pi] = pid
		switch {
		case js.multi:
			meta("process_name", pid, "0", "name", trace.AppendString(nil, p.groupName))
		case p.hasName:
			meta("process_name", pid, "0", "name", trace.AppendString(nil, p.name))
		}
		if p.labels != "" {
			meta("process_labels", pid, "0", "labels", trace.AppendString(nil, p.labels))
		}
		if js.multi {
			meta("process_sort_index", pid, "0", "sort_index", strconv.AppendInt(nil, js.sortPos, 10))
			js.sortPos++
		} else if p.hasSort {
			meta("process_sort_index", pid, "0", "sort_index", strconv.AppendInt(nil, p.sort, 10))
		}
		for _, ti := range r.threadOrder(pi) {
			t := &r.threads[ti]
			t.outTids = make([]string, t.levels)
			name := r.threadName(t)
			for l := range t.levels {
				tid := t.tid
				if l > 0 {
					js.nextTid++
					tid = strconv.FormatInt(overlapTidBase+js.nextTid, 10)
					c.stats.OverlapTracks++
				}
				t.outTids[l] = tid
				if t.hasName || l > 0 {
					meta("thread_name", pid, tid, "name", trace.AppendString(nil, levelName(name, int(l))))
				}
				if t.hasSort || l > 0 {
					meta("thread_sort_index", pid, tid, "sort_index", strconv.AppendInt(nil, t.sort, 10))
				}
			}
		}
	}
	write := func(th, level int32, ts int64, pay payload) error {
		t := &r.threads[th]
		sep()
		// A pid or tid the input left out stays out.
		if p := pidOf[t.proc]; p != "" {
			b = append(b, `"pid": `...)
			b = append(b, p...)
			b = append(b, ", "...)
		}
		if tid := t.outTids[level]; tid != "" {
			b = append(b, `"tid": `...)
			b = append(b, tid...)
			b = append(b, ", "...)
		}
		b = append(b, `"ts": `...)
		b = appendUs(b, ts+r.shift-c.outBase)
		b = append(b, ", "...)
		b = append(b, r.payOf(pay)...)
		b = append(b, '}')
		if len(b) >= 1<<16 {
			if _, err := c.w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
		return nil
	}
	// The three lists are each in file order: merge them by it.
	si, fi, oi := 0, 0, 0
	for si < r.slices.len() || fi < len(r.flows) || oi < len(r.others) {
		next := int32(1<<31 - 1)
		if si < r.slices.len() {
			next = r.sliceSeq[si]
		}
		if fi < len(r.flows) && r.flows[fi].seq < next {
			next = r.flows[fi].seq
		}
		if oi < len(r.others) && r.others[oi].seq < next {
			next = r.others[oi].seq
		}
		var err error
		switch {
		case si < r.slices.len() && r.sliceSeq[si] == next:
			s := r.slices.at(int32(si))
			err = write(s.thread, s.level, s.start, s.pay)
			c.stats.Slices++
			si++
		case fi < len(r.flows) && r.flows[fi].seq == next:
			f := &r.flows[fi]
			level := int32(0)
			if f.bound >= 0 {
				level = r.slices.at(f.bound).level
			} else {
				c.stats.Unbound++
			}
			c.stats.FlowEnds++
			err = write(f.thread, level, f.ts, f.pay)
			fi++
		default:
			o := &r.others[oi]
			err = write(o.thread, 0, o.ts, o.pay)
			oi++
		}
		if err != nil {
			return err
		}
	}
	if last {
		b = append(b, "\n  ]\n}\n"...)
	}
	_, err := c.w.Write(b)
	c.buf = b[:0]
	return err
}
