package tracefile

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// scanner is a streaming, allocation-free JSON tokenizer over an io.Reader. It reads through
// one buffer that it refills (and grows only when a single token does not fit), hands out byte
// slices into that buffer, and skips values it is not asked about without materialising them.
//
// A slice returned by str or num is valid until the next call that may read more input (any
// other scanner method). Callers that need a value longer copy or intern it first.
//
// It accepts RFC 8259 JSON plus the three non-finite literals Python's json module reads and
// writes (NaN, Infinity, -Infinity); they are reported as numbers and rejected by the callers
// that need finite values. Control characters inside strings are not rejected.
type scanner struct {
	r     io.Reader
	file  string
	buf   []byte
	pos   int   // next unread byte in buf
	end   int   // end of the valid bytes in buf
	off   int64 // input offset of buf[0]
	keep  int   // −1, or the index in buf from which bytes must survive a refill
	eof   bool  // r is exhausted (or failed); see done for the end of the input
	rerr  error // a read error other than io.EOF
	total int64 // bytes read from r so far

	// In parallel mode (reader_parallel.go) input that was already read from r is handed back
	// to the scanner: pre first, then the chunks feed returns until it returns nil, then r.
	pre  []byte
	feed func() []byte

	progress func(int64)
	scratch  []byte // decoded strings that contained escapes
}

const (
	scanBufSize  = 256 << 10
	maxScanDepth = 10000
)

func newScanner(r io.Reader, file string, progress func(int64)) *scanner {
	return &scanner{r: r, file: file, buf: make([]byte, scanBufSize), keep: -1, progress: progress}
}

// offset is the input offset of the next unread byte.
func (s *scanner) offset() int64 { return s.off + int64(s.pos) }

