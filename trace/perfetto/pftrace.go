package perfetto

import (
	"math"
	"slices"
	"strings"
)

// item is one packet to write: a slice's begin or end, an instant, a counter value.
type item struct {
	ts   int64
	ref  int32
	kind uint8
}

const (
	kBegin uint8 = iota
	kEnd
	kInstant
	kSample
	kUnbound // a flow end no slice holds, as an instant
)

// packet frames body as one Trace.packet.
func (c *converter) packet(body []byte) error {
	h := appendTag(c.hdr[:0], fTracePacket, wireBytes)
	h = appendVarint(h, uint64(len(body)))
	if _, err := c.w.Write(h); err != nil {
		return err
	}
	_, err := c.w.Write(body)
	return err
}

// writeRank writes one rank: its track descriptors, the strings it interned, then its events
// in time order (per track, in the order that nests).
func (c *converter) writeRank(r *rank) error {
	b := c.buf[:0]
	if !c.started {
		c.started = true
		b = appendUint(b, fPktSeqID, sequenceID)
		b = appendUint(b, fPktSeqFlags, seqStateCleared)
		b = appendUint(b, fPktFirstOnSeq, 1)
		if err := c.packet(b); err != nil {
			return err
		}
	}
	if err := c.descriptors(r); err != nil {
		return err
	}
	// The strings this rank uses first.
	b = b[:0]
	b = appendUint(b, fPktSeqID, sequenceID)
	b = appendUint(b, fPktSeqFlags, seqNeedsState)
	b, at := openMsg(b, fPktInterned)
	b = c.cats.flush(b, fIDcategories)
	b = c.names.flush(b, fIDnames)
	b = c.keys.flush(b, fIDargNames)
	b = c.vals.flush(b, fIDargStrings)
	b = closeMsg(b, at)
	if err := c.packet(b); err != nil {
		return err
	}
	c.buf = b

	items := c.items(r)
	// Flows bound to each slice, in slice order.
	bound := make([]int32, 0, len(r.flows))
	for i := range r.flows {
		c.stats.FlowEnds++
		if r.flows[i].bound >= 0 {
			bound = append(bound, int32(i))
		} else {
			c.stats.Unbound++
		}
	}
	slices.SortStableFunc(bound, func(a, b int32) int { return int(r.flows[a].bound) - int(r.flows[b].bound) })
	for i := len(bound) - 1; i >= 0; i-- {
		r.slices.at(r.flows[bound[i]].bound).flows = int32(i)
	}
	for _, it := range items {
		b = b[:0]
		ts := it.ts + r.shift
		b = appendUint(b, fPktTimestamp, uint64(max(ts, 0)))
		b = appendUint(b, fPktSeqID, sequenceID)
		b = appendUint(b, fPktSeqFlags, seqNeedsState)
		var at int
		b, at = openMsg(b, fPktTrackEvent)
		switch it.kind {
		case kBegin:
			s := r.slices.at(it.ref)
			b = appendUint(b, fTEtype, typeSliceBegin)
			b = appendUint(b, fTEtrackUUID, r.threads[s.thread].uuids[s.level])
			b = append(b, r.payOf(s.pay)...)
			if s.flows >= 0 {
				for j := s.flows; j < int32(len(bound)) && r.flows[bound[j]].bound == it.ref; j++ {
					b = c.flowField(b, &r.flows[bound[j]])
				}
			}
			c.stats.Slices++
		case kEnd:
			s := r.slices.at(it.ref)
			b = appendUint(b, fTEtype, typeSliceEnd)
			b = appendUint(b, fTEtrackUUID, r.threads[s.thread].uuids[s.level])
		case kInstant:
			in := &r.instants[it.ref]
			b = appendUint(b, fTEtype, typeInstant)
			b = appendUint(b, fTEtrackUUID, r.threads[in.thread].uuids[0])
			b = append(b, r.payOf(in.pay)...)
			c.stats.Instants++
		case kUnbound:
			f := &r.flows[it.ref]
			b = appendUint(b, fTEtype, typeInstant)
			b = appendUint(b, fTEtrackUUID, r.threads[f.thread].uuids[0])
			b = append(b, r.payOf(f.name)...)
			b = c.flowField(b, f)
		case kSample:
			s := &r.counters[it.ref]
			b = appendUint(b, fTEtype, typeCounter)
			b = appendUint(b, fTEtrackUUID, r.ctracks[s.track].uuid)
			if s.isInt {
				b = appendInt(b, fTEcounterValue, s.i)
			} else {
				b = appendDouble(b, fTEdoubleCounter, s.f)
			}
			c.stats.Samples++
		}
		b = closeMsg(b, at)
		if err := c.packet(b); err != nil {
			return err
		}
	}
	c.buf = b
	return nil
}

// flowField appends a flow end's id: a flow's last end terminates it.
func (c *converter) flowField(b []byte, f *flowEnd) []byte {
	if f.ph == 'f' {
		return appendFixed64(b, fTEterminateFlows, f.id)
	}
	return appendFixed64(b, fTEflowIDs, f.id)
}

