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
	if err := c.begin(); err != nil {
		return err
	}
	if err := c.descriptors(r); err != nil {
		return err
	}
	// The strings this rank uses first on the main sequence (each segment's went out as it
	// was read: segmentStrings).
	b := c.buf[:0]
	b = appendUint(b, fPktSeqID, mainSequence)
	b = appendUint(b, fPktSeqFlags, seqNeedsState)
	b, at := openMsg(b, fPktInterned)
	b = c.encoder.interned(b)
	b = closeMsg(b, at)
	if err := c.packet(b); err != nil {
		return err
	}
	c.buf = b

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
	r.flowsOf = make(map[int32]int32, len(bound))
	for i := len(bound) - 1; i >= 0; i-- {
		r.flowsOf[r.flows[bound[i]].bound] = int32(i)
	}
	err := c.packets(r, func(it item) error {
		b = b[:0]
		ts := it.ts + r.shift
		b = appendUint(b, fPktTimestamp, uint64(max(ts, 0)))
		b = appendUint(b, fPktSeqID, uint64(r.sequenceOf(it)))
		b = appendUint(b, fPktSeqFlags, seqNeedsState)
		var at int
		b, at = openMsg(b, fPktTrackEvent)
		switch it.kind {
		case kBegin:
			s := r.slices.at(it.ref)
			b = appendUint(b, fTEtype, typeSliceBegin)
			b = appendUint(b, fTEtrackUUID, r.threads[s.thread].uuids[s.level])
			b = append(b, r.payOf(s.pay)...)
			if first, ok := r.flowsOf[it.ref]; ok {
				for j := first; j < int32(len(bound)) && r.flows[bound[j]].bound == it.ref; j++ {
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
		return c.packet(b)
	})
	c.buf = b
	return err
}

// sequenceOf is the packet sequence of an item: that of the strings its payload interns (a
// slice's end goes on its begin's), the main one for counter values.
func (r *rank) sequenceOf(it item) uint32 {
	switch it.kind {
	case kBegin, kEnd:
		return r.seqOf(r.slices.at(it.ref).pay)
	case kInstant:
		return r.seqOf(r.instants[it.ref].pay)
	case kUnbound:
		return r.seqOf(r.flows[it.ref].name)
	}
	return mainSequence
}

// begin writes the trace's first packet, which starts the main sequence, unless written.
func (c *converter) begin() error {
	if c.started {
		return nil
	}
	c.started = true
	b := c.buf[:0]
	b = appendUint(b, fPktSeqID, mainSequence)
	b = appendUint(b, fPktSeqFlags, seqStateCleared)
	b = appendUint(b, fPktFirstOnSeq, 1)
	c.buf = b
	return c.packet(b)
}

// segmentStrings writes the packet that starts a segment's sequence with the strings its
// events intern: written as the segment is merged, before any of its events (which go out
// when the rank is written), so that no rank keeps them.
func (c *converter) segmentStrings(seq uint32, interned []byte) error {
	if err := c.begin(); err != nil {
		return err
	}
	b := c.buf[:0]
	b = appendUint(b, fPktSeqID, uint64(seq))
	b = appendUint(b, fPktSeqFlags, seqStateCleared)
	b = appendUint(b, fPktFirstOnSeq, 1)
	b = appendString(b, fPktInterned, interned)
	c.buf = b
	return c.packet(b)
}

// flowField appends a flow end's id: a flow's last end terminates it.
func (c *converter) flowField(b []byte, f *flowEnd) []byte {
	if f.ph == 'f' {
		return appendFixed64(b, fTEterminateFlows, f.id)
	}
	return appendFixed64(b, fTEflowIDs, f.id)
}

// cursor walks one source of packets in time order: a level of a thread (its slices' begins
// and ends, in the order that nests), or the rank's instants, unbound flow ends or counter
// values sorted by time.
type cursor struct {
	list  []int32
	i     int
	stack []int32 // a level's open slices
	kind  uint8   // kBegin for a level, else the kind of the list
	head  item
}

// next sets head to the cursor's next packet; false when it has none.
func (c *cursor) next(r *rank) bool {
	if c.kind != kBegin {
		if c.i == len(c.list) {
			return false
		}
		ref := c.list[c.i]
		c.i++
		c.head = item{ts: r.timeOf(c.kind, ref), ref: ref, kind: c.kind}
		return true
	}
	if n := len(c.stack); n > 0 {
		top := r.slices.at(c.stack[n-1])
		if c.i == len(c.list) || top.end <= r.slices.at(c.list[c.i]).start {
			c.head = item{ts: top.end, ref: c.stack[n-1], kind: kEnd}
			c.stack = c.stack[:n-1]
			return true
		}
	}
	if c.i == len(c.list) {
		return false
	}
	si := c.list[c.i]
	c.i++
	c.stack = append(c.stack, si)
	c.head = item{ts: r.slices.at(si).start, ref: si, kind: kBegin}
	return true
}

func (r *rank) timeOf(kind uint8, ref int32) int64 {
	switch kind {
	case kInstant:
		return r.instants[ref].ts
	case kUnbound:
		return r.flows[ref].ts
	}
	return r.counters[ref].ts
}

// packets hands the rank's packets to fn in time order, ties in the order of their source
// (a track's own order kept): a merge of the cursors, with no list of every packet made.
func (c *converter) packets(r *rank, fn func(item) error) error {
	var cs []*cursor
	var tmp []int32
	for ti := range r.threads {
		t := &r.threads[ti]
		// The thread's slices, level by level: a stable split in place (each level stays
		// sorted; the order by start is not needed past here).
		ends := make([]int, t.levels+1)
		for _, si := range t.slices {
			ends[r.slices.at(si).level+1]++
		}
		for l := 1; l < len(ends); l++ {
			ends[l] += ends[l-1]
		}
		tmp = append(tmp[:0], t.slices...)
		pos := slices.Clone(ends[:t.levels])
		for _, si := range tmp {
			l := r.slices.at(si).level
			t.slices[pos[l]] = si
			pos[l]++
		}
		for l := range t.levels {
			if ends[l] < ends[l+1] {
				cs = append(cs, &cursor{list: t.slices[ends[l]:ends[l+1]], kind: kBegin})
			}
		}
	}
	sorted := func(n int, kind uint8, keep func(int) bool) {
		var l []int32
		for i := range n {
			if keep(i) {
				l = append(l, int32(i))
			}
		}
		slices.SortStableFunc(l, func(a, b int32) int { return cmpInt(r.timeOf(kind, a), r.timeOf(kind, b)) })
		if len(l) > 0 {
			cs = append(cs, &cursor{list: l, kind: kind})
		}
	}
	sorted(len(r.instants), kInstant, func(int) bool { return true })
	sorted(len(r.flows), kUnbound, func(i int) bool { return r.flows[i].bound < 0 })
	sorted(len(r.counters), kSample, func(int) bool { return true })
	// A binary heap of the cursors with a packet, by (time, position).
	h := make([]int, 0, len(cs))
	less := func(a, b int) bool {
		x, y := cs[h[a]].head.ts, cs[h[b]].head.ts
		return x < y || x == y && h[a] < h[b]
	}
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			m := l
			if l+1 < len(h) && less(l+1, l) {
				m = l + 1
			}
			if !less(m, i) {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i, cu := range cs {
		if cu.next(r) {
			h = append(h, i)
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(h) > 0 {
		cu := cs[h[0]]
		if err := fn(cu.head); err != nil {
			return err
		}
		if !cu.next(r) {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// descriptors writes the rank's tracks: a group per process ("rank R · host"), under it a track
// per thread level ("stream 7", "stream 7 · overlap 1") and per counter series.
func (c *converter) descriptors(r *rank) error {
	for _, pi := range r.procOrder() {
		p := &r.procs[pi]
		c.nextUUID++
		p.uuid = c.nextUUID
		b := c.buf[:0]
		b = appendUint(b, fPktSeqID, mainSequence)
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
				b = appendUint(b, fPktSeqID, mainSequence)
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
			b = appendUint(b, fPktSeqID, mainSequence)
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
