package tsc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestConverterTracksTheClock(t *testing.T) {
	if !Available() {
		t.Skip("no invariant TSC here")
	}
	now := func() int64 { return time.Now().UnixNano() }
	a := NewAnchor(now)
	time.Sleep(20 * time.Millisecond)
	mid := Read()
	midNs := now()
	time.Sleep(20 * time.Millisecond)
	c := NewConverter(a, NewAnchor(now))
	assert.InDelta(t, float64(midNs), float64(c.Ns(mid)), float64(200*time.Microsecond))
	assert.Equal(t, a.Ns, c.Ns(a.Ticks))
}

func BenchmarkRead(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = Read()
	}
}
