package trace

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestArgJSON: each constructor's value as the writer encodes it, and Int reading it back.
func TestArgJSON(t *testing.T) {
	tests := []struct {
		arg   Arg
		json  string
		n     int64
		isInt bool
	}{
		{Int(ArgExternalID, -42), "-42", -42, true},
		{Str(ArgCallStack, "a.py(1): f;b\x07\"c\""), `"a.py(1): f;b\u0007\"c\""`, 0, false},
		{Str("queue", "3"), `"3"`, 0, false},
		{Bool(ArgAsync, true), "true", 0, false},
		{Bool(ArgAsync, false), "false", 0, false},
		{Raw(ArgInputDims, "[[2, 3], []]"), "[[2, 3], []]", 0, false},
		{Raw(ArgExternalID, "17"), "17", 17, true},
		{Raw(ArgExternalID, "99999999999999999999"), "99999999999999999999", 0, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.json, tt.arg.JSON(), tt.arg.Key)
		assert.Equal(t, "x"+tt.json, string(tt.arg.AppendJSON([]byte("x"))), tt.arg.Key)
		n, ok := tt.arg.Int()
		assert.Equal(t, tt.isInt, ok, tt.json)
		assert.Equal(t, tt.n, n, tt.json)
	}
}
