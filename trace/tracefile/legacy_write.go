package tracefile

import (
	"bufio"
	"io"
	"math"
	"strconv"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace"
)

// appendPyFloat appends f as Python's str(float) prints it: the shortest repr, with ".0" for
// whole numbers and exponent form outside [1e-4, 1e16).
func appendPyFloat(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case math.IsNaN(f):
		return append(b, "nan"...)
	}
	a := math.Abs(f)
	if a != 0 && (a < 1e-4 || a >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes e+06 / e-05; Python writes e+16 / e-05 (two digits at least): same form.
		return append(b, s...)
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	for _, c := range b[n:] {
		if c == '.' {
			return b
		}
	}
	return append(b, '.', '0')
}

// WriteLegacy writes events as PyTorch's legacy export_chrome_trace does: a JSON array of
// "X" events with "pid": "CPU functions" and the logical thread as tid, times as Python floats
// in µs, one "s" flow event per kernel with cat "cpu_to_<device>". Unlike PyTorch it escapes
// names and writes "[]" when no event has a trace name.
func WriteLegacy(w io.Writer, l *events.List, device string) error {
	if device == "" {
		device = "cuda"
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	b := make([]byte, 0, 4096)
	b = append(b, '[')
	first := true
	flow := 0
	sep := func() {
		if !first {
			b = append(b, ", "...)
		}
		first = false
	}
	for i := 0; i < l.Len(); i++ {
		e := l.Event(i)
		if e.TraceName == "" && e.Name == "[memory]" {
			continue
		}
		sep()
		b = append(b, "{\"name\": "...)
		b = trace.AppendString(b, e.TraceName)
		b = append(b, ", \"ph\": \"X\", \"ts\": "...)
		b = appendPyFloat(b, e.StartUs)
		b = append(b, ", \"dur\": "...)
		b = appendPyFloat(b, e.ElapsedUs())
		b = append(b, ", \"tid\": "...)
		b = strconv.AppendInt(b, e.Thread, 10)
		b = append(b, ", \"pid\": \"CPU functions\", \"args\": {}}"...)
		for range e.Kernels {
			sep()
			b = append(b, "{\"name\": "...)
			b = trace.AppendString(b, e.TraceName)
			b = append(b, ", \"ph\": \"s\", \"ts\": "...)
			b = appendPyFloat(b, e.StartUs)
			b = append(b, ", \"tid\": "...)
			b = strconv.AppendInt(b, e.Thread, 10)
			b = append(b, ", \"pid\": \"CPU functions\", \"id\": "...)
			b = strconv.AppendInt(b, int64(flow), 10)
			b = append(b, ", \"cat\": \"cpu_to_"...)
			b = append(b, device...)
			b = append(b, "\", \"args\": {}}"...)
			flow++
		}
		if len(b) > 1<<15 {
			if _, err := bw.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = append(b, ']')
	if _, err := bw.Write(b); err != nil {
		return err
	}
	return bw.Flush()
}
