package text

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/orprof/orprof/internal/quote"
)

// TextOptions choose the layout of WriteText.
type TextOptions struct {
	// Title, when set, is printed on a line of its own above the table.
	Title string
	// MaxName cuts the cells of left-aligned columns (not the header) to this many runes, the
	// last three "..." (0: no cut).
	MaxName int
	// Framed draws rule lines above the header and under the last row too, and writes two
	// spaces after every cell (the kernel view's layout). Otherwise a rule runs under the header
	// only, cells are separated by two spaces with nothing after the last, and a table without
	// rows prints "(none)".
	Framed bool
}

// WriteText writes t as a plain-text table: columns padded to their widest cell (in runes),
// left-aligned columns padded on the right, the others on the left, and every cell through
// quote.Printable, so that no control character reaches a terminal. The operator table has
// its own writer: PyTorch's layout (package optable).
func (t *Table) WriteText(w io.Writer, o TextOptions) error {
	cells := make([][]string, 0, len(t.Rows)+1)
	head := make([]string, len(t.Head))
	for i, h := range t.Head {
		head[i] = quote.Printable(h)
	}
	cells = append(cells, head)
	for _, r := range t.Rows {
		c := make([]string, len(r))
		for i, v := range r {
			v = quote.Printable(v)
			if o.MaxName > 0 && t.left(i) && utf8.RuneCountInString(v) > o.MaxName {
				v = string([]rune(v)[:o.MaxName-3]) + "..."
			}
			c[i] = v
		}
		cells = append(cells, c)
	}
	width := make([]int, len(t.Head))
	for _, r := range cells {
		for i, v := range r {
			width[i] = max(width[i], utf8.RuneCountInString(v))
		}
	}
	var b strings.Builder
	if o.Title != "" {
		b.WriteString(o.Title + "\n")
	}
	rule := func() {
		var l strings.Builder
		for i, n := range width {
			if i > 0 && !o.Framed {
				l.WriteString("  ")
			}
			l.WriteString(strings.Repeat("-", n))
			if o.Framed {
				l.WriteString("  ")
			}
		}
		b.WriteString(l.String() + "\n")
	}
	row := func(r []string) {
		var l strings.Builder
		for i, v := range r {
			if i > 0 && !o.Framed {
				l.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(v))
			if t.left(i) {
				l.WriteString(v + pad)
			} else {
				l.WriteString(pad + v)
			}
			if o.Framed {
				l.WriteString("  ")
			}
		}
		if o.Framed {
			b.WriteString(l.String() + "\n")
		} else {
			b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
		}
	}
	if o.Framed {
		rule()
	}
	row(cells[0])
	rule()
	for _, r := range cells[1:] {
		row(r)
	}
	if o.Framed {
		rule()
	} else if len(t.Rows) == 0 {
		b.WriteString("(none)\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
