package main

import (
	"cmp"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"time"
)

// exportGCFloor is the least heap the export collects garbage at per trace read at once: the
// binary's own tables and a trace's Parquet writers, with room enough that many small traces
// are not collected after every few.
const exportGCFloor = 18 << 20

// exportGCLimit is the heap at which `orprof export` of paths, read workers at once, collects
// garbage: 3/8 of a byte per byte of JSON of the largest traces, one per worker, at least
// exportGCFloor per trace read at once. A trace's read holds its records and the table's
// rows (about a third of a byte per byte of JSON at their peak) while the other consumers'
// lists and then the Parquet writers grow; collecting at a fixed limit lets these reuse the
// pages of the read's garbage, where the collector's usual pacing doubles the heap after
// each cycle. A trace of unknown size (standard input) counts as tableGCFloor.
func exportGCLimit(paths []string, workers int) int64 {
	sizes := make([]int64, len(paths))
	for i, p := range paths {
		if p == "-" {
			sizes[i] = tableGCFloor
		} else if sizes[i] = jsonBytes(p); sizes[i] < 0 {
			sizes[i] = tableGCFloor
		}
	}
	slices.SortFunc(sizes, func(a, b int64) int { return cmp.Compare(b, a) })
	var sum int64
	at := min(len(sizes), max(workers, 1))
	for _, n := range sizes[:at] {
		sum += n
	}
	return max(exportGCFloor*int64(at), sum*3/8)
}

// exportGC collects garbage only when the heap reaches limit (tuneGC) until done is called,
// and raises the limit to a quarter over what a collection leaves live when that exceeds it
// by an eighth: a trace that keeps more than exportGCLimit's estimate would otherwise have
// the collector run without pause (near the limit it runs often, which the estimate allows
// for).
func exportGC(limit int64) (done func()) {
	end := tuneGC(limit, false)
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return end // tuneGC left the collector alone
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			metrics.Read(s)
			if live := int64(s[0].Value.Uint64()); live > limit+limit/8 {
				limit = live + live/4
				st := &lazyGCState
				st.mu.Lock()
				if st.tuned && debug.SetMemoryLimit(-1) < limit { // only ever raised
					debug.SetMemoryLimit(limit)
				}
				st.mu.Unlock()
			}
		}
	}()
	return func() {
		close(stop)
		<-stopped
		end()
	}
}
