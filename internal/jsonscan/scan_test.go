package jsonscan

import (
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
