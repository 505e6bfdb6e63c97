package jsonscan

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"testing/iotest"
)

// FuzzSkip checks the scanner's grammar against encoding/json's: whatever json.Valid accepts,
// Skip reads whole — from one buffer, and fed one byte at a time so that every token crosses a
// refill — and what Skip reads whole is valid JSON unless it holds what the scanner accepts on
// purpose beyond RFC 8259 (NaN and Infinity, control characters in strings).
func FuzzSkip(f *testing.F) {
	for _, seed := range []string{`{"a": [1, 2.5e-3, -0, "x\"y\u00e9"], "b": {}}`, `[true, false, null]`,
		`01`, `1.`, `-`, `1e+`, `"\ud83d\ude00"`, `[NaN, -Infinity]`, `{"a" 1}`, ` 12 `, `[[[[]]]]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)
		for _, s := range []*Scanner{New(bytes.NewReader(data), "f", nil),
			New(iotest.OneByteReader(bytes.NewReader(data)), "f", nil)} {
			err := s.Skip()
			_, more := s.Peek()
			whole := err == nil && !more
			if valid && !whole {
				t.Fatalf("json.Valid accepts %q, Skip: %v (more input: %v)", data, err, more)
			}
			if whole && !valid && !bytes.ContainsAny(data, "NI") && !hasControl(data) {
				t.Fatalf("Skip reads %q whole, json.Valid rejects it", data)
			}
		}
	})
}

// hasControl reports whether b holds a control character, which the scanner accepts inside
// strings (it cannot tell here whether one is inside a string or whitespace outside).
func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// FuzzNumbers checks the scanner's two number fast paths against its general path: what Fixed3
// takes is the token Num reads, worth that many thousandths exactly, and what Int reads is what
// Num and IntOf make of the same token.
func FuzzNumbers(f *testing.F) {
	for _, seed := range []string{"3605057436205.604,", "319.6 ", "0,", "7}", "-1,", "01,", "1.2345,",
		"1e3,", "999999999999999.999,", "9223372036854775807,", "9223372036854775808,", "12.0,", "1.,", "x"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		general := func() ([]byte, NumKind, error) { return NewBytes(data, 0, "f").Num() }
		s := NewBytes(data, 0, "f")
		if v, ok := s.Fixed3(); ok {
			tok, kind, err := general()
			if err != nil || len(tok) != s.pos {
				t.Fatalf("Fixed3 takes %q (%d bytes) of %q, Num: %q %v", data[:s.pos], s.pos, data, tok, err)
			}
			f, err := strconv.ParseFloat(string(tok), 64)
			if err != nil || kind == NumInt && float64(v) != f*1000 || math.Abs(float64(v)-f*1000) > 0.5+f*1e-12 {
				t.Fatalf("Fixed3 reads %q as %d thousandths", tok, v)
			}
		}
		if c, _ := NewBytes(data, 0, "f").Peek(); c != '-' && c-'0' > 9 {
			return // Int skips a value of another type; Num rejects it
		}
		v, ok, err := NewBytes(data, 0, "f").Int(true)
		tok, kind, gerr := general()
		if (err == nil) != (gerr == nil) {
			t.Fatalf("Int of %q: %v, Num: %v", data, err, gerr)
		}
		if err == nil {
			w, wok := IntOf(tok, kind, true)
			if ok != wok || v != w {
				t.Fatalf("Int of %q: %d %v, Num and IntOf: %d %v", data, v, ok, w, wok)
			}
		}
	})
}
