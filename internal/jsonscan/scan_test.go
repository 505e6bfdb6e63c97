package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scanOne runs fn on a scanner over in, fed one byte at a time so that every token crosses a
// refill.
func scanOne(in string) *Scanner {
	return New(iotest.OneByteReader(strings.NewReader(in)), "s.json", nil)
}

func TestScanStrings(t *testing.T) {
	tests := []struct{ in, want string }{
		{`""`, ""},
		{`"plain"`, "plain"},
		{`"a\"b"`, `a"b`},
		{`"x\\y\/z"`, `x\y/z`},
		{`"\b\f\n\r\t"`, "\b\f\n\r\t"},
		{`"\u00e9\u4e2d"`, "é中"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ud83d"`, "\ufffd"},
		{`"\ud83dx"`, "\ufffdx"},
		{`"\ude00\u0041"`, "\ufffdA"},
		{`"` + strings.Repeat("long", 40) + `\n"`, strings.Repeat("long", 40) + "\n"},
	}
	for _, tt := range tests {
		for name, s := range map[string]*Scanner{"buffered": New(strings.NewReader(tt.in), "s.json", nil),
			"one byte": scanOne(tt.in)} {
			got, err := s.Str()
			require.NoError(t, err, "%s %s", tt.in, name)
			assert.Equal(t, tt.want, string(got), "%s %s", tt.in, name)
			s2 := New(strings.NewReader(tt.in+"]"), "s.json", nil)
			require.NoError(t, s2.skipStr(), tt.in)
			c, _ := s2.Peek()
			assert.Equal(t, byte(']'), c, "skipStr stops after the string: %s", tt.in)
		}
	}
}

func TestScanNumbers(t *testing.T) {
	good := []struct {
		in   string
		kind NumKind
	}{
		{"0", NumInt}, {"-0", NumInt}, {"123", NumInt}, {"-45", NumInt},
		{"1.5", NumFloat}, {"-0.25", NumFloat}, {"1e5", NumFloat}, {"1E+5", NumFloat}, {"2.5e-3", NumFloat},
	}
	for _, tt := range good {
		for _, s := range []*Scanner{New(strings.NewReader(tt.in+","), "n", nil), scanOne(tt.in + ",")} {
			tok, kind, err := s.Num()
			require.NoError(t, err, tt.in)
			assert.Equal(t, tt.in, string(tok))
			assert.Equal(t, tt.kind, kind, tt.in)
		}
	}
	for _, lit := range []string{"NaN", "Infinity", "-Infinity"} {
		for _, s := range []*Scanner{New(strings.NewReader(lit+","), "n", nil), scanOne(lit + ",")} {
			_, _, err := s.Num()
			require.Error(t, err, lit)
			assert.Contains(t, err.Error(), "n: byte 0: "+lit+" is not JSON (JSON has no NaN or Infinity", "strict JSON names the literal")
		}
	}
	for _, bad := range []string{"01", "1.", ".5", "-", "1e", "1e+", "+1", "1.2.3", "--1", "Nan", "infinity"} {
		for _, s := range []*Scanner{New(strings.NewReader(bad+","), "n", nil), scanOne(bad + ",")} {
			_, _, err := s.Num()
			assert.Error(t, err, bad)
		}
	}
	// A number the input ends inside is the input's end (or its read error), not a bad number:
	// "1." may be the start of "1.5".
	for _, cut := range []string{"1.", "-", "1e", "1e+", "12"} {
		_, _, err := New(strings.NewReader(cut), "n", nil).Num()
		if cut == "12" {
			assert.NoError(t, err)
			continue
		}
		assert.EqualError(t, err, "n: byte 0: unexpected end of input (truncated JSON?)", cut)
		failing := io.MultiReader(strings.NewReader(cut), iotest.ErrReader(errors.New("boom")))
		_, _, err = New(failing, "n", nil).Num()
		assert.EqualError(t, err, "n: byte 0: read failed: boom", cut)
	}
}

func TestScanSkip(t *testing.T) {
	good := []string{`1`, `"s"`, `true`, `false`, `null`, `[]`, `{}`, `[1, "a", [true, {"k": null}]]`,
		`{"a": {"b": [1.5e3, -0, "x\"y"]}, "c": []}`, " [ 1 , 2 ] "}
	for _, in := range good {
		for _, s := range []*Scanner{New(strings.NewReader(in+" #"), "k", nil), scanOne(in + " #")} {
			require.NoError(t, s.Skip(), in)
			c, ok := s.Peek()
			assert.True(t, ok)
			assert.Equal(t, byte('#'), c, in)
		}
	}
	bad := []string{`[1 2]`, `{"a" 1}`, `{1: 2}`, `[1,]`, `{"a": 1,}`, `tru`, `nul`, `[`, `{"a":`, `"abc`, `"\x"`,
		`"\u12"`, `]`, `}`, `,`, `[0x10]`, `NaN`, `[Infinity]`, `{"a": -Infinity}`}
	for _, in := range bad {
		for _, s := range []*Scanner{New(strings.NewReader(in), "k", nil), scanOne(in)} {
			assert.Error(t, s.Skip(), in)
		}
	}
}

// TestClip: error messages quote at most ClipLen bytes of input, cut at a UTF-8 boundary.
func TestClip(t *testing.T) {
	assert.Equal(t, `"abc"`, Clip("abc"))
	assert.Equal(t, "12", Cut([]byte("12")))
	long := strings.Repeat("é", 80) // 160 bytes
	got := Clip(long)
	assert.Equal(t, `"`+strings.Repeat("é", 50)+`"…`, got)
	assert.Equal(t, strings.Repeat("7", ClipLen)+"…", Cut(strings.Repeat("7", 5000)))
}

// TestSkipBOM: a UTF-8 byte order mark is skipped at the start of the input only.
func TestSkipBOM(t *testing.T) {
	s := New(strings.NewReader("\xEF\xBB\xBF[1]"), "b", nil)
	assert.True(t, s.SkipBOM())
	c, _ := s.Peek()
	assert.Equal(t, byte('['), c)
	assert.Equal(t, int64(3), s.Offset(), "offsets stay those of the file")
	s = scanOne("\xEF\xBB\xBF[1]")
	assert.True(t, s.SkipBOM(), "one byte at a time")
	s = New(strings.NewReader("[1]"), "b", nil)
	assert.False(t, s.SkipBOM())
	c, _ = s.Peek()
	assert.Equal(t, byte('['), c)
}

func TestParseInt(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "-0": 0, "42": 42, "-42": -42,
		"9223372036854775807": 9223372036854775807, "-9223372036854775808": -9223372036854775808} {
		got, ok := ParseInt([]byte(in))
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "-", "9223372036854775808", "-9223372036854775809", "1.5", "12a",
		"123456789012345678901234"} {
		_, ok := ParseInt([]byte(in))
		assert.False(t, ok, in)
	}
}

