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
	before := now()
	mid := Read()
	after := now()
	time.Sleep(20 * time.Millisecond)
	c := NewConverter(a, NewAnchor(now))
	// The tick was read between before and after (however long a preemption made that).
	slack := int64(50 * time.Microsecond)
	assert.GreaterOrEqual(t, c.Ns(mid), before-slack)
	assert.LessOrEqual(t, c.Ns(mid), after+slack)
	assert.Equal(t, a.Ns, c.Ns(a.Ticks))
}

func BenchmarkRead(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = Read()
	}
}
