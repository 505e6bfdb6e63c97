// Package quote shortens and escapes input that orprof echoes back: error lines quote at most
// Max bytes of what they name, and text meant for a terminal carries no control characters.
// The CLI and every package that names bad input in an error use it, so that a 60 KB config
// line or a 5,000-digit number gives a line a person can read.
package quote

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Max is how many bytes of input an error line quotes before it cuts with "…".
const Max = 100

// Clip returns s when it is at most Max bytes long, else its first Max bytes or fewer (cut at
// a rune boundary) followed by "…".
func Clip(s string) string {
	if len(s) <= Max {
		return s
	}
	cut := Max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// String returns Clip(s) quoted as Go's %q does: in double quotes, with control characters and
// invalid UTF-8 escaped. The "…" of a cut string follows the closing quote, so the quoted part
// is exactly the input's first bytes.
func String(s string) string {
	if len(s) <= Max {
		return strconv.Quote(s)
	}
	c := Clip(s)
	return strconv.Quote(strings.TrimSuffix(c, "…")) + "…"
}

// Printable returns s with what a terminal would act on escaped, Go style: C0 and C1 control
// characters and DEL (so ANSI escape sequences: "\x1b[31m" becomes `\x1b[31m`), the Unicode
// bidirectional overrides and isolates, and bytes that are not UTF-8 (`\xff`). Everything else,
// backslashes included, is kept. A string with nothing to escape is returned as is, without
// allocating.
func Printable(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !needsEscape(r, n) {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			b.WriteString(`\x`)
			b.WriteString(hex2(byte(r)))
		default:
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)) + h)
		}
		i += n
	}
	return b.String()
}

func needsEscape(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}
