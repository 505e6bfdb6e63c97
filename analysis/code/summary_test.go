package code

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/golden"
	"github.com/orprof/orprof/trace/tracefile"
)

// TestGolden: every format of the generated and GPU traces, by module and by line.
func TestGolden(t *testing.T) {
	for _, path := range append(append([]string{}, genTraces...), gpuTraces[0]) {
		for _, by := range []By{ByModule, ByLine} {
			s, _, err := Open(path, 0, ReadOptions{By: by})
			require.NoError(t, err)
			for _, f := range []Format{Text, Markdown, CSV, JSON} {
				var b bytes.Buffer
				require.NoError(t, Write(&b, f, s, WriteOptions{RowLimit: 12}))
				name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".json") + "." + by.String() + "." + string(f)
				golden.Check(t, filepath.Join("testdata", "golden", name), b.Bytes())
			}
		}
	}
}

// TestGoldenKernels: the kernels of each row (orprof kernels --by) of the BERT GPU trace.
func TestGoldenKernels(t *testing.T) {
	for _, by := range []By{ByModule, ByLine} {
		s, _, err := Open(gpuTraces[0], 0, ReadOptions{By: by})
		require.NoError(t, err)
		for _, f := range []Format{Text, Markdown, CSV} {
			var b bytes.Buffer
			require.NoError(t, WriteKernels(&b, f, s, WriteOptions{RowLimit: 10}))
			golden.Check(t, filepath.Join("testdata", "golden", "kernels_bert."+by.String()+"."+string(f)), b.Bytes())
		}
		assert.Error(t, WriteKernels(&bytes.Buffer{}, JSON, s, WriteOptions{}))
	}
}

// TestSummaryRoundTrip: the JSON summary reads back to the same summary, and merges.
func TestSummaryRoundTrip(t *testing.T) {
	for _, path := range append(append([]string{}, genTraces...), gpuTraces...) {
		s, _, err := Open(path, 0, ReadOptions{})
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, Write(&b, JSON, s, WriteOptions{}))
		back, err := ReadSummary(&b, "s.json")
		require.NoError(t, err)
		assert.Equal(t, s, back, path)
		m, err := Merge(s, back)
		require.NoError(t, err)
		assert.Equal(t, 2*s.CPUNs, m.CPUNs)
		assert.Len(t, m.Traces, 2)
	}
}

func TestReadSummaryRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"orprof_code_summary": 2, "by": "module", "rows": [], "cpu_ns": 0, "device_ns": 0, "unlinked_device_ns": 0}`, "version 1"},
		{`{"orprof_code_summary": 1, "by": "file", "rows": [], "cpu_ns": 0, "device_ns": 0, "unlinked_device_ns": 0}`, `"by"`},
		{`{"orprof_code_summary": 1, "by": "module", "rows": [{"key": "a", "calls": 1, "fwd_cpu_ns": 5, "fwd_device_ns": 0, "bwd_cpu_ns": 0, "bwd_device_ns": 0}], "cpu_ns": 4, "device_ns": 0, "unlinked_device_ns": 0}`, "sum to"},
		{`{"orprof_code_summary": 1, "by": "module", "rows": [{"key": "a", "calls": 1, "fwd_cpu_ns": 5, "fwd_device_ns": 3, "bwd_cpu_ns": 0, "bwd_device_ns": 0, "kernels": {"k": 2}}], "cpu_ns": 5, "device_ns": 3, "unlinked_device_ns": 0}`, "kernels sum"},
		{`{"orprof_code_summary": 1, "by": "module", "rows": [{"key": "a", "calls": -1, "fwd_cpu_ns": 0, "fwd_device_ns": 0, "bwd_cpu_ns": 0, "bwd_device_ns": 0}], "cpu_ns": 0, "device_ns": 0, "unlinked_device_ns": 0}`, "negative"},
		{`{"orprof_code_summary": 1, "by": "module", "rows": [], "extra": 1}`, "not a code summary"},
		{`[1]`, "not a code summary"},
	} {
		_, err := ReadSummary(strings.NewReader(tc.in), "s.json")
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.want)
		assert.True(t, strings.HasPrefix(err.Error(), "s.json: "))
	}
}

func FuzzReadSummary(f *testing.F) {
	f.Add(`{"orprof_code_summary": 1, "by": "module", "rows": [{"key": "a", "calls": 1, "fwd_cpu_ns": 5, "fwd_device_ns": 2, "bwd_cpu_ns": 0, "bwd_device_ns": 0, "kernels": {"k": 2}}], "cpu_ns": 5, "device_ns": 2, "unlinked_device_ns": 0}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadSummary(strings.NewReader(in), "f")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err)
			}
			return
		}
		for _, f := range []Format{Text, Markdown, CSV, JSON} {
			var b bytes.Buffer
			if err := Write(&b, f, s, WriteOptions{RowLimit: 3}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Merge(s, s); err != nil {
			t.Fatal(err)
		}
	})
}

