package perfetto

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func bytesInput(name string, data []byte) Input {
	return Input{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

// TestRanksFuse converts two ranks, one without a base time on a clock of its own: each is a
// group of its own, and the second is aligned on the first's first ProfilerStep.
func TestRanksFuse(t *testing.T) {
	a, err := os.ReadFile(filepath.Join("testdata", "overlaps.json"))
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.Replace(a, []byte(`"rank": 3`), []byte(`"rank": 5`), 1)
	b = bytes.Replace(b, []byte(`,
  "baseTimeNanoseconds": 1700000000000000000`), nil, 1)
	// Rank 5's clock starts elsewhere: its step starts at 100 µs, not 900.
	b = bytes.ReplaceAll(b, []byte(`"ts": 900.000`), []byte(`"ts": 100.000`))
	var out bytes.Buffer
	st, err := Convert(&out, []Input{bytesInput("a.json", a), bytesInput("b.json", b)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Ranks != 2 || len(st.Warnings) != 0 {
		t.Fatalf("stats %+v", st)
	}
	d := decode(t, out.Bytes())
	var groups []string
	for _, u := range d.order {
		if d.tracks[u].parent == 0 {
			groups = append(groups, d.tracks[u].name)
		}
	}
	want := []string{"rank 3 · host", "rank 3 · GPU 0", "rank 5 · host", "rank 5 · GPU 0"}
	if !slices.Equal(groups, want) {
		t.Errorf("groups %q, want %q", groups, want)
	}
	var steps []uint64
	for _, e := range d.events {
		if e.typ == 1 && e.name == "ProfilerStep#1" {
			steps = append(steps, e.ts)
		}
	}
	if len(steps) != 2 || steps[0] != steps[1] || steps[0] != 1700000000000000000+900_000 {
		t.Errorf("ProfilerStep#1 starts at %v: want both at the first rank's", steps)
	}
	rp := replayTrace(t, d)
	if len(rp.slices) != 20 {
		t.Errorf("%d slices, want 20", len(rp.slices))
	}
}

// TestLargeJSONNests converts to Kineto JSON and reads it back: on every row complete events
// nest, every event of the input is there with its times and args, flow ends sit on the row
// of the slice they bind to, and the added rows say why they are there.
func TestLargeJSONNests(t *testing.T) {
	paths := []string{filepath.Join("testdata", "overlaps.json")}
	for _, p := range testTraces(t) {
		if fi, err := os.Stat(p); err == nil && (fi.Size() < 1<<20 || !(testing.Short() || raceEnabled)) {
			paths = append(paths, p)
		}
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			out, st := convertBytes(t, Options{}, true, path)
			in, got := readJSONTrace(t, data), readJSONTrace(t, out)
			ein, egot := expect(in), expect(got)
			if !slices.Equal(ein.slices, egot.slices) {
				t.Errorf("slices differ:\n%s", firstDiff(egot.slices, ein.slices))
			}
			if ein.flowEnds["s"] != egot.flowEnds["s"] || ein.flowEnds["f"] != egot.flowEnds["f"] || !slices.Equal(ein.samples, egot.samples) || !slices.Equal(ein.instants, egot.instants) {
				t.Errorf("flows, counters or instants differ: %v %v", ein.flowEnds, egot.flowEnds)
			}
			type row struct{ pid, tid string }
			rows := map[row][][2]int64{}
			names := map[row]string{}
			for _, ev := range got.events {
				r := row{str2(ev["pid"]), str2(ev["tid"])}
				switch str(ev["ph"]) {
				case "X":
					rows[r] = append(rows[r], [2]int64{nsOf(ev["ts"]), nsOf(ev["ts"]) + nsOf(ev["dur"])})
				case "M":
					if str(ev["name"]) == "thread_name" {
						names[r] = str(ev["args"].(map[string]any)["name"])
					}
				}
			}
			added := 0
			for r, ivs := range rows {
				slices.SortFunc(ivs, func(a, b [2]int64) int {
					if a[0] != b[0] {
						return int(a[0] - b[0])
					}
					return int(b[1] - a[1])
				})
				var stack []int64
				for _, iv := range ivs {
					for len(stack) > 0 && stack[len(stack)-1] <= iv[0] {
						stack = stack[:len(stack)-1]
					}
					if len(stack) > 0 && iv[1] > stack[len(stack)-1] {
						t.Fatalf("row %v: [%d, %d] crosses the end of its parent (%d)", r, iv[0], iv[1], stack[len(stack)-1])
					}
					stack = append(stack, iv[1])
				}
				if strings.Contains(names[r], " · overlap ") {
					added++
				}
			}
			if added != st.OverlapTracks {
				t.Errorf("%d rows named as overlaps, %d added", added, st.OverlapTracks)
			}
			// Each flow end bound with bp "e" lies within a slice of its own row.
			for _, ev := range got.events {
				if str(ev["ph"]) != "f" || str(ev["bp"]) != "e" {
					continue
				}
				ts, ok := nsOf(ev["ts"]), false
				for _, iv := range rows[row{str2(ev["pid"]), str2(ev["tid"])}] {
					if iv[0] <= ts && ts <= iv[1] {
						ok = true
						break
					}
				}
				if !ok && st.Unbound == 0 {
					t.Errorf("flow end %v: no slice on its row holds it", ev["id"])
				}
			}
		})
	}
}

func str2(v any) string {
	switch x := v.(type) {
	case string:
		return `"` + x + `"`
	case nil:
		return ""
	}
	return string(v.(interface{ String() string }).String())
}

// TestLargeArgs: events whose encoded args outgrow a payload chunk, or the packed length
// (1 MiB), keep every byte.
func TestLargeArgs(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"traceEvents": [`)
	for i, n := range []int{10, 40 << 10, 300 << 10, 1100 << 10, 10} {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"ph": "X", "cat": "c", "name": "e`)
		b.WriteString(strings.Repeat("n", i))
		b.WriteString(`", "pid": 1, "tid": 1, "ts": `)
		b.WriteString(strconv.Itoa(10 * i))
		b.WriteString(`, "dur": 5, "args": {"big": "`)
		b.WriteString(strings.Repeat("x", n))
		b.WriteString(`", "list": [`)
		for j := range n / 1000 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(j))
		}
		b.WriteString(`]}}`)
	}
	b.WriteString(`]}`)
	data := []byte(b.String())
	var out bytes.Buffer
	if _, err := Convert(&out, []Input{bytesInput("big.json", data)}, Options{}); err != nil {
		t.Fatal(err)
	}
	holdsTo(t, decode(t, out.Bytes()), expect(readJSONTrace(t, data)))
}

