package devices

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAndNames(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Type
	}{{"cpu", CPU}, {"CUDA", CUDA}, {"xpu", XPU}, {"mtia", MTIA}, {"hpu", HPU}, {"privateuseone", PrivateUse1}} {
		got, err := Parse(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got)
	}
	_, err := Parse("tpu")
	assert.EqualError(t, err, `devices: unknown device "tpu"`)
	assert.Equal(t, 20, PrivateUse1.C10())
	assert.Equal(t, 1, CUDA.C10())
}

func TestRenamePrivateUse1(t *testing.T) {
	for _, bad := range []string{"", "Open-Reg", "cuda"} {
		assert.Error(t, RenamePrivateUse1Backend(bad), bad)
	}
	prev := PrivateUse1BackendName()
	if prev == defaultPrivateUse1Name {
		require.NoError(t, RenamePrivateUse1Backend("testdev"))
	}
	name := PrivateUse1BackendName()
	assert.NoError(t, RenamePrivateUse1Backend(name), "the same name again is fine")
	assert.Error(t, RenamePrivateUse1Backend("another"), "a second, different name is refused")
	got, err := Parse(name)
	require.NoError(t, err)
	assert.Equal(t, PrivateUse1, got)
	assert.Equal(t, name, PrivateUse1.String())
}

func TestClocks(t *testing.T) {
	c := NewFakeClock(100)
	assert.Equal(t, int64(100), c.Now())
	assert.Equal(t, int64(1100), c.Advance(time.Microsecond))
	var s SystemClock
	a, b := s.Now(), time.Now().UnixNano()
	assert.InDelta(t, float64(b), float64(a), float64(time.Second), "close to the real-time clock")
	assert.LessOrEqual(t, a, s.Now(), "never goes backwards")
}
