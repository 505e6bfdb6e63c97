package report

import (
	"fmt"
	"strings"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/quote"
)

// printableRows returns rows with the names, input shapes and stack frames escaped for a
// terminal (quote.Printable: control characters and ANSI escape sequences as Go escapes), in a
// copy when any needs it; the text table prints these. PyTorch prints names raw, but a table is
// no place for terminal escapes. The markdown, CSV and JSON outputs keep the exact strings in
// their own encodings.
func printableRows(rows []events.Avg) []events.Avg {
	var out []events.Avg
	for i := range rows {
		r := &rows[i]
		key, shapes := quote.Printable(r.Key), quote.Printable(r.InputShapes)
		stack := r.Stack
		for j, f := range r.Stack {
			if p := quote.Printable(f); p != f {
				if &stack[0] == &r.Stack[0] {
					stack = append([]string(nil), r.Stack...)
				}
				stack[j] = p
			}
		}
		if key == r.Key && shapes == r.InputShapes && (len(stack) == 0 || &stack[0] == &r.Stack[0]) {
			continue
		}
		if out == nil {
			out = append([]events.Avg(nil), rows...)
		}
		out[i].Key, out[i].InputShapes, out[i].Stack = key, shapes, stack
	}
	if out == nil {
		return rows
	}
	return out
}

// markdownCell encodes a table cell for GitHub markdown so that it renders as the exact
// string: the punctuation markdown would act on is backslash-escaped (a "|" would end the
// cell, "_" and "*" would start emphasis, "<" a tag) and control characters become numeric
// character references (no raw terminal escapes in the file).
func markdownCell(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || strings.IndexByte(markdownSpecial, c) >= 0 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, "&#x%x;", r)
		case r == '_' && i > 0 && i+1 < len(s) && isAlnum(s[i-1]) && isAlnum(s[i+1]):
			b.WriteByte('_') // inside a word "_" cannot start emphasis: as_strided stays readable
		case r < 0x80 && strings.IndexByte(markdownSpecial, byte(r)) >= 0:
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markdownSpecial is the ASCII punctuation escaped in markdown cells.
const markdownSpecial = "\\`*_[]<>|~&#!"

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
