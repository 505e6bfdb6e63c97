package kineto

import (
	"errors"
	"fmt"
	"sync"
)

// ErrSessionOrder is wrapped by the errors SessionOrder returns for a call out of order.
var ErrSessionOrder = errors.New("session call out of order")

// SessionOrder keeps an ActivityProfilerSession's calls in the order the contract gives them:
// Start, Stop, ProcessTrace, each once. A session calls Start, Stop and Process first thing in
// its methods and returns their error (doing nothing else) when one is not nil, so a call out
// of order or repeated never double-subscribes, never closes a channel twice and never adds
// events twice. Processed says whether the session's activities are ready
// (DeviceActivitySource: valid only after ProcessTrace). The zero value is a new session;
// safe for concurrent use.
type SessionOrder struct {
	mu    sync.Mutex
	state uint8 // 0 new, 1 started, 2 stopped, 3 processed
}

func (o *SessionOrder) step(from, to uint8, call string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.state != from {
		return fmt.Errorf("%w: %s %s", ErrSessionOrder, call, orderStates[o.state])
	}
	o.state = to
	return nil
}

var orderStates = [...]string{"before Start", "after Start", "after Stop", "after ProcessTrace"}

// Start moves a new session to started.
func (o *SessionOrder) Start() error { return o.step(0, 1, "Start") }

// Stop moves a started session to stopped.
func (o *SessionOrder) Stop() error { return o.step(1, 2, "Stop") }

// Process moves a stopped session to processed.
func (o *SessionOrder) Process() error { return o.step(2, 3, "ProcessTrace") }

// Processed reports whether Process succeeded.
func (o *SessionOrder) Processed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.state == 3
}
