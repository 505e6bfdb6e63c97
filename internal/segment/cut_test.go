package segment

import "testing"

func TestLastCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{`{"a": 1}, {"b": 2}`, 10},
		{`{"a": 1},{"b": 2}`, 9},
		{"{\"a\": 1}\n,\n  {\"b\"", 13},
		{`{"a": 1}, {}`, 10},
		{`{"a": 1}, {`, 0}, // nothing after the '{' yet
		{`{"a": 1}, { 5`, 0},
		{`[1], {"b": 2}`, 0},
		{`{"a": 1} {"b": 2}`, 0},
		{`{"a": 1}, {"b": 2}, {"c`, 20},
		{`{"a": 1}, {"b": 2}, {`, 10}, // the last '{' is undecided: the one before it
		{`{`, 0},
	} {
		if got := LastCut([]byte(c.in)); got != c.want {
			t.Errorf("LastCut(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestFirstCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		from int
		want int
	}{
		{`{"a": 1},` + "\n  " + `{"b": 2}, {"c": 3}`, 1, 12},
		{`{"a": 1}, {"b": 2}, {"c": 3}`, 11, 20},
		{`{"a": 1}, {"b": 2}, {`, 11, 0},         // the byte after the last '{' is not read yet
		{`{"a": "}, x"}, {}`, 1, 15},             // '}' after '{': an empty event
		{`{"a": [1, {"b": 2}]}`, 1, 0},           // '{' after a number
		{`{"a": {"x": 1}, "b": {"y": 2}}`, 1, 0}, // after a member, not an element
		{`{"a": 1}, {"b": 2}`, 0, 10},            // never at 0: the array's first element
	} {
		if got := FirstCut([]byte(c.in), c.from); got != c.want {
			t.Errorf("FirstCut(%q, %d) = %d, want %d", c.in, c.from, got, c.want)
		}
	}
}