func TestScanObjectArray(t *testing.T) {
	in := `{"a": [1, 2, 3], "b": {"c": "d"}, "e": {}, "f": []}`
	for name, s := range map[string]*Scanner{"buffered": New(strings.NewReader(in), "o", nil), "one byte": scanOne(in)} {
		var keys, elems []string
		it := s.Object()
		for it.Next() {
			keys = append(keys, string(it.Key()))
			if c, _ := s.Peek(); c == '[' {
				el := s.Array()
				for el.Next() {
					v, ok, err := s.Int(false)
					require.NoError(t, err)
					require.True(t, ok)
					elems = append(elems, strconv.FormatInt(v, 10))
				}
				require.NoError(t, el.Err(), name)
			} else {
				require.NoError(t, s.Skip(), name)
			}
		}
		require.NoError(t, it.Err(), name)
		assert.Equal(t, []string{"a", "b", "e", "f"}, keys, name)
		assert.Equal(t, []string{"1", "2", "3"}, elems, name)
	}
	for _, bad := range []string{`[1]`, `{"a" 1}`, `{"a": 1 "b": 2}`, `{1: 2}`, `{"a": 1`} {
		s := New(strings.NewReader(bad), "o", nil)
		it := s.Object()
		for it.Next() {
			if s.Skip() != nil {
				break
			}
		}
		assert.Error(t, it.Err(), bad)
	}
	// ObjectOrSkip skips a value of another type.
	s := New(strings.NewReader(`[1, {"x": 2}] #`), "o", nil)
	it := s.ObjectOrSkip()
	assert.False(t, it.Next())
	require.NoError(t, it.Err())
	c, _ := s.Peek()
	assert.Equal(t, byte('#'), c)
}

func TestScanValues(t *testing.T) {
	in := `["s", 7, 2.0, 2.5, 99999999999999999999, "t", null, [1, {"k": "v"}], 8]`
	for name, s := range map[string]*Scanner{"buffered": New(strings.NewReader(in), "v", nil), "one byte": scanOne(in)} {
		it := s.Array()
		require.True(t, it.Next())
		v, ok, err := s.StrOrSkip()
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, "s", string(v), name)
		require.True(t, it.Next())
		_, ok, err = s.StrOrSkip() // 7 is skipped
		require.NoError(t, err)
		assert.False(t, ok, name)
		require.True(t, it.Next())
		n, ok, err := s.Int(true) // 2.0 is whole
		require.NoError(t, err)
		assert.True(t, ok, name)
		assert.Equal(t, int64(2), n)
		require.True(t, it.Next())
		_, ok, err = s.Int(true) // 2.5 is not
		require.NoError(t, err)
		assert.False(t, ok, name)
		require.True(t, it.Next())
		_, ok, err = s.Int(false) // overflows
		require.NoError(t, err)
		assert.False(t, ok, name)
		require.True(t, it.Next())
		_, ok, err = s.Int(false) // a string is skipped
		require.NoError(t, err)
		assert.False(t, ok, name)
		require.True(t, it.Next())
		_, ok, err = s.Int(true) // null is skipped
		require.NoError(t, err)
		assert.False(t, ok, name)
		require.True(t, it.Next())
		raw, err := s.Raw()
		require.NoError(t, err)
		assert.Equal(t, `[1, {"k": "v"}]`, string(raw), name)
		require.True(t, it.Next())
		n, ok, err = s.Int(false)
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, int64(8), n, name)
		assert.False(t, it.Next())
		require.NoError(t, it.Err())
	}
}

