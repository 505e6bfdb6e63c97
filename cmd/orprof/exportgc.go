package main

import (
	"cmp"
	"math"
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

// exportCollector runs the collector for orprof export (exportGC).
type exportCollector struct {
	limit   int64 // the limit when no read is linking; guarded by lazyGCState.mu
	linking int   // reads linking their events now; the same
	tuned   bool  // exportGC set the collector (no GOGC or GOMEMLIMIT in the environment)
	stop    chan struct{}
	stopped chan struct{}
	end     func()
}

// exportGC collects garbage only when the heap reaches limit (tuneGC) until Done is called,
// and raises the limit to a quarter over what a collection leaves live when that exceeds it
// by an eighth: a trace that keeps more than exportGCLimit's estimate would otherwise have
// the collector run without pause (near the limit it runs often, which the estimate allows
// for). While a read links its events (Linking) there is no limit.
func exportGC(limit int64) *exportCollector {
	c := &exportCollector{limit: limit, end: tuneGC(limit, false)}
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return c // tuneGC left the collector alone
	}
	c.tuned, c.stop, c.stopped = true, make(chan struct{}), make(chan struct{})
	go func() {
		defer close(c.stopped)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-tick.C:
			}
			metrics.Read(s)
			live := int64(s[0].Value.Uint64())
			st := &lazyGCState
			st.mu.Lock()
			if live > c.limit+c.limit/8 {
				c.limit = live + live/4 // only ever raised
				if st.tuned && c.linking == 0 {
					debug.SetMemoryLimit(c.limit)
				}
			}
			st.mu.Unlock()
		}
	}()
	return c
}

// Linking is tracefile.Options.Linking: while any read links its events the collector has
// no limit, as a cycle then frees nothing of the read's (its records are live, its link
// tables being built) and its assists slow the linking by half; the read collects once it
// has linked.
func (c *exportCollector) Linking(start bool) {
	if !c.tuned {
		return
	}
	st := &lazyGCState
	st.mu.Lock()
	defer st.mu.Unlock()
	if start {
		c.linking++
	} else {
		c.linking--
	}
	if !st.tuned {
		return
	}
	switch {
	case start && c.linking == 1:
		debug.SetMemoryLimit(math.MaxInt64)
	case !start && c.linking == 0:
		debug.SetMemoryLimit(c.limit)
	}
}

// Done ends the export's settings.
func (c *exportCollector) Done() {
	if c.tuned {
		close(c.stop)
		<-c.stopped
	}
	c.end()
}
