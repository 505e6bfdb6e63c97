// Package textfmt writes the markdown and CSV tables of orprof's commands (the operator
// table's summaries and diffs, orprof kernels, orprof timeline), so that a cell is escaped
// one way everywhere.
//
// Markdown: a cell renders on GitHub as the exact string. The punctuation markdown would act on
// is backslash-escaped ("|" would end the cell, "*" and "_" start emphasis, "<" a tag, "[" a
// link, "&" an entity, "`" a code span), but for "_" inside a word, which cannot start
// emphasis there (as_strided stays readable); control characters (C0, DEL, C1; a newline
// among them) become numeric character references, so the file holds no raw terminal escape
// and a row stays on its line. Bytes that are not UTF-8 are written as U+FFFD: a markdown
// file is text.
//
// CSV: RFC 4180 through encoding/csv, every string as it is (quoted where it holds a comma,
// quote, newline or leading space). There is no spreadsheet-formula guard (a leading "=",
// "+", "-" or "@" prefixed with "'"): a CSV here is data for programs, its names are the
// trace's exact strings and its numbers may be negative (a diff's deltas), and a prefix would
// change both.
package textfmt

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// markdownSpecial is the ASCII punctuation MarkdownCell backslash-escapes.
const markdownSpecial = "\\`*_[]<>|~&#!"

// MarkdownCell encodes s for a GitHub markdown table cell (see the package doc). A string
// with nothing to escape is returned as is, without allocating.
func MarkdownCell(s string) string {
	if markdownClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
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

// markdownClean reports whether MarkdownCell(s) is s: valid UTF-8 with no control
// character and no special punctuation.
func markdownClean(s string) bool {
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

// WriteMarkdown writes t as a GitHub table: "| a | b |" lines, every cell (the header's too)
// through MarkdownCell, and an alignment row of " --- " (left) and " ---: " (right).
func (t *Table) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	line := func(r []string) {
		b.WriteByte('|')
		for _, c := range r {
			b.WriteByte(' ')
			b.WriteString(MarkdownCell(c))
			b.WriteString(" |")
		}
		b.WriteByte('\n')
	}
	line(t.Head)
	b.WriteByte('|')
	for i := range t.Head {
		if t.left(i) {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteByte('\n')
	for _, r := range t.Rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCSV writes t's header and rows as CSV (encoding/csv: RFC 4180, "\n" line ends).
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Head); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil { // WriteAll flushes
		return err
	}
	return cw.Error()
}
