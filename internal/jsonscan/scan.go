// Package jsonscan is the streaming, allocation-free JSON tokenizer under the trace reader: it
// reads an io.Reader through one refilled buffer, hands out tokens as slices of it and skips
// what it is not asked about. Its errors are *Error values carrying the file name and byte offset.
package jsonscan

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Error is a problem with the JSON input (a trace's content) or with reading it. Offset is the byte offset
// in the uncompressed input where the problem was found, or −1 when it has no position.
type Error struct {
	File   string
	Offset int64
	Msg    string
	Err    error // the underlying read or decompression error, if any
}

// Error renders "FILE: byte OFFSET: MSG[: ERR]".
func (e *Error) Error() string {
	var b bytes.Buffer
	b.WriteString(e.File)
	if e.Offset >= 0 {
		fmt.Fprintf(&b, ": byte %d", e.Offset)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying read error.
func (e *Error) Unwrap() error { return e.Err }

// Scanner is a streaming, allocation-free JSON tokenizer over an io.Reader. It reads through
// one buffer that it refills (and grows only when a single token does not fit), hands out byte
// slices into that buffer, and skips values it is not asked about without materialising them.
//
// A slice returned by Str or Num is valid until the next call that may read more input (any
// other Scanner method). Callers that need a value longer copy or intern it first.
//
// It accepts RFC 8259 JSON, strictly: the non-finite literals Python's json module writes by
// default (NaN, Infinity, -Infinity) are errors that name them, wherever they appear. Control
// characters inside strings are not rejected.
type Scanner struct {
	r io.Reader
	// File names the input in errors.
	File string
	// Buf holds the input from offset Off; Buf[Pos:End] is buffered and unread.
	Buf     []byte
	Pos     int   // next unread byte in buf
	End     int   // end of the valid bytes in buf
	Off     int64 // input offset of buf[0]
	Keep    int   // −1, or the index in buf from which bytes must survive a refill
	EOF     bool  // r is exhausted (or failed); see done for the end of the input
	ReadErr error // a read error other than io.EOF
	Total   int64 // bytes read from r so far

	// In parallel mode (the trace reader's parallel parse) input that was already read from r is handed back
	// to the scanner: Pre first, then the chunks feed returns until it returns nil, then r.
	Pre  []byte
	Feed func() []byte

	progress func(int64)
	scratch  []byte // decoded strings that contained escapes
}

const (
	// BufSize is the initial buffer size; the buffer doubles when one token does not fit.
	BufSize = 256 << 10
	// MaxDepth is the deepest nesting of arrays and objects accepted.
	MaxDepth = 10000
)

// New returns a Scanner reading r, naming it file in errors; progress, when set, is called
// with the number of bytes read so far after each read.
func New(r io.Reader, file string, progress func(int64)) *Scanner {
	return &Scanner{r: r, File: file, Buf: make([]byte, BufSize), Keep: -1, progress: progress}
}

// Offset is the input offset of the next unread byte.
func (s *Scanner) Offset() int64 { return s.Off + int64(s.Pos) }

// ErrAt builds an Error at input offset off.
func (s *Scanner) ErrAt(off int64, format string, args ...any) error {
	return &Error{File: s.File, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// ErrHere builds an Error at the next unread byte; at the end of the input it reports the
// read error or the truncation instead.
func (s *Scanner) ErrHere(format string, args ...any) error {
	if s.Pos >= s.End && s.done() {
		return s.ErrEOF()
	}
	return s.ErrAt(s.Offset(), format, args...)
}

// ErrEOF reports that the input ended (or failed) where more JSON was needed.
func (s *Scanner) ErrEOF() error {
	if s.ReadErr != nil {
		return &Error{File: s.File, Offset: s.Offset(), Msg: "read failed", Err: s.ReadErr}
	}
	return s.ErrAt(s.Offset(), "unexpected end of input (truncated JSON?)")
}

// done reports whether no input is left beyond the buffered bytes.
func (s *Scanner) done() bool { return s.EOF && len(s.Pre) == 0 && s.Feed == nil }

// fill reads more input, moving the unread bytes (and the bytes from keep) to the front of the
// buffer first and growing it when it is full. It reports whether any byte was added. Indices
// into buf held across a fill must be re-based on pos (pos keeps its distance to them).
func (s *Scanner) fill() bool {
	if s.done() {
		return false
	}
	start := s.Pos
	if s.Keep >= 0 && s.Keep < start {
		start = s.Keep
	}
	if start > 0 {
		n := copy(s.Buf, s.Buf[start:s.End])
		s.Off += int64(start)
		s.Pos -= start
		s.End = n
		if s.Keep >= 0 {
			s.Keep -= start
		}
	}
	if s.End == len(s.Buf) {
		nb := make([]byte, 2*len(s.Buf))
		copy(nb, s.Buf[:s.End])
		s.Buf = nb
	}
	for len(s.Pre) == 0 && s.Feed != nil {
		if s.Pre = s.Feed(); s.Pre == nil {
			s.Feed = nil
		}
	}
	if len(s.Pre) > 0 {
		n := copy(s.Buf[s.End:], s.Pre)
		s.Pre = s.Pre[n:]
		s.End += n
		return true
	}
	if s.EOF {
		return false
	}
	n := s.ReadSome(s.Buf[s.End:])
	s.End += n
	return n > 0
}

// ReadSome reads from r into p (non-empty), retrying reads that return nothing. It counts the
// bytes, reports progress, and sets eof (and rerr) when r ends or fails; it returns 0 only then.
func (s *Scanner) ReadSome(p []byte) int {
	for empty := 0; ; empty++ {
		if empty == 100 {
			s.EOF, s.ReadErr = true, io.ErrNoProgress
			return 0
		}
		n, err := s.r.Read(p)
		if n < 0 || n > len(p) {
			s.EOF, s.ReadErr = true, fmt.Errorf("reader returned invalid count %d", n)
			return 0
		}
		s.Total += int64(n)
		if n > 0 && s.progress != nil {
			s.progress(s.Total)
		}
		if err != nil {
			s.EOF = true
			if err != io.EOF {
				s.ReadErr = err
			}
			return n
		}
		if n > 0 {
			return n
		}
	}
}

// Space marks the four JSON whitespace bytes.
var Space = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// Peek skips whitespace and returns the next byte without consuming it; ok is false at the end
// of the input.
func (s *Scanner) Peek() (byte, bool) {
	if p := s.Pos; p+1 < s.End {
		if c := s.Buf[p]; c > ' ' {
			return c, true
		} else if c == ' ' && s.Buf[p+1] > ' ' { // the one space after ':' and ','
			s.Pos = p + 1
			return s.Buf[p+1], true
		}
	}
	return s.peekSlow()
}

func (s *Scanner) peekSlow() (byte, bool) {
	for {
		for s.Pos < s.End {
			c := s.Buf[s.Pos]
			if !Space[c] {
				return c, true
			}
			s.Pos++
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// next skips whitespace and consumes one byte, which must exist.
func (s *Scanner) next() (byte, error) {
	c, ok := s.Peek()
	if !ok {
		return 0, s.ErrEOF()
	}
	s.Pos++
	return c, nil
}

// Expect consumes the byte c after optional whitespace.
func (s *Scanner) Expect(c byte, what string) error {
	d, ok := s.Peek()
	if !ok {
		return s.ErrEOF()
	}
	if d != c {
		return s.ErrAt(s.Offset(), "expected %s, found %s", what, QuoteByte(d))
	}
	s.Pos++
	return nil
}

// More is called after an element of an array or a member of an object: it consumes the ','
// and reports true, or consumes the closing byte and reports false.
func (s *Scanner) More(closing byte) (bool, error) {
	if p := s.Pos; p < s.End {
		switch s.Buf[p] {
		case ',':
			s.Pos = p + 1
			return true, nil
		case closing:
			s.Pos = p + 1
			return false, nil
		}
	}
	c, ok := s.Peek()
	if !ok {
		return false, s.ErrEOF()
	}
	s.Pos++
	switch c {
	case ',':
		return true, nil
	case closing:
		return false, nil
	}
	s.Pos--
	return false, s.ErrAt(s.Offset(), "expected ',' or '%c', found %s", closing, QuoteByte(c))
}

// First is called after '[' or '{': it consumes the closing byte of an empty container and
// reports false, or reports true when there is a First element.
func (s *Scanner) First(closing byte) (bool, error) {
	c, ok := s.Peek()
	if !ok {
		return false, s.ErrEOF()
	}
	if c == closing {
		s.Pos++
		return false, nil
	}
	return true, nil
}

// Key reads an object member name and the ':' after it.
func (s *Scanner) Key() ([]byte, error) {
	// Fast path: a short name without escapes, followed by ':', all in the buffered bytes.
	b := s.Buf[:s.End]
	i := s.Pos
	for i < len(b) && Space[b[i]] {
		i++
	}
	if i+1 < len(b) {
		if b[i] == '"' {
			for j := i + 1; j < len(b) && j < i+33; j++ {
				if c := b[j]; c == '"' {
					if j+1 < len(b) && b[j+1] == ':' {
						s.Pos = j + 2
						return b[i+1 : j], nil
					}
					break
				} else if c == '\\' {
					break
				}
			}
		}
	}
	c, ok := s.Peek()
	if !ok {
		return nil, s.ErrEOF()
	}
	if c != '"' {
		return nil, s.ErrAt(s.Offset(), "expected a member name string, found %s", QuoteByte(c))
	}
	k, err := s.Str()
	if err != nil {
		return nil, err
	}
	// The ':' is almost always the next byte; keep k valid by not refilling in that case.
	if s.Pos < s.End && s.Buf[s.Pos] == ':' {
		s.Pos++
		return k, nil
	}
	if s.Pos+1 < s.End && s.Buf[s.Pos] == ' ' && s.Buf[s.Pos+1] == ':' {
		s.Pos += 2
		return k, nil
	}
	// Slow path: whitespace may span a refill, which could move k. Copy it.
	s.scratch = append(s.scratch[:0], k...)
	if err := s.Expect(':', "':'"); err != nil {
		return nil, err
	}
	return s.scratch, nil
}

// Str reads a string (the next non-space byte must be '"') and returns its decoded bytes.
func (s *Scanner) Str() ([]byte, error) {
	if s.Pos >= s.End || s.Buf[s.Pos] != '"' {
		if _, ok := s.Peek(); !ok {
			return nil, s.ErrEOF()
		}
	}
	start := s.Pos // at '"'
	i := start + 1
	// Most strings are short: a plain loop beats IndexByte's call for them.
	if b := s.Buf[:s.End]; len(b)-i > 24 {
		for j := i; j < i+24; j++ {
			switch b[j] {
			case '"':
				s.Pos = j + 1
				return b[i:j], nil
			case '\\':
				return s.strEscaped(start)
			}
		}
		i += 24
	}
	for {
		q := bytes.IndexByte(s.Buf[i:s.End], '"')
		if q >= 0 {
			q += i
			if bytes.IndexByte(s.Buf[start+1:q], '\\') < 0 {
				s.Pos = q + 1
				return s.Buf[start+1 : q], nil
			}
			return s.strEscaped(start)
		}
		// No quote in the buffered bytes: read more and look again from where we stopped.
		// pos is still at the opening quote, so fill keeps the string's bytes.
		rel := s.End - start
		if !s.fill() {
			s.Pos = s.End
			return nil, s.ErrEOF()
		}
		start = s.Pos
		i = start + rel
	}
}

// strEscaped decodes the string starting at buf[start] (a '"') that holds escapes into scratch.
func (s *Scanner) strEscaped(start int) ([]byte, error) {
	s.Pos = start + 1
	out := s.scratch[:0]
	for {
		if s.Pos >= s.End {
			if !s.fill() {
				return nil, s.ErrEOF()
			}
			continue
		}
		c := s.Buf[s.Pos]
		switch {
		case c == '"':
			s.Pos++
			s.scratch = out
			return out, nil
		case c != '\\':
			out = append(out, c)
			s.Pos++
			continue
		}
		escOff := s.Offset()
		// An escape needs up to 6 bytes ("\uXXXX").
		for s.End-s.Pos < 6 && s.fill() {
		}
		if s.End-s.Pos < 2 {
			s.Pos = s.End
			return nil, s.ErrEOF()
		}
		e := s.Buf[s.Pos+1]
		s.Pos += 2
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
				return nil, s.ErrAt(escOff, "invalid \\u escape in string")
			}
			if utf16.IsSurrogate(r) {
				// Try to pair it with a following \uXXXX low surrogate.
				for s.End-s.Pos < 6 && s.fill() {
				}
				if s.End-s.Pos >= 6 && s.Buf[s.Pos] == '\\' && s.Buf[s.Pos+1] == 'u' {
					save := s.Pos
					s.Pos += 2
					r2, ok2 := s.hex4()
					if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
						r = dec
					} else {
						s.Pos = save
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, s.ErrAt(escOff, "invalid escape '\\%c' in string", e)
		}
	}
}

// hex4 decodes four hex digits at pos (already buffered by the caller).
func (s *Scanner) hex4() (rune, bool) {
	if s.End-s.Pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s.Buf[s.Pos : s.Pos+4] {
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
	s.Pos += 4
	return r, true
}

// skipStr skips a string without decoding it.
func (s *Scanner) skipStr() error {
	if _, ok := s.Peek(); !ok {
		return s.ErrEOF()
	}
	i := s.Pos + 1
	if b := s.Buf[:s.End]; len(b)-i > 24 {
		for j := i; j < i+24; j++ {
			switch b[j] {
			case '"':
				s.Pos = j + 1
				return nil
			case '\\':
				j = i + 24 // escapes: take the general path
			}
		}
	}
	for {
		for i < s.End {
			q := bytes.IndexByte(s.Buf[i:s.End], '"')
			if q < 0 {
				i = s.End
				break
			}
			q += i
			// Count the backslashes right before the quote: an odd count escapes it.
			n := 0
			for j := q - 1; j > s.Pos && s.Buf[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				if err := s.checkEscapes(s.Pos, q); err != nil {
					return err
				}
				s.Pos = q + 1
				return nil
			}
			i = q + 1
		}
		rel := i - s.Pos
		if !s.fill() {
			s.Pos = s.End
			return s.ErrEOF()
		}
		i = s.Pos + rel
	}
}

// checkEscapes verifies the escapes of the string buf[open] .. buf[close] (both quotes).
func (s *Scanner) checkEscapes(open, close int) error {
	b := s.Buf[open+1 : close]
	for {
		k := bytes.IndexByte(b, '\\')
		if k < 0 {
			return nil
		}
		if k+1 >= len(b) {
			return s.ErrAt(s.Off+int64(close-len(b)+k), "invalid escape in string")
		}
		switch b[k+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			b = b[k+2:]
		case 'u':
			if k+6 > len(b) || !isHex(b[k+2]) || !isHex(b[k+3]) || !isHex(b[k+4]) || !isHex(b[k+5]) {
				return s.ErrAt(s.Off+int64(close-len(b)+k), "invalid \\u escape in string")
			}
			b = b[k+6:]
		default:
			return s.ErrAt(s.Off+int64(close-len(b)+k), "invalid escape '\\%c' in string", b[k+1])
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// NumKind says what Num found.
type NumKind uint8

const (
	NumInt       NumKind = iota // -?digits
	NumFloat                    // with a fraction or an exponent
	NumNonFinite                // NaN, Infinity, -Infinity
)

// NumTable marks the bytes a number token can hold.
var NumTable = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true,
	'6': true, '7': true, '8': true, '9': true, '-': true, '+': true, '.': true, 'e': true, 'E': true}

// Num reads a number token and validates its grammar. The next non-space byte must start it.
func (s *Scanner) Num() ([]byte, NumKind, error) {
	if _, ok := s.Peek(); !ok {
		return nil, 0, s.ErrEOF()
	}
	if tok, kind, ok := s.numFast(); ok {
		return tok, kind, nil
	}
	start := s.Pos
	i := start
	for {
		for i < s.End && NumTable[s.Buf[i]] {
			i++
		}
		if i < s.End || s.done() {
			break
		}
		rel := i - start // pos is still at start, so fill keeps the token
		s.fill()
		start = s.Pos
		i = start + rel
	}
	tok := s.Buf[start:i]
	if len(tok) == 0 || (len(tok) == 1 && tok[0] == '-') {
		// Maybe a non-finite literal.
		return s.nonFinite(start)
	}
	kind, ok := NumGrammar(tok)
	if !ok {
		return nil, 0, s.ErrAt(s.Off+int64(start), "invalid number %s", Clip(tok))
	}
	s.Pos = i
	return tok, kind, nil
}

// numFast scans a plain number (-?digits(.digits)?) that ends inside the buffered bytes in one
// pass. ok is false for anything else (exponents, bad grammar, a token at the buffer's end),
// which the general path then handles.
func (s *Scanner) numFast() ([]byte, NumKind, bool) {
	b := s.Buf[:s.End]
	start := s.Pos
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
	kind := NumInt
	if i < len(b) && b[i] == '.' {
		i++
		f := i
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
		if i == f {
			return nil, 0, false
		}
		kind = NumFloat
	}
	if i >= len(b) || NumTable[b[i]] {
		return nil, 0, false
	}
	s.Pos = i
	return b[start:i], kind, true
}

// nonFinite reports NaN, Infinity or -Infinity at buf[start] by name: JSON has no such values
// (Python's json.dump writes them unless allow_nan=False).
func (s *Scanner) nonFinite(start int) ([]byte, NumKind, error) {
	s.Pos = start
	at := s.Offset()
	for _, lit := range [...]string{"NaN", "Infinity", "-Infinity"} {
		if s.literal(lit) {
			return nil, 0, s.ErrAt(at, "%s is not JSON (JSON has no NaN or Infinity; Python's json.dump writes them unless allow_nan=False)", lit)
		}
	}
	// literal may have refilled the buffer, which moves the token: pos is still at its start.
	return nil, 0, s.ErrAt(s.Offset(), "invalid value starting with %s", QuoteByte(s.Buf[s.Pos]))
}

// SkipBOM consumes a UTF-8 byte order mark (EF BB BF) at the very start of the input and
// reports whether there was one. RFC 8259 lets a parser ignore it; Windows tools write it.
func (s *Scanner) SkipBOM() bool {
	return s.Offset() == 0 && s.literal("\xEF\xBB\xBF")
}

// ClipLen is the most bytes of input an error message quotes.
const ClipLen = 100

// Clip quotes b for an error message as Go's %q does, cut to at most ClipLen bytes of it (at a
// UTF-8 boundary) with "…" after the quotes when it was cut.
func Clip[T ~string | ~[]byte](b T) string {
	if len(b) <= ClipLen {
		return strconv.Quote(string(b))
	}
	cut := ClipLen
	for cut > 0 && b[cut]&0xC0 == 0x80 {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "…"
}

// Cut is Clip without the quotes, for tokens that need none (numbers).
func Cut[T ~string | ~[]byte](b T) string {
	if len(b) <= ClipLen {
		return string(b)
	}
	cut := ClipLen
	for cut > 0 && b[cut]&0xC0 == 0x80 {
		cut--
	}
	return string(b[:cut]) + "…"
}

// literal consumes lit if the input continues with it.
func (s *Scanner) literal(lit string) bool {
	for s.End-s.Pos < len(lit) && s.fill() {
	}
	if s.End-s.Pos >= len(lit) && string(s.Buf[s.Pos:s.Pos+len(lit)]) == lit {
		s.Pos += len(lit)
		return true
	}
	return false
}

// NumGrammar checks tok against JSON's number grammar.
func NumGrammar(tok []byte) (NumKind, bool) {
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
	kind := NumInt
	if i < len(tok) && tok[i] == '.' {
		i++
		d := i
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
		}
		if i == d {
			return 0, false
		}
		kind = NumFloat
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
		kind = NumFloat
	}
	return kind, i == len(tok)
}

// Skip skips one value of any type.
func (s *Scanner) Skip() error {
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
func (s *Scanner) skipFast() bool {
	b := s.Buf[:s.End]
	i := s.Pos
	var closers [32]byte
	depth := 0
	for {
		// A value starts at i, after optional whitespace.
		for i < len(b) && Space[b[i]] {
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
			for i < len(b) && Space[b[i]] {
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
			if j >= len(b) || NumTable[b[j]] {
				return false
			}
			i = j
		}
		// After a value: the end of the outermost one, or ',' or the closer of its container.
		for {
			if depth == 0 {
				s.Pos = i
				return true
			}
			for i < len(b) && Space[b[i]] {
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
				for i < len(b) && Space[b[i]] {
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
	for i < len(b) && Space[b[i]] {
		i++
	}
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return i + 1
}

func (s *Scanner) skipDepth(depth int) error {
	c, ok := s.Peek()
	if !ok {
		return s.ErrEOF()
	}
	switch c {
	case '"':
		return s.skipStr()
	case '{':
		if depth >= MaxDepth {
			return s.ErrHere("values nested deeper than %d levels", MaxDepth)
		}
		s.Pos++
		more, err := s.First('}')
		for more && err == nil {
			if c, ok := s.Peek(); !ok {
				return s.ErrEOF()
			} else if c != '"' {
				return s.ErrHere("expected a member name string, found %s", QuoteByte(c))
			}
			if err = s.skipStr(); err != nil {
				return err
			}
			if err = s.Expect(':', "':'"); err != nil {
				return err
			}
			if err = s.skipDepth(depth + 1); err != nil {
				return err
			}
			more, err = s.More('}')
		}
		return err
	case '[':
		if depth >= MaxDepth {
			return s.ErrHere("values nested deeper than %d levels", MaxDepth)
		}
		s.Pos++
		more, err := s.First(']')
		for more && err == nil {
			if err = s.skipDepth(depth + 1); err != nil {
				return err
			}
			more, err = s.More(']')
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
	_, _, err := s.Num()
	return err
}

// want consumes the literal lit or fails.
func (s *Scanner) want(lit string) error {
	if s.literal(lit) {
		return nil
	}
	return s.ErrHere("invalid literal (expected %s)", lit)
}

// ValueKind returns a short description of the value that starts at the next byte, for
// type errors.
func (s *Scanner) ValueKind() string {
	c, ok := s.Peek()
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

// QuoteByte renders c for an error message: 'c' when printable, else its hex value.
func QuoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// Bstr views b as a string without copying, for the strconv parsers (which copy what they
// keep). b must not change while the string is in use.
func Bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// ParseInt parses an integer token; ok is false when tok is not an integer or overflows.
func ParseInt(tok []byte) (int64, bool) {
	if len(tok) == 0 || len(tok) > 20 {
		v, err := strconv.ParseInt(Bstr(tok), 10, 64)
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
