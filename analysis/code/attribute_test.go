package code

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rowsOf indexes a summary's rows by key.
func rowsOf(s *Summary) map[string]Row {
	m := map[string]Row{}
	for _, r := range s.Rows {
		m[r.Key] = r
	}
	return m
}

// handInput: Net_0 holds Linear_0 and Linear_1 on thread 1; ops in each, one in Net_0 alone,
// one outside; kernels linked to two ops and one linked to none; in backward (thread 2) the
// node of Linear_1's op (sequence number 5, forward thread 1) with a child op, and a node
// that names no sequence number.
func handInput() *Input {
	return &Input{
		Spans: []Span{
			{"train.py(9): <module>", 1, 0, 1000},
			{"nn.Module: Net_0", 1, 0, 100},
			{"nn.Module: Linear_0", 1, 10, 40},
			{"torch/nn/modules/linear.py(113): forward", 1, 11, 39},
			{"nn.Module: Linear_1", 1, 50, 90},
			{"model.py(20): forward", 1, 51, 89},
		},
		Ops: []Op{
			{"aten::linear", 1, 12, 30, 4, 0, false},                                                            // 0: Linear_0, self 13
			{"aten::addmm", 1, 15, 20, 4, 0, false},                                                             // 1: its child
			{"aten::linear", 1, 55, 80, 5, 0, false},                                                            // 2: Linear_1
			{"aten::add", 1, 92, 95, -1, 0, false},                                                              // 3: Net_0 alone
			{"aten::sum", 1, 200, 210, 6, 0, false},                                                             // 4: outside any module
			{"autograd::engine::evaluate_function: AddmmBackward0", 2, 300, 320, 5, 1, false},                   // 5
			{"aten::mm", 2, 305, 310, -1, 0, false},                                                             // 6: its child
			{"autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 2, 330, 334, -1, 1, false}, // 7
			{"autograd::engine::evaluate_function: SumBackward0", 2, 340, 342, 6, 1, false},                     // 8
		},
		Kernels: []Kernel{{"gemm", 1, 7}, {"gemm", 2, 9}, {"gemm_bwd", 6, 11}, {"memcpy", -1, 5}},
	}
}

func TestAttributeByModule(t *testing.T) {
	s := Attribute(handInput(), ByModule)
	rows := rowsOf(s)
	assert.Equal(t, Row{Key: "Net_0/Linear_0", Calls: 1, FwdCPUNs: 18, FwdDevNs: 7, Kernels: map[string]int64{"gemm": 7}}, rows["Net_0/Linear_0"])
	assert.Equal(t, Row{Key: "Net_0/Linear_1", Calls: 1, FwdCPUNs: 25, FwdDevNs: 9, BwdCPUNs: 20, BwdDevNs: 11,
		Kernels: map[string]int64{"gemm": 9, "gemm_bwd": 11}}, rows["Net_0/Linear_1"])
	assert.Equal(t, Row{Key: "Net_0", Calls: 1, FwdCPUNs: 3, Kernels: map[string]int64{}}, rows["Net_0"])
	none := rows["(no module)"]
	assert.Equal(t, int64(10), none.FwdCPUNs)
	assert.Equal(t, int64(4+2), none.BwdCPUNs)
	// Conservation: the rows sum to every op's self time and the linked device time.
	assert.Equal(t, int64(18+25+3+10+20+4+2), s.CPUNs)
	assert.Equal(t, int64(27), s.DevNs)
	assert.Equal(t, int64(5), s.UnlinkedDevNs)
	var cpu, dev int64
	for _, r := range s.Rows {
		cpu += r.CPUNs()
		dev += r.DevNs()
	}
	assert.Equal(t, s.CPUNs, cpu)
	assert.Equal(t, s.DevNs, dev)
	assert.Equal(t, []Unattributed{
		{"forward ops outside any nn.Module call", 10, 0},
		{ReasonNoPhase, 4, 0},
		{"backward ops whose forward op is outside any nn.Module call", 2, 0},
	}, s.Unattributed)
	c, d := s.Inclusive("Net_0")
	assert.Equal(t, int64(18+25+20+3), c)
	assert.Equal(t, int64(27), d)
}

func TestAttributeByLine(t *testing.T) {
	s := Attribute(handInput(), ByLine)
	rows := rowsOf(s)
	// Linear_0's op is under torch's own frame only: its line is the script's.
	assert.Equal(t, int64(18+3+10), rows["train.py(9): <module>"].FwdCPUNs)
	assert.Equal(t, int64(25), rows["model.py(20): forward"].FwdCPUNs)
	assert.Equal(t, int64(20), rows["model.py(20): forward"].BwdCPUNs)
	assert.Equal(t, int64(1), rows["model.py(20): forward"].Calls)
	assert.NotContains(t, rows, "torch/nn/modules/linear.py(113): forward")
	// The sum's backward: its forward op is in the script's line.
	assert.Equal(t, int64(2), rows["train.py(9): <module>"].BwdCPUNs)
}

// TestAttributeFlowFirst: a fwdbwd flow names the forward op even where the sequence number
// would name another.
func TestAttributeFlowFirst(t *testing.T) {
	in := handInput()
	// A flow from the op in Linear_0 to the AddmmBackward0's op.
	in.Flows = []Flow{{ID: 1, Start: true, Tid: 1, AtNs: 12}, {ID: 1, Start: false, Tid: 2, AtNs: 300}}
	rows := rowsOf(Attribute(in, ByModule))
	assert.Equal(t, int64(20), rows["Net_0/Linear_0"].BwdCPUNs)
	assert.Zero(t, rows["Net_0/Linear_1"].BwdCPUNs)
}

// TestAttributeForwardThreads: two forward threads (trace tids 100 and 200, PyTorch's 1 and
// 2) reuse sequence numbers; the numbers one thread alone has say which tid each forward
// thread number is, and settle the others.
func TestAttributeForwardThreads(t *testing.T) {
	in := &Input{
		Spans: []Span{{"nn.Module: A_0", 100, 0, 100}, {"nn.Module: B_0", 200, 0, 100}},
		Ops: []Op{
			{"fa", 100, 10, 20, 1, 0, false}, {"fa2", 100, 30, 40, 7, 0, false},
			{"fb", 200, 10, 20, 1, 0, false}, {"fb2", 200, 30, 40, 8, 0, false},
			{"bwd a2", 300, 500, 510, 7, 1, false}, {"bwd b2", 300, 520, 530, 8, 2, false},
			{"bwd a1", 300, 540, 550, 1, 1, false}, {"bwd b1", 300, 560, 580, 1, 2, false},
		},
	}
	rows := rowsOf(Attribute(in, ByModule))
	assert.Equal(t, int64(10+10), rows["A_0"].BwdCPUNs)
	assert.Equal(t, int64(10+20), rows["B_0"].BwdCPUNs)
}

func TestUserFrame(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"train.py(12): forward", true},
		{"/sgl-workspace/sglang/python/sglang/srt/layers/sampler.py(60): forward", true},
		{"transformers/models/bert/modeling_bert.py(400): forward", true},
		{"torch/nn/modules/module.py(1501): _call_impl", false},
		{"/usr/lib/python3/dist-packages/torch/nn/functional.py(1446): relu", false},
		{"<built-in method linear of PyCapsule object at 0x7f>", false},
		{"nn.Module: Linear_0", false},
		{"threading.py(1032): _bootstrap", false},
		{"<string>(1): <module>", true},
		{"no frame", false},
	} {
		assert.Equal(t, tc.want, userFrame(tc.name), tc.name)
	}
}

