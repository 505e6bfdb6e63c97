package perfetto

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// The tests' own wire-level reader of a Perfetto trace: it knows the field numbers from the
// published protos (trace.proto, trace_packet.proto, track_event.proto, track_descriptor.proto,
// counter_descriptor.proto, debug_annotation.proto, interned_data.proto) independently of the
// encoder's constants.

type dTrack struct {
	uuid, parent         uint64
	name                 string
	counter              bool
	unit                 uint64
	unitName             string
	childOrdering        uint64
	siblingRank          int64
	hasRank, hasOrdering bool
}

type dEvent struct {
	ts         uint64
	typ        uint64
	track      uint64
	name       string
	cats       []string
	args       []string // "key=value", canonical
	flows      []uint64
	terms      []uint64
	counterI   int64
	counterD   float64
	isDouble   bool
	hasCounter bool
}

type decoded struct {
	tracks    map[uint64]*dTrack
	order     []uint64
	events    []dEvent
	seqs      map[uint64]*seqState // interning is per packet sequence
	cleared   bool
	seqIDs    map[uint64]bool
	needsFlag int // event packets that say they need incremental state
	*seqState     // the sequence of the packet being decoded
}

// seqState is one packet sequence's interned strings, valid from a packet that clears its
// incremental state on.
type seqState struct {
	names   map[uint64]string
	cats    map[uint64]string
	keys    map[uint64]string
	vals    map[uint64]string
	cleared bool
	events  int
}

func newSeqState() *seqState {
	return &seqState{names: map[uint64]string{}, cats: map[uint64]string{}, keys: map[uint64]string{}, vals: map[uint64]string{}}
}

type wireField struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
}

