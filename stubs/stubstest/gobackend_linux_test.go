package stubstest_test

import (
	"errors"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orprof/orprof/stubs"
	"github.com/orprof/orprof/stubs/stubstest"
)

// goRanger adds ranges and marks to goBackend with one range stack per OS thread, as NVTX keeps
// them: a Go backend that has such stacks keys them by the thread (here its Linux thread id).
type goRanger struct {
	*goBackend
	mu    sync.Mutex
	depth map[int]int
}

func newGoRanger() *goRanger { return &goRanger{goBackend: newGoBackend(), depth: map[int]int{}} }

func (r *goRanger) Mark(string) error { return nil }

func (r *goRanger) RangePush(string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.depth[syscall.Gettid()]++
	return nil
}

func (r *goRanger) RangePop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tid := syscall.Gettid()
	if r.depth[tid] == 0 {
		return errors.New("nothing pushed on this thread")
	}
	r.depth[tid]--
	return nil
}

// processRanger keeps one stack for the whole process: ranges-per-thread fails it, and only it.
type processRanger struct {
	*goBackend
	mu    sync.Mutex
	depth int
}

func (r *processRanger) RangePush(string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.depth++
	return nil
}

func (r *processRanger) RangePop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.depth == 0 {
		return errors.New("nothing pushed")
	}
	r.depth--
	return nil
}

func TestCheckGoBackendWithRanges(t *testing.T) {
	assert.NoError(t, stubstest.Check(func() (stubs.Stubs, error) { return newGoRanger(), nil }))
	err := stubstest.Check(func() (stubs.Stubs, error) { return &processRanger{goBackend: newGoBackend()}, nil })
	assert.EqualError(t, err, "ranges-per-thread: a RangePop on a second thread, which pushed nothing, succeeded while "+
		"this thread had a range pushed; want one range stack per thread")
}
