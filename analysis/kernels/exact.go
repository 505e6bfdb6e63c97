package kernels

import (
	"math"
	"math/big"
	"math/bits"
)

// Exact statistics: a kernel's durations are whole ns (tracefile.Event's EndNs − StartNs),
// and its summary keeps their count, their sum (int64 ns) and the sum of their squares (an
// unsigned 128-bit integer of ns²). Sums of integers do not depend on the order they are
// added in, so a summary is the same bits however its events arrive and however ranks are
// merged; the mean and the standard deviation are functions of those integers alone.
//
// Bounds: a summary's device time (every kernel's total on every rank) is below 2⁶³ ns
// (292 years), which the Collector and Merge check. Then every total fits an int64 and, the
// durations being ≥ 0, Σd² ≤ (Σd)² < 2¹²⁶ fits 128 bits.

// u128 is an unsigned 128-bit integer.
type u128 struct{ hi, lo uint64 }

// square is d² (d ≥ 0).
func square(d int64) u128 {
	hi, lo := bits.Mul64(uint64(d), uint64(d))
	return u128{hi, lo}
}

// add returns a + b and whether it overflowed 128 bits.
func (a u128) add(b u128) (u128, bool) {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, c := bits.Add64(a.hi, b.hi, c)
	return u128{hi, lo}, c != 0
}

func (a u128) big() *big.Int {
	return new(big.Int).Or(new(big.Int).Lsh(new(big.Int).SetUint64(a.hi), 64), new(big.Int).SetUint64(a.lo))
}

// String is a's decimal digits.
func (a u128) String() string { return a.big().String() }

// parseU128 reads decimal digits (no sign, no leading zero but for "0", at most 2¹²⁸ − 1).
func parseU128(s string) (u128, bool) {
	if s == "" || len(s) > 39 || len(s) > 1 && s[0] == '0' {
		return u128{}, false
	}
	var a u128
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return u128{}, false
		}
		// a = a*10 + c
		h1, l1 := bits.Mul64(a.lo, 10)
		h2, l2 := bits.Mul64(a.hi, 10)
		if h2 != 0 {
			return u128{}, false
		}
		hi, carry := bits.Add64(h1, l2, 0)
		if carry != 0 {
			return u128{}, false
		}
		lo, carry := bits.Add64(l1, uint64(c-'0'), 0)
		hi, carry = bits.Add64(hi, 0, carry)
		if carry != 0 {
			return u128{}, false
		}
		a = u128{hi, lo}
	}
	return a, true
}

// MarshalJSON writes a as a JSON string of its decimal digits: a JSON number past 2⁵³ would
// not survive JavaScript (the report's page) or many other readers.
func (a u128) MarshalJSON() ([]byte, error) { return []byte(`"` + a.String() + `"`), nil }

// UnmarshalJSON reads what MarshalJSON writes.
func (a *u128) UnmarshalJSON(b []byte) error {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return errNotU128
	}
	v, ok := parseU128(string(b[1 : len(b)-1]))
	if !ok {
		return errNotU128
	}
	*a = v
	return nil
}

type u128Error struct{}

func (u128Error) Error() string {
	return "sum_sq_ns2 must be a string of decimal digits below 2^128"
}

var errNotU128 error = u128Error{}

// addNs returns a + b and whether it left int64's range (a, b ≥ 0).
func addNs(a, b int64) (int64, bool) {
	s := a + b
	return s, s < a || s < b
}

// nsToUs is ns/1000 rounded once to the nearest float64.
func nsToUs(ns int64) float64 {
	if ns > -1<<53 && ns < 1<<53 {
		return float64(ns) / 1000 // an exact operand: one rounding
	}
	f, _ := new(big.Rat).SetFrac(big.NewInt(ns), big.NewInt(1000)).Float64()
	return f
}

// meanUs is total/(1000·n) µs rounded once to the nearest float64.
func meanUs(totalNs, n int64) float64 {
	if n <= 0 {
		return 0
	}
	if totalNs < 1<<53 && n < (1<<53)/1000 {
		return float64(totalNs) / float64(n*1000)
	}
	d := new(big.Int).Mul(big.NewInt(n), big.NewInt(1000))
	f, _ := new(big.Rat).SetFrac(big.NewInt(totalNs), d).Float64()
	return f
}

// stdUs is the sample standard deviation in µs of n durations of sum t and sum of squares
// s2 (ns, ns²): √((n·s2 − t²) / (n(n − 1))) / 1000, the numerator an exact integer, the
// rest in 128-bit floating point, then rounded to float64. 0 for n < 2.
func stdUs(n, t int64, s2 u128) float64 {
	if n < 2 {
		return 0
	}
	bn := big.NewInt(n)
	num := new(big.Int).Mul(bn, s2.big())
	num.Sub(num, new(big.Int).Mul(big.NewInt(t), big.NewInt(t)))
	if num.Sign() <= 0 { // equal durations (or, only in a hand-made Kernel, an impossible s2)
		return 0
	}
	den := new(big.Int).Mul(bn, big.NewInt(n-1))
	den.Mul(den, big.NewInt(1_000_000)) // ns² → µs²
	const prec = 128
	q := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).SetInt(num), new(big.Float).SetPrec(prec).SetInt(den))
	f, _ := new(big.Float).SetPrec(prec).Sqrt(q).Float64()
	return f
}

// bucketMidNs is the geometric middle of histogram bucket b, in ns.
func bucketMidNs(b int32) float64 {
	if b < 0 {
		return 0
	}
	return math.Exp2((float64(b) + 0.5) / bucketsPerOctave)
}
