package text

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMarkdownCell(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"aten::mm", "aten::mm"},
		{"as_strided", "as_strided"},  // "_" inside a word stays
		{"_foo_", `\_foo\_`},          // at the edges it could start emphasis
		{"a__b", `a\_\_b`},            // a run of two is not inside a word
		{"a_ b", `a\_ b`},             //
		{"x|y", `x\|y`},               // would end the cell
		{`back\slash`, `back\\slash`}, //
		{"*bold* `code` [l](u) <b> ~s~", `\*bold\* \` + "`" + `code\` + "`" + ` \[l\](u) \<b\> \~s\~`},
		{"&lt; #1 !x", `\&lt; \#1 \!x`},               // no entity, heading or image syntax
		{"two\nlines\r\t", "two&#xa;lines&#xd;&#x9;"}, // a row stays on its line
		{"\x1b[31mred", `&#x1b;\[31mred`},             // no raw terminal escape
		{"del\x7f c1\u0085 nbsp\u00a0x", "del&#x7f; c1&#x85; nbsp\u00a0x"},
		// A space other than ASCII's at either end is written as a reference: the table's
		// writer trims spaces as padding.
		{"\u00a0", "&#xa0;"},
		{" \u2003a\u00a0b\u3000", " &#x2003;a\u00a0b&#x3000;"},
		{"µs ≥ 5 — 名前", "µs ≥ 5 — 名前"},
		{"bad\xffbyte", "bad\uFFFDbyte"},
		{"a\xc2", "a\uFFFD"}, // cut rune
	} {
		got := MarkdownCell(tc.in)
		assert.Equal(t, tc.want, got, "MarkdownCell(%q)", tc.in)
		assert.Equal(t, tc.in == tc.want, markdownClean(tc.in), "markdownClean(%q)", tc.in)
	}
}

func TestMarkdownCellCleanDoesNotAllocate(t *testing.T) {
	s := "aten::as_strided 12.5µs"
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = MarkdownCell(s) }))
}

func TestWriteMarkdown(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    Table
		want string
	}{
		{"empty rows", Table{Head: []string{"Name", "Calls"}, Left: []bool{true}},
			"| Name | Calls |\n|:-----|------:|\n"},
		{"escaped cells and header", Table{Head: []string{"a|b", "% of x"}, Left: []bool{false, true},
			Rows: [][]string{{"x_y", "1"}, {"*", "two\nlines"}}},
			"| a\\|b | % of x        |\n|-----:|:--------------|\n|  x_y | 1             |\n|   \\* | two&#xa;lines |\n"},
		{"left shorter than head", Table{Head: []string{"k", "v", "w"}, Left: []bool{true}, Rows: [][]string{{"", "", ""}}},
			"| k | v | w |\n|:--|--:|--:|\n|   |   |   |\n"},
	} {
		var b bytes.Buffer
		require.NoError(t, tc.t.WriteMarkdown(&b), tc.name)
		assert.Equal(t, tc.want, b.String(), tc.name)
	}
}

func TestWriteCSV(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    Table
		want string
	}{
		{"header only", Table{Head: []string{"key", "count"}}, "key,count\n"},
		{"exact strings", Table{Head: []string{"key", "v"}, Rows: [][]string{
			{"a,b", "-1.5"}, {`say "hi"`, "=1+2"}, {"two\nlines", " lead"}, {"x|y_z*", "@x"}}},
			"key,v\n\"a,b\",-1.5\n\"say \"\"hi\"\"\",'=1+2\ntwo\\nlines,\" lead\"\nx|y_z*,'@x\n"},
	} {
		var b bytes.Buffer
		require.NoError(t, tc.t.WriteCSV(&b), tc.name)
		assert.Equal(t, tc.want, b.String(), tc.name)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, assert.AnError }

func TestWriteErrors(t *testing.T) {
	tb := Table{Head: []string{"a"}, Rows: [][]string{{"1"}}}
	assert.ErrorIs(t, tb.WriteMarkdown(failWriter{}), assert.AnError)
	assert.ErrorIs(t, tb.WriteCSV(failWriter{}), assert.AnError)
}

