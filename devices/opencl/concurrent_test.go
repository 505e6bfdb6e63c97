package opencl

import (
	"context"
	"sync"
	"testing"

	"github.com/orprof/orprof"
)

// TestConcurrentTraining trains the MLP on two goroutines at once, each with its own logical
// thread and stream, in a kernel-mode session: both match the reference, and every kernel is
// on its goroutine's stream, linked to an op of its goroutine's thread.
func TestConcurrentTraining(t *testing.T) {
	rt := needOpenCL(t)
	extra, err := rt.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	def, err := rt.DefaultStream(0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := MLPConfig{Batch: 16, In: 32, Hidden: 24, Classes: 5, Steps: 3, LR: 0.2}
	want := referenceMLP(cfg)
	sess, err := orprof.Start(orprof.Options{Device: "opencl", Activities: kernelActivities})
	if err != nil {
		t.Fatal(err)
	}
	threads := []*orprof.Thread{orprof.NewThread(), orprof.NewThread()}
	streams := []*Stream{def, extra}
	losses := make([][]float32, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			ctx := WithStream(orprof.WithThread(context.Background(), threads[i]), streams[i])
			var res MLPResult
			res, errs[i] = TrainMLP(ctx, rt, cfg)
			losses[i] = res.Losses
		})
	}
	wg.Wait()
	res, err := sess.Stop()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("goroutine %d: %v", i, errs[i])
		}
		for s := range want.Losses {
			if d := losses[i][s] - want.Losses[s]; d > 1e-4 || d < -1e-4 {
				t.Fatalf("goroutine %d step %d: loss %g, reference %g", i, s, losses[i][s], want.Losses[s])
			}
		}
	}
	opThread := map[int64]int64{}
	for _, e := range res.Trace().Events {
		if e.Cat == "cpu_op" {
			for _, a := range e.Args {
				if a.Key == "External id" {
					opThread[parseInt(a.JSON())] = e.Tid
				}
			}
		}
	}
	seen := map[int64]int{}
	for _, a := range res.DeviceActivities {
		if a.IsHost() || a.Correlation == 0 {
			continue
		}
		th, ok := opThread[a.Correlation]
		if !ok {
			t.Fatalf("%s: correlation %d names no op", a.Name, a.Correlation)
		}
		i := 0
		if th == threads[1].ID() {
			i = 1
		}
		if a.Stream != streams[i].ID() {
			t.Fatalf("%s launched by thread %d ran on stream %d, want %d", a.Name, th, a.Stream, streams[i].ID())
		}
		seen[a.Stream]++
	}
	if seen[def.ID()] == 0 || seen[extra.ID()] == 0 {
		t.Fatalf("work per stream %v: want both streams", seen)
	}
	checkNesting(t, res.Trace())
}

func parseInt(s string) int64 {
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	return n
}
