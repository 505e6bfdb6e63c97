// Package jsonscan is the streaming, allocation-free JSON tokenizer under the trace reader: it
// reads an io.Reader through one refilled buffer, hands out tokens as slices of it and skips
// what it is not asked about. Its errors are *Error values carrying the file name and byte offset.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/orprof/orprof/internal/quote"
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
// A slice returned by Key, Str, StrOrSkip, Num or Raw is valid until the next call that may
// read more input (any other Scanner method). Callers that need a value longer copy or intern
// it first.
//
// It accepts RFC 8259 JSON, strictly: the non-finite literals Python's json module writes by
// default (NaN, Infinity, -Infinity) are errors that name them, wherever they appear. Control
// characters inside strings are not rejected.
//
// The buffer and its refill are the Scanner's alone: callers walk containers with Object and
// Array, read values with the value methods, and move a scan between goroutines' buffers with
// Reset, Resume and Detach (the trace reader's parallel parse).
type Scanner struct {
	r    io.Reader
	file string // names the input in errors

	// buf holds the input from offset off; buf[pos:end] is buffered and unread. The refill
	// invariant: fill moves buf[min(pos, keep):end] to the front and reads more after it, so an
	// index into buf held across a fill must be re-based on pos (pos keeps its distance to it).
	buf     []byte
	pos     int   // next unread byte in buf
	end     int   // end of the valid bytes in buf
	off     int64 // input offset of buf[0]
	keep    int   // −1, or the index in buf from which bytes must survive a refill (Raw)
	eof     bool  // r is exhausted (or failed); see done for the end of the input
	readErr error // a read error other than io.EOF
	total   int64 // bytes read from r so far

	// Input that was already read from r and is handed back to the scanner (Resume): pre
	// first, then the chunks feed returns until it returns nil, then r.
	pre  []byte
	feed func() []byte

	progress func(int64)
	scratch  []byte // decoded strings that contained escapes

	// inPlace is set while buf is the caller's memory (Reset), which the scanner never writes:
	// Resume then gives the scanner a buffer of its own to copy the handed-back input into.
	inPlace bool
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
	return &Scanner{r: r, file: file, buf: make([]byte, BufSize), keep: -1, progress: progress}
}

// NewBytes returns a Scanner over b alone, which starts at input offset off, naming the input
// file in errors. The scanner reads b in place and never writes to it.
func NewBytes(b []byte, off int64, file string) *Scanner {
	s := &Scanner{file: file, keep: -1}
	s.Reset(b, off)
	return s
}

// Reset makes the scanner scan b alone (in place), which starts at input offset off: its end is
// the end of the input. Nothing buffered before is kept.
func (s *Scanner) Reset(b []byte, off int64) {
	s.buf, s.pos, s.end, s.off, s.keep = b, 0, len(b), off, -1
	s.eof, s.pre, s.feed = true, nil, nil
	s.inPlace = true
}

// InPlace reports whether the scanner reads memory the caller gave it (NewBytes, Reset) rather
// than a source through a buffer of its own; Detach then returns that memory itself.
func (s *Scanner) InPlace() bool { return s.inPlace }

// Buffered is the number of unread bytes the scanner holds: for a scanner in place, the rest of
// the input.
func (s *Scanner) Buffered() int { return s.end - s.pos }

// Resume makes the scanner continue at input offset off with nothing buffered: it reads pre,
// then each chunk feed returns until it returns nil (feed may be nil), then its source. It is
// how input that was taken from the scanner (Detach, ReadSome) and cut into pieces is handed
// back. The buffer the scanner owns is kept for reuse (a scanner in place gets one); pre and the
// chunks are copied from.
func (s *Scanner) Resume(off int64, pre []byte, feed func() []byte) {
	if s.inPlace {
		s.buf, s.inPlace = make([]byte, BufSize), false
	}
	s.pos, s.end, s.off, s.keep = 0, 0, off, -1
	s.pre, s.feed = pre, feed
}

