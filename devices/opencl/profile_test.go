package opencl

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"testing"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// kernelActivities are the activities of a kernel-mode OpenCL profile.
var kernelActivities = kineto.NewActivitySet(kineto.CPUOp, kineto.ConcurrentKernel, kineto.GPUMemcpy,
	kineto.GPUMemset, kineto.PrivateUse1Runtime)

// profileMLP trains the default MLP under a session and returns the result and its trace.
func profileMLP(t *testing.T, acts kineto.ActivitySet) (*orprof.Result, []byte) {
	t.Helper()
	rt := needOpenCL(t)
	sess, err := orprof.Start(orprof.Options{Device: "opencl", Activities: acts, RecordShapes: true, ProfileMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := orprof.WithThread(context.Background(), orprof.MainThread())
	_, runErr := TrainMLP(ctx, rt, DefaultMLP)
	res, err := sess.Stop()
	if runErr != nil || err != nil {
		t.Fatalf("train: %v, stop: %v", runErr, err)
	}
	if len(res.Warnings) > 0 {
		t.Fatalf("warnings: %v", res.Warnings)
	}
	var buf bytes.Buffer
	if err := trace.Write(&buf, res.Trace()); err != nil {
		t.Fatal(err)
	}
	if err := trace.Check(buf.Bytes()); err != nil {
		t.Fatalf("trace.Check: %v", err)
	}
	return res, buf.Bytes()
}

// checkNesting fails when two complete events of one row overlap without nesting.
func checkNesting(t *testing.T, tr *trace.Trace) {
	t.Helper()
	type row struct {
		pid, tid int64
		p, ti    string
	}
	rows := map[row][]trace.Event{}
	for _, e := range tr.Events {
		if e.Ph == 'X' {
			k := row{e.Pid, e.Tid, e.PidStr, e.TidStr}
			rows[k] = append(rows[k], e)
		}
	}
	for k, evs := range rows {
		sort.SliceStable(evs, func(i, j int) bool {
			if evs[i].TsNs != evs[j].TsNs {
				return evs[i].TsNs < evs[j].TsNs
			}
			return evs[i].DurNs > evs[j].DurNs
		})
		var open []int64 // end times
		for _, e := range evs {
			for len(open) > 0 && e.TsNs >= open[len(open)-1] {
				open = open[:len(open)-1]
			}
			if len(open) > 0 && e.TsNs+e.DurNs > open[len(open)-1] {
				t.Fatalf("row %v: %s [%d, +%d] overlaps its enclosing event ending at %d", k, e.Name, e.TsNs, e.DurNs, open[len(open)-1])
			}
			open = append(open, e.TsNs+e.DurNs)
		}
	}
}

func TestProfileKernelMode(t *testing.T) {
	res, data := profileMLP(t, kernelActivities)
	checkNesting(t, res.Trace())

	ops := map[int64]trace.Event{}
	launches := map[string]trace.Event{}
	for _, e := range res.Trace().Events {
		args := map[string]string{}
		for _, a := range e.Args {
			args[a.Key] = a.JSON()
		}
		switch e.Cat {
		case "cpu_op", "user_annotation":
			id, _ := strconv.ParseInt(args["External id"], 10, 64)
			ops[id] = e
		case "privateuse1_runtime":
			launches[args["correlation"]] = e
		}
	}
	kernels := map[string]int{}
	flows := map[uint64]int{}
	for _, e := range res.Trace().Events {
		if e.Ph == 's' || e.Ph == 'f' {
			flows[e.ID]++
		}
		if e.Cat != "kernel" && e.Cat != "gpu_memcpy" && e.Cat != "gpu_memset" {
			continue
		}
		args := map[string]string{}
		for _, a := range e.Args {
			args[a.Key] = a.JSON()
		}
		kernels[e.Name]++
		if args["External id"] == "" && e.Cat == "gpu_memcpy" {
			continue // TrainMLP reads the trained parameters back outside any op
		}
		id, _ := strconv.ParseInt(args["External id"], 10, 64)
		op, ok := ops[id]
		if !ok {
			t.Fatalf("%s %s: External id %q names no op", e.Cat, e.Name, args["External id"])
		}
		l, ok := launches[args["correlation"]]
		if !ok {
			t.Fatalf("%s %s: no launch with correlation %s", e.Cat, e.Name, args["correlation"])
		}
		if e.TsNs < l.TsNs || l.TsNs < op.TsNs || l.TsNs+l.DurNs > op.TsNs+op.DurNs {
			t.Fatalf("%s %s at %d: launch [%d, +%d] in op %s [%d, +%d]: work must start after its launch, inside its op",
				e.Cat, e.Name, e.TsNs, l.TsNs, l.DurNs, op.Name, op.TsNs, op.DurNs)
		}
	}
	for _, k := range kernelNames {
		if kernels[k] == 0 {
			t.Errorf("no %s kernel in the trace (have %v)", k, kernels)
		}
	}
	for _, k := range []string{"Memcpy HtoD", "Memcpy DtoH", "Memset"} {
		if kernels[k] == 0 {
			t.Errorf("no %s in the trace", k)
		}
	}
	for id, n := range flows {
		if n != 2 {
			t.Fatalf("flow %d has %d ends", id, n)
		}
	}

	// The live table and the table of the written trace attribute the kernels to the same ops.
	live := deviceTotals(res.Events.KeyAverages(events.AverageOptions{}))
	td, err := tracefile.Read(bytes.NewReader(data), "trace.json", tracefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if td.DeviceName != "opencl" {
		t.Fatalf("trace device %q, want opencl", td.DeviceName)
	}
	read := deviceTotals(events.NewListOwned(td.Events, events.ListOptions{UseDevice: td.DeviceName}).KeyAverages(events.AverageOptions{}))
	for _, op := range []string{"aten::addmm", "aten::mm", "aten::relu", "aten::_log_softmax", "aten::add_", "aten::threshold_backward"} {
		if live[op] <= 0 {
			t.Errorf("%s: no device time in the live table", op)
		}
		if d := live[op] - read[op]; d > 0.01 || d < -0.01 {
			t.Errorf("%s: device time %.3f µs live, %.3f µs from the trace", op, live[op], read[op])
		}
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	var clock []struct {
		ResidualUs float64 `json:"residual_us"`
		Samples    int     `json:"samples"`
	}
	if err := json.Unmarshal(meta["opencl_clock"], &clock); err != nil || len(clock) == 0 || clock[0].Samples < 2 {
		t.Fatalf("opencl_clock metadata %s: %v", meta["opencl_clock"], err)
	}
}

// deviceTotals is each op's total device time, summed over its rows.
func deviceTotals(rows []events.Avg) map[string]float64 {
	out := map[string]float64{}
	for _, r := range rows {
		out[r.Key] += r.DeviceTimeTotal
	}
	return out
}

func TestProfileFallback(t *testing.T) {
	res, _ := profileMLP(t, 0)
	checkNesting(t, res.Trace())
	dev := deviceTotals(res.Events.KeyAverages(events.AverageOptions{}))
	for _, op := range []string{"aten::addmm", "aten::mm", "aten::relu", "ProfilerStep*"} {
		if dev[op] <= 0 {
			t.Errorf("%s: no fallback device time", op)
		}
	}
	for _, e := range res.Trace().Events {
		if e.Cat == "kernel" {
			t.Fatalf("fallback profile has a kernel event %s", e.Name)
		}
	}
}

// TestFallbackContainsKernels: in one execution, an op's fallback device time (from the end of
// its start marker to the end of its end marker on an in-order queue) holds every kernel, copy
// and fill it launched, so it is never less than their summed durations (less the whole-µs
// truncation of the fallback time).
func TestFallbackContainsKernels(t *testing.T) {
	rt := needOpenCL(t)
	sub := rt.subscribe()
	sess, err := orprof.Start(orprof.Options{Device: "opencl"})
	if err != nil {
		sub.close()
		t.Fatal(err)
	}
	ctx := orprof.WithThread(context.Background(), orprof.MainThread())
	_, runErr := TrainMLP(ctx, rt, DefaultMLP)
	res, err := sess.Stop()
	work, launches, cerr := sub.close()
	if runErr != nil || err != nil || cerr != nil {
		t.Fatalf("train: %v, stop: %v, close: %v", runErr, err, cerr)
	}
	dur := map[int64]int64{}
	for _, w := range work {
		dur[w.ID] = w.DeviceEndNs - w.DeviceStartNs
	}
	checked := 0
	for _, e := range res.Trace().Events {
		if e.Ph != 'X' || e.Cat != "cpu_op" {
			continue
		}
		var devUs int64 // absent when under 1 µs
		for _, a := range e.Args {
			if a.Key == trace.ArgDeviceTimeUs {
				devUs, _ = a.Int()
			}
		}
		var kernNs int64
		for _, l := range launches {
			if l.Thread == e.Tid && l.StartNs >= e.TsNs && l.EndNs <= e.TsNs+e.DurNs {
				kernNs += dur[l.ID]
			}
		}
		if kernNs == 0 {
			continue
		}
		if float64(devUs+1) < float64(kernNs)/1000 {
			t.Fatalf("%s: fallback device time %d µs, but its kernels ran %.3f µs", e.Name, devUs, float64(kernNs)/1000)
		}
		checked++
	}
	if checked < 50 {
		t.Fatalf("only %d ops with kernels checked", checked)
	}
}

// Launches are written whenever privateuse1_runtime is asked for, with or without the work
// they launched (Kineto's runtime activities do not depend on the device ones, and OpenReg
// writes them so); a flow arrow joins a launch to its work only when both are written.
func TestProfileRuntimeOnly(t *testing.T) {
	for _, c := range []struct {
		name         string
		acts         kineto.ActivitySet
		kernels      bool
		wantLaunches bool
	}{
		{"runtime alone", kineto.NewActivitySet(kineto.CPUOp, kineto.PrivateUse1Runtime), false, true},
		{"kernels alone", kineto.NewActivitySet(kineto.CPUOp, kineto.ConcurrentKernel), true, false},
		{"both", kineto.NewActivitySet(kineto.CPUOp, kineto.ConcurrentKernel, kineto.PrivateUse1Runtime), true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, _ := profileMLP(t, c.acts)
			// Flows from launches start where a launch starts; fallback mode (no kernel
			// activities) draws flows of its own from the ops.
			type at struct{ tid, ts int64 }
			launchAt := map[at]bool{}
			var launches, kernels int
			for _, e := range res.Trace().Events {
				switch e.Cat {
				case "privateuse1_runtime":
					launches++
					launchAt[at{e.Tid, e.TsNs}] = true
				case "kernel":
					kernels++
				}
			}
			flows := 0
			for _, e := range res.Trace().Events {
				if e.Ph == 's' && launchAt[at{e.Tid, e.TsNs}] {
					flows++
				}
			}
			if (launches > 0) != c.wantLaunches || (kernels > 0) != c.kernels {
				t.Fatalf("%d launches, %d kernels", launches, kernels)
			}
			want := 0
			if c.kernels && c.wantLaunches {
				want = kernels
			}
			if flows != want {
				t.Fatalf("%d flows from launches, want %d (%d kernels)", flows, want, kernels)
			}
		})
	}
}
