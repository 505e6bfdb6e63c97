package perfetto

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// convertPar converts data (one rank) with the segment size and worker count given.
func convertPar(t *testing.T, data []byte, segSize, workers int) ([]byte, *Stats, error) {
	t.Helper()
	var out bytes.Buffer
	st, err := Convert(&out, []Input{bytesInput("in.json", data)}, Options{par: &parConfig{workers: workers, segSize: segSize}})
	return out.Bytes(), st, err
}

// TestSegmentsKeepEverything converts traces cut into small segments, each encoded on a
// worker with a packet sequence of its own: every slice, instant, counter value and flow of
// the JSON is there, slices nest on every track, and the bytes do not depend on how many
// workers ran.
func TestSegmentsKeepEverything(t *testing.T) {
	paths := []string{filepath.Join("testdata", "overlaps.json")}
	for _, p := range testTraces(t) {
		if fi, err := os.Stat(p); err == nil && fi.Size() < 1<<20 {
			paths = append(paths, p)
		}
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			jt := readJSONTrace(t, data)
			exp := expect(jt)
			raw := data
			if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
				raw = gunzip(t, data)
			}
			var first []byte
			for _, c := range []struct{ seg, workers int }{{512, 1}, {512, 3}, {4 << 10, 2}} {
				out, _, err := convertPar(t, raw, c.seg, c.workers)
				if err != nil {
					t.Fatal(err)
				}
				d := decode(t, out)
				holdsTo(t, d, exp)
				if len(raw) > 8*c.seg && len(d.seqIDs) < 3 {
					t.Errorf("segments of %d bytes: %d packet sequences, want one per segment", c.seg, len(d.seqIDs))
				}
				if c.seg == 512 {
					if first == nil {
						first = out
					} else if !bytes.Equal(first, out) {
						t.Errorf("segments of %d bytes: the output with %d workers differs from that with 1", c.seg, c.workers)
					}
				}
			}
		})
	}
}

// segTrace is a trace whose strings hold what looks like an empty event after another
// ("}, {}"), so that cuts fall inside strings and the segments after them fail, and
// whose metadata repeats (Kineto writes the same thread name thousands of times).
func segTrace(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"traceEvents": [` + "\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		switch i % 7 {
		case 3:
			fmt.Fprintf(&b, `{"ph": "M", "name": "thread_name", "pid": 1, "tid": %d, "args": {"name": "worker %d"}}`, i%2, i%5)
		case 5:
			fmt.Fprintf(&b, `{"ph": "M", "name": "process_name", "pid": "1", "tid": %d, "args": {"name": "host"}}`, i%3)
		default:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "cpu_op", "name": "op %d", "pid": 1, "tid": %d, "ts": %d.5, "dur": %d, "args": {"s": "a}, {} b}, { }", "n": %d}}`, i%4, i%2, i*10, 15-i%3*4, i)
		}
	}
	b.WriteString("\n], \"baseTimeNanoseconds\": 1700000000000000000}")
	return []byte(b.String())
}

// TestSegmentsFallBack holds a trace whose cuts fall inside strings to the JSON: the failed
// segments are read in sequence, the others on workers, and nothing is lost; thread names end
// as the last metadata event gave them.
func TestSegmentsFallBack(t *testing.T) {
	data := segTrace(400)
	exp := expect(readJSONTrace(t, data))
	want, _, err := convertPar(t, data, 1<<30, 1) // one segment: no cut at all
	if err != nil {
		t.Fatal(err)
	}
	for _, seg := range []int{64, 300, 1000} {
		out, st, err := convertPar(t, data, seg, 2)
		if err != nil {
			t.Fatal(err)
		}
		d := decode(t, out)
		holdsTo(t, d, exp)
		if seg < 1000 && st.fallbacks == 0 {
			t.Errorf("segments of %d bytes: no segment was read in sequence; the test cuts inside strings", seg)
		}
		if st.Slices != len(exp.slices) {
			t.Errorf("segments of %d bytes: %d slices, want %d", seg, st.Slices, len(exp.slices))
		}
		names := trackNames(want)
		if got := trackNames(out); got != names {
			t.Errorf("segments of %d bytes: tracks %s, want %s", seg, got, names)
		}
	}
	if names := trackNames(want); names != "rank 0 · host|worker 3|worker 0" {
		t.Errorf("tracks %s", names)
	}
}

func trackNames(out []byte) string {
	d := decode(&testing.T{}, out)
	var names []string
	for _, u := range d.order {
		names = append(names, d.tracks[u].name)
	}
	return strings.Join(names, "|")
}

// TestSegmentsErrors: bad input fails with the error the sequential read gives (the JSON
// conversion reads in sequence), wherever the segments are cut.
func TestSegmentsErrors(t *testing.T) {
	good := string(segTrace(60))
	for _, c := range []struct{ name, data string }{
		{"truncated", good[:len(good)*2/3]},
		{"bad value", strings.Replace(good, `"dur": 15`, `"dur": 1x5`, 1)},
		{"bad time", strings.Replace(good, `"ts": 300.5`, `"ts": "late"`, 1)},
		{"bad counter", strings.Replace(good, `{"ph": "X", "cat": "cpu_op", "name": "op 2"`, `{"ph": "C", "name": "mem", "args": {"v": "x"}, "cat": "c"`, 1)},
		{"unclosed", strings.TrimSuffix(good, `], "baseTimeNanoseconds": 1700000000000000000}`)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			_, want := ConvertJSON(&out, []Input{bytesInput("in.json", []byte(c.data))}, Options{})
			if want == nil {
				t.Fatal("the sequential read accepts it")
			}
			for _, seg := range []int{64, 500, 1 << 20} {
				if _, _, err := convertPar(t, []byte(c.data), seg, 2); err == nil || err.Error() != want.Error() {
					t.Errorf("segments of %d bytes: error %v, want %v", seg, err, want)
				}
			}
		})
	}
}

func gunzip(t *testing.T, data []byte) []byte {
	t.Helper()
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
