package timeline

import (
	"fmt"

	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/trace/tracefile"
)

// OpenTrace reads the trace at path in one pass ("-": standard input) for the analyses alone
// (tracefile.OpenConsumers, a Consumer: no event is kept) and returns the summary of its rank:
// the trace's distributedInfo rank, else pos. The warnings are the reader's. A trace without
// device activity is refused (*kernels.NoDeviceError).
func OpenTrace(path string, o Options, pos int) (*Summary, []string, error) {
	c := NewConsumer(o, nil)
	td, err := tracefile.OpenConsumers(path, tracefile.Options{Consumers: []tracefile.Consumer{c}, Position: pos})
	if err != nil {
		return nil, nil, err
	}
	name := path
	if name == "-" {
		name = input.StdinName
	}
	if err := c.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	s := c.Summary()
	if err := checkDevice(s, name); err != nil {
		return nil, nil, err
	}
	return s, td.ReadWarnings(name), nil
}

// readTrace reads the trace in with the link rules link and the category rules rules.
func readTrace(in *input.Input, o Options, pos int, link tracefile.LinkMode, rules *kernels.Rules) (*Summary, []string, error) {
	c := NewConsumer(o, rules)
	opts := tracefile.Options{Consumers: []tracefile.Consumer{c}, Link: link, Position: pos}
	td, err := in.ReadConsumers(opts)
	if err != nil {
		return nil, nil, err
	}
	if err := c.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	return c.Summary(), td.ReadWarnings(in.Name), nil
}

// hasDevice reports whether any rank of s read a device event.
func hasDevice(s *Summary) bool {
	for _, r := range s.Ranks {
		if r.DeviceEvents > 0 {
			return true
		}
	}
	return false
}

// checkDevice refuses a summary none of whose ranks read a device event (a CPU-only or
// fallback-mode trace, or a report summary of one), named name: *kernels.NoDeviceError says
// why and how to record some, where the analyses would show a device idle all along.
func checkDevice(s *Summary, name string) error {
	if hasDevice(s) {
		return nil
	}
	dev := ""
	if len(s.Ranks) > 0 {
		dev = s.Ranks[0].Device
	}
	return &kernels.NoDeviceError{Name: name, Device: dev}
}
