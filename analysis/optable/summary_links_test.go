package optable

import (
	"bytes"
	"github.com/orprof/orprof/trace"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/text"
)

// TestDeviceLinks: the line under the table, its place in the JSON summary (only where some
// device time was linked by a rule other than the External id, or by none), the read-back and
// the merge, which sums the ranks.
func TestDeviceLinks(t *testing.T) {
	rows := []events.Avg{{Key: "aten::mm", Count: 1, CPUTimeTotal: 10, SelfCPUTimeTotal: 10, DeviceTimeTotal: 5}}
	l := DeviceLinks{LaunchUs: 99, UnlinkedUs: 1}
	assert.True(t, l.Notable())
	assert.False(t, DeviceLinks{ExternalIDUs: 5}.Notable(), "all by the External id: PyTorch's table, nothing more")
	assert.False(t, DeviceLinks{ExternalIDUs: 5, UnlinkedUs: 3}.Notable(), "the unlinked part has its warning")
	assert.Equal(t, "Device time linked to operators: 99.000us of 100.000us (99.00%): external-id 0.00%, launch 99.00%, order 0.00%, enclosing 0.00%, unlinked 1.000us (1.00%)", l.Line())
	assert.Equal(t, "Device time linked to operators: 0.000us of 0.000us (0.00%): external-id 0.00%, launch 0.00%, order 0.00%, enclosing 0.00%, unlinked 0.000us (0.00%)", DeviceLinks{}.Line())

	a := NewSummary(rows, RankInfo{Rank: trace.Rank{Number: 0, Named: true, Trace: "a"}, DeviceLinks: l}, SummaryOptions{Device: "cuda"})
	gemm := events.Avg{Key: "gemm", Count: 1, DeviceType: devices.CUDA, DeviceTimeTotal: 5, SelfDeviceTimeTotal: 5}
	b := NewSummary(append(rows, gemm), RankInfo{Rank: trace.Rank{Number: 1, Named: true, Trace: "b"}, DeviceLinks: DeviceLinks{ExternalIDUs: 5}}, SummaryOptions{Device: "cuda"})
	m, err := MergeSummaries(a, b)
	require.NoError(t, err)
	assert.Equal(t, DeviceLinks{ExternalIDUs: 5, LaunchUs: 99, UnlinkedUs: 1}, m.DeviceLinks())

	var js bytes.Buffer
	_, err = WriteSummary(&js, text.JSON, m, TableOptions{RowLimit: RowLimitAll}, SummaryOutput{})
	require.NoError(t, err)
	assert.Equal(t, 1, bytes.Count(js.Bytes(), []byte(`"device_links"`)), "only rank a's figures are notable")
	back, err := ReadSummary(bytes.NewReader(js.Bytes()), "m.json")
	require.NoError(t, err)
	assert.Equal(t, m.DeviceLinks(), back.DeviceLinks())
	b.Ranks[0].DeviceLinks = DeviceLinks{}
	m, err = MergeSummaries(a, b)
	require.NoError(t, err)
	assert.Equal(t, m, back, "a rank linked by the External id alone writes no device_links")

	var out bytes.Buffer
	_, err = WriteSummary(&out, text.Text, m, TableOptions{}, SummaryOutput{})
	require.NoError(t, err)
	assert.Contains(t, out.String(), "\nDevice time linked to operators: 104.000us of 105.000us (99.05%)")
	out.Reset()
	_, err = WriteSummary(&out, text.Text, b, TableOptions{}, SummaryOutput{})
	require.NoError(t, err)
	assert.NotContains(t, out.String(), "Device time linked")

	bad := bytes.Replace(js.Bytes(), []byte(`"launch_us": 99`), []byte(`"launch_us": -99`), 1)
	_, err = ReadSummary(bytes.NewReader(bad), "bad.json")
	assert.ErrorContains(t, err, "device_links: a negative time")
}
