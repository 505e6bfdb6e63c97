package jsonscan

import (
	"encoding/binary"
	"math"
	"strconv"
	"unsafe"
)

// JSON's number grammar, written once: the scanner's fast and general paths, Skip and the
// trace reader's Python renderer all match numbers with numberEnd. A token is whole when the byte after
// the match cannot continue it (!NumTable[b[end]]).

// NumKind says what Num found.
type NumKind uint8

const (
	NumInt   NumKind = iota // -?digits
	NumFloat                // with a fraction or an exponent
)

// NumTable marks the bytes a number token can hold. A number token is the longest run of them;
// it is valid when JSON's grammar matches all of it (so "01", "1." and "1e" are invalid
// tokens, not a number followed by something else).
var NumTable = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true,
	'6': true, '7': true, '8': true, '9': true, '-': true, '+': true, '.': true, 'e': true, 'E': true}

// numberEnd matches JSON's number grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
// against b from index i and returns the index just after the longest match and its kind;
// end == i when no number starts there.
func numberEnd(b []byte, i int) (end int, kind NumKind) {
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return start, 0
	}
	if c := b[i]; c == '0' {
		i++
	} else if c-'1' <= 8 {
		i++
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	} else {
		return start, 0
	}
	if i+1 < len(b) && b[i] == '.' && b[i+1]-'0' <= 9 {
		i += 2
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
		kind = NumFloat
	}
	if i < len(b) && b[i]|0x20 == 'e' {
		j := i + 1
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if j < len(b) && b[j]-'0' <= 9 {
			for j++; j < len(b) && b[j]-'0' <= 9; j++ {
			}
			i, kind = j, NumFloat
		}
	}
	return i, kind
}

// NumGrammar checks tok against JSON's number grammar.
func NumGrammar(tok []byte) (NumKind, bool) {
	end, kind := numberEnd(tok, 0)
	return kind, end > 0 && end == len(tok)
}

// Bstr views b as a string without copying, for the strconv parsers (which copy what they
// keep). b must not change while the string is in use.
func Bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// ParseInt parses an integer token; ok is false when tok is not an integer or overflows.
func ParseInt(tok []byte) (int64, bool) {
	if len(tok) == 0 || len(tok) > 20 {
		v, err := strconv.ParseInt(Bstr(tok), 10, 64)
		return v, err == nil
	}
	neg := tok[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	if i == len(tok) {
		return 0, false
	}
	var v uint64
	if n := len(tok) - i; n >= 8 && n <= 18 {
		// Eight digits at a time; 18 digits cannot overflow.
		for ; len(tok)-i >= 8; i += 8 {
			w := binary.LittleEndian.Uint64(tok[i:])
			if nonDigits(w) != 0 {
				return 0, false
			}
			v = v*1e8 + eightDigits(w)
		}
		for ; i < len(tok); i++ {
			c := tok[i] - '0'
			if c > 9 {
				return 0, false
			}
			v = v*10 + uint64(c)
		}
		if neg {
			return -int64(v), true
		}
		return int64(v), true
	}
	for ; i < len(tok); i++ {
		c := tok[i] - '0'
		if c > 9 {
			return 0, false
		}
		if v > (1<<63)/10 {
			return 0, false
		}
		v = v*10 + uint64(c)
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

// IntOf converts a number token of kind to an int64: an integer token in range, or, with
// wholeFloats, a float token whose value is a whole number of magnitude below 9.2e18.
func IntOf(tok []byte, kind NumKind, wholeFloats bool) (int64, bool) {
	switch {
	case kind == NumInt:
		return ParseInt(tok)
	case kind == NumFloat && wholeFloats:
		f, err := strconv.ParseFloat(Bstr(tok), 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 9.2e18 {
			return int64(f), true
		}
	}
	return 0, false
}

// nonDigits marks (with its top bit) exactly the bytes of w that are not '0'…'9'. No sum
// carries into the next byte: a byte's low seven bits plus 0x50 stay below 0x100.
func nonDigits(w uint64) uint64 {
	const lo7 = 0x7f7f7f7f7f7f7f7f
	x := w & lo7
	ge0 := x + 0x5050505050505050 // top bit: low bits ≥ '0'
	gt9 := x + 0x4646464646464646 // top bit: low bits > '9'
	return ^(ge0 &^ gt9 &^ w) & 0x8080808080808080
}

// eightDigits is the value of the eight ASCII digits in w, the first in its lowest byte: pairs,
// then quads, then the whole, each step one multiply.
func eightDigits(w uint64) uint64 {
	w &= 0x0f0f0f0f0f0f0f0f
	w = (w * (10<<8 + 1)) >> 8 & 0x00ff00ff00ff00ff
	w = (w * (100<<16 + 1)) >> 16 & 0x0000ffff0000ffff
	return (w * (10000<<32 + 1)) >> 32
}
