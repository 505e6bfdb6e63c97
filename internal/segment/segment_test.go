package segment

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/orprof/orprof/internal/jsonscan"
)

// count parses data, a JSON array, with cfg and returns how many elements it held, the
// scanner's offset after the ']' and the error; workers 0 parses in sequence.
func count(data []byte, cfg Config, inPlace bool) (n int, end int64, fallbacks int, err error) {
	var s *jsonscan.Scanner
	if inPlace {
		s = jsonscan.NewBytes(data, 0, "t.json")
	} else {
		s = jsonscan.New(iotest.HalfReader(bytes.NewReader(data)), "t.json", nil)
	}
	it := s.Array()
	if !it.Next() {
		return 0, s.Offset(), 0, it.Err()
	}
	element := func() error { n++; return s.Skip() }
	if cfg.Workers == 0 {
		for {
			if err := element(); err != nil {
				return n, 0, 0, err
			}
			if !it.Next() {
				return n, s.Offset(), 0, it.Err()
			}
		}
	}
	a := &Array[int]{Config: cfg, Scanner: s, Element: element}
	a.Fallback = func() { fallbacks++ }
	a.Merge = func(seg *Segment[int]) error { n += seg.Res; return nil }
	a.Worker = func(int) func(*Segment[int]) {
		ws := jsonscan.NewBytes(nil, 0, "t.json")
		return func(seg *Segment[int]) {
			ws.Reset(seg.Buf, seg.Off)
			k := 0
			a.Elements(ws, seg, func() error { k++; return ws.Skip() })
			seg.Res = k
		}
	}
	err = a.Parse()
	return n, s.Offset(), fallbacks, err
}

// TestArrayIsSequential: for every cut rule, segment size and input mode, the parallel parse
// finds the elements, the array's end and the errors the sequential parse finds, also where a
// cut falls inside a string (a worker's failed segment, parsed again in sequence).
func TestArrayIsSequential(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 400 {
		if i > 0 {
			b.WriteString(", ")
		}
		if i%37 == 0 {
			fmt.Fprintf(&b, `{"s": "x}, {", "t": %d}`, i) // a cut candidate inside a string
		} else {
			fmt.Fprintf(&b, `{"a": %d, "b": [1, {"c": 2}]}`, i)
		}
	}
	b.WriteString("] tail")
	good := b.String()
	inputs := []string{good, strings.Replace(good, `"a": 200`, `"a": 2x0`, 1), good[:len(good)/2], `[]`, `[{}]`}
	cfgs := []Config{{Workers: 3, Size: 500, Ahead: 8, FirstCut: true}, {Workers: 2, Size: 1 << 20, Ahead: 2}}
	for size := 1; size < 64; size += 3 {
		cfgs = append(cfgs, Config{Workers: 2, Size: size, Ahead: 3}, Config{Workers: 1, Size: size, Ahead: 1, FirstCut: true})
	}
	fallbacks := 0
	for _, in := range inputs {
		wantN, wantEnd, _, wantErr := count([]byte(in), Config{}, false)
		for _, cfg := range cfgs {
			for _, inPlace := range []bool{false, true} {
				n, end, fb, err := count([]byte(in), cfg, inPlace)
				fallbacks += fb
				what := fmt.Sprintf("%.20q…, %+v, in place %v", in, cfg, inPlace)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("%s: error %v, want %v", what, err, wantErr)
				}
				if err == nil && (n != wantN || end != wantEnd) {
					t.Errorf("%s: %d elements, end at %d; want %d at %d", what, n, end, wantN, wantEnd)
				}
			}
		}
	}
	if fallbacks == 0 {
		t.Error("no segment fell back to the sequential parse: the test does not cut inside a string")
	}
}
