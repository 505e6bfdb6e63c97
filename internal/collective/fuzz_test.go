package collective

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseRanks: any "Process Group Ranks" value is read or refused, never a panic; a list it
// reads writes back to the same integers.
func FuzzParseRanks(f *testing.F) {
	for _, s := range []string{"[0, 1, 2, 3]", "[]", "[0, 1, ...]", " [7] ", "[-1]", "[9223372036854775808]", "["} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rs, ok := ParseRanks(s)
		if !ok {
			return
		}
		parts := make([]string, len(rs))
		for i, r := range rs {
			parts[i] = strconv.FormatInt(r, 10)
		}
		back, ok := ParseRanks("[" + strings.Join(parts, ", ") + "]")
		if !ok || len(back) != len(rs) {
			t.Fatalf("%q read as %v, which does not read back (%v)", s, rs, back)
		}
		c := New()
		c.Ranks, c.Name, c.Dtype, c.InNelems = s, s, s, int64(len(rs))
		c.Bytes()
		c.Size()
	})
}
