package errtext

import "testing"

func TestRepeated(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"testreg: record: testreg: record: record: event pool exhausted (12 events live)", "testreg"},
		{"testreg: elapsed: elapsed: NULL event", "elapsed"},
		{"openreg: rangePop: openreg: rangePop with no range pushed", "openreg"},
		{"profiler X: start: kineto plugin /p/x.so (X): Start: session already started", "Start"},
		{"openreg: elapsed: OpenReg error: 1: EventElapsedTime: nil event", ""},
		{"testreg: record: event pool exhausted (12 events live)", ""},
		{"device 1: 1: 2: 1: numbers are not labels", ""},
		{"a: b\na: c", ""},
		{"a: b\nc: c", "c"},
		{"", ""},
	} {
		if got := Repeated(tc.msg); got != tc.want {
			t.Errorf("Repeated(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}