// Detach takes the buffered, unread input away from the scanner: it returns those bytes (valid
// until the next call that reads input) and their input offset, and leaves nothing buffered,
// so that the caller can go on reading the source itself with ReadSome.
func (s *Scanner) Detach() ([]byte, int64) {
	b, off := s.buf[s.pos:s.end], s.Offset()
	s.pos = s.end
	return b, off
}

// Streaming reports whether the scanner reads straight from its source with more of it left:
// the source is not exhausted and no input handed back by Resume is pending.
func (s *Scanner) Streaming() bool { return !s.eof && s.feed == nil && len(s.pre) == 0 }

// SourceDone reports whether the source is exhausted (or failed).
func (s *Scanner) SourceDone() bool { return s.eof }

// AtBufferEnd skips buffered whitespace and reports whether nothing is left before the next
// chunk of handed-back input: no unread byte is buffered and none of pre is pending. It reads
// no input.
func (s *Scanner) AtBufferEnd() bool {
	for s.pos < s.end && Space[s.buf[s.pos]] {
		s.pos++
	}
	return s.pos == s.end && len(s.pre) == 0
}

// File is the input's name in errors.
func (s *Scanner) File() string { return s.file }

// BytesRead is the number of bytes read from the source so far.
func (s *Scanner) BytesRead() int64 { return s.total }

// ReadErr returns, as an *Error at the current offset, the error reading the source failed
// with (other than its end), or nil.
func (s *Scanner) ReadErr() error {
	if s.readErr == nil {
		return nil
	}
	return s.ErrEOF()
}

// Offset is the input offset of the next unread byte.
func (s *Scanner) Offset() int64 { return s.off + int64(s.pos) }

