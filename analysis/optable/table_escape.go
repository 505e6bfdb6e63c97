package optable

import (
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
