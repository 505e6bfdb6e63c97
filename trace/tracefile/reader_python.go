package tracefile

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/orprof/orprof/internal/jsonscan"
)

// pyShapes renders a Kineto "Input Dims" value (raw JSON text) as Python's str() of the
// shapes PyTorch's KinetoEvent.shapes() returns for the op: one list of sizes per input, where
// an input that is not a plain tensor — a TensorList written as a list of lists, a scalar
// written as [] — has the empty shape []. So [[64, 64], [[2, 3], [4]], []] renders as
// "[[64, 64], [], []]". A scalar element renders as Python's repr of it. ok is false when the
// value is not an array (the op then has no shapes).
func pyShapes(raw []byte) (string, bool) {
	p := pyParser{b: raw}
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '[' {
		return "", false
	}
	p.i++
	var out strings.Builder
	out.WriteByte('[')
	first := true
	for {
		p.ws()
		if p.i >= len(p.b) {
			return "", false
		}
		if p.b[p.i] == ']' {
			break
		}
		if !first {
			out.WriteString(", ")
		}
		first = false
		if p.b[p.i] == '[' {
			if !p.shape(&out) {
				return "", false
			}
		} else if !p.value(&out, 0) {
			return "", false
		}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
		}
	}
	out.WriteByte(']')
	return out.String(), true
}

// pyParser walks an in-memory, already validated JSON value.
type pyParser struct {
	b []byte
	i int
}

func (p *pyParser) ws() {
	for p.i < len(p.b) && jsonscan.Space[p.b[p.i]] {
		p.i++
	}
}

// shape renders one input's list: its scalars as a Python list, or [] when it nests lists.
func (p *pyParser) shape(out *strings.Builder) bool {
	start := p.i
	var tmp strings.Builder
	if !p.value(&tmp, 0) {
		return false
	}
	// Does the list hold a list or an object at its top level?
	inner := pyParser{b: p.b[start+1 : p.i-1]}
	for {
		inner.ws()
		if inner.i >= len(inner.b) {
			break
		}
		if c := inner.b[inner.i]; c == '[' || c == '{' {
			out.WriteString("[]")
			return true
		}
		var sink strings.Builder
		if !inner.value(&sink, 0) {
			return false
		}
		inner.ws()
		if inner.i < len(inner.b) && inner.b[inner.i] == ',' {
			inner.i++
		}
	}
	out.WriteString(tmp.String())
	return true
}

// value renders one JSON value as Python's repr of the object json.loads would build.
func (p *pyParser) value(out *strings.Builder, depth int) bool {
	p.ws()
	if p.i >= len(p.b) || depth > jsonscan.MaxDepth {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '[' || c == '{':
		closing := byte(']')
		if c == '{' {
			closing = '}'
		}
		out.WriteByte(c)
		p.i++
		first := true
		for {
			p.ws()
			if p.i >= len(p.b) {
				return false
			}
			if p.b[p.i] == closing {
				p.i++
				out.WriteByte(closing)
				return true
			}
			if !first {
				out.WriteString(", ")
			}
			first = false
			if !p.value(out, depth+1) {
				return false
			}
			if c == '{' {
				p.ws()
				if p.i >= len(p.b) || p.b[p.i] != ':' {
					return false
				}
				p.i++
				out.WriteString(": ")
				if !p.value(out, depth+1) {
					return false
				}
			}
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
			}
		}
	case c == '"':
		s, ok := p.str()
		if !ok {
			return false
		}
		out.WriteString(pyRepr(s))
		return true
	case c == 't':
		return p.lit(out, "true", "True")
	case c == 'f':
		return p.lit(out, "false", "False")
	case c == 'n':
		return p.lit(out, "null", "None")
	case c == 'N':
		return p.lit(out, "NaN", "nan")
	case c == 'I':
		return p.lit(out, "Infinity", "inf")
	}
	if strings.HasPrefix(string(p.b[p.i:]), "-Infinity") {
		return p.lit(out, "-Infinity", "-inf")
	}
	j := p.i
	for j < len(p.b) && jsonscan.NumTable[p.b[j]] {
		j++
	}
	tok := p.b[p.i:j]
	if len(tok) == 0 {
		return false
	}
	kind, ok := jsonscan.NumGrammar(tok)
	if !ok {
		return false
	}
	p.i = j
	if kind == jsonscan.NumInt {
		// Python ints are exact: keep the digits, dropping the sign of zero.
		if isZero(tok) {
			out.WriteByte('0')
		} else {
			out.Write(tok)
		}
		return true
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil && !math.IsInf(f, 0) {
		return false
	}
	out.WriteString(pyFloat(f))
	return true
}

func (p *pyParser) lit(out *strings.Builder, lit, py string) bool {
	if !strings.HasPrefix(string(p.b[p.i:]), lit) {
		return false
	}
	p.i += len(lit)
	out.WriteString(py)
	return true
}

// str decodes the JSON string at p.i with a throwaway scanner over the in-memory bytes.
func (p *pyParser) str() (string, bool) {
	s := jsonscan.NewBytes(p.b[p.i:], 0, "")
	v, err := s.Str()
	if err != nil {
		return "", false
	}
	p.i += int(s.Offset())
	return string(v), true
}

// pyFloat is Python's repr() of a float: the shortest round-trip digits, in fixed notation
// when the decimal exponent is in [−4, 16) (with at least one decimal: "2.0"), else
// scientific with a sign and at least two exponent digits ("1e+16", "1.5e-05").
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	if exp >= -4 && exp < 16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsAny(s, ".") {
			s += ".0"
		}
		return s
	}
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	es := strconv.Itoa(exp)
	if len(es) < 2 {
		es = "0" + es
	}
	return mant + "e" + sign + es
}

// pyRepr is Python's repr() of a str: single quotes unless the text holds a single quote and
// no double quote; backslash, the quote, \t \n \r escaped; other non-printable characters as
// \xNN, \uNNNN or \UNNNNNNNN.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hex2(int(r)))
		case r >= 0x80 && r < 0xa0:
			b.WriteString(`\x`)
			b.WriteString(hex2(int(r)))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

func hex2(v int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[v>>4&0xf], digits[v&0xf]})
}

// keepStackEntry is PyTorch's _filter_stack_entry: it drops the frames of autograd's own
// backward machinery and of PyTorch's profiling test helpers.
func keepStackEntry(entry string) bool {
	filtered := [...][2]string{
		{"autograd/__init__", "_make_grads"},
		{"autograd/__init__", "backward"},
		{"torch/tensor", "backward"},
		{"_internal/common_utils", "prof_callable"},
		{"_internal/common_utils", "prof_func_call"},
		{"_internal/common_utils", "prof_meth_call"},
	}
	for _, f := range filtered {
		if strings.Contains(entry, f[0]) && strings.Contains(entry, f[1]) {
			return false
		}
	}
	return true
}
