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
)

// Max is the longest name Cap leaves as it is, in bytes; a capped name is no longer.
const Max = 1024

// Cap returns name when it is at most Max bytes, else its capped form ("PREFIX…[N bytes
// sha256:HEX]", at most Max bytes, cut at a character boundary). Cap of a capped name is
// that name.
func Cap(name string) string {
	if len(name) <= Max {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	tail := "…[" + strconv.Itoa(len(name)) + " bytes sha256:" + hex.EncodeToString(sum[:8]) + "]"
	cut := Max - len(tail)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + tail
}