// TestFuzzSeedsRead: the fuzz seeds kept in testdata read or fail in one line.
func TestFuzzSeedsRead(t *testing.T) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzReadSummary", "*"))
	require.NotEmpty(t, seeds)
	for _, p := range seeds {
		_, err := os.ReadFile(p)
		require.NoError(t, err)
	}
}

// ExampleAttribute charges two ops and a kernel to the module calls that ran them.
func ExampleAttribute() {
	in := &Input{
		Spans: []Span{{Name: "nn.Module: Net_0", Tid: 1, StartNs: 0, EndNs: 100},
			{Name: "nn.Module: Linear_0", Tid: 1, StartNs: 10, EndNs: 50}},
		Ops: []Op{{Name: "aten::addmm", Tid: 1, StartNs: 20, EndNs: 40, Seq: 3},
			{Name: "aten::relu", Tid: 1, StartNs: 60, EndNs: 70, Seq: 4}},
		Kernels: []Kernel{{Name: "gemm", Op: 0, DurNs: 15}},
	}
	s := Attribute(in, ByModule)
	for _, r := range s.Sorted() {
		fmt.Printf("%s: forward CPU %d ns, device %d ns\n", r.Key, r.FwdCPUNs, r.FwdDevNs)
	}
	// Output:
	// Net_0/Linear_0: forward CPU 20 ns, device 15 ns
	// Net_0: forward CPU 10 ns, device 0 ns
}

// TestReportPhases: the report's collector tabulates the phases of a trace with python stacks
// as `orprof code --by phase` does, the view survives its JSON, and ranks merge it when every
// rank has it; a trace with phases and no stacks gets the reason instead.
func TestReportPhases(t *testing.T) {
	read := func(path string) *Report {
		c := NewReportCollector()
		_, err := tracefile.OpenConsumers(path, tracefile.Options{Consumers: []tracefile.Consumer{c}})
		require.NoError(t, err)
		s, err := c.Result()
		require.NoError(t, err)
		return s.(*Report)
	}
	mlp := read("testdata/mlp_train.json.gz")
	require.NotNil(t, mlp.Phase)
	want, _, err := Open("testdata/mlp_train.json.gz", 0, ReadOptions{By: ByPhase})
	require.NoError(t, err)
	assert.Equal(t, want.Rows, mlp.Phase.Rows)
	assert.Empty(t, mlp.PhaseReason)

	var buf bytes.Buffer
	require.NoError(t, WriteReport(&buf, mlp))
	back, err := ReadReport(buf.Bytes(), "code")
	require.NoError(t, err)
	assert.Equal(t, mlp.Phase.Rows, back.Phase.Rows)

	graph := read("../../trace/tracefile/testdata/cudagraph/annotated.json")
	assert.Nil(t, graph.Phase)
	assert.Contains(t, graph.PhaseReason, "orprof code --by phase")

	both, err := MergeReports(mlp, mlp)
	require.NoError(t, err)
	require.NotNil(t, both.Phase)
	assert.Equal(t, 2*mlp.Phase.Rows[0].Calls, both.Phase.Rows[0].Calls)
	one, err := MergeReports(mlp, graph)
	require.NoError(t, err)
	assert.Nil(t, one.Phase)
	assert.Equal(t, graph.PhaseReason, one.PhaseReason)

	bad := strings.Replace(buf.String(), `"orprof_code_report": 1,`, `"orprof_code_report": 1, "phase_reason": "x",`, 1)
	_, err = ReadReport([]byte(bad), "code")
	assert.ErrorContains(t, err, "a phase view and a reason")
}
