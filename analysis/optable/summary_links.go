package optable

import (
	"fmt"

	"github.com/orprof/orprof/text"
)

// DeviceLinks is how much of one rank's device time (µs) each of the trace reader's linking
// rules charged to an operator, and how much reached none (tracefile.LinkRule states the rules:
// 1 the External id, 2 the runtime launch's enclosing op, 3 range-profiler order, 4 the op
// running when uncorrelated work starts). The zero value says nothing was read (a summary of
// `orprof run`, or one written before the field existed).
type DeviceLinks struct {
	ExternalIDUs float64 `json:"external_id_us"`
	LaunchUs     float64 `json:"launch_us"`
	OrderUs      float64 `json:"order_us"`
	EnclosingUs  float64 `json:"enclosing_us"`
	UnlinkedUs   float64 `json:"unlinked_us"`
	// GraphUs is what the CUDA-graph annotations charged to the scopes they name (written
	// only when some was, so that a summary of a trace without them reads as before).
	GraphUs float64 `json:"graph_us,omitempty"`
}

// TotalUs is the device time the figures cover.
func (l DeviceLinks) TotalUs() float64 {
	return l.ExternalIDUs + l.LaunchUs + l.OrderUs + l.EnclosingUs + l.UnlinkedUs + l.GraphUs
}

// Add sums two ranks' figures.
func (l DeviceLinks) Add(o DeviceLinks) DeviceLinks {
	return DeviceLinks{l.ExternalIDUs + o.ExternalIDUs, l.LaunchUs + o.LaunchUs, l.OrderUs + o.OrderUs,
		l.EnclosingUs + o.EnclosingUs, l.UnlinkedUs + o.UnlinkedUs, l.GraphUs + o.GraphUs}
}

// Notable reports whether the figures are worth a line under the table: some device time was
// linked by a rule other than the file's External id. Where the External id linked all that
// was linked, the table is the one PyTorch prints and says nothing more (what reached no
// operator has its warning on stderr).
func (l DeviceLinks) Notable() bool { return l.LaunchUs+l.OrderUs+l.EnclosingUs+l.GraphUs > 0 }

// Line is the line under the table: the device time linked to operators, the share each rule
// linked and what reached none, e.g. "Device time linked to operators: 67.671ms of 67.681ms
// (99.99%): external-id 0.00%, launch 99.99%, order 0.00%, enclosing 0.00%, unlinked 10.000us
// (0.01%)".
func (l DeviceLinks) Line() string {
	total := l.TotalUs()
	pct := func(us float64) string { return text.Percent(us, max(total, 0), 2, "0.00%") }
	linked := total - l.UnlinkedUs
	graph := "" // said only where the trace had CUDA-graph scopes
	if l.GraphUs > 0 {
		graph = ", graph " + pct(l.GraphUs)
	}
	return fmt.Sprintf("Device time linked to operators: %s of %s (%s): external-id %s, launch %s, order %s, enclosing %s%s, unlinked %s (%s)",
		text.Time(linked), text.Time(total), pct(linked), pct(l.ExternalIDUs), pct(l.LaunchUs), pct(l.OrderUs),
		pct(l.EnclosingUs), graph, text.Time(l.UnlinkedUs), pct(l.UnlinkedUs))
}

// DeviceLinks sums the ranks' figures. A rank without any (its summary's JSON had no
// "device_links": all its device time reached its operators by the External id, or it was not
// read from a trace) counts its self device time total as linked by the External id.
func (s *Summary) DeviceLinks() DeviceLinks {
	var l DeviceLinks
	for _, r := range s.Ranks {
		if r.DeviceLinks.TotalUs() == 0 {
			l.ExternalIDUs += r.SelfDeviceTimeTotal
			continue
		}
		l = l.Add(r.DeviceLinks)
	}
	return l
}
