package orprof_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/trace"
)

// Profile two steps of a CPU workload and print PyTorch's key_averages() table. The fake
// clock makes the times exact.
func Example() {
	clk := devices.NewFakeClock(1_700_000_000_000_000_000)
	sess, err := orprof.Start(orprof.Options{Clock: clk})
	if err != nil {
		panic(err)
	}
	ctx := orprof.WithThread(context.Background(), orprof.NewThread())
	for i := 0; i < 2; i++ {
		step := orprof.RecordFunction(ctx, fmt.Sprintf("ProfilerStep#%d", i))
		clk.Advance(5 * time.Microsecond)
		mm := orprof.Begin(ctx, orprof.Op{Name: "aten::mm"})
		clk.Advance(30 * time.Microsecond)
		mm.End()
		clk.Advance(5 * time.Microsecond)
		step.End()
	}
	res, err := sess.Stop()
	if err != nil {
		panic(err)
	}
	rows := res.KeyAverages(events.AverageOptions{})
	var table strings.Builder
	if err := optable.WriteTable(&table, rows, optable.TableOptions{UseDevice: res.Device, ProfileMemory: res.Options.ProfileMemory}); err != nil {
		panic(err)
	}
	// Like PyTorch's, every line ends with two spaces; trimmed here for the example's sake.
	fmt.Print(strings.ReplaceAll(table.String(), "  \n", "\n"))
	// Output:
	// -----------------  ------------  ------------  ------------  ------------  ------------  ------------
	//              Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls
	// -----------------  ------------  ------------  ------------  ------------  ------------  ------------
	//     ProfilerStep*        25.00%      20.000us       100.00%      80.000us      40.000us             2
	//          aten::mm        75.00%      60.000us        75.00%      60.000us      30.000us             2
	// -----------------  ------------  ------------  ------------  ------------  ------------  ------------
	// Self CPU time total: 80.000us
}

// Ranges from several goroutines: each goroutine records on its own logical thread.
func ExampleNewThread() {
	sess, _ := orprof.Start(orprof.Options{})
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			ctx := orprof.WithThread(context.Background(), orprof.NewThread())
			orprof.RecordFunction(ctx, "worker").End()
			done <- struct{}{}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	res, _ := sess.Stop()
	fmt.Println(res.KeyAverages(events.AverageOptions{})[0].Count)
	// Output: 4
}

// The trace of a session is built when it is first asked for; write it with trace.
func ExampleResult_Trace() {
	clk := devices.NewFakeClock(1_700_000_000_000_000_000)
	sess, _ := orprof.Start(orprof.Options{Clock: clk})
	ctx := context.Background()
	step := orprof.RecordFunction(ctx, "step")
	clk.Advance(10 * time.Microsecond)
	step.End()
	res, _ := sess.Stop()
	t := res.Trace()
	t.OmitSpans = true // for speedscope
	var out strings.Builder
	if err := trace.Write(&out, t); err != nil {
		panic(err)
	}
	fmt.Println(strings.Contains(out.String(), `"name": "step"`), strings.Contains(out.String(), `"Spans"`))
	// Output: true false
}