func TestMerge(t *testing.T) {
	a := Attribute(handInput(), ByModule)
	b := Attribute(handInput(), ByModule)
	m, err := Merge(a, b)
	require.NoError(t, err)
	assert.Equal(t, 2*a.CPUNs, m.CPUNs)
	assert.Equal(t, 2*a.DevNs, m.DevNs)
	assert.Equal(t, int64(22), rowsOf(m)["Net_0/Linear_1"].BwdDevNs)
	assert.Equal(t, int64(18), rowsOf(m)["Net_0/Linear_1"].Kernels["gemm"])
	assert.Equal(t, int64(20), m.Unattributed[0].CPUNs)
	_, err = Merge(a, Attribute(handInput(), ByLine))
	assert.ErrorContains(t, err, "cannot merge")
}

// TestAttributeConservesRandom: on random inputs (overlapping ops, spans that do not nest,
// flows to nowhere, kernels of no op) the rows still sum to the totals, for every view, and
// nothing panics.
func TestAttributeConservesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"nn.Module: A_0", "nn.Module: B_0", "a.py(1): f", "torch/x.py(2): g", "<built-in method x>"}
	for iter := range 500 {
		in := &Input{}
		n := 1 + rng.IntN(40)
		for range n {
			s := rng.Int64N(1000)
			in.Spans = append(in.Spans, Span{names[rng.IntN(len(names))], rng.Int64N(3), s, s + rng.Int64N(300)})
			o := rng.Int64N(1000)
			seq := rng.Int64N(6) - 1
			fwd := int64(0)
			if rng.IntN(4) == 0 {
				fwd = rng.Int64N(3)
			}
			in.Ops = append(in.Ops, Op{"op", rng.Int64N(3), o, o + rng.Int64N(100), seq, fwd, rng.IntN(3) == 0})
			in.Kernels = append(in.Kernels, Kernel{"k", rng.IntN(n+2) - 1, rng.Int64N(50)})
			in.Flows = append(in.Flows, Flow{rng.Int64N(4), rng.IntN(2) == 0, rng.Int64N(3), rng.Int64N(1100)})
		}
		for i := range in.Kernels {
			if in.Kernels[i].Op >= len(in.Ops) {
				in.Kernels[i].Op = -1
			}
		}
		for _, by := range []By{ByModule, ByLine, ByPhase} {
			s := Attribute(in, by)
			var cpu, dev, kern, un int64
			for _, r := range s.Rows {
				cpu += r.CPUNs()
				dev += r.DevNs()
				for _, v := range r.Kernels {
					kern += v
				}
			}
			var none Row
			for _, r := range s.Rows {
				if r.Key == by.None() {
					none = r
				}
			}
			for _, u := range s.Unattributed {
				un += u.CPUNs
			}
			require.Equal(t, s.CPUNs, cpu, "iteration %d", iter)
			require.Equal(t, s.DevNs, dev, "iteration %d", iter)
			require.Equal(t, dev, kern, "iteration %d", iter)
			require.Equal(t, none.CPUNs(), un, "iteration %d: the reasons add up to the none row", iter)
			s.Version = SummaryVersion
			var b bytes.Buffer
			require.NoError(t, Write(&b, JSON, s, WriteOptions{}))
			_, err := ReadSummary(&b, "s.json")
			require.NoError(t, err, "iteration %d: what Attribute writes reads back", iter)
		}
	}
}

