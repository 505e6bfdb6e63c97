package gid

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDistinctWhileAlive: goroutines alive at the same time never share a value, and a
// goroutine sees the same value all its life, across stack growth and rescheduling.
func TestDistinctWhileAlive(t *testing.T) {
	const n = 64
	ids := make([]uintptr, n)
	var ready, done sync.WaitGroup
	ready.Add(n)
	done.Add(n)
	release := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			defer done.Done()
			ids[i] = G()
			ready.Done()
			<-release
			grow(200) // the stack moves; the identity does not
			assert.Equal(t, ids[i], G())
		}()
	}
	ready.Wait()
	close(release)
	done.Wait()
	seen := map[uintptr]bool{}
	for _, id := range ids {
		require.NotZero(t, id)
		require.False(t, seen[id], "two live goroutines share %#x", id)
		seen[id] = true
	}
	assert.False(t, seen[G()], "the test goroutine shares a value with a live goroutine")
}

//go:noinline
func grow(n int) int {
	var pad [256]byte
	pad[n%256] = byte(n)
	if n == 0 {
		return int(pad[0])
	}
	return grow(n-1) + int(pad[n%256])
}

func BenchmarkG(b *testing.B) {
	for b.Loop() {
		_ = G()
	}
}
