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

func TestShorten(t *testing.T) {
	long := strings.Repeat("x", 300)
	for _, c := range []struct {
		name   string
		digest Digest
		want   string
	}{
		// The digests of "x"*300: sha256's first 8 bytes, CRC-32C.
		{"sha256", SHA256, "…[300 bytes sha256:" + hexOf(SHA256(long, nil)) + "]"},
		{"crc32c", CRC32C, "…[300 bytes sha256:" + hexOf(CRC32C(long, nil)) + "]"},
	} {
		got := Shorten(long, 64, " bytes sha256:", c.digest)
		if len(got) > 64 || !strings.HasSuffix(got, c.want) || !strings.HasPrefix(got, "xxx") {
			t.Errorf("%s: %q (%d bytes)", c.name, got, len(got))
		}
		if Shorten(long, 300, "", c.digest) != long {
			t.Errorf("%s: a name within the limit changed", c.name)
		}
		if Shorten(long, 64, "", c.digest) == Shorten(long[:299]+"y", 64, "", c.digest) {
			t.Errorf("%s: two names of one prefix and length shorten alike", c.name)
		}
	}
	if got := fmt.Sprintf("%x", CRC32C("123456789", nil)); got != "e3069283" {
		t.Errorf("CRC32C of the check string = %s, want e3069283", got)
	}
}

func hexOf(b []byte) string { return fmt.Sprintf("%x", b) }