// TestGroupNames: a process is a device by its name or, as Kineto writes GPU processes (the
// Python program's name, and process_labels "GPU 0"), by its labels; the rest is the host.
func TestGroupNames(t *testing.T) {
	for _, tc := range []struct {
		name, meta string
		want       []string
	}{
		{"kineto labels", `{"ph": "M", "name": "process_name", "pid": 1234, "tid": 0, "args": {"name": "python3"}},
 {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python3"}},
 {"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},`,
			[]string{"rank 2 · host", "rank 2 · GPU 0"}},
		{"device name", `{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "MTIA 9"}},`,
			[]string{"rank 2 · host", "rank 2 · MTIA 9"}},
		{"no names", ``, []string{"rank 2 · host 0", "rank 2 · host 1234"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"distributedInfo": {"rank": 2}, "traceEvents": [` + tc.meta + `
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1234, "tid": 1, "ts": 10, "dur": 5},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 12, "dur": 2, "args": {"stream": 7}}]}`
			var out bytes.Buffer
			if _, err := Convert(&out, []Input{bytesInput("t.json", []byte(in))}, Options{}); err != nil {
				t.Fatal(err)
			}
			d := decode(t, out.Bytes())
			var groups []string
			for _, u := range d.order {
				if d.tracks[u].parent == 0 {
					groups = append(groups, d.tracks[u].name)
				}
			}
			slices.Sort(groups)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(groups, want) {
				t.Errorf("groups %q, want %q", groups, want)
			}
		})
	}
}
