package tracefile

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// argsSeen collects the kernel estimates and memory addresses a read hands its consumers.
type argsSeen struct {
	kernels map[[2]int64][2]float32 // (start ns, correlation) → blocks per SM, occupancy
	addrs   []int64
}

func (a *argsSeen) Needs() Needs { return NeedMemory }
func (a *argsSeen) Begin(*Info)  {}
func (a *argsSeen) Finish()      {}
func (a *argsSeen) Event(e *Event) {
	switch {
	case e.Kind == KindKernel:
		a.kernels[[2]int64{e.StartNs, e.Correlation}] = [2]float32{e.BlocksPerSM, e.OccupancyPct}
	case e.Kind == KindMemory:
		a.addrs = append(a.addrs, e.Memory.Addr)
	}
}

// The kernels' "blocks per SM" and "est. achieved occupancy %" and the memory records' "Addr"
// reach the consumers as the file has them (checked against encoding/json's reading), −1 and 0
// where the file has none.
func TestKernelArgsAndMemoryAddr(t *testing.T) {
	for _, path := range []string{"../../testdata/kineto/cuda_alexnet.json.gz", "../../testdata/kineto-extra/tbplugin_2021_small.json.gz",
		"../../testdata/kineto-extra/tracelens_mi300_bert_small.json.gz"} {
		t.Run(path, func(t *testing.T) {
			seen := &argsSeen{kernels: map[[2]int64][2]float32{}}
			_, err := OpenConsumers(path, Options{Consumers: []Consumer{seen}})
			require.NoError(t, err)
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			zr, err := gzip.NewReader(f)
			require.NoError(t, err)
			var doc struct {
				TraceEvents []struct {
					Cat  string         `json:"cat"`
					Name string         `json:"name"`
					Ts   json.Number    `json:"ts"`
					Args map[string]any `json:"args"`
				} `json:"traceEvents"`
			}
			require.NoError(t, json.NewDecoder(zr).Decode(&doc))
			kernels, withArgs, addrs := 0, 0, []int64{}
			for _, e := range doc.TraceEvents {
				switch {
				case e.Cat == "kernel" || e.Cat == "Kernel":
					kernels++
					corr, _ := e.Args["correlation"].(float64)
					var got [2]float32
					found := false
					for k, v := range seen.kernels {
						if k[1] == int64(corr) {
							got, found = v, true
							break
						}
					}
					require.True(t, found, "kernel %s", e.Name)
					want := [2]float32{-1, -1}
					if b, ok := e.Args["blocks per SM"].(float64); ok {
						want[0] = float32(b)
						withArgs++
					}
					if o, ok := e.Args["est. achieved occupancy %"].(float64); ok {
						want[1] = float32(o)
					}
					assert.Equal(t, want, got, "kernel %s correlation %v", e.Name, corr)
				case e.Name == "[memory]":
					a, _ := e.Args["Addr"].(float64)
					addrs = append(addrs, int64(a))
				}
			}
			assert.Equal(t, kernels, len(seen.kernels), "kernels")
			assert.ElementsMatch(t, addrs, seen.addrs)
			t.Logf("%d kernels, %d with estimates, %d memory records", kernels, withArgs, len(addrs))
		})
	}
}

// Estimates that are not numbers (a string, a number beyond float32) are absent (−1), and an
// "Addr" that is not an integer is none (0): never a wrong value.
func TestKernelArgsOddValues(t *testing.T) {
	const doc = `{"traceEvents": [
	{"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 10, "dur": 5, "args": {"correlation": 1, "blocks per SM": 0.5, "est. achieved occupancy %": 63}},
	{"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 20, "dur": 5, "args": {"correlation": 2, "blocks per SM": "N/A", "est. achieved occupancy %": -1e400}},
	{"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 3, "args": {"Bytes": 4096, "Addr": 139654046813696, "Device Type": 1}},
	{"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 4, "args": {"Bytes": -4096, "Addr": "x", "Device Type": 1}}]}`
	seen := &argsSeen{kernels: map[[2]int64][2]float32{}}
	if _, err := ReadConsumers(strings.NewReader(doc), "t.json", Options{Consumers: []Consumer{seen}}); err != nil {
		t.Fatal(err)
	}
	for corr, want := range map[int64][2]float32{1: {0.5, 63}, 2: {-1, -1}} {
		for k, v := range seen.kernels {
			if k[1] == corr && v != want {
				t.Errorf("kernel %d: %v, want %v", corr, v, want)
			}
		}
	}
	assert.Equal(t, []int64{139654046813696, 0}, seen.addrs)
}
