package memcurve_test

import (
	"cmp"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/orprof/orprof/analysis/memcurve"
	"github.com/orprof/orprof/trace/tracefile"
)

// The blocks live at each device's peak in a real trace (a ROCm BERT run whose records carry
// addresses) are those an independent replay of its JSON finds: the records of the device in
// time order, through the first record whose "Total Allocated" is the greatest; each listed
// block's operator the innermost cpu_op on its thread around its time.
func TestPeakBlocksOnTrace(t *testing.T) {
	const path = "../../testdata/kineto-extra/tracelens_mi300_bert_small.json.gz"
	c := memcurve.NewCollector()
	if _, err := tracefile.OpenConsumers(path, tracefile.Options{Consumers: []tracefile.Consumer{c}}); err != nil {
		t.Fatal(err)
	}
	s := c.Summary()

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Ph, Cat, Name string
			Tid           any
			Ts, Dur       float64
			Args          map[string]any
		} `json:"traceEvents"`
	}
	if err := json.NewDecoder(zr).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	type mrec struct {
		ts                 float64
		tid                string
		bytes, addr, total int64
		typ, id            int64
	}
	type op struct {
		tid        string
		start, end float64
		name       string
	}
	byDev := map[[2]int64][]mrec{}
	var ops []op
	for _, e := range doc.TraceEvents {
		switch {
		case e.Name == "[memory]":
			n := func(k string) int64 { v, _ := e.Args[k].(float64); return int64(v) }
			k := [2]int64{n("Device Type"), n("Device Id")}
			byDev[k] = append(byDev[k], mrec{e.Ts, fmt.Sprint(e.Tid), n("Bytes"), n("Addr"), n("Total Allocated"), k[0], k[1]})
		case e.Ph == "X" && e.Cat == "cpu_op":
			ops = append(ops, op{fmt.Sprint(e.Tid), e.Ts, e.Ts + e.Dur, e.Name})
		}
	}
	if len(s.Devices) != len(byDev) || len(byDev) == 0 {
		t.Fatalf("%d devices, the JSON has %d", len(s.Devices), len(byDev))
	}
	for _, d := range s.Devices {
		rs := byDev[[2]int64{d.DeviceType, d.DeviceID}]
		slices.SortStableFunc(rs, func(a, b mrec) int { return cmp.Compare(a.ts, b.ts) })
		peak := 0
		for i, r := range rs {
			if r.total > rs[peak].total {
				peak = i
			}
		}
		live := map[int64]int{}
		for i, r := range rs[:peak+1] {
			if r.bytes > 0 {
				live[r.addr] = i
			} else if r.bytes < 0 {
				delete(live, r.addr)
			}
		}
		var sizes []int64
		var sum int64
		for _, i := range live {
			sizes = append(sizes, rs[i].bytes)
			sum += rs[i].bytes
		}
		slices.SortFunc(sizes, func(a, b int64) int { return cmp.Compare(b, a) })
		if !d.HasAddr || d.PeakLive != len(live) || d.PeakLiveBytes != sum {
			t.Errorf("%s: has_addr %v, %d live (%d B), want %d (%d B)", d.Name, d.HasAddr, d.PeakLive, d.PeakLiveBytes, len(live), sum)
		}
		want := sizes[:min(len(sizes), memcurve.MaxPeakAllocs)]
		var got []int64
		for _, a := range d.PeakAllocs {
			got = append(got, a.Bytes)
			// Its operator: the innermost cpu_op on the thread of a record of that size and time.
			var r *mrec
			for i := range rs {
				if rs[i].bytes == a.Bytes && abs(rs[i].ts-float64(s.StartNs)/1000-a.AtUs) < 0.01 {
					r = &rs[i]
				}
			}
			if r == nil {
				t.Errorf("%s: no record of block %+v", d.Name, a)
				continue
			}
			inner := ""
			var best *op
			for i := range ops {
				o := &ops[i]
				if o.tid == r.tid && o.start <= r.ts && r.ts < o.end && (best == nil || o.start > best.start || o.start == best.start && o.end < best.end) {
					best = o
				}
			}
			if best != nil {
				inner = best.name
			}
			if a.Op != inner {
				t.Errorf("%s: block %+v: op %q, want %q", d.Name, a, a.Op, inner)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: blocks %v, want %v", d.Name, got, want)
		}
		t.Logf("%s: %d live at the peak, %d listed, first %+v", d.Name, d.PeakLive, len(d.PeakAllocs), d.PeakAllocs[0])
	}
}

func abs(x float64) float64 { return max(x, -x) }
