package tracefile

import (
	"bytes"
	"math"
	"strconv"

	"github.com/orprof/orprof/internal/jsonscan"
)

// Number tokens as the trace reader converts them: times to integer ns or Python floats, ids
// from the legacy exporter's strings.

// isZero reports whether a number token denotes zero ("-0", "-0.000", "-0e5").
func isZero(tok []byte) bool {
	for _, c := range tok {
		if c >= '1' && c <= '9' {
			return false
		}
		if c == 'e' || c == 'E' {
			return true
		}
	}
	return true
}

// parseMicrosToNs converts a µs number token to integer ns: exactly when it has at most three
// decimals and no exponent, else by rounding the float value.
func parseMicrosToNs(tok []byte, kind jsonscan.NumKind) (int64, bool) {
	if kind == jsonscan.NumInt {
		v, ok := jsonscan.ParseInt(tok)
		if !ok || v > math.MaxInt64/1000 || v < math.MinInt64/1000 {
			return 0, false
		}
		return v * 1000, true
	}
	dot := -1
	if n := len(tok); n >= 2 && tok[n-2] == '.' {
		dot = n - 2
	} else if n >= 3 && tok[n-3] == '.' {
		dot = n - 3
	} else if n >= 4 && tok[n-4] == '.' {
		dot = n - 4
	}
	if dot > 0 {
		ip, ok := jsonscan.ParseInt(tok[:dot])
		if ok && ip <= math.MaxInt64/1000-1 && ip >= math.MinInt64/1000+1 {
			var frac int64
			digits := 0
			for _, c := range tok[dot+1:] {
				frac = frac*10 + int64(c-'0')
				digits++
			}
			for ; digits < 3; digits++ {
				frac *= 10
			}
			if tok[0] == '-' {
				return ip*1000 - frac, true
			}
			return ip*1000 + frac, true
		}
	}
	if ns, ok := decimalMicrosToNs(tok); ok {
		return ns, true
	}
	f, err := strconv.ParseFloat(jsonscan.Bstr(tok), 64)
	if err != nil {
		return 0, false
	}
	ns := math.Round(f * 1000)
	if math.Abs(ns) >= 9.2e18 {
		return 0, false
	}
	return int64(ns), true
}

// decimalMicrosToNs converts a µs token with more than three decimals and no exponent to ns
// exactly: the digits past the third decimal round half away from zero, as math.Round does,
// but without a float64's 53 bits, which lose the ns of a µs time since the epoch
// (1.7e15 µs). It reports false for any other token.
func decimalMicrosToNs(tok []byte) (int64, bool) {
	neg := len(tok) > 0 && tok[0] == '-'
	t := tok
	if neg {
		t = t[1:]
	}
	dot := bytes.IndexByte(t, '.')
	if dot <= 0 || len(t)-dot-1 <= 3 || dot > 16 {
		return 0, false
	}
	var v int64
	for i, c := range t {
		if i == dot {
			continue
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		if i < dot+4 {
			if v > (math.MaxInt64-9)/10 {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		}
	}
	if rest := t[dot+4:]; rest[0] >= '5' && v < math.MaxInt64 {
		v++ // half away from zero: a 5 or more in the first dropped digit
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseFloatTok parses a number token into the float64 Python's float() would give.
func parseFloatTok(tok []byte, kind jsonscan.NumKind) (float64, bool) {
	if kind == jsonscan.NumInt {
		if v, ok := jsonscan.ParseInt(tok); ok && v < 1<<53 && v > -(1<<53) {
			return float64(v), true
		}
	}
	f, err := strconv.ParseFloat(jsonscan.Bstr(tok), 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func parseIDString(v []byte) (id int64, node int32, remote bool) {
	node = -1
	if i := bytes.Index(v, []byte("node_id:")); i >= 0 {
		if j := bytes.Index(v, []byte("thread_id:")); j >= 0 {
			n, okN := firstInt(v[i+len("node_id:"):])
			t, okT := firstInt(v[j+len("thread_id:"):])
			if okN && okT && n >= math.MinInt32 && n <= math.MaxInt32 {
				return t, int32(n), true
			}
		}
	}
	t, _ := firstInt(v)
	return t, node, false
}

// firstInt parses the first run of decimal digits in b (with a '-' right before it).
func firstInt(b []byte) (int64, bool) {
	i := 0
	for i < len(b) && (b[i] < '0' || b[i] > '9') {
		i++
	}
	if i == len(b) {
		return 0, false
	}
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if i > 0 && b[i-1] == '-' {
		i--
	}
	return jsonscan.ParseInt(b[i:j])
}
