package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/trace"
)

// TestRunTablePercentages: `orprof run` prints CPU and OPENREG columns, and both Self CPU % and
// Self OPENREG % sum to 100% (±0.1 for the rounding of each printed row).
func TestRunTablePercentages(t *testing.T) {
	for _, w := range []string{"mlp", "multistream"} {
		t.Run(w, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch([]string{"run", "--workload", w, "--row-limit", "-1", "--trace", filepath.Join(t.TempDir(), "t.json")}, nil, &out, &errb)
			require.Equal(t, 0, code, errb.String())
			lines := strings.Split(out.String(), "\n")
			require.Contains(t, lines[1], "Self OPENREG %")
			var cpu, dev float64
			rows := 0
			for _, l := range lines[3:] {
				if strings.HasPrefix(l, "---") {
					break
				}
				f := strings.Fields(l)
				require.GreaterOrEqual(t, len(f), 11, l)
				cpu += percent(t, f[len(f)-10])
				dev += percent(t, f[len(f)-4])
				rows++
			}
			require.Positive(t, rows)
			assert.InDelta(t, 100, cpu, 0.1)
			assert.InDelta(t, 100, dev, 0.1)
		})
	}
}

func percent(t *testing.T, s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	require.NoError(t, err, s)
	return f
}

// TestRunJSONFormat: --format json follows DESIGN.md's schema; the rows' self times add up to
// the totals.
func TestRunJSONFormat(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"run", "--format", "json", "--row-limit", "-1", "--trace", ""}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	var doc struct {
		SelfCPU    float64                  `json:"self_cpu_time_total"`
		SelfDevice float64                  `json:"self_device_time_total"`
		Rows       []map[string]interface{} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc))
	require.NotEmpty(t, doc.Rows)
	var cpu, dev float64
	for _, r := range doc.Rows {
		for _, k := range []string{"key", "count", "self_cpu_time_total", "cpu_time_total", "cpu_time",
			"self_device_time_total", "device_time_total", "device_time", "cpu_memory_usage",
			"self_cpu_memory_usage", "device_memory_usage", "self_device_memory_usage", "input_shapes"} {
			assert.Contains(t, r, k)
		}
		cpu += r["self_cpu_time_total"].(float64)
		dev += r["self_device_time_total"].(float64)
	}
	assert.InDelta(t, doc.SelfCPU, cpu, 1e-6*doc.SelfCPU)
	assert.InDelta(t, doc.SelfDevice, dev, 1e-6*doc.SelfDevice)
	assert.Positive(t, doc.SelfDevice)
}

func TestCLIErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--workload", "nope"}, `--workload "nope": unknown workload`},
		{[]string{"run", "--device", "tpu", "--trace", ""}, `--device "tpu": no backend registered under that name`},
		{[]string{"run", "--activities", "cpu_op,bogus"}, `unknown activity type "bogus"`},
		{[]string{"run", "--config", "/nonexistent.conf"}, "/nonexistent.conf"},
		{[]string{"run", "--row-limit", "-5"}, "--row-limit -5"},
		{[]string{"table", "--format", "xml", "x.json"}, `--format "xml"`},
		{[]string{"table", "--sort-by", "bogus", "x.json"}, `--sort-by "bogus"`},
		{[]string{"table", "/nonexistent/trace.json"}, "/nonexistent/trace.json"},
		{[]string{"table"}, "table: need a TRACE argument"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := dispatch(c.args, strings.NewReader(""), &out, &errb)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, errb.String(), c.want, "%v", c.args)
		if c.args[0] != "frobnicate" {
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(errb.String()), "\n")+1, "one line: %q", errb.String())
		}
	}
}

func TestTableFromStdin(t *testing.T) {
	trace := `[{"name": "a", "ph": "X", "ts": 0, "dur": 10, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "b", "ph": "X", "ts": 2, "dur": 3, "tid": 1, "pid": "CPU functions", "args": {}}]`
	var out, errb bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"table", "--format", "csv", "-"}, strings.NewReader(trace), &out, &errb), errb.String())
	assert.Equal(t, "key,count,self_cpu_time_total,cpu_time_total,cpu_time,self_device_time_total,device_time_total,device_time,cpu_memory_usage,self_cpu_memory_usage,device_memory_usage,self_device_memory_usage,input_shapes\n"+
		"a,1,7,10,10,0,0,0,0,0,0,0,\nb,1,3,3,3,0,0,0,0,0,0,0,\n", out.String())
	out.Reset()
	require.Equal(t, 0, dispatch([]string{"table", "--format", "markdown", "-"}, strings.NewReader(trace), &out, &errb), errb.String())
	assert.Contains(t, out.String(), "| Name |")
	out.Reset()
	errb.Reset()
	assert.Equal(t, 2, dispatch([]string{"table", "-"}, strings.NewReader(`[{"name": "a", "ph": "X", "ts": 0, "dur": -1`), &out, &errb))
	assert.Contains(t, errb.String(), "<stdin>: byte")
}

// TestRunNoSpans: --no-spans leaves the one event with a string pid ("Spans") out of the trace,
// so speedscope can load it; without the flag the event is there. Both traces pass the checker.
func TestRunNoSpans(t *testing.T) {
	for _, omit := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "t.json")
		args := []string{"run", "--workload", "mlp", "--trace", path}
		if omit {
			args = append(args, "--no-spans")
		}
		var out, errb bytes.Buffer
		require.Equal(t, 0, dispatch(args, nil, &out, &errb), errb.String())
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, trace.Check(data))
		assert.Equal(t, !omit, bytes.Contains(data, []byte(`"pid": "Spans"`)), "omit=%v", omit)
	}
}
