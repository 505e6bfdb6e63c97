package opencl

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/kineto"
	_ "github.com/orprof/orprof/openreg" // registers "openreg", the anchor of the overhead figures
)

// BenchmarkRecordOverhead is the cost of recording one op (Begin + End, no work) with no
// device, with OpenReg's fallback events and with OpenCL's (a marker enqueued and flushed at
// each end), side by side in one run: the three take turns in blocks of overheadBlock ops,
// each block in a session of its own, and each reports the median per-op cost of its blocks
// (ns/op is the mean over all three).
func BenchmarkRecordOverhead(b *testing.B) {
	needOpenCL(b)
	const overheadBlock = 1000
	devs := []struct{ name, device string }{{"none", ""}, {"openreg", "openreg"}, {"opencl", "opencl"}}
	per := make([][]float64, len(devs))
	op := orprof.Op{Name: "aten::add"}
	ctx := orprof.WithThread(context.Background(), orprof.NewThread())
	for done := 0; done < b.N; done += overheadBlock {
		for i, d := range devs {
			b.StopTimer()
			sess, err := orprof.Start(orprof.Options{Device: d.device})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			t0 := time.Now()
			for range overheadBlock {
				orprof.Begin(ctx, op).End()
			}
			per[i] = append(per[i], float64(time.Since(t0).Nanoseconds())/overheadBlock)
			b.StopTimer()
			if _, err := sess.Stop(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
	for i, d := range devs {
		b.ReportMetric(median(per[i]), d.name+"-ns/op")
	}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// BenchmarkDeviceTimeModes profiles the MLP in fallback mode (markers around every op) and in
// kernel mode (each kernel's own event), back to back in every iteration, and reports the
// device time per call of ops with kernels in both modes, in µs.
func BenchmarkDeviceTimeModes(b *testing.B) {
	rt := needOpenCL(b)
	if _, err := TrainMLP(context.Background(), rt, DefaultMLP); err != nil { // warm pocl's kernel cache
		b.Fatal(err)
	}
	ops := map[string]string{"aten::addmm": "addmm", "aten::mm": "mm", "aten::relu": "relu",
		"aten::add_": "add_", "ProfilerStep*": "step"}
	modes := []struct {
		name string
		acts kineto.ActivitySet
	}{{"fallback", 0}, {"kernels", kineto.NewActivitySet(kineto.CPUOp, kineto.ConcurrentKernel, kineto.GPUMemcpy, kineto.GPUMemset)}}
	sum := map[string]float64{}
	calls := map[string]int64{}
	for range b.N {
		for _, m := range modes {
			sess, err := orprof.Start(orprof.Options{Device: "opencl", Activities: m.acts})
			if err != nil {
				b.Fatal(err)
			}
			ctx := orprof.WithThread(context.Background(), orprof.MainThread())
			if _, err := TrainMLP(ctx, rt, DefaultMLP); err != nil {
				b.Fatal(err)
			}
			res, err := sess.Stop()
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range res.Events.KeyAverages(events.AverageOptions{}) {
				if short, ok := ops[r.Key]; ok {
					sum[short+"-"+m.name] += r.DeviceTimeTotal
					calls[short+"-"+m.name] += r.Count
				}
			}
		}
	}
	for k, v := range sum {
		b.ReportMetric(v/float64(calls[k]), k+"-µs")
	}
}

// BenchmarkClockResidual10s profiles MLP training for 10 s in kernel mode and reports the
// clock calibration as the trace records it (residual: how far the fit falls outside any
// sample's bracket; spread: how far from the midpoints of the tight brackets; drift; median and
// widest sample), and the same two figures for held-out samples taken during the run but not
// fitted. Run it with
// -benchtime=1x.
func BenchmarkClockResidual10s(b *testing.B) {
	rt := needOpenCL(b)
	for range b.N {
		sess, err := orprof.Start(orprof.Options{Device: "opencl", Activities: kineto.NewActivitySet(kineto.CPUOp, kineto.ConcurrentKernel)})
		if err != nil {
			b.Fatal(err)
		}
		ctx := orprof.WithThread(context.Background(), orprof.MainThread())
		var held []ClockSample
		end := time.Now().Add(10 * time.Second)
		for time.Now().Before(end) {
			if _, err := TrainMLP(ctx, rt, MLPConfig{Batch: 64, In: 128, Hidden: 256, Classes: 10, Steps: 1, LR: 0.5}); err != nil {
				b.Fatal(err)
			}
			cs, err := rt.SampleClock(0, calibrationSamples)
			if err != nil {
				b.Fatal(err)
			}
			held = append(held, cs)
			time.Sleep(100 * time.Millisecond) // let the workload and the samples interleave
		}
		res, err := sess.Stop()
		if err != nil {
			b.Fatal(err)
		}
		var clock []struct {
			DeviceRef  int64   `json:"device_ref_ns"`
			HostRef    int64   `json:"host_ref_ns"`
			Drift      float64 `json:"drift_ppm"`
			ResidualUs float64 `json:"residual_us"`
			SpreadUs   float64 `json:"spread_us"`
			WidthUs    float64 `json:"median_sample_width_us"`
			WidestUs   float64 `json:"widest_sample_us"`
			Samples    int     `json:"samples"`
			Moved      int     `json:"moved_after_launch"`
		}
		for _, m := range res.Trace().Metadata {
			if m.Key == "opencl_clock" {
				if err := json.Unmarshal([]byte(m.JSON()), &clock); err != nil {
					b.Fatal(err)
				}
			}
		}
		if len(clock) == 0 {
			b.Fatal("no opencl_clock metadata")
		}
		c := clock[0]
		cal := Calibration{DeviceRefNs: c.DeviceRef, HostRefNs: c.HostRef, Slope: 1 + c.Drift/1e6}
		outside, _ := cal.Residual(held)
		_, spread := cal.Residual(tightOf(held))
		b.ReportMetric(c.ResidualUs, "residual-µs")
		b.ReportMetric(c.SpreadUs, "spread-µs")
		b.ReportMetric(float64(outside)/1000, "heldout-residual-µs")
		b.ReportMetric(float64(spread)/1000, "heldout-spread-µs")
		b.ReportMetric(c.Drift, "drift-ppm")
		b.ReportMetric(c.WidthUs, "median-sample-µs")
		b.ReportMetric(c.WidestUs, "widest-sample-µs")
		b.ReportMetric(float64(c.Samples), "samples")
		b.ReportMetric(float64(c.Moved), "moved")
	}
}

// BenchmarkDeviceTimePaired measures both device times of the same execution: a fallback
// session (markers around every op) while the runtime also keeps every kernel's own event. Per
// op it reports the fallback device time and the sum of the kernel, copy and fill durations
// launched inside the op (on its thread), per call in µs, and their difference: what the
// markers measure beyond the kernels (the device idle while the host prepares the launch, the
// markers themselves, and whole-µs truncation).
func BenchmarkDeviceTimePaired(b *testing.B) {
	rt := needOpenCL(b)
	if _, err := TrainMLP(context.Background(), rt, DefaultMLP); err != nil { // warm pocl's kernel cache
		b.Fatal(err)
	}
	ops := map[string]string{"aten::addmm": "addmm", "aten::mm": "mm", "aten::relu": "relu",
		"aten::add_": "add_", "aten::_log_softmax": "log_softmax", "ProfilerStep#1": "step"}
	fb, kern := map[string]float64{}, map[string]float64{}
	calls := map[string]int{}
	for range b.N {
		sub := rt.subscribe()
		sess, err := orprof.Start(orprof.Options{Device: "opencl"})
		if err != nil {
			b.Fatal(err)
		}
		ctx := orprof.WithThread(context.Background(), orprof.MainThread())
		if _, err := TrainMLP(ctx, rt, DefaultMLP); err != nil {
			b.Fatal(err)
		}
		res, err := sess.Stop()
		if err != nil {
			b.Fatal(err)
		}
		work, launches, err := sub.close()
		if err != nil {
			b.Fatal(err)
		}
		durNs := map[int64]int64{}
		for _, w := range work {
			durNs[w.ID] = w.DeviceEndNs - w.DeviceStartNs
		}
		for _, e := range res.Trace().Events {
			short, ok := ops[e.Name]
			if !ok || e.Ph != 'X' || (e.Cat != "cpu_op" && e.Cat != "user_annotation") {
				continue
			}
			var devUs float64
			for _, a := range e.Args {
				if a.Key == "Device time us" {
					devUs, _ = strconv.ParseFloat(a.JSON(), 64)
				}
			}
			var k int64
			for _, l := range launches {
				if l.Thread == e.Tid && l.StartNs >= e.TsNs && l.EndNs <= e.TsNs+e.DurNs {
					k += durNs[l.ID]
				}
			}
			fb[short] += devUs
			kern[short] += float64(k) / 1000
			calls[short]++
		}
	}
	for short, n := range calls {
		b.ReportMetric(fb[short]/float64(n), short+"-fallback-µs")
		b.ReportMetric(kern[short]/float64(n), short+"-kernels-µs")
		b.ReportMetric((fb[short]-kern[short])/float64(n), short+"-diff-µs")
	}
}

// tightOf keeps the samples at most 4× as wide as the narrowest, as FitClock's spread does.
func tightOf(ss []ClockSample) []ClockSample {
	var lo int64 = -1
	for _, s := range ss {
		if lo < 0 || s.WidthNs() < lo {
			lo = s.WidthNs()
		}
	}
	var out []ClockSample
	for _, s := range ss {
		if s.WidthNs() <= 4*max(lo, 1) {
			out = append(out, s)
		}
	}
	return out
}
