package text

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTimeAndPercent(t *testing.T) {
	for us, want := range map[float64]string{0: "0.000us", 12: "12.000us", 999.9994: "999.999us", 1171: "1.171ms", 2.5e6: "2.500s"} {
		assert.Equal(t, want, Time(us), "Time(%v)", us)
	}
	assert.Equal(t, "12.35%", Percent(12.345, 100, 2, "-"))
	assert.Equal(t, "50.0%", Percent(1, 2, 1, "-"))
	assert.Equal(t, "NaN", Percent(1, 0, 2, "NaN"))
	for _, s := range []string{"text", "markdown", "csv", "json"} {
		f, ok := ParseFormat(s)
		assert.True(t, ok)
		assert.Equal(t, Format(s), f)
	}
	_, ok := ParseFormat("html")
	assert.False(t, ok)
}

func ExampleTable_WriteMarkdown() {
	t := Table{Head: []string{"Kernel", "Calls", "Total"}, Left: []bool{true},
		Rows: [][]string{{"ampere_sgemm_128x64_nn", "12", Time(1171)}, {"*fused*", "3", Time(12)}}}
	if err := t.WriteMarkdown(stdout{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// | Kernel                 | Calls |    Total |
	// |:-----------------------|------:|---------:|
	// | ampere_sgemm_128x64_nn |    12 |  1.171ms |
	// | \*fused\*              |     3 | 12.000us |
}

type stdout struct{}

func (stdout) Write(b []byte) (int, error) { fmt.Print(string(b)); return len(b), nil }

func TestWriteText(t *testing.T) {
	tb := Table{Head: []string{"Name", "Calls"}, Left: []bool{true}, Rows: [][]string{{"aten::mm\x1b[31m", "12"}, {"a_very_long_kernel_name", "3"}}}
	for _, tc := range []struct {
		name string
		t    Table
		o    TextOptions
		want string
	}{
		{"framed, cut", tb, TextOptions{MaxName: 10, Framed: true},
			"----------  -----  \nName        Calls  \n----------  -----  \naten::m...     12  \na_very_...      3  \n----------  -----  \n"},
		{"titled", tb, TextOptions{Title: "Kernels"},
			"Kernels\nName                     Calls\n-----------------------  -----\naten::mm\\x1b[31m            12\na_very_long_kernel_name      3\n"},
		{"no rows", Table{Head: []string{"a", "b"}}, TextOptions{Title: "T"}, "T\na  b\n-  -\n(none)\n"},
	} {
		var b strings.Builder
		if err := tc.t.WriteText(&b, tc.o); err != nil {
			t.Fatal(err)
		}
		assert.Equal(t, tc.want, b.String(), tc.name)
	}
}

func ExampleCSVCell() {
	for _, s := range []string{"aten::mm", "-12.5", "=HYPERLINK(\"http://x\")", "-cmd", "red\x1b[0m"} {
		fmt.Println(CSVCell(s))
	}
	// Output:
	// aten::mm
	// -12.5
	// '=HYPERLINK("http://x")
	// '-cmd
	// red\x1b[0m
}