func fields(t testing.TB, b []byte) []wireField {
	t.Helper()
	var out []wireField
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		f := wireField{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			t.Fatalf("field %d: unexpected wire type %d", num, typ)
		}
		if n < 0 {
			t.Fatalf("field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		out = append(out, f)
	}
	return out
}

func decode(t testing.TB, b []byte) *decoded {
	t.Helper()
	d := &decoded{tracks: map[uint64]*dTrack{}, seqs: map[uint64]*seqState{}, seqIDs: map[uint64]bool{}}
	for _, top := range fields(t, b) {
		if top.num != 1 || top.typ != protowire.BytesType {
			t.Fatalf("Trace holds field %d; want only packet = 1", top.num)
		}
		var ts, seq uint64
		var te, interned []byte
		flags := uint64(0)
		for _, f := range fields(t, top.b) {
			switch f.num {
			case 8:
				ts = f.v
			case 10:
				seq = f.v
			case 13:
				flags = f.v
			case 11:
				te = f.b
			case 12:
				interned = f.b
			case 60:
				d.track(t, f.b)
			case 87:
			default:
				t.Fatalf("TracePacket field %d not expected", f.num)
			}
		}
		if seq == 0 {
			t.Fatalf("a packet without trusted_packet_sequence_id")
		}
		d.seqIDs[seq] = true
		if flags&1 != 0 {
			// Cleared: the sequence's interned strings start afresh.
			d.cleared = true
			d.seqs[seq] = newSeqState()
			d.seqs[seq].cleared = true
		}
		d.seqState = d.seqs[seq]
		if interned != nil || te != nil {
			if d.seqState == nil || !d.seqState.cleared {
				t.Fatalf("sequence %d: interned data or an event before a packet clears its incremental state", seq)
			}
		}
		if interned != nil {
			d.interned(t, interned)
		}
		if te != nil {
			if flags&2 != 0 {
				d.needsFlag++
			}
			d.seqState.events++
			d.events = append(d.events, d.event(t, ts, te))
		}
	}
	d.seqState = nil
	return d
}

func (d *decoded) interned(t testing.TB, b []byte) {
	for _, f := range fields(t, b) {
		var iid uint64
		var s string
		for _, e := range fields(t, f.b) {
			switch e.num {
			case 1:
				iid = e.v
			case 2:
				s = string(e.b)
			}
		}
		m := map[protowire.Number]map[uint64]string{1: d.cats, 2: d.names, 3: d.keys, 29: d.vals}[f.num]
		if m == nil {
			t.Fatalf("InternedData field %d not expected", f.num)
		}
		if old, ok := m[iid]; ok && old != s {
			t.Fatalf("interned field %d iid %d given twice: %q, %q", f.num, iid, old, s)
		}
		m[iid] = s
	}
}

func (d *decoded) track(t testing.TB, b []byte) {
	tr := &dTrack{}
	for _, f := range fields(t, b) {
		switch f.num {
		case 1:
			tr.uuid = f.v
		case 2:
			tr.name = string(f.b)
		case 5:
			tr.parent = f.v
		case 8:
			tr.counter = true
			for _, c := range fields(t, f.b) {
				switch c.num {
				case 3:
					tr.unit = c.v
				case 6:
					tr.unitName = string(c.b)
				}
			}
		case 11:
			tr.childOrdering, tr.hasOrdering = f.v, true
		case 12:
			tr.siblingRank, tr.hasRank = int64(int32(f.v)), true
		default:
			t.Fatalf("TrackDescriptor field %d not expected", f.num)
		}
	}
	if _, ok := d.tracks[tr.uuid]; ok || tr.uuid == 0 {
		t.Fatalf("track uuid %d given twice or zero", tr.uuid)
	}
	d.tracks[tr.uuid] = tr
	d.order = append(d.order, tr.uuid)
}

func (d *decoded) event(t testing.TB, ts uint64, b []byte) dEvent {
	e := dEvent{ts: ts}
	for _, f := range fields(t, b) {
		switch f.num {
		case 3:
			s, ok := d.cats[f.v]
			if !ok {
				t.Fatalf("category iid %d used before it was interned", f.v)
			}
			e.cats = append(e.cats, s)
		case 22:
			e.cats = append(e.cats, string(f.b))
		case 10:
			s, ok := d.names[f.v]
			if !ok {
				t.Fatalf("name iid %d used before it was interned", f.v)
			}
			e.name = s
		case 23:
			e.name = string(f.b)
		case 9:
			e.typ = f.v
		case 11:
			e.track = f.v
		case 4:
			e.args = append(e.args, d.annotation(t, f.b, true))
		case 30:
			e.counterI, e.hasCounter = int64(f.v), true
		case 44:
			e.counterD, e.isDouble, e.hasCounter = math.Float64frombits(f.v), true, true
		case 47:
			e.flows = append(e.flows, f.v)
		case 48:
			e.terms = append(e.terms, f.v)
		default:
			t.Fatalf("TrackEvent field %d not expected", f.num)
		}
	}
	if _, ok := d.tracks[e.track]; !ok {
		t.Fatalf("event on track %d, which no descriptor before it defines", e.track)
	}
	return e
}

// annotation renders a DebugAnnotation as "name=value" (named) or "value", in the canonical
// form canon gives a JSON value.
func (d *decoded) annotation(t testing.TB, b []byte, named bool) string {
	var name, val string
	var dict, arr []string
	isDict, isArr := false, false
	for _, f := range fields(t, b) {
		switch f.num {
		case 1:
			name = d.keys[f.v]
		case 10:
			name = string(f.b)
		case 2:
			val = "b:" + strconv.FormatBool(f.v != 0)
		case 3:
			val = "i:" + strconv.FormatUint(f.v, 10)
		case 4:
			val = "i:" + strconv.FormatInt(int64(f.v), 10)
		case 5:
			val = "d:" + strconv.FormatFloat(math.Float64frombits(f.v), 'g', -1, 64)
		case 6:
			val = "s:" + string(f.b)
		case 17:
			s, ok := d.vals[f.v]
			if !ok {
				t.Fatalf("string value iid %d used before it was interned", f.v)
			}
			val = "s:" + s
		case 9:
			val = string(f.b)
		case 11:
			isDict = true
			dict = append(dict, d.annotation(t, f.b, true))
		case 12:
			isArr = true
			arr = append(arr, d.annotation(t, f.b, false))
		default:
			t.Fatalf("DebugAnnotation field %d not expected", f.num)
		}
	}
	switch {
	case isDict:
		sort.Strings(dict)
		val = "{" + strings.Join(dict, ",") + "}"
	case isArr:
		val = "[" + strings.Join(arr, ",") + "]"
	}
	if named {
		return name + "=" + val
	}
	return val
}

// canon renders a JSON value (decoded with UseNumber) as annotation does.
func canon(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "b:" + strconv.FormatBool(x)
	case string:
		return "s:" + x
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return "i:" + strconv.FormatInt(i, 10)
			}
			if u, err := strconv.ParseUint(s, 10, 64); err == nil {
				return "i:" + strconv.FormatUint(u, 10)
			}
		}
		f, _ := strconv.ParseFloat(s, 64)
		return "d:" + strconv.FormatFloat(f, 'g', -1, 64)
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = canon(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case map[string]any:
		if len(x) == 0 {
			return "{}"
		}
		parts := make([]string, 0, len(x))
		for k, e := range x {
			parts = append(parts, k+"="+canon(e))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ",") + "}"
	}
	panic(fmt.Sprintf("canon: %T", v))
}

func canonArgs(m map[string]any) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+canon(v))
	}
	sort.Strings(out)
	return out
}
