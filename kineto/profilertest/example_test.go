package profilertest_test

import (
	"fmt"

	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/kineto/profilertest"
	"github.com/orprof/orprof/trace"
)

// nothing records kernels and never sees one: the smallest profiler that keeps the contract.
type nothing struct{}

func (nothing) Name() string { return "nothing" }
func (nothing) AvailableActivities() kineto.ActivitySet {
	return kineto.NewActivitySet(kineto.ConcurrentKernel)
}
func (nothing) Configure(want kineto.ActivitySet, _ *kineto.Config) (kineto.ActivityProfilerSession, error) {
	if want.Intersect(kineto.NewActivitySet(kineto.ConcurrentKernel)).Empty() {
		return nil, nil
	}
	return &nothingSession{}, nil
}

type nothingSession struct{ order kineto.SessionOrder }

func (s *nothingSession) Start() error                    { return s.order.Start() }
func (s *nothingSession) Stop() error                     { return s.order.Stop() }
func (s *nothingSession) PushCorrelationID(uint64)        {}
func (s *nothingSession) PopCorrelationID()               {}
func (s *nothingSession) ProcessTrace(*trace.Trace) error { return s.order.Process() }

// A backend author checks the profiler its Register call is given.
func ExampleCheck() {
	for _, r := range profilertest.Check(profilertest.Target{New: func() kineto.ActivityProfiler { return nothing{} }}) {
		fmt.Println(r)
	}
	// Output:
	// PASS describe
	// PASS configure-empty
	// PASS configure-disjoint
	// PASS configure-each
	// PASS order
	// PASS correlation
	// PASS activities
}
