package lanes

import (
	"encoding/json"
	"slices"
	"strconv"
)

// AppendJSON appends s's JSON to b: the bytes encoding/json writes of the struct, without
// its reflection and its second pass over the output (a report writes it as it is, and the
// page splices it in).
func (s *Summary) AppendJSON(b []byte) ([]byte, error) {
	b = slices.Grow(b, s.sizeHint())
	b = appendInt(append(b, `{"lanes_version":`...), int64(s.Version))
	var err error
	if b, err = appendStrings(append(b, `,"categories":`...), s.Categories); err != nil {
		return nil, err
	}
	if b, err = appendStrings(append(b, `,"causes":`...), s.Causes); err != nil {
		return nil, err
	}
	b = appendInt(append(b, `,"origin_ns":`...), s.OriginNs)
	b = appendInt(append(b, `,"device_min_ns":`...), s.DeviceMinNs)
	b = appendInt(append(b, `,"host_min_ns":`...), s.HostMinNs)
	b = appendInt(append(b, `,"gap_min_ns":`...), s.GapMinNs)
	b = appendInt(append(b, `,"events":`...), int64(s.Events))
	b = appendInt(append(b, `,"kept":`...), int64(s.Kept))
	b = appendInt(append(b, `,"binned":`...), int64(s.Binned))
	b = append(b, `,"ranks":`...)
	if s.Ranks == nil {
		return append(b, "null}"...), nil
	}
	b = append(b, '[')
	for i := range s.Ranks {
		r := &s.Ranks[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = appendInt(append(b, `{"rank":`...), r.Rank)
		b = appendInt(append(b, `,"start_ns":`...), r.StartNs)
		b = appendInt(append(b, `,"offset_ns":`...), r.OffsetNs)
		b = appendInt(append(b, `,"span_ns":`...), r.SpanNs)
		b = appendInt(append(b, `,"bin_ns":`...), r.BinNs)
		b = appendInt(append(b, `,"bin_phase_ns":`...), r.BinPhaseNs)
		if b, err = appendStrings(append(b, `,"names":`...), r.Names); err != nil {
			return nil, err
		}
		b = append(b, `,"steps":`...)
		if r.Steps == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for j, st := range r.Steps {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendInts(b, st[:])
			}
			b = append(b, ']')
		}
		b = append(b, `,"lanes":`...)
		if r.Lanes == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for j := range r.Lanes {
				if j > 0 {
					b = append(b, ',')
				}
				b = r.Lanes[j].appendJSON(b)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}

// sizeHint is about the length of s's JSON: a grown buffer would be copied several times.
func (s *Summary) sizeHint() int {
	n := 1024
	for i := range s.Ranks {
		r := &s.Ranks[i]
		n += 256 + 40*len(r.Steps)
		for _, name := range r.Names {
			n += len(name) + 8
		}
		for j := range r.Lanes {
			l := &r.Lanes[j]
			n += 512 + 6*(len(l.T)+len(l.D)+len(l.LT)+len(l.GT)+len(l.GD)+3*len(l.BI)) + 3*(len(l.N)+len(l.Op)) + 2*(len(l.C)+len(l.R)+len(l.LL)+len(l.GC))
		}
	}
	return n
}

// appendStrings appends a list of strings as encoding/json writes it.
func appendStrings(b []byte, ss []string) ([]byte, error) {
	if ss == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		q, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		b = append(b, q...)
	}
	return append(b, ']'), nil
}

// MarshalJSON writes the lane as encoding/json writes its struct (the same members, in order),
// appending the columns' numbers directly: the columns are most of a report's page, and
// encoding/json's reflection took several times longer over them.
func (l *Lane) MarshalJSON() ([]byte, error) {
	return l.appendJSON(make([]byte, 0, 64+8*(len(l.T)*6+len(l.BI)*3+len(l.GT)*3))), nil
}

func (l *Lane) appendJSON(b []byte) []byte {
	b = append(b, `{"kind":`...)
	kind, _ := json.Marshal(l.Kind) // a string always marshals
	b = append(b, kind...)
	b = appendInt(append(b, `,"pid":`...), l.Pid)
	b = appendInt(append(b, `,"id":`...), l.ID)
	b = appendInt(append(b, `,"events":`...), int64(l.Events))
	b = appendInt(append(b, `,"binned":`...), int64(l.Binned))
	b = appendInt(append(b, `,"start_ns":`...), l.StartNs)
	b = appendInt(append(b, `,"end_ns":`...), l.EndNs)
	b = appendInt(append(b, `,"rows":`...), int64(l.Rows))
	b = appendInts(append(b, `,"t":`...), l.T)
	b = appendInts(append(b, `,"d":`...), l.D)
	b = appendInts(append(b, `,"n":`...), l.N)
	b = appendInts(append(b, `,"c":`...), l.C)
	b = appendInts(append(b, `,"r":`...), l.R)
	b = appendInts(append(b, `,"op":`...), l.Op)
	b = appendInts(append(b, `,"ll":`...), l.LL)
	b = appendInts(append(b, `,"lt":`...), l.LT)
	b = appendInts(append(b, `,"bi":`...), l.BI)
	b = appendInts(append(b, `,"bc":`...), l.BC)
	b = appendInts(append(b, `,"bv":`...), l.BV)
	b = appendInts(append(b, `,"gt":`...), l.GT)
	b = appendInts(append(b, `,"gd":`...), l.GD)
	b = appendInts(append(b, `,"gc":`...), l.GC)
	b = appendInts(append(b, `,"gap_count":`...), l.GapCount[:])
	b = appendInts(append(b, `,"gap_ns":`...), l.GapNs[:])
	return append(b, '}')
}

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// appendInts appends a column as a JSON array; a nil column as null, as encoding/json does.
func appendInts[T int16 | int32 | int64](b []byte, vs []T) []byte {
	if vs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return append(b, ']')
}