// items lists the rank's packets in the order to write them: each level of each thread walked
// so that its begins and ends nest, then everything sorted by time, stably, so that at one
// time a track's packets keep their order.
func (c *converter) items(r *rank) []item {
	n := 2*r.slices.len() + len(r.instants) + len(r.counters) + len(r.flows)
	items := make([]item, 0, n)
	var stack []int32
	for ti := range r.threads {
		t := &r.threads[ti]
		for l := range t.levels {
			stack = stack[:0]
			for _, si := range t.slices {
				s := r.slices.at(si)
				if s.level != l {
					continue
				}
				for len(stack) > 0 && r.slices.at(stack[len(stack)-1]).end <= s.start {
					top := stack[len(stack)-1]
					items = append(items, item{ts: r.slices.at(top).end, ref: top, kind: kEnd})
					stack = stack[:len(stack)-1]
				}
				items = append(items, item{ts: s.start, ref: si, kind: kBegin})
				stack = append(stack, si)
			}
			for i := len(stack) - 1; i >= 0; i-- {
				items = append(items, item{ts: r.slices.at(stack[i]).end, ref: stack[i], kind: kEnd})
			}
		}
	}
	for i := range r.instants {
		items = append(items, item{ts: r.instants[i].ts, ref: int32(i), kind: kInstant})
	}
	for i := range r.flows {
		if r.flows[i].bound < 0 {
			items = append(items, item{ts: r.flows[i].ts, ref: int32(i), kind: kUnbound})
		}
	}
	for i := range r.counters {
		items = append(items, item{ts: r.counters[i].ts, ref: int32(i), kind: kSample})
	}
	slices.SortStableFunc(items, func(a, b item) int {
		switch {
		case a.ts < b.ts:
			return -1
		case a.ts > b.ts:
			return 1
		}
		return 0
	})
	return items
}

// descriptors writes the rank's tracks: a group per process ("rank R · host"), under it a track
// per thread level ("stream 7", "stream 7 · overlap 1") and per counter series.
func (c *converter) descriptors(r *rank) error {
	for _, pi := range r.procOrder() {
		p := &r.procs[pi]
		c.nextUUID++
		p.uuid = c.nextUUID
		b := c.buf[:0]
		b = appendUint(b, fPktSeqID, sequenceID)
		var at int
		b, at = openMsg(b, fPktTrackDesc)
		b = appendUint(b, fTDuuid, p.uuid)
		b = appendString(b, fTDname, p.groupName)
		b = appendUint(b, fTDchildOrdering, orderingExplicit)
		b = appendInt(b, fTDsiblingRank, int64(c.nextRoot))
		c.nextRoot++
		b = closeMsg(b, at)
		if err := c.packet(b); err != nil {
			return err
		}
		order := int64(0)
		for _, ti := range r.threadOrder(pi) {
			t := &r.threads[ti]
			name := r.threadName(t)
			t.uuids = make([]uint64, t.levels)
			for l := range t.levels {
				c.nextUUID++
				t.uuids[l] = c.nextUUID
				if l > 0 {
					c.stats.OverlapTracks++
				}
				b = b[:0]
				b = appendUint(b, fPktSeqID, sequenceID)
				b, at = openMsg(b, fPktTrackDesc)
				b = appendUint(b, fTDuuid, t.uuids[l])
				b = appendUint(b, fTDparent, p.uuid)
				b = appendString(b, fTDname, levelName(name, int(l)))
				b = appendInt(b, fTDsiblingRank, min(order, math.MaxInt32))
				order++
				b = closeMsg(b, at)
				if err := c.packet(b); err != nil {
					return err
				}
			}
		}
		for ci := range r.ctracks {
			ct := &r.ctracks[ci]
			if ct.proc != pi {
				continue
			}
			c.nextUUID++
			ct.uuid = c.nextUUID
			c.stats.CounterTracks++
			b = b[:0]
			b = appendUint(b, fPktSeqID, sequenceID)
			b, at = openMsg(b, fPktTrackDesc)
			b = appendUint(b, fTDuuid, ct.uuid)
			b = appendUint(b, fTDparent, p.uuid)
			b = appendString(b, fTDname, counterName(ct))
			b = appendInt(b, fTDsiblingRank, min(order, math.MaxInt32))
			order++
			var cat int
			b, cat = openMsg(b, fTDcounter)
			unit, unitName := counterUnit(ct)
			if unit != 0 {
				b = appendUint(b, fCDunit, uint64(unit))
			}
			if unitName != "" {
				b = appendString(b, fCDunitName, unitName)
			}
			b = closeMsg(b, cat)
			b = closeMsg(b, at)
			if err := c.packet(b); err != nil {
				return err
			}
		}
		c.buf = b
	}
	return nil
}

// counterName names a counter series' track: the counter's name, then its series when that
// differs ("Memory · Total Allocated").
func counterName(ct *ctrack) string {
	if ct.key == ct.name || ct.key == "" {
		return ct.name
	}
	return ct.name + " · " + ct.key
}

// counterUnit is a series' unit as its name tells: bytes, ns or µs, else a count.
func counterUnit(ct *ctrack) (int, string) {
	n := strings.ToLower(ct.name + " " + ct.key)
	switch {
	case strings.Contains(n, "bytes") || strings.Contains(n, "memory") || strings.Contains(n, "allocated") || strings.Contains(n, "reserved"):
		return unitSizeBytes, "bytes"
	case strings.HasSuffix(n, " ns") || strings.Contains(n, "(ns)") || strings.Contains(n, "_ns"):
		return unitTimeNs, "ns"
	case strings.HasSuffix(n, " us") || strings.Contains(n, "(us)") || strings.Contains(n, "_us") || strings.Contains(n, "µs"):
		return 0, "µs"
	case strings.Contains(n, "%") || strings.Contains(n, "percent") || strings.Contains(n, "util"):
		return 0, "%"
	}
	return unitCount, ""
}
