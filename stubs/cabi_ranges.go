//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package stubs

import (
	"runtime"
	"sync"
)

type rangeOp uint8

const (
	opMark rangeOp = iota
	opPush
	opPop
)

type rangeReq struct {
	op    rangeOp
	name  string
	reply chan rangeReply
}

type rangeReply struct {
	rc  int32
	msg string // the backend's lastError when rc != 0, read on the same thread
}

// rangeThread serves mark/rangePush/rangePop on one goroutine locked to one OS thread, because
// the C ABI requires a pop on the OS thread of its push and goroutines move between threads.
// The goroutine starts on first use and ends on stop; it exits still locked, so the runtime
// retires the thread with the backend's thread-local range stack. It holds copies of the hooks,
// never the CStubs, so a forgotten CStubs can be cleaned up.
type rangeThread struct {
	mark      func(string) int32
	push      func(string) int32
	pop       func() int32
	lastError func() *byte

	reqs      chan rangeReq
	quit      chan struct{}
	startOnce sync.Once
	stopOnce  sync.Once
}

func newRangeThread(fn *cFuncs) *rangeThread {
	return &rangeThread{
		mark: fn.mark, push: fn.rangePush, pop: fn.rangePop, lastError: fn.lastError,
		reqs: make(chan rangeReq), quit: make(chan struct{}),
	}
}

// do runs one request on the thread and waits for it; err is ErrClosed after stop.
func (r *rangeThread) do(op rangeOp, name string) (rc int32, msg string, err error) {
	r.startOnce.Do(func() { go r.serve() })
	reply := make(chan rangeReply, 1)
	select {
	case r.reqs <- rangeReq{op: op, name: name, reply: reply}:
	case <-r.quit:
		return 0, "", ErrClosed
	}
	rep := <-reply
	return rep.rc, rep.msg, nil
}

func (r *rangeThread) serve() {
	runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
	for {
		select {
		case req := <-r.reqs:
			var rc int32
			switch req.op {
			case opMark:
				rc = r.mark(req.name)
			case opPush:
				rc = r.push(req.name)
			case opPop:
				rc = r.pop()
			}
			var msg string
			if rc != 0 {
				msg, _ = cString(r.lastError(), 64<<10)
			}
			req.reply <- rangeReply{rc: rc, msg: msg}
		case <-r.quit:
			return
		}
	}
}

func (r *rangeThread) stop() { r.stopOnce.Do(func() { close(r.quit) }) }
