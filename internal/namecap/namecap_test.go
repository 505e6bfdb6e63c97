package namecap

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCap(t *testing.T) {
	long := strings.Repeat("é", 3000)
	other := long[:len(long)-2] + "e!"
	for _, c := range []struct {
		name string
		in   string
		same bool
	}{
		{"short", "aten::mm", true},
		{"at the limit", strings.Repeat("a", Max), true},
		{"past it", strings.Repeat("a", Max+1), false},
		{"multibyte", long, false},
	} {
		got := Cap(c.in)
		if (got == c.in) != c.same {
			t.Errorf("%s: Cap changed it: %v", c.name, got != c.in)
		}
		if len(got) > Max || !utf8.ValidString(got) {
			t.Errorf("%s: %d bytes, valid UTF-8 %v", c.name, len(got), utf8.ValidString(got))
		}
		if Cap(got) != got {
			t.Errorf("%s: Cap of a capped name changed it", c.name)
		}
	}
	if Cap(long) == Cap(other) {
		t.Error("two long names with one prefix cap to one name")
	}
	if !strings.Contains(Cap(long), "…[6000 bytes sha256:") {
		t.Errorf("the capped form does not say how long the name was: %q", Cap(long)[Max-60:])
	}
}

func ExampleCap() {
	c := Cap("aten::" + strings.Repeat("x", 5<<20))
	fmt.Println(len(c) <= Max, strings.Contains(c, "xxx…[5242886 bytes sha256:"))
	// Output: true true
}