// TestAttributeByPhase: an op's phase is the outermost annotation holding it on its thread
// (a nested record_function does not start a phase; ProfilerStep#N and 0 ns annotations
// never do), backward ops count where they ran, and what no phase holds is the none row.
func TestAttributeByPhase(t *testing.T) {
	in := &Input{
		Ops: []Op{
			{"ProfilerStep#3", 1, 0, 1000, -1, 0, true}, // 0: not a phase
			{"forward", 1, 10, 100, -1, 0, true},        // 1: self 90 − 30 − 0 = 60
			{"attention", 1, 20, 50, -1, 0, true},       // 2: nested: forward's, self 30 − 10 = 20
			{"aten::mm", 1, 30, 40, 4, 0, false},        // 3: forward
			{"graph scope", 1, 60, 60, -1, 0, true},     // 4: 0 ns: forward's
			{"backward", 1, 200, 400, -1, 0, true},      // 5: self 200 − 50
			{"MmBackward0", 1, 250, 300, 4, 1, false},   // 6: backward, in backward
			{"aten::add", 1, 500, 520, -1, 0, false},    // 7: in no phase
			{"MulBackward0", 2, 600, 610, 9, 1, false},  // 8: backward on another thread: none
		},
		Kernels: []Kernel{{"gemm", 3, 7}, {"scoped", 4, 5}, {"gemm_bwd", 6, 11}, {"add", 7, 2}},
	}
	s := Attribute(in, ByPhase)
	rows := rowsOf(s)
	assert.Equal(t, Row{Key: "forward", Calls: 1, FwdCPUNs: 60 + 20 + 10, FwdDevNs: 12, Kernels: map[string]int64{"gemm": 7, "scoped": 5}}, rows["forward"])
	assert.Equal(t, Row{Key: "backward", Calls: 1, FwdCPUNs: 150, BwdCPUNs: 50, BwdDevNs: 11, Kernels: map[string]int64{"gemm_bwd": 11}}, rows["backward"])
	none := rows["(no phase)"]
	assert.Equal(t, int64(1000-90-200-20+20), none.FwdCPUNs, "ProfilerStep's self time and aten::add")
	assert.Equal(t, int64(10), none.BwdCPUNs)
	assert.Equal(t, int64(2), none.FwdDevNs)
	assert.NotContains(t, rows, "attention")
	assert.NotContains(t, rows, "ProfilerStep#3")
	assert.Len(t, s.Unattributed, 1)
	assert.Equal(t, "ops outside any user annotation naming a phase (ProfilerStep#N aside)", s.Unattributed[0].Reason)
}
