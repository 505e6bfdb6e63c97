package text

import (
	"bytes"
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/orprof/orprof/internal/quote"
)

// markdownSpecial is the ASCII punctuation MarkdownCell backslash-escapes.
const markdownSpecial = "\\`*_[]<>|~&#!"

// MarkdownCell encodes s for a GitHub markdown table cell (see the package doc). A string
// with nothing to escape is returned as is, without allocating.
func MarkdownCell(s string) string {
	if markdownClean(s) {
		return s
	}
	lead, trail := edges(s)
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r >= 0x80 && (i < lead || i >= trail) && unicode.IsSpace(r):
			// Controls, and the spaces other than ASCII's at either end, which the table
			// writer would trim as padding.
			b.WriteString("&#x")
			b.WriteString(strconv.FormatInt(int64(r), 16))
			b.WriteByte(';')
		case r == '_' && i > 0 && i+1 < len(s) && isAlnum(s[i-1]) && isAlnum(s[i+1]):
			b.WriteByte('_') // inside a word "_" cannot start emphasis
		case r < 0x80 && strings.IndexByte(markdownSpecial, byte(r)) >= 0:
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		default:
			b.WriteRune(r) // an invalid byte is utf8.RuneError here: U+FFFD
		}
	}
	return b.String()
}

// edges are the byte offsets of s's first rune that is not a space and of the end of its last
// (len(s) and len(s) when all of s is space).
func edges(s string) (lead, trail int) {
	lead = strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })
	if lead < 0 {
		return len(s), len(s)
	}
	trail = strings.LastIndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })
	_, n := utf8.DecodeRuneInString(s[trail:])
	return lead, trail + n
}

// markdownClean reports whether MarkdownCell(s) is s: valid UTF-8 with no control
// character, no special punctuation and no space but ASCII's at either end.
func markdownClean(s string) bool {
	if lead, trail := edges(s); strings.ContainsFunc(s[:lead], nonASCIISpace) || strings.ContainsFunc(s[trail:], nonASCIISpace) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' && i > 0 && i+1 < len(s) && isAlnum(s[i-1]) && isAlnum(s[i+1]) {
			continue
		}
		if c < 0x20 || c == 0x7f || strings.IndexByte(markdownSpecial, c) >= 0 {
			return false
		}
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || r < 0xa0 {
				return false
			}
			i += n - 1
		}
	}
	return true
}

func nonASCIISpace(r rune) bool { return r >= 0x80 && unicode.IsSpace(r) }

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Table is what the markdown and CSV writers print: a header, rows of cells (each row as long
// as the header) and which columns are left-aligned (markdown; the others are right-aligned,
// as numbers are). Left may be shorter than Head: the columns past it are right-aligned.
type Table struct {
	Head []string
	Left []bool
	Rows [][]string
}

func (t *Table) left(i int) bool { return i < len(t.Left) && t.Left[i] }

// WriteMarkdown writes t as a GitHub table in tablewriter's markdown style, the one style of
// every markdown table orprof prints: columns padded to their widest cell, an alignment row of
// dashes with ":" on the aligned side. Cells go through MarkdownCell; the header, which is
// ours, has only its "|" escaped.
func (t *Table) WriteMarkdown(w io.Writer) error {
	aligns := make([]tw.Align, len(t.Head))
	hdr := make([]any, len(t.Head))
	for i, h := range t.Head {
		hdr[i] = strings.ReplaceAll(h, "|", `\|`)
		aligns[i] = tw.AlignRight
		if t.left(i) {
			aligns[i] = tw.AlignLeft
		}
	}
	var buf bytes.Buffer
	tab := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	)
	tab.Header(hdr...)
	for _, r := range t.Rows {
		cells := make([]any, len(r)) // a fresh slice per row: tablewriter keeps it
		for i, c := range r {
			cells[i] = MarkdownCell(c)
		}
		if err := tab.Append(cells...); err != nil {
			return err
		}
	}
	if err := tab.Render(); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteCSV writes t's header and rows as CSV (encoding/csv: RFC 4180, "\n" line ends), each
// cell through CSVCell.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	row := make([]string, 0, len(t.Head))
	for _, r := range append([][]string{t.Head}, t.Rows...) {
		row = row[:0]
		for _, c := range r {
			row = append(row, CSVCell(c))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// CSVCell is s as a CSV cell holds it (docs/cli.md, "CSV"): control characters and bytes that
// are not UTF-8 escaped as the text tables escape them (quote.Printable: `\x1b`, `\n`), and a
// cell a spreadsheet would take for a formula (one starting with =, +, -, @, or a tab or
// carriage return before the escaping) prefixed with "'", unless it is a plain decimal number
// such as -12.5, which stays a number.
func CSVCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if !isNumber(s) {
			return "'" + quote.Printable(s)
		}
	}
	return quote.Printable(s)
}

// isNumber reports whether s is [+-]digits[.digits][e[+-]digits] (or [+-].digits…).
func isNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
