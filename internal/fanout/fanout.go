// Package fanout runs one job per input on a bounded number of goroutines, each result in its
// input's slot, so that what a caller builds from them does not depend on the order the jobs
// finish in. `orprof table`, `kernels` and `timeline` read their traces through it.
package fanout

import (
	"runtime"
	"sync"
)

// Each calls f(k) once for every k in [0, n), on at most workers goroutines at once
// (GOMAXPROCS when workers ≤ 0). The ks are claimed in increasing order; once a call has
// returned an error no further k is started (the calls under way finish). errs[k] is what
// f(k) returned, nil for a k that was never started.
func Each(n, workers int, f func(k int) error) (errs []error) {
	errs = make([]error, n)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, n))
	var mu sync.Mutex
	next, failed := 0, false
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				k := next
				next++
				stop := failed
				mu.Unlock()
				if k >= n || stop {
					return
				}
				if errs[k] = f(k); errs[k] != nil {
					mu.Lock()
					failed = true
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return errs
}

// First is the first non-nil error of errs in order, or nil.
func First(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
