package tracefile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// graphFixture is a trace as PyTorch's Python exporter writes a CUDA-graph replay with its
// annotations inlined (testdata/cudagraph/README.md).
var graphFixture = filepath.Join("testdata", "cudagraph", "annotated.json")

// recordingLinks keeps each device event's operator and rule, and each host op's name.
type recordingLinks struct {
	devOp   []string
	devRule []LinkRule
	ops     map[string]int
}

func (c *recordingLinks) Needs() Needs { return NeedLinks }
func (c *recordingLinks) Begin(*Info)  { c.ops = map[string]int{} }
func (c *recordingLinks) Event(ev *Event) {
	switch {
	case ev.Kind.Host():
		c.ops[ev.Name]++
	case ev.Kind.DeviceTime():
		c.devOp, c.devRule = append(c.devOp, ev.Op), append(c.devRule, ev.Rule)
	}
}
func (c *recordingLinks) Finish() {}

// TestGraphScopes: every kernel of a replay whose annotation names a scope goes to an
// operator of that name, one per replay and scope, added where the trace has none (linear_fwd)
// and joining the row of the op that has it (attention, a cpu_op: the added ones are too);
// the replay's unannotated kernel stays with the replaying op; no replayed time is unlinked.
func TestGraphScopes(t *testing.T) {
	var c recordingLinks
	td, err := Open(graphFixture, Options{Consumers: []Consumer{&c}})
	require.NoError(t, err)
	// Replayed device time: 2 × (10 + 5 + 20 + 3 + 7) µs; the scopes' share 2 × 38 µs.
	assert.Equal(t, DeviceLink{TotalUs: 120, ByRuleUs: [NumLinkRules]float64{ByExternalID: 44, ByGraphScope: 76}}, td.DeviceLink)
	byOp := map[string]float64{}
	calls := map[string]int{}
	for _, e := range td.Events {
		if e.DeviceType != 0 {
			continue
		}
		calls[e.Name]++
		for _, k := range e.Kernels {
			byOp[e.Name] += k.DurationUs
		}
	}
	assert.Equal(t, map[string]float64{"attention": 30 + 2*23, "linear_fwd": 2 * 15, "decode": 2 * 7}, byOp)
	assert.Equal(t, 2, calls["linear_fwd"], "one per replay")
	assert.Equal(t, 3, calls["attention"], "the eager op and one per replay")
	for _, e := range td.Events {
		if e.Name == "linear_fwd" {
			assert.True(t, e.IsUserAnnotation, "a scope no op of the trace has is a user annotation")
			assert.Zero(t, e.EndUs-e.StartUs, "no CPU runs a replayed scope")
		}
		if e.Name == "attention" {
			assert.False(t, e.IsUserAnnotation, "a scope named as a cpu_op is one, to share its row")
		}
	}
	// The consumers see the same links, by the graph rule.
	assert.Equal(t, []string{"attention", "linear_fwd", "linear_fwd", "attention", "attention", "decode",
		"linear_fwd", "linear_fwd", "attention", "attention", "decode"}, c.devOp)
	assert.Equal(t, []LinkRule{ByExternalID, ByGraphScope, ByGraphScope, ByGraphScope, ByGraphScope, ByExternalID,
		ByGraphScope, ByGraphScope, ByGraphScope, ByGraphScope, ByExternalID}, c.devRule)
	assert.Equal(t, 2, c.ops["linear_fwd"])

	// PyTorch's own reading (--link external-id) has no scopes: the replay's kernels go to
	// the op their External id names.
	td, err = Open(graphFixture, strict)
	require.NoError(t, err)
	assert.Equal(t, DeviceLink{TotalUs: 120, ByRuleUs: byRule(ByExternalID, 120)}, td.DeviceLink)
	for _, e := range td.Events {
		assert.NotEqual(t, "linear_fwd", e.Name)
	}
}

// TestGraphScopesParallel: a parallel read, whose parts number their scopes apart, reads the
// scopes as a sequential one does.
func TestGraphScopesParallel(t *testing.T) {
	data, err := os.ReadFile(graphFixture)
	require.NoError(t, err)
	for _, seg := range []int{64, 300, 1 << 10} {
		requireSameRead(t, data, graphFixture, parConfig{workers: 2, segSize: seg})
	}
}
