package trace

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendUs(t *testing.T) {
	for ns, want := range map[int64]string{1234567: "1234.567", 8000: "8.000", 5: "0.005", -3: "0.000"} {
		assert.Equal(t, want, string(appendUs(nil, ns)))
	}
}

func TestCheckFindsProblems(t *testing.T) {
	bad := `{"distributedInfo": {"rank": 0}, "traceEvents": [
  {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
  {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 5, "dur": 10},
  {"ph": "s", "cat": "ac2g", "name": "ac2g", "pid": 1, "tid": 1, "ts": 5, "id": 7},
  {"ph": "X", "name": "c", "pid": 1, "tid": 2, "ts": -1, "dur": 1},
  {"ph": "C", "name": "ctr", "pid": 1, "tid": 2, "ts": 1, "args": {"v": "x"}}
]}`
	err := Check([]byte(bad))
	require.Error(t, err)
	for _, want := range []string{"overlaps", "has a start and no end", "ts is negative", "is not a number"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.ErrorContains(t, Check([]byte(`{"traceEvents": []}`)), "distributedInfo.rank is missing")
	assert.Error(t, Check([]byte(`[`)))
}

func TestAppendString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", `""`},
		{"aten::mm", `"aten::mm"`},
		{`"q"`, `"\"q\""`},
		{`a\b`, `"a\\b"`},
		{"tab\there\nnl\r\x01\x1f", `"tab\there\nnl\r\u0001\u001f"`},
		{"plain then \"", `"plain then \""`},
		{"héllo ✓", `"héllo ✓"`},
		{"bad \xff utf8", "\"bad \ufffd utf8\""},
		{"\x7f del is plain", "\"\x7f del is plain\""},
	} {
		assert.Equal(t, c.want, string(AppendString([]byte("x"), c.in))[1:], "%q", c.in)
	}
}