// ErrAt builds an Error at input offset off.
func (s *Scanner) ErrAt(off int64, format string, args ...any) error {
	return &Error{File: s.file, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// ErrHere builds an Error at the next unread byte; at the end of the input it reports the
// read error or the truncation instead.
func (s *Scanner) ErrHere(format string, args ...any) error {
	if s.pos >= s.end && s.done() {
		return s.ErrEOF()
	}
	return s.ErrAt(s.Offset(), format, args...)
}

// ErrEOF reports that the input ended (or failed) where more JSON was needed.
func (s *Scanner) ErrEOF() error {
	if s.readErr != nil {
		return &Error{File: s.file, Offset: s.Offset(), Msg: "read failed", Err: s.readErr}
	}
	return s.ErrAt(s.Offset(), "unexpected end of input (truncated JSON?)")
}

// done reports whether no input is left beyond the buffered bytes.
func (s *Scanner) done() bool { return s.eof && len(s.pre) == 0 && s.feed == nil }

// fill reads more input, moving the unread bytes (and the bytes from keep) to the front of the
// buffer first and growing it when it is full. It reports whether any byte was added. Indices
// into buf held across a fill must be re-based on pos (pos keeps its distance to them).
func (s *Scanner) fill() bool {
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
	n := s.ReadSome(s.buf[s.end:])
	s.end += n
	return n > 0
}

// ReadSome reads from r into p (non-empty), retrying reads that return nothing. It counts the
// bytes, reports progress, and sets eof (and rerr) when r ends or fails; it returns 0 only then.
func (s *Scanner) ReadSome(p []byte) int {
	for empty := 0; ; empty++ {
		if empty == 100 {
			s.eof, s.readErr = true, io.ErrNoProgress
			return 0
		}
		n, err := s.r.Read(p)
		if n < 0 || n > len(p) {
			s.eof, s.readErr = true, fmt.Errorf("reader returned invalid count %d", n)
			return 0
		}
		s.total += int64(n)
		if n > 0 && s.progress != nil {
			s.progress(s.total)
		}
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.readErr = err
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

func (s *Scanner) peekSlow() (byte, bool) {
	for {
		b := s.buf[:s.end]
		i := skipSpace(b, s.pos)
		s.pos = i
		if i < len(b) {
			return b[i], true
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
	s.pos++
	return c, nil
}

// expect consumes the byte c after optional whitespace.
func (s *Scanner) expect(c byte, what string) error {
	d, ok := s.Peek()
	if !ok {
		return s.ErrEOF()
	}
	if d != c {
		return s.ErrAt(s.Offset(), "expected %s, found %s", what, QuoteByte(d))
	}
	s.pos++
	return nil
}

// more is called after an element of an array or a member of an object: it consumes the ','
// and reports true, or consumes the closing byte and reports false.
func (s *Scanner) more(closing byte) (bool, error) {
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
	c, ok := s.Peek()
	if !ok {
		return false, s.ErrEOF()
	}
	s.pos++
	switch c {
	case ',':
		return true, nil
	case closing:
		return false, nil
	}
	s.pos--
	return false, s.ErrAt(s.Offset(), "expected ',' or '%c', found %s", closing, QuoteByte(c))
}

// first is called after '[' or '{': it consumes the closing byte of an empty container and
// reports false, or reports true when there is a first element.
func (s *Scanner) first(closing byte) (bool, error) {
	c, ok := s.Peek()
	if !ok {
		return false, s.ErrEOF()
	}
	if c == closing {
		s.pos++
		return false, nil
	}
	return true, nil
}

// Iter walks the members of an object (Object) or the elements of an array (Array):
//
//	it := s.Object()
//	for it.Next() {
//		switch string(it.Key()) { … } // read or Skip the member's value
//	}
//	if err := it.Err(); err != nil { … }
//
// Each call of Next must be preceded by reading (or skipping) the current value.
type Iter struct {
	s      *Scanner
	close  byte // '}' or ']'
	step   step
	ks, ke int    // the current name is s.buf[ks:ke], or k when ks < 0
	k      []byte // a name the slow path read (it may be in the scanner's scratch)
	err    error
}

// step is where an Iter stands.
type step uint8

const (
	stepEnter step = iota // before the opening byte (Object and Array consume it in Next)
	stepFirst             // after the opening byte
	stepMore              // after a member or element
	stepDone              // after the closing byte or an error
)

// Object returns the walk of the members of the object that is the next value (after
// whitespace); the first Next enters it, and a value that is not an object is an error (Err).
func (s *Scanner) Object() Iter { return Iter{s: s, close: '}'} }

// ObjectOrSkip is Object when the next value is an object; a value of another type is skipped
// and the walk has no members.
func (s *Scanner) ObjectOrSkip() Iter {
	if c, _ := s.Peek(); c != '{' {
		return Iter{s: s, step: stepDone, err: s.Skip()}
	}
	return Iter{s: s, close: '}'}
}

// Lit reads lit when the buffered bytes at the scanner start with it exactly, and reports
// whether it did; otherwise it reads nothing. A reader of a machine-written format uses it to
// step over the separator and name of the member it expects next, laid out as the writer lays
// them out (`, "name": `), in one comparison: the member's value follows, and its walk goes on
// with ObjectFrom. Where the bytes differ in any way (spacing, order, escapes) nothing is read
// and the walk reads the members itself, the same members in the same order.
func (s *Scanner) Lit(lit string) bool {
	p := s.pos
	if s.end-p >= len(lit) && string(s.buf[p:p+len(lit)]) == lit {
		s.pos = p + len(lit)
		return true
	}
	return false
}

// EndLit is Lit for the bytes that end the walk, lit ending with its closing byte: when they
// are read, the walk is over and Next reports false.
func (it *Iter) EndLit(lit string) bool {
	if it.s.Lit(lit) {
		it.step = stepDone
		return true
	}
	return false
}

// Since returns the input from offset off to the scanner's position, and true, when all of it
// is still buffered; otherwise nil and false. The bytes are valid until the next call that reads
// input.
func (s *Scanner) Since(off int64) ([]byte, bool) {
	i := off - s.off
	if i < 0 || i > int64(s.pos) {
		return nil, false
	}
	return s.buf[i:s.pos], true
}

// ObjectFrom returns the walk of an object whose opening byte and first members were read
// with Lit and the value methods: the scanner stands after a member's value.
func (s *Scanner) ObjectFrom() Iter { return Iter{s: s, close: '}', step: stepMore} }

// Array returns the walk of the elements of the array that is the next value (after
// whitespace); the first Next enters it, and a value that is not an array is an error (Err).
func (s *Scanner) Array() Iter { return Iter{s: s, close: ']'} }

// InArray returns the walk of an array whose '[' was read elsewhere, for a scan resumed in the
// middle of it (Resume, Reset): the scanner stands at an element, which the caller reads before
// calling Next.
func (s *Scanner) InArray() Iter { return Iter{s: s, close: ']', step: stepMore} }

// Next moves to the next member (reading its name and the ':') or element, and reports false
// after the container's closing byte or on an error (Err).
func (it *Iter) Next() bool {
	// The trace reader's hot path, in one step (BenchmarkReadTraceMTIA shows it matters: one
	// call per member instead of three, and no pointer stored): the ',' of an array, the ','
	// (or an object's '{') and the next short name and ':' of an object, or the closing byte,
	// all in the buffered bytes. Everything else goes through next.
	s := it.s
	if p := s.pos; p < s.end {
		switch c := s.buf[p]; {
		case it.step == stepMore && c == ',':
			if it.close == ']' {
				s.pos = p + 1
				return true
			}
			if ks, ke, end := keyFast(s.buf[:s.end], p+1); end > 0 {
				s.pos, it.ks, it.ke = end, ks, ke
				return true
			}
		case it.step == stepMore && c == it.close:
			s.pos, it.step = p+1, stepDone
			return false
		case it.step == stepEnter && c == '{' && it.close == '}':
			if ks, ke, end := keyFast(s.buf[:s.end], p+1); end > 0 {
				s.pos, it.ks, it.ke, it.step = end, ks, ke, stepMore
				return true
			}
		}
	}
	return it.next()
}

func (it *Iter) next() bool {
	var more bool
	var err error
	switch it.step {
	case stepDone:
		return false
	case stepEnter:
		what := "'{'"
		if it.close == ']' {
			what = "'['"
		}
		if err = it.s.expect(it.close-2, what); err != nil { // '{' or '['
			break
		}
		fallthrough
	case stepFirst:
		more, err = it.s.first(it.close)
	case stepMore:
		more, err = it.s.more(it.close)
	}
	it.step = stepMore
	if more && err == nil && it.close == '}' {
		it.ks = -1
		it.k, err = it.s.key()
	}
	if !more || err != nil {
		it.step, it.err = stepDone, err
		return false
	}
	return true
}

// Key is the current member's name (objects only), valid until the value is read.
func (it *Iter) Key() []byte {
	if it.ks < 0 {
		return it.k
	}
	return it.s.buf[it.ks:it.ke]
}

// Err is the error that ended the walk, or nil when it ended at the closing byte.
func (it *Iter) Err() error { return it.err }

// keyFast matches, at b[i:] after whitespace, a short member name without escapes and the ':'
// right after it, all in b: the name is b[ks:ke] and end is the index after the ':', or 0.
func keyFast(b []byte, i int) (ks, ke, end int) {
	i = skipSpace(b, i)
	if i+1 >= len(b) || b[i] != '"' {
		return 0, 0, 0
	}
	// Eight bytes at a time (SWAR): the lowest byte that is '"' or '\\' ends the name. The
	// trace reader reads ~25 names per event; callgrind: 10 % fewer instructions in keyFast.
	for j := i + 1; j+8 <= len(b) && j < i+33; j += 8 {
		w := binary.LittleEndian.Uint64(b[j:])
		if m := byteMask(w, '"') | byteMask(w, '\\'); m != 0 {
			q := j + bits.TrailingZeros64(m)/8
			if b[q] == '"' && q+1 < len(b) && b[q+1] == ':' {
				return i + 1, q, q + 2
			}
			return 0, 0, 0
		}
	}
	return 0, 0, 0 // long, or near the end of the buffered bytes: the general path
}

// byteMask marks (with its top bit) each byte of w that equals c; bytes above the lowest
// marked one may be marked wrongly (a borrow), so only the lowest mark is exact.
func byteMask(w uint64, c byte) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	x := w ^ (lo * uint64(c))
	return (x - lo) &^ x & hi
}

// key reads an object member name and the ':' after it.
func (s *Scanner) key() ([]byte, error) {
	if ks, ke, end := keyFast(s.buf[:s.end], s.pos); end > 0 {
		s.pos = end
		return s.buf[ks:ke], nil
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

// Str reads a string (the next non-space byte must be '"') and returns its decoded bytes.
func (s *Scanner) Str() ([]byte, error) {
	if s.pos >= s.end || s.buf[s.pos] != '"' {
		if _, ok := s.Peek(); !ok {
			return nil, s.ErrEOF()
		}
	}
	start := s.pos // at '"'
	i := start + 1
	if q := quoteEnd(s.buf[:s.end], i); q >= 0 {
		s.pos = q + 1
		return s.buf[i:q], nil
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
			// Truncated: a bad escape before the end is the first error, as it is when the
			// whole string was buffered at once (strEscaped reports it, or the end of input).
			if start = s.pos; bytes.IndexByte(s.buf[start+1:s.end], '\\') >= 0 {
				return s.strEscaped(start)
			}
			s.pos = s.end
			return nil, s.ErrEOF()
		}
		start = s.pos
		i = start + rel
	}
}

// strEscaped decodes the string starting at buf[start] (a '"') that holds escapes into scratch.
func (s *Scanner) strEscaped(start int) ([]byte, error) {
	s.pos = start + 1
	out := s.scratch[:0]
	for {
		if s.pos >= s.end {
			if !s.fill() {
				return nil, s.ErrEOF()
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
		escOff := s.Offset()
		// An escape needs up to 6 bytes ("\uXXXX").
		for s.end-s.pos < 6 && s.fill() {
		}
		if s.end-s.pos < 2 {
			s.pos = s.end
			return nil, s.ErrEOF()
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
				return nil, s.ErrAt(escOff, "invalid \\u escape in string")
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
			return nil, s.ErrAt(escOff, "invalid escape '\\%c' in string", e)
		}
	}
}

// hex4 decodes four hex digits at pos (already buffered by the caller).
func (s *Scanner) hex4() (rune, bool) {
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

// StrOrSkip reads the next value when it is a string (ok); a value of another type is
// skipped.
func (s *Scanner) StrOrSkip() (v []byte, ok bool, err error) {
	if c, _ := s.Peek(); c != '"' {
		return nil, false, s.Skip()
	}
	v, err = s.Str()
	return v, err == nil, err
}

// Raw reads the next value of any type, validating it as Skip does, and returns its JSON text.
func (s *Scanner) Raw() ([]byte, error) {
	if _, ok := s.Peek(); !ok {
		return nil, s.ErrEOF()
	}
	s.keep = s.pos // the value's bytes survive the refills while it is skipped
	err := s.Skip()
	raw := s.buf[s.keep:s.pos]
	s.keep = -1
	return raw, err
}

// skipStr skips a string without decoding it.
func (s *Scanner) skipStr() error {
	if _, ok := s.Peek(); !ok {
		return s.ErrEOF()
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
			return s.ErrEOF()
		}
		i = s.pos + rel
	}
}

// checkEscapes verifies the escapes of the string buf[open] .. buf[close] (both quotes).
func (s *Scanner) checkEscapes(open, close int) error {
	b := s.buf[open+1 : close]
	for {
		k := bytes.IndexByte(b, '\\')
		if k < 0 {
			return nil
		}
		if k+1 >= len(b) {
			return s.ErrAt(s.off+int64(close-len(b)+k), "invalid escape in string")
		}
		switch b[k+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			b = b[k+2:]
		case 'u':
			if k+6 > len(b) || !isHex(b[k+2]) || !isHex(b[k+3]) || !isHex(b[k+4]) || !isHex(b[k+5]) {
				return s.ErrAt(s.off+int64(close-len(b)+k), "invalid \\u escape in string")
			}
			b = b[k+6:]
		default:
			return s.ErrAt(s.off+int64(close-len(b)+k), "invalid escape '\\%c' in string", b[k+1])
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Num reads a number token and validates its grammar. The next non-space byte must start it.
func (s *Scanner) Num() ([]byte, NumKind, error) {
	if _, ok := s.Peek(); !ok {
		return nil, 0, s.ErrEOF()
	}
	return s.num()
}

// num is Num after the Peek: the token starts at pos.
func (s *Scanner) num() ([]byte, NumKind, error) {
	b := s.buf[:s.end]
	if end, kind := numberEnd(b, s.pos); end > s.pos && end < len(b) && !NumTable[b[end]] {
		// The token is valid and ends in the buffered bytes.
		tok := b[s.pos:end]
		s.pos = end
		return tok, kind, nil
	}
	start := s.pos
	i := start
	for {
		for i < s.end && NumTable[s.buf[i]] {
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
	if len(tok) == 1 && tok[0] == '-' && i == s.end && s.done() {
		return nil, 0, s.ErrEOF() // cut after the sign
	}
	if len(tok) == 0 || (len(tok) == 1 && tok[0] == '-') {
		// Maybe a non-finite literal.
		return s.nonFinite(start)
	}
	kind, ok := NumGrammar(tok)
	if !ok {
		if i == s.end && s.done() {
			// "12." at the end: the input was cut (or failed) inside the number.
			return nil, 0, s.ErrEOF()
		}
		return nil, 0, s.ErrAt(s.off+int64(start), "invalid number %s", Clip(tok))
	}
	s.pos = i
	return tok, kind, nil
}

// Int reads the next value as an integer: ok when it is an integer token in int64's range or,
// with wholeFloats, a float token with a whole value (IntOf). A number that is not one gives
// ok false; a value of another type is skipped and gives ok false.
func (s *Scanner) Int(wholeFloats bool) (v int64, ok bool, err error) {
	c, more := s.Peek()
	if !more {
		return 0, false, s.ErrEOF()
	}
	if c != '-' && c-'0' > 9 {
		return 0, false, s.Skip()
	}
	if b := s.buf[:s.end]; c != '-' {
		// Digits alone, ending in the buffer: the value as they are read.
		if v, end := leadDigits(b, s.pos); end > s.pos && end < len(b) && !NumTable[b[end]] {
			s.pos = end
			return v, true, nil
		}
	}
	tok, kind, err := s.num()
	if err != nil {
		return 0, false, err
	}
	v, ok = IntOf(tok, kind, wholeFloats)
	return v, ok, nil
}

// Fixed3 reads a non-negative number with no exponent and at most three decimals as a count of
// thousandths (12.5 → 12500, 7 → 7000) and reports whether it did. It reads nothing and reports
// false for any other value (a sign, an exponent, a fourth decimal, more than 15 digits before
// the point, not a number) and for a number that may go on past the buffered bytes: the caller
// then reads it with Num. For a reader whose numbers are nearly all µs with three decimals
// (Kineto's times): one pass over the digits instead of Num's pass and a parse of the token.
func (s *Scanner) Fixed3() (int64, bool) {
	b := s.buf[:s.end]
	i := s.pos
	v, j := leadDigits(b, i)
	if j == i || j-i > 15 {
		return 0, false
	}
	d := 0
	if j+1 < len(b) && b[j] == '.' && b[j+1]-'0' <= 9 {
		for j++; d < 3 && j < len(b) && b[j]-'0' <= 9; j, d = j+1, d+1 {
			v = v*10 + int64(b[j]-'0')
		}
	}
	if j >= len(b) || NumTable[b[j]] {
		return 0, false
	}
	for ; d < 3; d++ {
		v *= 10
	}
	s.pos = j
	return v, true
}

// leadDigits reads the digits of b from i as JSON writes an integer's (no redundant leading 0),
// at most 18 of them: the value and the index after the digits, or i when there are none, too
// many, or a leading 0 followed by another digit.
func leadDigits(b []byte, i int) (int64, int) {
	var v int64
	j := i
	for ; j < len(b) && b[j]-'0' <= 9; j++ {
		v = v*10 + int64(b[j]-'0')
	}
	if n := j - i; n == 0 || n > 18 || n > 1 && b[i] == '0' {
		return 0, i
	}
	return v, j
}

// nonFinite reports NaN, Infinity or -Infinity at buf[start] by name: JSON has no such values
// (Python's json.dump writes them unless allow_nan=False).
func (s *Scanner) nonFinite(start int) ([]byte, NumKind, error) {
	s.pos = start
	at := s.Offset()
	for _, lit := range [...]string{"NaN", "Infinity", "-Infinity"} {
		if s.literal(lit) {
			return nil, 0, s.ErrAt(at, "%s is not JSON (JSON has no NaN or Infinity; Python's json.dump writes them unless allow_nan=False)", lit)
		}
	}
	// literal may have refilled the buffer, which moves the token: pos is still at its start.
	return nil, 0, s.ErrAt(s.Offset(), "invalid value starting with %s", QuoteByte(s.buf[s.pos]))
}

// SkipBOM consumes a UTF-8 byte order mark (EF BB BF) at the very start of the input and
// reports whether there was one. RFC 8259 lets a parser ignore it; Windows tools write it.
func (s *Scanner) SkipBOM() bool {
	return s.Offset() == 0 && s.literal("\xEF\xBB\xBF")
}

// ClipLen is the most bytes of input an error message quotes (quote.Max, the one limit of
// every error line).
const ClipLen = quote.Max

// Clip quotes b for an error message as Go's %q does, cut to at most ClipLen bytes of it (at a
// UTF-8 boundary) with "…" after the quotes when it was cut (quote.String).
func Clip[T ~string | ~[]byte](b T) string { return quote.String(string(b)) }

// Cut is Clip without the quotes, for tokens that need none (numbers) (quote.Clip).
func Cut[T ~string | ~[]byte](b T) string { return quote.Clip(string(b)) }

// literal consumes lit if the input continues with it.
func (s *Scanner) literal(lit string) bool {
	for s.end-s.pos < len(lit) && s.fill() {
	}
	if s.end-s.pos >= len(lit) && string(s.buf[s.pos:s.pos+len(lit)]) == lit {
		s.pos += len(lit)
		return true
	}
	return false
}

// Skip skips one value of any type.
func (s *Scanner) Skip() error {
	if s.skipFast() {
		return nil
	}
	return s.skipDepth(0)
}

// skipFast skips one value that lies wholly in the buffered bytes and holds only the common
// forms — strings without escapes, numbers, true, false, null, and
// arrays and objects of those nested at most 32 deep — and reports true. On anything else,
// or at the end of the buffered bytes, it consumes nothing and reports false, and skipDepth
// reads (and validates, and reports errors in) the value as always. Whatever it accepts,
// skipDepth accepts the same way.
func (s *Scanner) skipFast() bool {
	b := s.buf[:s.end]
	i := s.pos
	var closers [32]byte
	depth := 0
	for {
		// A value starts at i, after optional whitespace.
		if i = skipSpace(b, i); i >= len(b) {
			return false
		}
		switch c := b[i]; c {
		case '"':
			if i+1 < len(b) && b[i+1] == '"' { // "" (Kineto's "Concrete Inputs" are mostly empty)
				i += 2
				break
			}
			q := quoteEnd(b, i+1)
			if q < 0 {
				return false
			}
			i = q + 1
		case '[', '{':
			if depth == len(closers) {
				return false
			}
			closers[depth] = c + 2 // ']' and '}'
			depth++
			if i = skipSpace(b, i+1); i >= len(b) {
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
			if c-'0' <= 9 { // an integer without sign, fraction or exponent, in line
				j := i + 1
				if c != '0' {
					for j < len(b) && b[j]-'0' <= 9 {
						j++
					}
				}
				if j < len(b) && !NumTable[b[j]] {
					i = j
					break
				}
			}
			j, _ := numberEnd(b, i)
			if j == i || j >= len(b) || NumTable[b[j]] {
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
			if i = skipSpace(b, i); i >= len(b) {
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
			if i < len(b) && b[i] == ' ' { // ", " as writers lay it out: one space less to look at
				i++
			}
			if closers[depth-1] == '}' {
				if i = skipKeyFast(b, skipSpace(b, i)); i < 0 {
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
	q := quoteEnd(b, i+1)
	if q < 0 {
		return -1
	}
	if i = skipSpace(b, q+1); i >= len(b) || b[i] != ':' {
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
		s.pos++
		more, err := s.first('}')
		for more && err == nil {
			if c, ok := s.Peek(); !ok {
				return s.ErrEOF()
			} else if c != '"' {
				return s.ErrHere("expected a member name string, found %s", QuoteByte(c))
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
		if depth >= MaxDepth {
			return s.ErrHere("values nested deeper than %d levels", MaxDepth)
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
	_, _, err := s.num()
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

// skipSpace returns the index of the first byte at or after b[i] that is not JSON whitespace,
// or len(b). (An 8-byte version measured worse: most runs are one byte, after ':' and ',',
// and the longer ones, the indentation of Kineto's lines, are only 3 to 7.)
func skipSpace(b []byte, i int) int {
	for i < len(b) && Space[b[i]] {
		i++
	}
	return i
}

// The 8-byte (SWAR) search of quoteEnd: most strings a skip passes over (types, empty
// "Concrete Inputs", ids) are shorter than 16 bytes, where bytes.IndexByte's call, made twice
// (for the quote, then for a backslash before it), costs more than the search.

const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
	swar7f = 0x7f7f7f7f7f7f7f7f
)

// nonZero marks (with its top bit) exactly the bytes of x that are not zero.
func nonZero(x uint64) uint64 {
	return ((x & swar7f) + swar7f | x) & swarHi
}

// quoteEnd returns the index of the '"' that closes the string whose opening '"' is b[i-1], or
// −1 when the string holds a '\\' or does not close in b.
func quoteEnd(b []byte, i int) int {
	j := i
	for ; j+8 <= len(b) && j < i+32; j += 8 {
		w := binary.LittleEndian.Uint64(b[j:])
		if m := ^nonZero(w^(swarLo*'"')) & swarHi; m != 0 {
			q := j + bits.TrailingZeros64(m)/8
			if e := ^nonZero(w^(swarLo*'\\')) & swarHi; e != 0 && bits.TrailingZeros64(e) < bits.TrailingZeros64(m) {
				return -1
			}
			return q
		}
		if ^nonZero(w^(swarLo*'\\'))&swarHi != 0 {
			return -1
		}
	}
	q := bytes.IndexByte(b[j:], '"')
	if q < 0 || bytes.IndexByte(b[j:j+q], '\\') >= 0 {
		return -1
	}
	return j + q
}
