package reserve

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRoom(t *testing.T) {
	for _, c := range []struct {
		name string
		s    []int
		n    int
	}{
		{"nil", nil, 0},
		{"nil, room", nil, 10},
		{"enough already", make([]int, 2, 8), 6},
		{"too little", []int{1, 2, 3}, 5},
		{"negative", []int{1}, -3},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := append([]int(nil), c.s...)
			got := Room(c.s, c.n)
			assert.Equal(t, len(before), len(got), "length kept")
			if len(before) > 0 {
				assert.Equal(t, before, got, "elements kept")
			}
			assert.GreaterOrEqual(t, cap(got)-len(got), c.n, "room")
			if c.n <= cap(c.s)-len(c.s) && c.s != nil {
				assert.Same(t, &c.s[:cap(c.s)][0], &got[:cap(got)][0], "no new array when there is room")
			}
		})
	}
}
