package jsonscan

import (
	"bytes"
	"encoding/json"
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
