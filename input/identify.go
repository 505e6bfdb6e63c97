package input

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// maxKey is the longest key, as written (escapes included), kept to be compared with the
// kinds' keys; a longer one is skipped.
const maxKey = 256

// Identify says what the document r holds (plain bytes, gzip already undone). It reads the
// top-level keys of the object in order until one names a kind, skipping the values before
// it; it reads no further than that. Malformed JSON, a JSON array or an object without such a
// key is a Trace.
func Identify(r io.Reader) Kind {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	s := scanner{br: br}
	return s.identify()
}

// IdentifyBytes is Identify of a document in memory.
func IdentifyBytes(doc []byte) Kind { return Identify(bytes.NewReader(doc)) }

// scanner skips JSON values on a bufio.Reader without decoding them.
type scanner struct {
	br  *bufio.Reader
	bad bool // the input ended or is not JSON
}

func (s *scanner) identify() Kind {
	if b, _ := s.br.Peek(3); bytes.Equal(b, utf8BOM) {
		s.br.Discard(3)
	}
	if s.next() != '{' {
		return Trace
	}
	s.br.Discard(1)
	for {
		switch s.next() {
		case '"':
		default: // '}' (no key names a kind), or not JSON
			return Trace
		}
		key, ok := s.key()
		if !ok || s.next() != ':' {
			return Trace
		}
		s.br.Discard(1)
		if k, named := kindKeys[key]; named {
			return k
		}
		s.skipValue()
		if s.bad || s.next() != ',' {
			return Trace
		}
		s.br.Discard(1)
	}
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// next skips whitespace and returns the next byte, unread; 0 at the end of the input.
func (s *scanner) next() byte {
	for {
		buf := s.chunk()
		if len(buf) == 0 {
			s.bad = true
			return 0
		}
		for i, c := range buf {
			if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
				s.br.Discard(i)
				return c
			}
		}
		s.br.Discard(len(buf))
	}
}

// chunk returns the buffered bytes, reading more when there are none; empty at the end.
func (s *scanner) chunk() []byte {
	if s.br.Buffered() == 0 {
		if _, err := s.br.Peek(1); err != nil {
			return nil
		}
	}
	buf, _ := s.br.Peek(s.br.Buffered())
	return buf
}

// key reads the string at the reader (its quote next) and returns its value when it is short
// enough to be a kind's key (else "").
func (s *scanner) key() (string, bool) {
	var raw []byte
	s.br.Discard(1)
	raw = append(raw, '"')
	for {
		buf := s.chunk()
		if len(buf) == 0 {
			return "", false
		}
		i := bytes.IndexAny(buf, `"\`)
		if i < 0 {
			raw = appendMax(raw, buf)
			s.br.Discard(len(buf))
			continue
		}
		if buf[i] == '\\' {
			if i+1 >= len(buf) {
				raw = appendMax(raw, buf[:i])
				s.br.Discard(i)
				if b, err := s.br.Peek(2); err != nil || len(b) < 2 {
					return "", false
				}
				continue
			}
			raw = appendMax(raw, buf[:i+2])
			s.br.Discard(i + 2)
			continue
		}
		raw = appendMax(raw, buf[:i+1])
		s.br.Discard(i + 1)
		if len(raw) > maxKey {
			return "", true
		}
		var k string
		if bytes.IndexByte(raw, '\\') < 0 {
			return string(raw[1 : len(raw)-1]), true
		}
		if json.Unmarshal(raw, &k) != nil {
			return "", false
		}
		return k, true
	}
}

// appendMax appends b to raw while raw is at most maxKey+1 bytes long.
func appendMax(raw, b []byte) []byte {
	if len(raw) > maxKey {
		return raw
	}
	return append(raw, b[:min(len(b), maxKey+1-len(raw))]...)
}

// skipValue skips one JSON value: a string, an object or array (brackets counted, strings
// skipped whole) or a scalar.
func (s *scanner) skipValue() {
	switch s.next() {
	case '"':
		s.br.Discard(1)
		s.skipString()
	case '{', '[':
		s.skipContainer()
	case 0:
	default:
		for {
			buf := s.chunk()
			if len(buf) == 0 {
				return // a scalar at the end: the object is not closed
			}
			if i := bytes.IndexAny(buf, ",}] \t\r\n"); i >= 0 {
				s.br.Discard(i)
				return
			}
			s.br.Discard(len(buf))
		}
	}
}

// skipString skips the rest of a string whose opening quote is read.
func (s *scanner) skipString() {
	for {
		buf := s.chunk()
		if len(buf) == 0 {
			s.bad = true
			return
		}
		i := bytes.IndexAny(buf, `"\`)
		switch {
		case i < 0:
			s.br.Discard(len(buf))
		case buf[i] == '"':
			s.br.Discard(i + 1)
			return
		default: // a backslash: skip it and the byte it escapes
			s.br.Discard(i + 1)
			if _, err := s.br.ReadByte(); err != nil {
				s.bad = true
				return
			}
		}
	}
}

// skipContainer skips an object or an array, its opening bracket next.
func (s *scanner) skipContainer() {
	depth := 0
	for {
		buf := s.chunk()
		if len(buf) == 0 {
			s.bad = true
			return
		}
		i := bytes.IndexAny(buf, `"{}[]`)
		if i < 0 {
			s.br.Discard(len(buf))
			continue
		}
		c := buf[i]
		s.br.Discard(i + 1)
		switch c {
		case '"':
			s.skipString()
			if s.bad {
				return
			}
		case '{', '[':
			depth++
		default:
			if depth--; depth == 0 {
				return
			}
		}
	}
}
