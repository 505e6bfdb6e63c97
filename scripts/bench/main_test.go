package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseBench(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkRange/cpu/goroutines=1-2         	 5000000	       101.5 ns/op	        98.00 cpu-ns/op
BenchmarkWriteTrace/gz-2                  	       8	 144791665 ns/op	 422.92 MB/s	       121.7 cpu-ms/op	        12.65 ratio
BenchmarkKeyAveragesTable500k             	       5	  55847545 ns/op	46610224 B/op	    2223 allocs/op
--- FAIL: BenchmarkBroken
PASS
`)
	res := parseBench(out)
	assert.Equal(t, map[string]float64{"ns": 101.5, "cpu-ns/op": 98}, res["BenchmarkRange/cpu/goroutines=1"])
	assert.Equal(t, 422.92, res["BenchmarkWriteTrace/gz"]["MB/s"])
	assert.Equal(t, 55847545.0, res["BenchmarkKeyAveragesTable500k"]["ns"])
	assert.Len(t, res, 3)
}

func TestSampleAndRatio(t *testing.T) {
	ns := &sample{unit: "ns", vals: []float64{30, 10, 20, 40}}
	assert.Equal(t, 25.0, ns.median())
	assert.Equal(t, 10.0, ns.best(), "the best time is the least")
	rate := &sample{unit: "MB/s", vals: []float64{300, 100, 200}}
	assert.Equal(t, 200.0, rate.median())
	assert.Equal(t, 300.0, rate.best(), "the best rate is the most")
	assert.Equal(t, "2.00× faster than", ratio(&sample{unit: "ns", vals: []float64{5}}, &sample{unit: "ns", vals: []float64{10}}))
	assert.Equal(t, "4.00× the time of", ratio(&sample{unit: "ns", vals: []float64{40}}, &sample{unit: "ns", vals: []float64{10}}))
	assert.Equal(t, "2.00× faster than", ratio(&sample{unit: "MB/s", vals: []float64{400}}, &sample{unit: "MB/s", vals: []float64{200}}))
	assert.Equal(t, "101.5 ns", format(101.5, "ns"))
	assert.Equal(t, "55.8 ms", format(55.8e6, "ns"))
	assert.Equal(t, "1.36 GB/s", format(1360, "MB/s"))
	in := func(n float64) *sample { return &sample{unit: "instructions", vals: []float64{n}} }
	assert.Equal(t, "0.97× the count of", ratio(in(1599e6), in(1641e6)))
	assert.Equal(t, "1.50× the count of", ratio(in(3e9), in(2e9)))
	assert.Equal(t, "1599 M instructions", format(1599e6, "instructions"))
}

func TestCallgrindCount(t *testing.T) {
	m := collected.FindSubmatch([]byte("==123== Events    : Ir\n==123== Collected : 1599026110\n==123==\n==123== I   refs:      1,599,026,110\n"))
	assert.Equal(t, "1599026110", string(m[1]))
}
