// Package namecap caps the names a report repeats. An operator's name can be megabytes (a
// generated or mangled name; a trace written by a fuzzer); the report's table keeps it
// exact, once, and every other place that names it (the op tree, the kernel view's launching
// operators, the findings) carries its capped form: its first bytes, then "…" and a digest of
// the whole name, so that two long names stay two names after capping and one name caps
// the same way in every rank's summary, which merges them by name.
package namecap

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Max is the longest name Cap leaves as it is, in bytes; a capped name is no longer.
const Max = 1024

// Cap returns name when it is at most Max bytes, else its capped form ("PREFIX…[N bytes
// sha256:HEX]", at most Max bytes, cut at a character boundary). Cap of a capped name is
// that name.
func Cap(name string) string { return Shorten(name, Max, " bytes sha256:", SHA256) }

// Digest appends to b the bytes that tell name apart in its shortened form.
type Digest func(name string, b []byte) []byte

// SHA256 appends the first 8 bytes of name's SHA-256: Cap's, which summaries merge by.
func SHA256(name string, b []byte) []byte {
	sum := sha256.Sum256(bytesOf(name))
	return append(b, sum[:8]...)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C appends name's CRC-32C (Castagnoli): a digest for names that are only shown, cheap
// where the processor computes it.
func CRC32C(name string, b []byte) []byte {
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(bytesOf(name), castagnoli))
}

// bytesOf is name's bytes, not copied: a name may be megabytes. The digests only read them.
func bytesOf(name string) []byte { return unsafe.Slice(unsafe.StringData(name), len(name)) }

// Shorten returns name when it is at most limit bytes, else its first bytes, then
// "…[N" label HEX "]": N its length in bytes, HEX its digest. The result is at most limit
// bytes, cut at a character boundary, in one allocation.
func Shorten(name string, limit int, label string, digest Digest) string {
	if len(name) <= limit {
		return name
	}
	var buf [128]byte
	tail := append(buf[:0], "…["...)
	tail = strconv.AppendInt(tail, int64(len(name)), 10)
	tail = append(tail, label...)
	var sum [32]byte
	tail = hex.AppendEncode(tail, digest(name, sum[:0]))
	tail = append(tail, ']')
	cut := max(limit-len(tail), 0)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + string(tail)
}