// TestScanHandOff moves a scan between buffers as the trace reader's parallel parse does: the
// buffered rest is detached, the source read directly, and the pieces handed back with Resume
// or scanned in place with Reset; offsets stay those of the input.
func TestScanHandOff(t *testing.T) {
	in := `[10, 20, 30, 40, 50]`
	s := New(iotest.HalfReader(strings.NewReader(in)), "h", nil)
	it := s.Array()
	require.True(t, it.Next())
	assert.True(t, s.Streaming())
	rest, off := s.Detach()
	assert.Equal(t, int64(1), off)
	taken := append([]byte(nil), rest...)
	buf := make([]byte, 64)
	for !s.SourceDone() {
		taken = append(taken, buf[:s.ReadSome(buf)]...)
	}
	assert.Equal(t, in[1:], string(taken))
	assert.Equal(t, int64(len(in)), s.BytesRead())

	// Hand the input back in two chunks after a prefix.
	s.Resume(off, taken[:4], feeder(taken[4:9], taken[9:]))
	assert.Equal(t, []int64{10, 20, 30, 40, 50}, arrayRest(t, s))
	assert.Equal(t, int64(len(in)), s.Offset())

	// A piece scanned in place reports errors at input offsets.
	p := NewBytes([]byte(`30, x0`), 9, "h")
	_, _, err := p.Int(false)
	require.NoError(t, err)
	pit := p.InArray()
	assert.True(t, pit.Next())
	assert.False(t, p.AtBufferEnd())
	_, _, err = p.Num()
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, int64(13), e.Offset)
}

// feeder hands chunks back to a scanner (Resume) one at a time, then nil.
func feeder(chunks ...[]byte) func() []byte {
	return func() []byte {
		if len(chunks) == 0 {
			return nil
		}
		c := chunks[0]
		chunks = chunks[1:]
		return c
	}
}

// arrayRest reads the integers of an array from its first element to its end.
func arrayRest(t *testing.T, s *Scanner) []int64 {
	t.Helper()
	var got []int64
	it := s.InArray()
	for {
		v, ok, err := s.Int(false)
		require.NoError(t, err)
		require.True(t, ok)
		got = append(got, v)
		if !it.Next() {
			break
		}
	}
	require.NoError(t, it.Err())
	return got
}

// TestScanInPlaceHandOff: input scanned in place and handed back (Resume) is copied into a
// buffer the scanner makes, never into the caller's memory, which may be read-only (a mapped
// file) and here has spare capacity that an append would write into.
func TestScanInPlaceHandOff(t *testing.T) {
	in := `[10, 20, 30, 40, 50]`
	mem := bytes.Repeat([]byte("#"), 128)
	copy(mem, in)
	s := NewBytes(mem[:len(in)], 0, "h")
	assert.True(t, s.InPlace())
	it := s.Array()
	require.True(t, it.Next())
	assert.False(t, s.Streaming())
	assert.Equal(t, len(in)-1, s.Buffered())
	rest, off := s.Detach()
	assert.Equal(t, in[1:], string(rest))
	assert.Same(t, &mem[1], &rest[0], "Detach returns the caller's memory itself")

	s.Resume(off, rest[:4:4], feeder(rest[4:9:9], rest[9:]))
	assert.False(t, s.InPlace())
	assert.Equal(t, []int64{10, 20, 30, 40, 50}, arrayRest(t, s))
	assert.Equal(t, in+strings.Repeat("#", 128-len(in)), string(mem), "the caller's memory is unchanged")
}

func TestNumGrammar(t *testing.T) {
	for in, want := range map[string]bool{"0": true, "-0": true, "10": true, "1.5": true, "1e5": true,
		"1E-5": true, "-1.25e+10": true, "01": false, "1.": false, ".5": false, "-": false, "1e": false,
		"1e+": false, "+1": false, "1.2.3": false, "": false, "--1": false, "0x1": false} {
		_, ok := NumGrammar([]byte(in))
		assert.Equal(t, want, ok, in)
	}
}

