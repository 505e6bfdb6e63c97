package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestWriteNoOverlaps: complete events that overlap without nesting on a row (two PDL kernels
// on a stream, a Python span crossing its op's end) are written on rows of their own, named
// after theirs, so that on every row of the file complete events nest and Perfetto's JSON
// importer keeps them all; a trace whose rows nest is written as it was.
func TestWriteNoOverlaps(t *testing.T) {
	const us = 1000
	base := int64(1_700_000_000_000_000_000)
	for _, tc := range []struct {
		name  string
		evs   []Event
		added []string
	}{
		{"nested", []Event{
			{Ph: 'X', Name: "outer", Pid: 1, Tid: 1, TsNs: base, DurNs: 100 * us},
			{Ph: 'X', Name: "inner", Pid: 1, Tid: 1, TsNs: base + 10*us, DurNs: 10 * us},
			{Ph: 'X', Name: "next", Pid: 1, Tid: 1, TsNs: base + 100*us, DurNs: 10 * us},
		}, nil},
		{"pdl and python", []Event{
			{Ph: 'X', Cat: "kernel", Name: "pdl_a", Pid: 0, Tid: 7, TsNs: base, DurNs: 100 * us},
			{Ph: 'X', Cat: "kernel", Name: "pdl_b", Pid: 0, Tid: 7, TsNs: base + 50*us, DurNs: 100 * us},
			{Ph: 'X', Cat: "cpu_op", Name: "aten::mm", Pid: 1, Tid: 1, TsNs: base, DurNs: 100 * us},
			{Ph: 'X', Cat: "python_function", Name: "forward", Pid: 1, Tid: 1, TsNs: base + 50*us, DurNs: 100 * us},
			{Ph: 'X', Cat: "cpu_op", Name: "aten::add", Pid: 1, Tid: 1, TsNs: base + 60*us, DurNs: 10 * us},
		}, []string{"stream 7 · overlap 1", "main · overlap 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &Trace{BaseTimeNs: base, StartNs: base, EndNs: base + 200*us, Events: tc.evs,
				Threads: []Thread{{Pid: 0, Tid: 7, Name: "stream 7", SortIndex: 7}, {Pid: 1, Tid: 1, Name: "main", SortIndex: 1}}}
			var buf bytes.Buffer
			if err := Write(&buf, tr); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				TraceEvents []struct {
					Ph, Name string
					Pid, Tid any
					Ts, Dur  float64
					Args     map[string]any
				} `json:"traceEvents"`
			}
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			rows := map[string][][2]float64{}
			var added []string
			n := 0
			for _, e := range doc.TraceEvents {
				switch {
				case e.Ph == "X":
					n++
					k := fmt.Sprint(e.Pid, "/", e.Tid)
					rows[k] = append(rows[k], [2]float64{e.Ts, e.Ts + e.Dur})
				case e.Ph == "M" && e.Name == "thread_name":
					if s, _ := e.Args["name"].(string); strings.Contains(s, "overlap") {
						added = append(added, s)
					}
				}
			}
			if n != len(tc.evs) {
				t.Errorf("%d complete events written, want %d", n, len(tc.evs))
			}
			for k, ivs := range rows {
				slices.SortFunc(ivs, func(a, b [2]float64) int {
					if a[0] != b[0] {
						return int(a[0] - b[0])
					}
					return int(b[1] - a[1])
				})
				var stack []float64
				for _, iv := range ivs {
					for len(stack) > 0 && stack[len(stack)-1] <= iv[0] {
						stack = stack[:len(stack)-1]
					}
					if len(stack) > 0 && iv[1] > stack[len(stack)-1] {
						t.Errorf("row %s: [%v, %v] overlaps its parent without nesting", k, iv[0], iv[1])
					}
					stack = append(stack, iv[1])
				}
			}
			slices.Sort(added)
			want := slices.Clone(tc.added)
			slices.Sort(want)
			if !slices.Equal(added, want) {
				t.Errorf("added rows %q, want %q", added, want)
			}
		})
	}
}
