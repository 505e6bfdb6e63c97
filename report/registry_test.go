package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/orprof/orprof/analysis/analysistest"
)

// kitTraces are three rank-less real traces that together have every view (memory.json the
// memory records).
var kitTraces = []string{
	filepath.Join("..", "trace", "tracefile", "testdata", "reader", "memory.json"),
	filepath.Join("..", "testdata", "kineto", "rocm_mi250_train.json.gz"),
	filepath.Join("..", "testdata", "kineto-extra", "hta_no_rank.json.gz"),
}

// TestKinds runs package analysistest over every registered analysis's summaries, made from
// real traces by the report's own read.
func TestKinds(t *testing.T) {
	read := func(i, pos int) (*Bundle, error) {
		// Each call a fresh bundle: a merge may take its inputs over.
		b, _, err := Open(kitTraces[i], pos, Options{})
		return b, err
	}
	foreign := map[string][]byte{}
	b, err := read(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range b.views() {
		var buf bytes.Buffer
		if err := Kinds[i].Write(&buf, v); err != nil {
			t.Fatal(err)
		}
		foreign[Kinds[i].Name] = buf.Bytes()
	}
	for i, k := range Kinds {
		t.Run(k.Name, func(t *testing.T) {
			analysistest.Run(t, Kinds, k, func(n, pos int) (analysistest.Input, error) {
				b, err := read(n, pos)
				if err != nil {
					return analysistest.Input{}, err
				}
				return analysistest.Input{Summary: b.views()[i], Ranks: tableRanks(b.Table)}, nil
			}, foreign)
		})
	}
}