// TestQuoteEnd checks the 8-byte search for a string's closing quote against a byte loop, at
// every length and position of the quote and of a backslash around the word boundaries.
func TestQuoteEnd(t *testing.T) {
	want := func(b []byte, i int) int {
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				return j
			case '\\':
				return -1
			}
		}
		return -1
	}
	for n := 0; n <= 45; n++ {
		for q := -1; q < n; q++ {
			for e := -1; e < n; e++ {
				b := bytes.Repeat([]byte{'a'}, n)
				if q >= 0 {
					b[q] = '"'
				}
				if e >= 0 && e != q {
					b[e] = '\\'
				}
				for _, i := range []int{0, 1} {
					if i > len(b) {
						continue
					}
					if got, w := quoteEnd(b, i), want(b, i); got != w {
						t.Fatalf("quoteEnd(%q, %d) = %d, want %d", b, i, got, w)
					}
				}
			}
		}
	}
}

// TestParseIntDigits checks ParseInt's eight-digit steps against strconv at every length from
// 1 to 20 digits, signed and not, and with a non-digit at every position.
func TestParseIntDigits(t *testing.T) {
	const digits = "98765432109876543210"
	for n := 1; n <= len(digits); n++ {
		for _, sign := range []string{"", "-"} {
			in := sign + digits[:n]
			want, werr := strconv.ParseInt(in, 10, 64)
			got, ok := ParseInt([]byte(in))
			if ok != (werr == nil) || ok && got != want {
				t.Fatalf("ParseInt(%q) = %d, %v; strconv: %d, %v", in, got, ok, want, werr)
			}
			for k := len(sign); k < len(in); k++ {
				for _, c := range []byte{'/', ':', 'a', '.', ' ', 0x80 | '5', 0xb0} {
					bad := []byte(in)
					bad[k] = c
					if v, ok := ParseInt(bad); ok {
						t.Fatalf("ParseInt(%q) = %d, true; want false", bad, v)
					}
				}
			}
		}
	}
}

// TestNonDigits checks the eight-byte digit test against a byte test for every byte value at
// every position of a word.
func TestNonDigits(t *testing.T) {
	for c := 0; c < 256; c++ {
		for k := 0; k < 8; k++ {
			b := []byte("12345678")
			b[k] = byte(c)
			want := c < '0' || c > '9'
			m := nonDigits(binary.LittleEndian.Uint64(b))
			if got := m != 0; got != want || want && m != 0x80<<(8*k) {
				t.Fatalf("nonDigits(%q) = %#x", b, m)
			}
		}
	}
}

// TestFixed3 reads numbers as thousandths where it may, and leaves every other value, and a
// number that may go on past the buffer, to Num.
func TestFixed3(t *testing.T) {
	for in, want := range map[string]int64{
		"0,":                   0,
		"7,":                   7000,
		"12.5}":                12500,
		"3605057436205.604, ":  3605057436205604,
		"319.60 ":              319600,
		"0.001]":               1,
		"999999999999999.999,": 999999999999999999,
	} {
		s := NewBytes([]byte(in), 0, "f")
		v, ok := s.Fixed3()
		require.True(t, ok, in)
		assert.Equal(t, want, v, in)
		assert.Equal(t, strings.IndexAny(in, ",} ]"), s.pos, in)
	}
	for _, in := range []string{
		"", "7", "12.5", // may go on past the buffer
		"-1,", "1e3,", "1.5e3,", "1.2345,", "01,", "1.,", ".5,", "x,", `"1",`,
		"1000000000000000.5,", // 16 digits before the point
	} {
		s := NewBytes([]byte(in), 0, "f")
		_, ok := s.Fixed3()
		assert.False(t, ok, in)
		assert.Equal(t, 0, s.pos, in)
	}
}

// TestIntDigits: Int's path for plain digits gives what its general path gives, and leaves
// what it does not take to it.
func TestIntDigits(t *testing.T) {
	for in, want := range map[string]int64{
		"0,": 0, "42}": 42, "3243097, ": 3243097, "999999999999999999,": 999999999999999999,
		"9223372036854775807,": 9223372036854775807, // 19 digits: the general path
		"-5,":                  -5,
		"12.0,":                12, // a whole float, with wholeFloats
	} {
		v, ok, err := NewBytes([]byte(in), 0, "i").Int(true)
		require.NoError(t, err, in)
		require.True(t, ok, in)
		assert.Equal(t, want, v, in)
	}
	for _, in := range []string{"9223372036854775808,", "1.5,", "1e2,"} {
		_, ok, err := NewBytes([]byte(in), 0, "i").Int(false)
		require.NoError(t, err, in)
		assert.False(t, ok, in)
	}
	_, _, err := NewBytes([]byte("012,"), 0, "i").Int(true)
	require.Error(t, err, "a redundant leading 0 is not JSON")
}
