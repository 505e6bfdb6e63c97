package optable_test

import (
	"fmt"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
)

// rank is the summary of one small profile, with times stretched by scale.
func rank(scale float64) *optable.Summary {
	step := events.NewFunctionEvent(1, "step", 1, 0, 100*scale)
	mm := events.NewFunctionEvent(2, "aten::mm", 1, 10, 10+40*scale)
	mm.Kernels = []events.Kernel{{Name: "gemm", DurationUs: 30 * scale}}
	gemm := events.NewFunctionEvent(3, "gemm", 7, 20, 20+30*scale)
	gemm.DeviceType = devices.CUDA
	l := events.NewList([]events.FunctionEvent{step, mm, gemm}, events.ListOptions{UseDevice: "cuda"})
	return optable.NewSummary(l.KeyAverages(events.AverageOptions{}), optable.RankInfo{},
		optable.SummaryOptions{Device: "cuda"})
}

// Two ranks' summaries merge into the table of both; --by-rank's figures come with it.
func ExampleMergeSummaries() {
	all, err := optable.MergeSummaries(rank(1), rank(1.5))
	if err != nil {
		panic(err)
	}
	for _, r := range all.Rows {
		at, us, _ := r.Slowest()
		fmt.Printf("%-8s calls %d, self CPU %5.1f us, slowest on rank %d (%.0f us)\n",
			r.Key, r.Count, r.SelfCPUTimeTotal, all.Ranks[at].Number, us)
	}
	fmt.Println(all.RankSource())
	// The JSON form, which ReadSummary (`orprof merge`) reads back:
	// optable.WriteSummaryJSON(os.Stdout, all, optable.TableOptions{RowLimit: optable.RowLimitAll})

	// Output:
	// step     calls 2, self CPU 150.0 us, slowest on rank 1 (45 us)
	// aten::mm calls 2, self CPU 100.0 us, slowest on rank 1 (45 us)
	// gemm     calls 2, self CPU   0.0 us, slowest on rank 1 (45 us)
	// rank = position in the file order
}

// Diff pairs two summaries op by op, largest regression first.
func ExampleDiff() {
	for _, r := range optable.Diff(rank(1), rank(2)) {
		fmt.Printf("%-8s self CPU %+.0f us, self device %+.0f us\n", r.Key, r.DeltaCPU(), r.DeltaDevice())
	}
	// Output:
	// aten::mm self CPU +40 us, self device +30 us
	// step     self CPU +60 us, self device +0 us
	// gemm     self CPU +0 us, self device +30 us
}
