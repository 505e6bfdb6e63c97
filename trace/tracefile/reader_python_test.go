package tracefile

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orprof/orprof/internal/jsonscan"
)

func TestParseMicrosToNs(t *testing.T) {
	tests := []struct {
		in   string
		kind jsonscan.NumKind
		want int64
	}{
		{"0", jsonscan.NumInt, 0}, {"12", jsonscan.NumInt, 12000}, {"-3", jsonscan.NumInt, -3000},
		{"3605057436108.407", jsonscan.NumFloat, 3605057436108407}, {"1.5", jsonscan.NumFloat, 1500}, {"1.25", jsonscan.NumFloat, 1250},
		{"-0.125", jsonscan.NumFloat, -125}, {"0.001", jsonscan.NumFloat, 1}, {"45.98599999999999", jsonscan.NumFloat, 45986},
		{"1e3", jsonscan.NumFloat, 1000000}, {"2.5e-3", jsonscan.NumFloat, 3},
	}
	for _, tt := range tests {
		got, ok := parseMicrosToNs([]byte(tt.in), tt.kind)
		assert.True(t, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	for _, in := range []string{"9300000000000000", "1e300"} {
		_, ok := parseMicrosToNs([]byte(in), jsonscan.NumFloat)
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
