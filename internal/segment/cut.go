package segment

import (
	"bytes"

	"github.com/orprof/orprof/internal/jsonscan"
)

// An event start is a '{' whose previous non-space bytes are '}' and ',' and whose next
// non-space byte is '"' or '}'. eventStart says whether the '{' at buf[c] is one: yes, no,
// or unknown (buf ends before its next non-space byte).
func eventStart(buf []byte, c int) (yes, known bool) {
	j := c + 1
	for j < len(buf) && jsonscan.Space[buf[j]] {
		j++
	}
	if j == len(buf) {
		return false, false
	}
	if buf[j] != '"' && buf[j] != '}' {
		return false, true
	}
	b := c - 1
	for b >= 0 && jsonscan.Space[buf[b]] {
		b--
	}
	if b < 0 || buf[b] != ',' {
		return false, true
	}
	b--
	for b >= 0 && jsonscan.Space[buf[b]] {
		b--
	}
	return b >= 0 && buf[b] == '}', true
}

// FirstCut returns the index of the first event start at or past from in buf. It returns 0
// when there is none, or when buf ends before the byte that decides a candidate (more input
// tells), so that the cut depends on the input alone.
func FirstCut(buf []byte, from int) int {
	for i := max(from, 1); i < len(buf); {
		k := bytes.IndexByte(buf[i:], '{')
		if k < 0 {
			return 0
		}
		c := i + k
		i = c + 1
		yes, known := eventStart(buf, c)
		if !known {
			return 0
		}
		if yes {
			return c
		}
	}
	return 0
}

// LastCut returns the index of the last event start in buf whose next non-space byte is in
// buf, or 0 when there is none.
func LastCut(buf []byte) int {
	i := len(buf)
	for {
		c := bytes.LastIndexByte(buf[:i], '{')
		if c <= 0 {
			return 0
		}
		i = c
		if yes, _ := eventStart(buf, c); yes {
			return c
		}
	}
}
