package trace

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// AppendString appends s as a JSON string, as Write writes every name and key. Unlike PyTorch's
// legacy exporter it escapes quotes, backslashes and control characters, so any name gives
// valid JSON; invalid UTF-8 is replaced with U+FFFD.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	// Fast path: names and keys are nearly always printable ASCII without quotes or backslashes.
	i := 0
	for i < len(s) && plain[s[i]] {
		i++
	}
	if i == len(s) {
		b = append(b, s...)
		return append(b, '"')
	}
	start := 0 // s[start:i] is plain and not yet appended
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"':
				b = append(b, '\\', '"')
			case '\\':
				b = append(b, '\\', '\\')
			case '\n':
				b = append(b, '\\', 'n')
			case '\t':
				b = append(b, '\\', 't')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigit(c>>4), hexDigit(c&0xf))
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plain[c] says whether byte c is written as itself inside a JSON string.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func hexDigit(c byte) byte { return "0123456789abcdef"[c&0xf] }

// appendUs appends nanoseconds as Kineto prints times: microseconds with exactly three
// decimals ("1234.567"), clamped at 0.
func appendUs(b []byte, ns int64) []byte {
	if ns < 0 {
		ns = 0
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	r := ns % 1000
	return append(b, '.', byte('0'+r/100), byte('0'+r/10%10), byte('0'+r%10))
}

// Write writes t as a Kineto-style Chrome trace object: schemaVersion, deviceProperties,
// metadata, displayTimeUnit, baseTimeNanoseconds, traceEvents (process and thread metadata
// first, then the events, then "Record Window End"), distributedInfo and traceName. Every ts
// is relative to BaseTimeNs.
func Write(w io.Writer, t *Trace) error {
	// Events are encoded into b, which goes to w in pieces of about 64 KiB: no second buffer
	// between b and w, whose copy would cost as much as a fast destination.
	b := make([]byte, 0, 1<<16+4096)
	flush := func() error {
		_, err := w.Write(b)
		b = b[:0]
		return err
	}
	b = append(b, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": ["...)
	for i, p := range t.DeviceProperties {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = append(b, p...)
	}
	if len(t.DeviceProperties) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, "],\n"...)
	di := t.DistributedInfo
	if di == "" {
		di = `{"rank": 0}`
	}
	b = append(b, "  \"distributedInfo\": "...)
	b = append(b, di...)
	b = append(b, ",\n"...)
	for _, m := range t.Metadata {
		b = append(b, "  "...)
		b = AppendString(b, m.Key)
		b = append(b, ": "...)
		b = m.AppendJSON(b)
		b = append(b, ",\n"...)
	}
	b = append(b, "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": "...)
	b = strconv.AppendInt(b, t.BaseTimeNs, 10)
	b = append(b, ",\n  \"traceEvents\": ["...)
	rel := func(ns int64) int64 { return ns - t.BaseTimeNs }
	meta := func(name string, pid, tid int64, key string, val []byte) {
		b = append(b, "\n  {\"ph\": \"M\", \"name\": \""...)
		b = append(b, name...)
		b = append(b, "\", \"pid\": "...)
		b = strconv.AppendInt(b, pid, 10)
		b = append(b, ", \"tid\": "...)
		b = strconv.AppendInt(b, tid, 10)
		b = append(b, ", \"ts\": "...)
		b = appendUs(b, rel(t.StartNs))
		b = append(b, ", \"args\": {\""...)
		b = append(b, key...)
		b = append(b, "\": "...)
		b = append(b, val...)
		b = append(b, "}},"...)
	}
	for _, p := range t.Processes {
		meta("process_name", p.Pid, 0, "name", AppendString(nil, p.Name))
		meta("process_labels", p.Pid, 0, ArgLabels, AppendString(nil, p.Label))
		meta("process_sort_index", p.Pid, 0, "sort_index", strconv.AppendInt(nil, p.SortIndex, 10))
	}
	// Complete events that overlap without nesting on their row go to rows of their own.
	moves, extra := overlapRows(t)
	for _, th := range append(t.Threads[:len(t.Threads):len(t.Threads)], extra...) {
		meta("thread_name", th.Pid, th.Tid, "name", AppendString(nil, th.Name))
		meta("thread_sort_index", th.Pid, th.Tid, "sort_index", strconv.AppendInt(nil, th.SortIndex, 10))
	}
	for i := range t.Events {
		if t.Events[i].PidStr == "Spans" && !t.OmitSpans {
			// Kineto sorts the spans row after every process (0x20000000).
			b = append(b, "\n  {\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": \"Spans\", \"tid\": 0, \"ts\": "...)
			b = appendUs(b, rel(t.StartNs))
			b = append(b, ", \"args\": {\"sort_index\": 536870912}},"...)
			break
		}
	}
	for i := range t.Events {
		e := &t.Events[i]
		if t.OmitSpans && e.Ph == 'X' && e.PidStr != "" {
			continue
		}
		b = append(b, "\n  {\"ph\": \""...)
		b = append(b, e.Ph)
		b = append(b, '"')
		if e.Cat != "" {
			b = append(b, ", \"cat\": "...)
			b = AppendString(b, e.Cat)
		}
		b = append(b, ", \"name\": "...)
		b = AppendString(b, e.Name)
		b = append(b, ", \"pid\": "...)
		if e.PidStr != "" {
			b = AppendString(b, e.PidStr)
		} else {
			b = strconv.AppendInt(b, e.Pid, 10)
		}
		b = append(b, ", \"tid\": "...)
		tid, tidStr := e.Tid, e.TidStr
		if m, ok := moves[i]; ok {
			tid, tidStr = m.tid, m.tidStr
		}
		if tidStr != "" {
			b = AppendString(b, tidStr)
		} else {
			b = strconv.AppendInt(b, tid, 10)
		}
		ts, dur := rel(e.TsNs), e.DurNs
		if ts < 0 {
			// An event that starts before the trace's base is drawn from the base (a ts is
			// never negative), and keeps its end: it does not grow into its neighbours.
			ts, dur = 0, max(0, dur+ts)
		}
		b = append(b, ", \"ts\": "...)
		b = appendUs(b, ts)
		switch e.Ph {
		case 'X':
			b = append(b, ", \"dur\": "...)
			b = appendUs(b, dur)
		case 'i':
			s := e.Scope
			if s == 0 {
				s = 't'
			}
			b = append(b, ", \"s\": \""...)
			b = append(b, s, '"')
		case 's', 'f':
			b = append(b, ", \"id\": "...)
			b = strconv.AppendUint(b, e.ID, 10)
			if e.Ph == 'f' {
				b = append(b, ", \"bp\": \"e\""...)
			}
		}
		if e.Ph != 's' && e.Ph != 'f' && (len(e.Args) > 0 || e.Ph == 'C') {
			b = append(b, ",\n    \"args\": {"...)
			for k, a := range e.Args {
				if k > 0 {
					b = append(b, ", "...)
				}
				b = AppendString(b, a.Key)
				b = append(b, ": "...)
				b = a.AppendJSON(b)
			}
			b = append(b, '}')
		}
		b = append(b, "},"...)
		if len(b) >= 1<<16 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	b = append(b, "\n  {\"ph\": \"i\", \"s\": \"g\", \"name\": \"Record Window End\", \"pid\": \"\", \"tid\": \"\", \"ts\": "...)
	b = appendUs(b, rel(t.EndNs))
	b = append(b, "}\n  ],\n  \"traceName\": "...)
	b = AppendString(b, t.TraceName)
	b = append(b, "\n}\n"...)
	return flush()
}
