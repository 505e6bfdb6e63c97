// Package errtext finds a prefix added twice in an error message ("record: record: …"), the mark
// of an error wrapped by two layers that both name the call. Tests of the packages that wrap
// backend errors run their messages through it.
package errtext

import (
	"strings"
	"unicode"
)

// Repeated returns the first label that occurs twice in one line of msg, or "" when none does.
// A label is a ": "-separated segment without spaces that is not a number: a device, hook or
// call name such as "testreg", "record" or "EventElapsedTime". Labels compare without case, so
// "start: … Start: …" counts. Each line of msg (errors.Join output) is checked on its own.
func Repeated(msg string) string {
	for line := range strings.SplitSeq(msg, "\n") {
		seen := map[string]bool{}
		for seg := range strings.SplitSeq(line, ": ") {
			if !isLabel(seg) {
				continue
			}
			k := strings.ToLower(seg)
			if seen[k] {
				return seg
			}
			seen[k] = true
		}
	}
	return ""
}

func isLabel(s string) bool {
	letter := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letter = true
		case unicode.IsDigit(r), r == '_', r == '.', r == '#', r == '-', r == '/':
		default:
			return false
		}
	}
	return letter
}
