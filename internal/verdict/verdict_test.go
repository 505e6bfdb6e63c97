package verdict

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFold(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", ""},
		{"one line", "stream 3 never synchronized", "stream 3 never synchronized"},
		{"runs of spaces and tabs", "a \t  b  ", "a b"},
		{"two lines", "wrong start\nwant 3, got 4", "wrong start; want 3, got 4"},
		{"CRLF", "one\r\ntwo\r\n", "one; two"},
		{"blank and white lines dropped", "one\n\n   \n\ttwo\n", "one; two"},
		{"stack indentation", "panic: boom\ngoroutine 7 [running]:\n\tmain.f()\n\t\t/x.go:3 +0x1d", "panic: boom; goroutine 7 [running]: main.f(); /x.go:3 +0x1d"},
		{"after punctuation a space", "want:\n  1, 2,\n  3;\nend", "want: 1, 2, 3; end"},
		{"only white space", " \n\t\r\n ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Fold(tc.in))
		})
	}
}

func TestResultString(t *testing.T) {
	for _, tc := range []struct {
		r    Result
		want string
	}{
		{Result{Name: "enabled", Status: Pass}, "PASS enabled"},
		{Result{Name: "sync", Status: Fail, Reason: "timed out\nafter 30s"}, "FAIL sync: timed out; after 30s"},
		{Result{Name: "rest", Status: Skip, Reason: "backend not enabled"}, "SKIP rest: backend not enabled"},
		{Result{Name: "blank", Status: Fail, Reason: "\n \n"}, "FAIL blank"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.r.String())
		})
	}
}

// TestResultJSON: the child processes of orprof conformance hand their Result to the parent as
// this JSON; its field names are the wire format.
func TestResultJSON(t *testing.T) {
	b, err := json.Marshal(Result{Name: "n", Status: Fail, Reason: "r"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"n","status":"FAIL","reason":"r"}`, string(b))
	b, err = json.Marshal(Result{Name: "n", Status: Pass})
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"n","status":"PASS"}`, string(b))
}