// unescapeMarkdown inverts MarkdownCell for valid UTF-8: "\X" is X, "&#xH;" the rune H.
func unescapeMarkdown(t *testing.T, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i++
		case c == '&' && strings.HasPrefix(s[i:], "&#x"):
			end := strings.IndexByte(s[i:], ';')
			require.Positive(t, end, "unterminated reference in %q", s)
			n, err := strconv.ParseInt(s[i+3:i+end], 16, 32)
			require.NoError(t, err, s)
			b.WriteRune(rune(n))
			i += end
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// splitRow splits a markdown table line at the pipes that are not escaped.
func splitRow(line string) []string {
	var cells []string
	start := 1
	for i := 1; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, strings.Trim(line[start:i], " "))
			start = i + 1
		}
	}
	return cells
}

func FuzzMarkdownCell(f *testing.F) {
	for _, s := range []string{"", "as_strided", "a|b\\c", "\x1b[0m\n", "&amp;_x_", "\xff\xfe", "\u0085"} {
		f.Add(s, "second")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		got := MarkdownCell(a)
		require.True(t, utf8.ValidString(got), "not UTF-8: %q", got)
		for _, r := range got {
			require.False(t, r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0, "control character in %q", got)
		}
		if utf8.ValidString(a) {
			require.Equal(t, a, unescapeMarkdown(t, got), "MarkdownCell(%q) = %q does not read back", a, got)
		}
		// A row of such cells keeps its cells: no pipe, newline or backslash escapes the row.
		var buf bytes.Buffer
		tb := Table{Head: []string{"h1", "h2"}, Rows: [][]string{{a, b}}}
		require.NoError(t, tb.WriteMarkdown(&buf))
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		require.Len(t, lines, 3)
		cells := splitRow(lines[2])
		require.Len(t, cells, 2, "row %q", lines[2])
		if utf8.ValidString(a) && utf8.ValidString(b) { // padding is not content: GitHub trims cells
			assert.Equal(t, []string{strings.Trim(a, " "), strings.Trim(b, " ")}, []string{unescapeMarkdown(t, cells[0]), unescapeMarkdown(t, cells[1])})
		}
		// CSV reads back as CSVCell wrote it: no control character, no formula.
		buf.Reset()
		require.NoError(t, tb.WriteCSV(&buf))
		rec, err := csv.NewReader(&buf).ReadAll()
		require.NoError(t, err)
		assert.Equal(t, [][]string{{"h1", "h2"}, {CSVCell(a), CSVCell(b)}}, rec)
		for _, c := range rec[1] {
			for _, r := range c {
				require.False(t, r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0, "control character in %q", c)
			}
			if c != "" && strings.ContainsRune("=+-@", rune(c[0])) {
				require.True(t, isNumber(c), "a formula: %q", c)
			}
		}
	})
}

// TestCSVCell: control characters escaped, formulas defused, numbers (negative ones too) kept.
func TestCSVCell(t *testing.T) {
	for in, want := range map[string]string{
		"":                   "",
		"aten::mm":           "aten::mm",
		"-1.5":               "-1.5",
		"+12":                "+12",
		"-3e-05":             "-3e-05",
		".5":                 ".5",
		"=HYPERLINK(\"x\")":  "'=HYPERLINK(\"x\")",
		"+cmd|' /C calc'!A0": "'+cmd|' /C calc'!A0",
		"-foo":               "'-foo",
		"-":                  "'-",
		"-1.5e":              "'-1.5e",
		"@SUM(A1)":           "'@SUM(A1)",
		"\tx":                "'\\tx",
		"\x1b[31mred\x1b[0m": "\\x1b[31mred\\x1b[0m",
		"two\nlines":         "two\\nlines",
		"a=b":                "a=b",
		"bad\xff":            "bad\\xff",
	} {
		assert.Equal(t, want, CSVCell(in), "CSVCell(%q)", in)
	}
}
