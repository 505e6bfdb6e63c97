package export

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"testing"
	"time"
)

func TestZZHeap(t *testing.T) {
	path := os.Getenv("ZZ_TRACE")
	if path == "" {
		t.Skip()
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var best []byte
	var max uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Millisecond):
			}
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > max {
				max = v
				var b bytes.Buffer
				pprof.Lookup("heap").WriteTo(&b, 0)
				best = b.Bytes()
			}
		}
	}()
	out := filepath.Join(t.TempDir(), "out")
	if _, _, err := Export([]string{path}, out, Options{}); err != nil {
		t.Fatal(err)
	}
	close(stop)
	<-done
	t.Logf("max live %d MB", max>>20)
	os.WriteFile("/tmp/ex36/heap.pprof", best, 0o666)
}
