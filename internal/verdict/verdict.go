// Package verdict is the outcome of one conformance check, shared by both kits: stubs/stubstest
// (a device backend's stubs) and kineto/plugintest (a Kineto profiler plugin). Both name these
// types by alias, so `orprof conformance` prints the results of either the same way.
package verdict

import "strings"

// Status is the outcome of a check.
type Status string

// The outcomes of a check.
const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	Skip Status = "SKIP"
)

// Result is one check's outcome. Reason says what broke, or why the check was skipped; it is
// empty for Pass and may span several lines (a panic's stack, a child's stderr).
type Result struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// String is the one line `orprof conformance` prints: "PASS name", "FAIL name: reason" or
// "SKIP name: reason", the reason folded by Fold.
func (r Result) String() string {
	if reason := Fold(r.Reason); reason != "" {
		return string(r.Status) + " " + r.Name + ": " + reason
	}
	return string(r.Status) + " " + r.Name
}

// Fold puts a reason of several lines on one: each line's runs of white space become one
// space, blank lines are dropped, and a line break becomes "; " so that where a line ended
// stays visible ("panic: boom; goroutine 7 [running]: …", not one run of words) — or a space
// after a line that ends in punctuation already (":", ";", ","), which introduces the next.
func Fold(reason string) string {
	var b strings.Builder
	for _, l := range strings.FieldsFunc(reason, func(r rune) bool { return r == '\n' || r == '\r' }) {
		l = strings.Join(strings.Fields(l), " ")
		if l == "" {
			continue
		}
		if b.Len() > 0 {
			if s := b.String(); strings.ContainsAny(s[len(s)-1:], ":;,") {
				b.WriteByte(' ')
			} else {
				b.WriteString("; ")
			}
		}
		b.WriteString(l)
	}
	return b.String()
}
