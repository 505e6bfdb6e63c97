// Package namecap caps the names a report repeats. An operator's name can be megabytes (a
// generated or mangled name; a trace written by a fuzzer); the report's table keeps it
// exact, once, and every other place that names it (the op tree, the kernel view's launching
// operators, the findings) carries its capped form: its first bytes, then "…" and a digest of
// the whole name, so that two long names stay two names after capping and one name caps
// the same way in every rank's summary, which merges them by name.
package namecap

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Max is the longest name Cap leaves as it is, in bytes; a capped name is no longer.
const Max = 1024

// Cap returns name when it is at most Max bytes, else its capped form ("PREFIX…[N bytes
// sha256:HEX]", at most Max bytes, cut at a character boundary). Cap of a capped name is
// that name.
func Cap(name string) string { return Shorten(name, Max, " bytes sha256:", 8) }

// Shorten returns name when it is at most limit bytes, else its first bytes, then
// "…[N" label HEX "]": N its length in bytes, HEX the first digestBytes of its SHA-256. The
// result is at most limit bytes, cut at a character boundary, in one allocation.
func Shorten(name string, limit int, label string, digestBytes int) string {
	if len(name) <= limit {
		return name
	}
	// The digest reads the name in place: no copy of a name that may be megabytes.
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(name), len(name)))
	var buf [128]byte
	tail := append(buf[:0], "…["...)
	tail = strconv.AppendInt(tail, int64(len(name)), 10)
	tail = append(tail, label...)
	tail = hex.AppendEncode(tail, sum[:digestBytes])
	tail = append(tail, ']')
	cut := max(limit-len(tail), 0)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + string(tail)
}
