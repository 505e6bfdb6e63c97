// Package sniff tells what a profile file holds from its first bytes: a trace, or one of the
// summaries orprof writes as JSON (each an object whose first key names its kind). Every
// reader of summaries (report, input/ranks, kernels, timeline) looks through it, plain or
// gzip alike, so that the same file is recognized the same way by every command.
package sniff

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// FirstKey reports whether prefix (plain bytes) starts a JSON object whose first key is key:
// a UTF-8 byte order mark and JSON whitespace are allowed before the '{' and the key.
func FirstKey(prefix []byte, key string) bool {
	p := bytes.TrimPrefix(prefix, utf8BOM)
	p = bytes.TrimLeft(p, " \t\r\n")
	if len(p) == 0 || p[0] != '{' {
		return false
	}
	p = bytes.TrimLeft(p[1:], " \t\r\n")
	return bytes.HasPrefix(p, []byte(`"`+key+`"`))
}

// IsGzip reports whether b starts with gzip's magic bytes.
func IsGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// Head reads up to n bytes from the start of r, through its gzip layer when r is gzip. A gzip
// header that does not parse gives no bytes (the trace reader reports it).
func Head(r io.Reader, n int) []byte {
	br := bufio.NewReader(r)
	r = br
	if m, _ := br.Peek(2); IsGzip(m) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil
		}
		defer gz.Close()
		r = gz
	}
	buf := make([]byte, n)
	k, _ := io.ReadFull(r, buf)
	return buf[:k]
}

// FileHead is Head of the file at path; the error is the open's.
func FileHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Head(f, n), nil
}
