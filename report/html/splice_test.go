package html

import (
	"bytes"
	"github.com/orprof/orprof/trace"
	"path/filepath"
	"testing"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/report"
)

// The page's documents spliced in compact are the bytes encoding/json makes of the indented
// ones (json.RawMessage fields): on every Kineto trace in testdata and on names that HTML
// escaping changes.
func TestSpliceIsMarshal(t *testing.T) {
	step := events.NewFunctionEvent(1, "ProfilerStep#1", 1, 0, 100)
	step.Name = "ProfilerStep*"
	mm := events.NewFunctionEvent(2, "aten::mm \u2028 1e999999991", 1, 10, 70)
	mm.Kernels = []events.Kernel{{Name: "gemm</script><script>alert(1)</script> & \"doc\":1e999999992", DurationUs: 40}}
	list := events.NewList([]events.FunctionEvent{step, mm}, events.ListOptions{UseDevice: "cuda"})
	models := map[string]*Model{"tiny": ListModel(list, optable.RankInfo{Rank: trace.Rank{Trace: "t.json"}}, "cuda", false, events.AverageOptions{})}
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "kineto", "*.json.gz"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no traces: %v", err)
	}
	for _, p := range paths {
		b, _, err := report.Open(p, 0, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		models[filepath.Base(p)] = &Model{Title: p, Inputs: []string{p}, Summary: b.Table, Flame: b.Flame,
			Timeline: b.Timeline, Steps: b.Steps, Kernels: b.Kernels, Memory: b.Memory, Lanes: b.Lanes}
	}
	for name, m := range models {
		fast, err := pageDataVia(m, true)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := pageDataVia(m, false)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fast, slow) {
			i := 0
			for i < min(len(fast), len(slow)) && fast[i] == slow[i] {
				i++
			}
			t.Errorf("%s: the spliced page differs at byte %d: %q, encoding/json's %q", name, i,
				fast[max(i-40, 0):min(i+40, len(fast))], slow[max(i-40, 0):min(i+40, len(slow))])
		}
		unquoted := bytes.ReplaceAll(fast, []byte(`\"`), nil) // the marks as keys and values, not in strings
		if bytes.Contains(unquoted, []byte(`"table":`+tableMark)) || bytes.Contains(unquoted, []byte(`"doc":`+kernelsMark)) ||
			bytes.Contains(unquoted, []byte(`"lanes":`+lanesMark)) {
			t.Errorf("%s: a mark is left in the page", name)
		}
	}
}

// A page whose mark is found twice goes through encoding/json.
func TestSpliceRefusesTwoMarks(t *testing.T) {
	page := []byte(`{"table":1e999999991,"x":{"table":1e999999991}}`)
	if _, ok := splice(page, []byte(`[1]`), nil, nil); ok {
		t.Error("splice took a page with two marks")
	}
	pieces, ok := splice([]byte(`{"table":1e999999991,"kernels":{"doc":1e999999992},"lanes":1e999999993}`), []byte(`[1]`), []byte(`{"k":2}`), []byte(`[3]`))
	got := bytes.Join(pieces, nil)
	if want := `{"table":[1],"kernels":{"doc":{"k":2}},"lanes":[3]}`; !ok || string(got) != want {
		t.Errorf("splice = %s, %v; want %s", got, ok, want)
	}
}
