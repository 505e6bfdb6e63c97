package tracefile

import (
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scanOne runs fn on a scanner over in, fed one byte at a time so that every token crosses a
// refill.
func scanOne(in string) *scanner {
	return newScanner(iotest.OneByteReader(strings.NewReader(in)), "s.json", nil)
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
		for name, s := range map[string]*scanner{"buffered": newScanner(strings.NewReader(tt.in), "s.json", nil),
			"one byte": scanOne(tt.in)} {
			got, err := s.str()
			require.NoError(t, err, "%s %s", tt.in, name)
			assert.Equal(t, tt.want, string(got), "%s %s", tt.in, name)
			s2 := newScanner(strings.NewReader(tt.in+"]"), "s.json", nil)
			require.NoError(t, s2.skipStr(), tt.in)
			c, _ := s2.peek()
			assert.Equal(t, byte(']'), c, "skipStr stops after the string: %s", tt.in)
		}
	}
}

func TestScanNumbers(t *testing.T) {
	good := []struct {
		in   string
		kind numKind
	}{
		{"0", numInt}, {"-0", numInt}, {"123", numInt}, {"-45", numInt},
		{"1.5", numFloat}, {"-0.25", numFloat}, {"1e5", numFloat}, {"1E+5", numFloat}, {"2.5e-3", numFloat},
		{"NaN", numNonFin}, {"Infinity", numNonFin}, {"-Infinity", numNonFin},
	}
	for _, tt := range good {
		for _, s := range []*scanner{newScanner(strings.NewReader(tt.in+","), "n", nil), scanOne(tt.in + ",")} {
			tok, kind, err := s.num()
			require.NoError(t, err, tt.in)
			assert.Equal(t, tt.in, string(tok))
			assert.Equal(t, tt.kind, kind, tt.in)
		}
	}
	for _, bad := range []string{"01", "1.", ".5", "-", "1e", "1e+", "+1", "1.2.3", "--1", "Nan", "infinity"} {
		for _, s := range []*scanner{newScanner(strings.NewReader(bad+","), "n", nil), scanOne(bad + ",")} {
			_, _, err := s.num()
			assert.Error(t, err, bad)
		}
	}
}

func TestScanSkip(t *testing.T) {
	good := []string{`1`, `"s"`, `true`, `false`, `null`, `[]`, `{}`, `[1, "a", [true, {"k": null}]]`,
		`{"a": {"b": [1.5e3, -0, "x\"y"]}, "c": []}`, " [ 1 , 2 ] ", `NaN`, `[Infinity, -Infinity]`}
	for _, in := range good {
		for _, s := range []*scanner{newScanner(strings.NewReader(in+" #"), "k", nil), scanOne(in + " #")} {
			require.NoError(t, s.skip(), in)
			c, ok := s.peek()
			assert.True(t, ok)
			assert.Equal(t, byte('#'), c, in)
		}
	}
	bad := []string{`[1 2]`, `{"a" 1}`, `{1: 2}`, `[1,]`, `{"a": 1,}`, `tru`, `nul`, `[`, `{"a":`, `"abc`, `"\x"`,
		`"\u12"`, `]`, `}`, `,`, `[0x10]`}
	for _, in := range bad {
		for _, s := range []*scanner{newScanner(strings.NewReader(in), "k", nil), scanOne(in)} {
			assert.Error(t, s.skip(), in)
		}
	}
}

func TestParseInt(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "-0": 0, "42": 42, "-42": -42,
		"9223372036854775807": 9223372036854775807, "-9223372036854775808": -9223372036854775808} {
		got, ok := parseInt([]byte(in))
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "-", "9223372036854775808", "-9223372036854775809", "1.5", "12a",
		"123456789012345678901234"} {
		_, ok := parseInt([]byte(in))
		assert.False(t, ok, in)
	}
}

func TestParseMicrosToNs(t *testing.T) {
	tests := []struct {
		in   string
		kind numKind
		want int64
	}{
		{"0", numInt, 0}, {"12", numInt, 12000}, {"-3", numInt, -3000},
		{"3605057436108.407", numFloat, 3605057436108407}, {"1.5", numFloat, 1500}, {"1.25", numFloat, 1250},
		{"-0.125", numFloat, -125}, {"0.001", numFloat, 1}, {"45.98599999999999", numFloat, 45986},
		{"1e3", numFloat, 1000000}, {"2.5e-3", numFloat, 3},
	}
	for _, tt := range tests {
		got, ok := parseMicrosToNs([]byte(tt.in), tt.kind)
		assert.True(t, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	for _, in := range []string{"9300000000000000", "1e300"} {
		_, ok := parseMicrosToNs([]byte(in), numFloat)
		assert.False(t, ok, in)
	}
}

func TestPyShapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[]`, "[]"},
		{`[[]]`, "[[]]"},
		{`[[64, 64], []]`, "[[64, 64], []]"},
		{` [ [1,2] ,[3] ] `, "[[1, 2], [3]]"},
		{`[[[2, 3], [4]], [5]]`, "[[], [5]]"},
		{`[[1.5, -0.0, 1e16, 1e-5, 2.0]]`, "[[1.5, -0.0, 1e+16, 1e-05, 2.0]]"},
		{`[[true, false, null]]`, "[[True, False, None]]"},
		{`[["a", "it's", "say \"hi\"", "tab\t"]]`, `[['a', "it's", 'say "hi"', 'tab\t']]`},
		{`[5, "x"]`, "[5, 'x']"},
		{`[-0, 12345678901234567890123]`, "[0, 12345678901234567890123]"},
	}
	for _, tt := range tests {
		got, ok := pyShapes([]byte(tt.in))
		assert.True(t, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	for _, in := range []string{`null`, `"[1]"`, `{}`, `5`} {
		_, ok := pyShapes([]byte(in))
		assert.False(t, ok, in)
	}
}

func TestPyFloat(t *testing.T) {
	for in, want := range map[float64]string{0: "0.0", 1: "1.0", 0.1: "0.1", 45.98599999999999: "45.98599999999999",
		1e16: "1e+16", 123456789012345.6: "123456789012345.6", 1e-4: "0.0001", 1.5e-5: "1.5e-05",
		-2.5e100: "-2.5e+100", 1e22: "1e+22"} {
		assert.Equal(t, want, pyFloat(in), "%v", in)
	}
}

func TestKeepStackEntry(t *testing.T) {
	assert.True(t, keepStackEntry("model.py(10): forward"))
	assert.False(t, keepStackEntry("torch/autograd/__init__.py(200): backward"))
	assert.False(t, keepStackEntry("torch/autograd/__init__.py(51): _make_grads"))
	assert.False(t, keepStackEntry("torch/tensor.py(1): backward"))
	assert.False(t, keepStackEntry("torch/testing/_internal/common_utils.py(9): prof_callable"))
	assert.True(t, keepStackEntry("torch/autograd/__init__.py(20): grad"))
}
