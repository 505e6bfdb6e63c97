package quote

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestClip(t *testing.T) {
	long := strings.Repeat("a", 5000)
	tests := []struct {
		name, in, want string
	}{
		{"short", "abc", "abc"},
		{"exactly Max", long[:Max], long[:Max]},
		{"long", long, long[:Max] + "…"},
		{"rune across the cut", strings.Repeat("a", Max-1) + "é" + "zz", strings.Repeat("a", Max-1) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Clip(tt.in)
			assert.Equal(t, tt.want, got)
			assert.True(t, utf8.ValidString(got))
		})
	}
}

func TestString(t *testing.T) {
	assert.Equal(t, `"a\nb"`, String("a\nb"))
	got := String(strings.Repeat("9", 5000))
	assert.Equal(t, `"`+strings.Repeat("9", Max)+`"…`, got)
	assert.LessOrEqual(t, len(got), Max+8)
}

func TestPrintable(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"aten::mm", "aten::mm"},
		{"ünïcode ✓", "ünïcode ✓"},
		{`back\slash`, `back\slash`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"a\tb\nc\rd", `a\tb\nc\rd`},
		{"del\x7f", `del\x7f`},
		{"c1\u009b2J", `c1\u009b2J`},
		{"bidi\u202eevil", `bidi\u202eevil`},
		{"bad\xffutf8", `bad\xffutf8`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Printable(tt.in), "%q", tt.in)
	}
	s := "plain name"
	assert.Equal(t, 0.0, testing.AllocsPerRun(10, func() { _ = Printable(s) }))
}

func FuzzPrintable(f *testing.F) {
	f.Add("\x1b[2J")
	f.Add("a\xffb")
	f.Fuzz(func(t *testing.T, s string) {
		p := Printable(s)
		if !utf8.ValidString(p) {
			t.Fatalf("Printable(%q) = %q: not UTF-8", s, p)
		}
		for _, r := range p {
			if needsEscape(r, utf8.RuneLen(r)) {
				t.Fatalf("Printable(%q) = %q keeps %U", s, p, r)
			}
		}
		c := Clip(s)
		if len(c) > Max+len("…") || !strings.HasPrefix(s, strings.TrimSuffix(c, "…")) {
			t.Fatalf("Clip(%q) = %q", s, c)
		}
	})
}