// errAt builds a Error at input offset off.
func (s *scanner) errAt(off int64, format string, args ...any) error {
	return &Error{File: s.file, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// errHere builds a Error at the next unread byte; at the end of the input it reports the
// read error or the truncation instead.
func (s *scanner) errHere(format string, args ...any) error {
	if s.pos >= s.end && s.done() {
		return s.errEOF()
	}
	return s.errAt(s.offset(), format, args...)
}

// errEOF reports that the input ended (or failed) where more JSON was needed.
func (s *scanner) errEOF() error {
	if s.rerr != nil {
		return &Error{File: s.file, Offset: s.offset(), Msg: "read failed", Err: s.rerr}
	}
	return s.errAt(s.offset(), "unexpected end of input (truncated JSON?)")
}

// done reports whether no input is left beyond the buffered bytes.
func (s *scanner) done() bool { return s.eof && len(s.pre) == 0 && s.feed == nil }

// fill reads more input, moving the unread bytes (and the bytes from keep) to the front of the
// buffer first and growing it when it is full. It reports whether any byte was added. Indices
// into buf held across a fill must be re-based on pos (pos keeps its distance to them).
func (s *scanner) fill() bool {
	if s.done() {
		return false
	}
	start := s.pos
	if s.keep >= 0 && s.keep < start {
		start = s.keep
	}
	if start > 0 {
		n := copy(s.buf, s.buf[start:s.end])
		s.off += int64(start)
		s.pos -= start
		s.end = n
		if s.keep >= 0 {
			s.keep -= start
		}
	}
	if s.end == len(s.buf) {
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for len(s.pre) == 0 && s.feed != nil {
		if s.pre = s.feed(); s.pre == nil {
			s.feed = nil
		}
	}
	if len(s.pre) > 0 {
		n := copy(s.buf[s.end:], s.pre)
		s.pre = s.pre[n:]
		s.end += n
		return true
	}
	if s.eof {
		return false
	}
	n := s.readSome(s.buf[s.end:])
	s.end += n
	return n > 0
}

// readSome reads from r into p (non-empty), retrying reads that return nothing. It counts the
// bytes, reports progress, and sets eof (and rerr) when r ends or fails; it returns 0 only then.
func (s *scanner) readSome(p []byte) int {
	for empty := 0; ; empty++ {
		if empty == 100 {
			s.eof, s.rerr = true, io.ErrNoProgress
			return 0
		}
		n, err := s.r.Read(p)
		if n < 0 || n > len(p) {
			s.eof, s.rerr = true, fmt.Errorf("reader returned invalid count %d", n)
			return 0
		}
		s.total += int64(n)
		if n > 0 && s.progress != nil {
			s.progress(s.total)
		}
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.rerr = err
			}
			return n
		}
		if n > 0 {
			return n
		}
	}
}

// wsTable marks the four JSON whitespace bytes.
var wsTable = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// peek skips whitespace and returns the next byte without consuming it; ok is false at the end
// of the input.
func (s *scanner) peek() (byte, bool) {
	if p := s.pos; p+1 < s.end {
		if c := s.buf[p]; c > ' ' {
			return c, true
		} else if c == ' ' && s.buf[p+1] > ' ' { // the one space after ':' and ','
			s.pos = p + 1
			return s.buf[p+1], true
		}
	}
	return s.peekSlow()
}

func (s *scanner) peekSlow() (byte, bool) {
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			if !wsTable[c] {
				return c, true
			}
			s.pos++
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// next skips whitespace and consumes one byte, which must exist.
func (s *scanner) next() (byte, error) {
	c, ok := s.peek()
	if !ok {
		return 0, s.errEOF()
	}
	s.pos++
	return c, nil
}

// expect consumes the byte c after optional whitespace.
func (s *scanner) expect(c byte, what string) error {
	d, ok := s.peek()
	if !ok {
		return s.errEOF()
	}
	if d != c {
		return s.errAt(s.offset(), "expected %s, found %s", what, quoteByte(d))
	}
	s.pos++
	return nil
}

// more is called after an element of an array or a member of an object: it consumes the ','
// and reports true, or consumes the closing byte and reports false.
func (s *scanner) more(closing byte) (bool, error) {
	if p := s.pos; p < s.end {
		switch s.buf[p] {
		case ',':
			s.pos = p + 1
			return true, nil
		case closing:
			s.pos = p + 1
			return false, nil
		}
	}
	c, ok := s.peek()
	if !ok {
		return false, s.errEOF()
	}
	s.pos++
	switch c {
	case ',':
		return true, nil
	case closing:
		return false, nil
	}
	s.pos--
	return false, s.errAt(s.offset(), "expected ',' or '%c', found %s", closing, quoteByte(c))
}

// first is called after '[' or '{': it consumes the closing byte of an empty container and
// reports false, or reports true when there is a first element.
func (s *scanner) first(closing byte) (bool, error) {
	c, ok := s.peek()
	if !ok {
		return false, s.errEOF()
	}
	if c == closing {
		s.pos++
		return false, nil
	}
	return true, nil
}

// key reads an object member name and the ':' after it.
func (s *scanner) key() ([]byte, error) {
	// Fast path: a short name without escapes, followed by ':', all in the buffered bytes.
	b := s.buf[:s.end]
	i := s.pos
	for i < len(b) && wsTable[b[i]] {
		i++
	}
	if i+1 < len(b) {
		if b[i] == '"' {
			for j := i + 1; j < len(b) && j < i+33; j++ {
				if c := b[j]; c == '"' {
					if j+1 < len(b) && b[j+1] == ':' {
						s.pos = j + 2
						return b[i+1 : j], nil
					}
					break
				} else if c == '\\' {
					break
				}
			}
		}
	}
	c, ok := s.peek()
	if !ok {
		return nil, s.errEOF()
	}
	if c != '"' {
		return nil, s.errAt(s.offset(), "expected a member name string, found %s", quoteByte(c))
	}
	k, err := s.str()
	if err != nil {
		return nil, err
	}
	// The ':' is almost always the next byte; keep k valid by not refilling in that case.
	if s.pos < s.end && s.buf[s.pos] == ':' {
		s.pos++
		return k, nil
	}
	if s.pos+1 < s.end && s.buf[s.pos] == ' ' && s.buf[s.pos+1] == ':' {
		s.pos += 2
		return k, nil
	}
	// Slow path: whitespace may span a refill, which could move k. Copy it.
	s.scratch = append(s.scratch[:0], k...)
	if err := s.expect(':', "':'"); err != nil {
		return nil, err
	}
	return s.scratch, nil
}

// str reads a string (the next non-space byte must be '"') and returns its decoded bytes.
func (s *scanner) str() ([]byte, error) {
	if s.pos >= s.end || s.buf[s.pos] != '"' {
		if _, ok := s.peek(); !ok {
			return nil, s.errEOF()
		}
	}
	start := s.pos // at '"'
	i := start + 1
	// Most strings are short: a plain loop beats IndexByte's call for them.
	if b := s.buf[:s.end]; len(b)-i > 24 {
		for j := i; j < i+24; j++ {
			switch b[j] {
			case '"':
				s.pos = j + 1
				return b[i:j], nil
			case '\\':
				return s.strEscaped(start)
			}
		}
		i += 24
	}
	for {
		q := bytes.IndexByte(s.buf[i:s.end], '"')
		if q >= 0 {
			q += i
			if bytes.IndexByte(s.buf[start+1:q], '\\') < 0 {
				s.pos = q + 1
				return s.buf[start+1 : q], nil
			}
			return s.strEscaped(start)
		}
		// No quote in the buffered bytes: read more and look again from where we stopped.
		// pos is still at the opening quote, so fill keeps the string's bytes.
		rel := s.end - start
		if !s.fill() {
			s.pos = s.end
			return nil, s.errEOF()
		}
		start = s.pos
		i = start + rel
	}
}

// strEscaped decodes the string starting at buf[start] (a '"') that holds escapes into scratch.
func (s *scanner) strEscaped(start int) ([]byte, error) {
	s.pos = start + 1
	out := s.scratch[:0]
	for {
		if s.pos >= s.end {
			if !s.fill() {
				return nil, s.errEOF()
			}
			continue
		}
		c := s.buf[s.pos]
		switch {
		case c == '"':
			s.pos++
			s.scratch = out
			return out, nil
		case c != '\\':
			out = append(out, c)
			s.pos++
			continue
		}
		escOff := s.offset()
		// An escape needs up to 6 bytes ("\uXXXX").
		for s.end-s.pos < 6 && s.fill() {
		}
		if s.end-s.pos < 2 {
			s.pos = s.end
			return nil, s.errEOF()
		}
		e := s.buf[s.pos+1]
		s.pos += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return nil, s.errAt(escOff, "invalid \\u escape in string")
			}
			if utf16.IsSurrogate(r) {
				// Try to pair it with a following \uXXXX low surrogate.
				for s.end-s.pos < 6 && s.fill() {
				}
				if s.end-s.pos >= 6 && s.buf[s.pos] == '\\' && s.buf[s.pos+1] == 'u' {
					save := s.pos
					s.pos += 2
					r2, ok2 := s.hex4()
					if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
						r = dec
					} else {
						s.pos = save
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, s.errAt(escOff, "invalid escape '\\%c' in string", e)
		}
	}
}

// hex4 decodes four hex digits at pos (already buffered by the caller).
func (s *scanner) hex4() (rune, bool) {
	if s.end-s.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s.buf[s.pos : s.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	s.pos += 4
	return r, true
}

// skipStr skips a string without decoding it.
func (s *scanner) skipStr() error {
	if _, ok := s.peek(); !ok {
		return s.errEOF()
	}
	i := s.pos + 1
	if b := s.buf[:s.end]; len(b)-i > 24 {
		for j := i; j < i+24; j++ {
			switch b[j] {
			case '"':
				s.pos = j + 1
				return nil
			case '\\':
				j = i + 24 // escapes: take the general path
			}
		}
	}
	for {
		for i < s.end {
			q := bytes.IndexByte(s.buf[i:s.end], '"')
			if q < 0 {
				i = s.end
				break
			}
			q += i
			// Count the backslashes right before the quote: an odd count escapes it.
			n := 0
			for j := q - 1; j > s.pos && s.buf[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				if err := s.checkEscapes(s.pos, q); err != nil {
					return err
				}
				s.pos = q + 1
				return nil
			}
			i = q + 1
		}
		rel := i - s.pos
		if !s.fill() {
			s.pos = s.end
			return s.errEOF()
		}
		i = s.pos + rel
	}
}

// checkEscapes verifies the escapes of the string buf[open] .. buf[close] (both quotes).
func (s *scanner) checkEscapes(open, close int) error {
	b := s.buf[open+1 : close]
	for {
		k := bytes.IndexByte(b, '\\')
		if k < 0 {
			return nil
		}
		if k+1 >= len(b) {
			return s.errAt(s.off+int64(close-len(b)+k), "invalid escape in string")
		}
		switch b[k+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			b = b[k+2:]
		case 'u':
			if k+6 > len(b) || !isHex(b[k+2]) || !isHex(b[k+3]) || !isHex(b[k+4]) || !isHex(b[k+5]) {
				return s.errAt(s.off+int64(close-len(b)+k), "invalid \\u escape in string")
			}
			b = b[k+6:]
		default:
			return s.errAt(s.off+int64(close-len(b)+k), "invalid escape '\\%c' in string", b[k+1])
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// numKind says what num found.
type numKind uint8

const (
	numInt    numKind = iota // -?digits
	numFloat                 // with a fraction or an exponent
	numNonFin                // NaN, Infinity, -Infinity
)

// numTable marks the bytes a number token can hold.
var numTable = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true,
	'6': true, '7': true, '8': true, '9': true, '-': true, '+': true, '.': true, 'e': true, 'E': true}

// num reads a number token and validates its grammar. The next non-space byte must start it.
func (s *scanner) num() ([]byte, numKind, error) {
	if _, ok := s.peek(); !ok {
		return nil, 0, s.errEOF()
	}
	if tok, kind, ok := s.numFast(); ok {
		return tok, kind, nil
	}
	start := s.pos
	i := start
	for {
		for i < s.end && numTable[s.buf[i]] {
			i++
		}
		if i < s.end || s.done() {
			break
		}
		rel := i - start // pos is still at start, so fill keeps the token
		s.fill()
		start = s.pos
		i = start + rel
	}
	tok := s.buf[start:i]
	if len(tok) == 0 || (len(tok) == 1 && tok[0] == '-') {
		// Maybe a non-finite literal.
		return s.nonFinite(start)
	}
	kind, ok := numGrammar(tok)
	if !ok {
		return nil, 0, s.errAt(s.off+int64(start), "invalid number %q", tok)
	}
	s.pos = i
	return tok, kind, nil
}

// numFast scans a plain number (-?digits(.digits)?) that ends inside the buffered bytes in one
// pass. ok is false for anything else (exponents, bad grammar, a token at the buffer's end),
// which the general path then handles.
func (s *scanner) numFast() ([]byte, numKind, bool) {
	b := s.buf[:s.end]
	start := s.pos
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	d := i
	for i < len(b) && b[i]-'0' <= 9 {
		i++
	}
	if i == d || (b[d] == '0' && i-d > 1) {
		return nil, 0, false
	}
	kind := numInt
	if i < len(b) && b[i] == '.' {
		i++
		f := i
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
		if i == f {
			return nil, 0, false
		}
		kind = numFloat
	}
	if i >= len(b) || numTable[b[i]] {
		return nil, 0, false
	}
	s.pos = i
	return b[start:i], kind, true
}

// nonFinite reads NaN, Infinity or -Infinity at buf[start].
func (s *scanner) nonFinite(start int) ([]byte, numKind, error) {
	s.pos = start
	for _, lit := range [...]string{"NaN", "Infinity", "-Infinity"} {
		if s.literal(lit) {
			return []byte(lit), numNonFin, nil
		}
	}
	// literal may have refilled the buffer, which moves the token: pos is still at its start.
	return nil, 0, s.errAt(s.offset(), "invalid value starting with %s", quoteByte(s.buf[s.pos]))
}

// literal consumes lit if the input continues with it.
func (s *scanner) literal(lit string) bool {
	for s.end-s.pos < len(lit) && s.fill() {
	}
	if s.end-s.pos >= len(lit) && string(s.buf[s.pos:s.pos+len(lit)]) == lit {
		s.pos += len(lit)
		return true
	}
	return false
}

// numGrammar checks tok against JSON's number grammar.
func numGrammar(tok []byte) (numKind, bool) {
	i := 0
	if tok[0] == '-' {
		i++
	}
	if i >= len(tok) {
		return 0, false
	}
	if tok[i] == '0' {
		i++
	} else if tok[i] >= '1' && tok[i] <= '9' {
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
		}
	} else {
		return 0, false
	}
	kind := numInt
	if i < len(tok) && tok[i] == '.' {
		i++
		d := i
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
		}
		if i == d {
			return 0, false
		}
		kind = numFloat
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		d := i
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
		}
		if i == d {
			return 0, false
		}
		kind = numFloat
	}
	return kind, i == len(tok)
}

// skip skips one value of any type.
func (s *scanner) skip() error {
	if s.skipFast() {
		return nil
	}
	return s.skipDepth(0)
}

// skipFast skips one value that lies wholly in the buffered bytes and holds only the common
// forms — strings without escapes, plain numbers (-?digits[.digits]), true, false, null, and
// arrays and objects of those nested at most 32 deep — and reports true. On anything else,
// or at the end of the buffered bytes, it consumes nothing and reports false, and skipDepth
// reads (and validates, and reports errors in) the value as always. Whatever it accepts,
// skipDepth accepts the same way.
func (s *scanner) skipFast() bool {
	b := s.buf[:s.end]
	i := s.pos
	var closers [32]byte
	depth := 0
	for {
		// A value starts at i, after optional whitespace.
		for i < len(b) && wsTable[b[i]] {
			i++
		}
		if i >= len(b) {
			return false
		}
		switch c := b[i]; c {
		case '"':
			q := bytes.IndexByte(b[i+1:], '"')
			if q < 0 || bytes.IndexByte(b[i+1:i+1+q], '\\') >= 0 {
				return false
			}
			i += q + 2
		case '[', '{':
			if depth == len(closers) {
				return false
			}
			closers[depth] = c + 2 // ']' and '}'
			depth++
			i++
			for i < len(b) && wsTable[b[i]] {
				i++
			}
			if i >= len(b) {
				return false
			}
			if b[i] == c+2 { // empty
				depth--
				i++
				break
			}
			if c == '{' {
				if i = skipKeyFast(b, i); i < 0 {
					return false
				}
			}
			continue
		case 't', 'n':
			lit := "true"
			if c == 'n' {
				lit = "null"
			}
			if len(b)-i < 4 || string(b[i:i+4]) != lit {
				return false
			}
			i += 4
		case 'f':
			if len(b)-i < 5 || string(b[i:i+5]) != "false" {
				return false
			}
			i += 5
		default:
			// A plain number, as numFast reads it.
			j := i
			if b[j] == '-' {
				j++
			}
			d := j
			for j < len(b) && b[j]-'0' <= 9 {
				j++
			}
			if j == d || (b[d] == '0' && j-d > 1) {
				return false
			}
			if j < len(b) && b[j] == '.' {
				j++
				f := j
				for j < len(b) && b[j]-'0' <= 9 {
					j++
				}
				if j == f {
					return false
				}
			}
			if j >= len(b) || numTable[b[j]] {
				return false
			}
			i = j
		}
		// After a value: the end of the outermost one, or ',' or the closer of its container.
		for {
			if depth == 0 {
				s.pos = i
				return true
			}
			for i < len(b) && wsTable[b[i]] {
				i++
			}
			if i >= len(b) {
				return false
			}
			if b[i] == closers[depth-1] {
				depth--
				i++
				continue
			}
			if b[i] != ',' {
				return false
			}
			i++
			if closers[depth-1] == '}' {
				for i < len(b) && wsTable[b[i]] {
					i++
				}
				if i = skipKeyFast(b, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// skipKeyFast skips an object member name without escapes and the ':' after it, starting at
// b[i] (no whitespace before the name); it returns the index after the ':', or −1.
func skipKeyFast(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	q := bytes.IndexByte(b[i+1:], '"')
	if q < 0 || bytes.IndexByte(b[i+1:i+1+q], '\\') >= 0 {
		return -1
	}
	i += q + 2
	for i < len(b) && wsTable[b[i]] {
		i++
	}
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return i + 1
}

func (s *scanner) skipDepth(depth int) error {
	c, ok := s.peek()
	if !ok {
		return s.errEOF()
	}
	switch c {
	case '"':
		return s.skipStr()
	case '{':
		if depth >= maxScanDepth {
			return s.errHere("values nested deeper than %d levels", maxScanDepth)
		}
		s.pos++
		more, err := s.first('}')
		for more && err == nil {
			if c, ok := s.peek(); !ok {
				return s.errEOF()
			} else if c != '"' {
				return s.errHere("expected a member name string, found %s", quoteByte(c))
			}
			if err = s.skipStr(); err != nil {
				return err
			}
			if err = s.expect(':', "':'"); err != nil {
				return err
			}
			if err = s.skipDepth(depth + 1); err != nil {
				return err
			}
			more, err = s.more('}')
		}
		return err
	case '[':
		if depth >= maxScanDepth {
			return s.errHere("values nested deeper than %d levels", maxScanDepth)
		}
		s.pos++
		more, err := s.first(']')
		for more && err == nil {
			if err = s.skipDepth(depth + 1); err != nil {
				return err
			}
			more, err = s.more(']')
		}
		return err
	case 't':
		return s.want("true")
	case 'f':
		return s.want("false")
	case 'n':
		return s.want("null")
	}
	if _, _, ok := s.numFast(); ok {
		return nil
	}
	_, _, err := s.num()
	return err
}

// want consumes the literal lit or fails.
func (s *scanner) want(lit string) error {
	if s.literal(lit) {
		return nil
	}
	return s.errHere("invalid literal (expected %s)", lit)
}

// valueKind returns a short description of the value that starts at the next byte, for
// type errors.
func (s *scanner) valueKind() string {
	c, ok := s.peek()
	if !ok {
		return "end of input"
	}
	switch c {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// bstr views b as a string without copying, for the strconv parsers (which copy what they
// keep). b must not change while the string is in use.
func bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// parseInt parses an integer token; ok is false when tok is not an integer or overflows.
func parseInt(tok []byte) (int64, bool) {
	if len(tok) == 0 || len(tok) > 20 {
		v, err := strconv.ParseInt(bstr(tok), 10, 64)
		return v, err == nil
	}
	neg := tok[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	if i == len(tok) {
		return 0, false
	}
	var v uint64
	for ; i < len(tok); i++ {
		c := tok[i] - '0'
		if c > 9 {
			return 0, false
		}
		if v > (1<<63)/10 {
			return 0, false
		}
		v = v*10 + uint64(c)
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}
