package optable

import (
	"bytes"
	"compress/gzip"
	"github.com/orprof/orprof/trace"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/errtext"
	"github.com/orprof/orprof/text"
)

// rankEvents is a small profile of one rank: an outer op with two children and a kernel; scale
// stretches every time so that the ranks differ.
func rankEvents(scale float64, extra bool) []events.FunctionEvent {
	op := func(id int64, name string, s, e float64) events.FunctionEvent {
		return events.NewFunctionEvent(id, name, 1, s*scale, e*scale)
	}
	mm := op(2, "aten::mm", 10, 40)
	mm.Kernels = []events.Kernel{{Name: "gemm", DurationUs: 20 * scale}}
	k := events.NewFunctionEvent(9, "gemm", 7, 50*scale, 70*scale)
	k.DeviceType = devices.CUDA
	evs := []events.FunctionEvent{op(1, "step", 0, 100), mm, op(3, "aten::relu", 45, 60), k}
	if extra {
		evs = append(evs, op(4, "aten::add", 70, 71))
	}
	return evs
}

func rankSummary(scale float64, extra bool, rank RankInfo) *Summary {
	l := events.NewList(rankEvents(scale, extra), events.ListOptions{UseDevice: "cuda"})
	return NewSummary(l.KeyAverages(events.AverageOptions{}), rank, SummaryOptions{Device: "cuda"})
}

// TestMergeSummaries: merged rows are KeyAverages over the ranks in order — first-occurrence
// order across ranks, sums, the slowest rank of each row — and ranks numbered by file order
// take their position.
func TestMergeSummaries(t *testing.T) {
	s0 := rankSummary(1, false, RankInfo{Rank: trace.Rank{Trace: "r0"}})
	s1 := rankSummary(3, true, RankInfo{Rank: trace.Rank{Trace: "r1"}})
	s2 := rankSummary(2, false, RankInfo{Rank: trace.Rank{Number: 7, Named: true, Trace: "r2"}})
	m, err := MergeSummaries(s0, s1, s2)
	require.NoError(t, err)
	var keys []string
	for _, r := range m.Rows {
		keys = append(keys, r.Key)
	}
	assert.Equal(t, []string{"step", "aten::mm", "aten::relu", "gemm", "aten::add"}, keys)
	assert.Equal(t, []RankInfo{
		{Rank: trace.Rank{Number: 0, Trace: "r0"}, SelfCPUTimeTotal: 100, SelfDeviceTimeTotal: 20},
		{Rank: trace.Rank{Number: 1, Trace: "r1"}, SelfCPUTimeTotal: 300, SelfDeviceTimeTotal: 60},
		{Rank: trace.Rank{Number: 7, Named: true, Trace: "r2"}, SelfCPUTimeTotal: 200, SelfDeviceTimeTotal: 40},
	}, m.Ranks)
	mm := m.Rows[1]
	assert.Equal(t, int64(3), mm.Count)
	assert.Equal(t, 30.0+90+60, mm.CPUTimeTotal)
	assert.Equal(t, 20.0+60+40, mm.SelfDeviceTimeTotal)
	assert.Equal(t, 3, mm.Ranks)
	at, us, dev := mm.Slowest()
	assert.Equal(t, []any{1, 60.0, true}, []any{at, us, dev}, "aten::mm is slowest on the device on rank index 1")
	add := m.Rows[4]
	assert.Equal(t, 1, add.Ranks)
	assert.Equal(t, 1, add.MaxCPUAt)
	assert.Equal(t, "rank from distributedInfo.rank in 1, position in the file order in 2", m.RankSource())

	// Merging is associative in rows and ranks: (s0 s1) s2 = s0 s1 s2.
	m01, err := MergeSummaries(s0, s1)
	require.NoError(t, err)
	m2, err := MergeSummaries(m01, s2)
	require.NoError(t, err)
	assert.Equal(t, m, m2)
	// The inputs are not modified.
	assert.Equal(t, rankSummary(1, false, RankInfo{Rank: trace.Rank{Trace: "r0"}}), s0)
}

func TestMergeSummariesRefuses(t *testing.T) {
	a := rankSummary(1, false, RankInfo{})
	b := rankSummary(1, false, RankInfo{})
	b.GroupByInputShape = true
	_, err := MergeSummaries(a, b)
	assert.ErrorContains(t, err, "summary 2 was grouped differently")
	c := rankSummary(1, false, RankInfo{})
	c.Device = "mtia"
	_, err = MergeSummaries(a, c)
	assert.ErrorContains(t, err, `summary 2 is of device "mtia", summary 1 of "cuda"`)
	// The caller names the summaries (cmd/orprof: by their files); the other one named is the
	// one the refused summary disagrees with.
	cpu0 := rankSummary(1, false, RankInfo{})
	cpu0.Device = ""
	_, err = MergeSummaries(cpu0, a, c)
	var me *MergeError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, `"c.json" is of device "mtia", "a.json" of "cuda"`,
		me.Named(func(i int) string { return strconv.Quote([]string{"cpu.json", "a.json", "c.json"}[i]) }))
	cpu := rankSummary(1, false, RankInfo{})
	cpu.Device = ""
	m, err := MergeSummaries(cpu, a)
	require.NoError(t, err)
	assert.Equal(t, "cuda", m.Device, "a CPU-only rank takes the others' device")
}

// TestSummaryJSONRoundTrip: every row written, in any sort order, reads back as the same
// summary, plain, gzip-compressed or behind a UTF-8 byte order mark.
func TestSummaryJSONRoundTrip(t *testing.T) {
	s0 := rankSummary(1, false, RankInfo{Rank: trace.Rank{Trace: "r0"}})
	s1 := rankSummary(3, true, RankInfo{Rank: trace.Rank{Trace: "r1"}})
	s1.Rows[0].InputShapes = "" // grouped by nothing
	m, err := MergeSummaries(s0, s1)
	require.NoError(t, err)
	m.Rows[0].Flops = 12
	for _, sortBy := range []string{"", "self_cpu_time_total", "count", "key"} {
		var buf bytes.Buffer
		require.NoError(t, WriteSummaryJSON(&buf, m, TableOptions{SortBy: sortBy, RowLimit: RowLimitAll}))
		got, err := ReadSummary(bytes.NewReader(buf.Bytes()), "s.json")
		require.NoError(t, err, sortBy)
		assert.Equal(t, m, got, sortBy)

		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(buf.Bytes())
		zw.Close()
		got, err = ReadSummary(&gz, "s.json.gz")
		require.NoError(t, err)
		assert.Equal(t, m, got)

		got, err = ReadSummary(bytes.NewReader(append([]byte("\uFEFF"), buf.Bytes()...)), "bom.json")
		require.NoError(t, err)
		assert.Equal(t, m, got)
		assert.Equal(t, input.TableSummary, input.IdentifyBytes(buf.Bytes()))
	}
}

func TestReadSummaryErrors(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteSummaryJSON(&buf, rankSummary(1, true, RankInfo{}), TableOptions{RowLimit: RowLimitAll}))
	good := buf.String()
	long := strings.Repeat("x", 300)
	cases := []struct{ name, in, want string }{
		{"empty", ``, "s.json: not a valid summary: byte 0: unexpected end of input"},
		{"truncated", good[:200], "s.json: not a valid summary: byte 200: unexpected end of input"},
		{"not json", `{"self_cpu_time_total": NaN}`, "s.json: not a valid summary: byte 25: invalid character 'N'"},
		{"a trace", `{"traceEvents": []}`, `s.json: not an orprof summary: no "summary" object`},
		{"trailing", good + "{}", "s.json: byte " + strconv.Itoa(len(good)+1) + ": data after the summary object"},
		{"row limit", strings.Replace(good, `"rows_left_out": 0`, `"rows_left_out": 3`, 1), "3 rows were left out by a row limit"},
		{"row limit of one", strings.Replace(good, `"rows_left_out": 0`, `"rows_left_out": 1`, 1), "1 row was left out by a row limit"},
		{"version", strings.Replace(good, `"version": 1`, `"version": 2`, 1), "summary version 2: this orprof reads version 1"},
		{"order", strings.Replace(good, `"order": 1,`, `"order": 0,`, 1), `row 2 ("aten::mm"): order 0: not a distinct position among 5 rows`},
		{"device", strings.Replace(good, `"device_type": 1,`, `"device_type": 99,`, 1), `row 4 ("gemm"): device_type 99: not a device type orprof knows`},
		{"rank index", strings.Replace(good, `"max_cpu_time_total_at": 0,`, `"max_cpu_time_total_at": 5,`, 1), `max_*_at 5, 0: not an index into 1 ranks`},
		{"duplicate key", strings.Replace(good, `"key": "aten::relu"`, `"key": "aten::mm"`, 1), `row 3 ("aten::mm"): a second row with the same key`},
		{"type", strings.Replace(good, `"count": 1,`, `"count": "1",`, 1), `field "rows.count": string where int64 belongs`},
		{"long key quoted short", strings.Replace(good, `"device_type": 1,`, `"device_type": 99,`, 1), "gemm"},
		{"long", strings.Replace(strings.Replace(good, `"key": "gemm"`, `"key": "`+long+`"`, 1), `"device_type": 1,`, `"device_type": 99,`, 1), `"` + strings.Repeat("x", 100) + `"…`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadSummary(strings.NewReader(c.in), "s.json")
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Less(t, len(err.Error()), 260, "an error quotes at most ~100 bytes of the input")
			assert.Empty(t, errtext.Repeated(err.Error()), "a prefix repeated in %q", err)
		})
	}
}

// TestWriteSummaryRowLimit: JSON states how many rows a row limit left out; the text table
// prints as WriteTable does, plus the ranks line for several ranks.
func TestWriteSummaryRowLimit(t *testing.T) {
	s := rankSummary(1, true, RankInfo{Rank: trace.Rank{Trace: "r0"}})
	var buf bytes.Buffer
	left, err := WriteSummary(&buf, text.JSON, s, TableOptions{RowLimit: 2, SortBy: "cpu_time_total"}, SummaryOutput{})
	require.NoError(t, err)
	assert.Equal(t, 3, left)
	assert.Contains(t, buf.String(), `"rows_left_out": 3`)
	_, err = ReadSummary(&buf, "limited.json")
	assert.ErrorContains(t, err, "limited.json: 3 rows were left out by a row limit, so it cannot be merged")

	buf.Reset()
	_, err = WriteSummary(&buf, text.Text, s, TableOptions{}, SummaryOutput{})
	require.NoError(t, err)
	var want bytes.Buffer
	require.NoError(t, WriteTable(&want, s.Averages(), TableOptions{UseDevice: "cuda"}))
	assert.Equal(t, want.String(), buf.String(), "one rank: exactly the operator table")

	m, err := MergeSummaries(s, rankSummary(2, false, RankInfo{Rank: trace.Rank{Trace: "r1"}}))
	require.NoError(t, err)
	buf.Reset()
	_, err = WriteSummary(&buf, text.Text, m, TableOptions{SortBy: "self_cpu_time_total"}, SummaryOutput{ByRank: true})
	require.NoError(t, err)
	golden(t, "summary_by_rank.txt", buf.Bytes())
	buf.Reset()
	_, err = WriteSummary(&buf, text.Markdown, m, TableOptions{SortBy: "self_cpu_time_total"}, SummaryOutput{ByRank: true})
	require.NoError(t, err)
	golden(t, "summary_by_rank.md", buf.Bytes())
	buf.Reset()
	_, err = WriteSummary(&buf, text.CSV, m, TableOptions{SortBy: "self_cpu_time_total"}, SummaryOutput{ByRank: true})
	require.NoError(t, err)
	golden(t, "summary_by_rank.csv", buf.Bytes())
}

// FuzzReadSummary feeds arbitrary bytes to ReadSummary. It must never panic; a summary it
// accepts merges with itself, and writes back to JSON that reads as the same summary.
func FuzzReadSummary(f *testing.F) {
	var buf bytes.Buffer
	m, _ := MergeSummaries(rankSummary(1, false, RankInfo{Rank: trace.Rank{Trace: "r0"}}), rankSummary(2, true, RankInfo{Rank: trace.Rank{Number: 3, Named: true}}))
	WriteSummaryJSON(&buf, m, TableOptions{RowLimit: RowLimitAll})
	f.Add(buf.Bytes())
	f.Add([]byte(`{"self_cpu_time_total": 0, "rows": [], "summary": {"version": 1, "ranks": [{}]}}`))
	f.Add([]byte(`{"rows": [{"key": "a", "ranks": 1, "order": 0}], "summary": {"version": 1, "ranks": [{}], "group_by_stack_n": 1}}`))
	if seeds, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json")); err == nil {
		for _, s := range seeds {
			if b, err := os.ReadFile(s); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSummary(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			require.Nil(t, s)
			return
		}
		m, err := MergeSummaries(s, s)
		require.NoError(t, err)
		require.Len(t, m.Ranks, 2*len(s.Ranks))
		var out bytes.Buffer
		require.NoError(t, WriteSummaryJSON(&out, s, TableOptions{RowLimit: RowLimitAll}))
		back, err := ReadSummary(&out, "again.json")
		require.NoError(t, err)
		require.Equal(t, len(s.Rows), len(back.Rows))
		for _, f := range []text.Format{text.Text, text.Markdown, text.CSV} {
			_, err := WriteSummary(&bytes.Buffer{}, f, m, TableOptions{}, SummaryOutput{ByRank: true})
			require.NoError(t, err)
		}
	})
}

// TestWriteSummaryByRankEscapes: the per-rank tables escape what they print as the op table
// does (a file name or op name with a terminal escape or a "|"), in text and in markdown.
func TestWriteSummaryByRankEscapes(t *testing.T) {
	m, err := MergeSummaries(rankSummary(1, true, RankInfo{Rank: trace.Rank{Trace: "r\x1b[31m|0"}}), rankSummary(2, false, RankInfo{Rank: trace.Rank{Trace: "r1"}}))
	require.NoError(t, err)
	for _, f := range []text.Format{text.Text, text.Markdown} {
		var buf bytes.Buffer
		_, err := WriteSummary(&buf, f, m, TableOptions{}, SummaryOutput{ByRank: true})
		require.NoError(t, err)
		assert.NotContains(t, buf.String(), "\x1b", "format %v: a raw escape reaches the terminal", f)
		if f == text.Text {
			assert.Contains(t, buf.String(), `r\x1b[31m|0`)
		} else {
			assert.Contains(t, buf.String(), `\|0 |`)
			assert.NotContains(t, buf.String(), `\\|`)
		}
	}
}

// TestWriteSummaryByRankCPUOnly: the per-rank table of CPU-only profiles has no device column
// (it was a column of zeros under a "Self CUDA" header), as the operator table has none.
func TestWriteSummaryByRankCPUOnly(t *testing.T) {
	cpuSummary := func(file string) *Summary {
		l := events.NewList([]events.FunctionEvent{events.NewFunctionEvent(1, "step", 1, 0, 100),
			events.NewFunctionEvent(2, "aten::mm", 1, 10, 40)}, events.ListOptions{})
		return NewSummary(l.KeyAverages(events.AverageOptions{}), RankInfo{Rank: trace.Rank{Trace: file}}, SummaryOptions{})
	}
	m, err := MergeSummaries(cpuSummary("r0"), cpuSummary("r1"))
	require.NoError(t, err)
	for _, f := range []text.Format{text.Text, text.Markdown} {
		var buf bytes.Buffer
		_, err := WriteSummary(&buf, f, m, TableOptions{}, SummaryOutput{ByRank: true})
		require.NoError(t, err)
		out := buf.String()
		assert.Contains(t, out, "Self CPU")
		assert.NotContains(t, out, "CUDA", "format %v: a device column in a CPU-only profile", f)
		assert.Contains(t, out, "the rank with the largest CPU total; mean over the ranks")
	}
	// With device time the column is there.
	m, err = MergeSummaries(rankSummary(1, false, RankInfo{Rank: trace.Rank{Trace: "r0"}}), rankSummary(2, false, RankInfo{Rank: trace.Rank{Trace: "r1"}}))
	require.NoError(t, err)
	var buf bytes.Buffer
	_, err = WriteSummary(&buf, text.Text, m, TableOptions{}, SummaryOutput{ByRank: true})
	require.NoError(t, err)
	assert.Contains(t, buf.String(), "Self CUDA")
}

// TestDropScopeMetrics: the scope profiler's device rows "metrics: …" go, in place; a CPU op
// of that name stays (only device rows are metrics slices), and so do the totals.
func TestDropScopeMetrics(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []events.Avg
		keep []string
	}{
		{"none", []events.Avg{{Key: "aten::mm"}}, []string{"aten::mm"}},
		{"device rows", []events.Avg{{Key: "aten::mm", SelfCPUTimeTotal: 5}, {Key: "metrics: gemm", DeviceType: devices.CUDA, SelfDeviceTimeTotal: 4},
			{Key: "gemm", DeviceType: devices.CUDA, SelfDeviceTimeTotal: 4}, {Key: "metrics: b", DeviceType: devices.XPU}},
			[]string{"aten::mm", "gemm"}},
		{"a CPU op so named", []events.Avg{{Key: "metrics: x", DeviceType: devices.CPU}}, []string{"metrics: x"}},
	} {
		s := NewSummary(tc.rows, RankInfo{}, SummaryOptions{Device: "cuda"})
		before := s.Totals()
		n := s.DropScopeMetrics()
		var keys []string
		for _, r := range s.Rows {
			keys = append(keys, r.Key)
		}
		assert.Equal(t, tc.keep, keys, tc.name)
		assert.Equal(t, len(tc.rows)-len(tc.keep), n, tc.name)
		assert.Equal(t, before, s.Totals(), "%s: no total counts the rows", tc.name)
	}
}

// CompactRowLimit is the largest row limit whose compact document fits: over every budget
// from the rowless document's size to the whole one's, with names HTML escaping lengthens
// and rows_left_out crossing a power of ten.
func TestCompactRowLimit(t *testing.T) {
	var evs []events.FunctionEvent
	for i := range 23 {
		name := "op<" + strings.Repeat("x&", i%7) + ">" + strconv.Itoa(i)
		evs = append(evs, events.NewFunctionEvent(int64(i+1), name, 1, float64(i*100), float64(i*100+1+i%5*17)))
	}
	l := events.NewList(evs, events.ListOptions{})
	s := NewSummary(l.KeyAverages(events.AverageOptions{}), RankInfo{Rank: trace.Rank{Trace: "r0"}}, SummaryOptions{})
	o := TableOptions{SortBy: "cpu_time_total"}
	size := func(limit int) int {
		lo := o
		lo.RowLimit, lo.CompactJSON = limit, true
		if limit == 0 {
			lo.RowLimit = RowLimitNone
		}
		var b bytes.Buffer
		require.NoError(t, WriteSummaryJSON(&b, s, lo))
		return b.Len() - 1
	}
	n := len(s.Rows)
	require.Equal(t, 23, n)
	sizes := make([]int, n+1)
	for k := range sizes {
		sizes[k] = size(k)
	}
	for k := range sizes {
		for _, budget := range []int{sizes[k] - 1, sizes[k], sizes[k] + 1} {
			limit, err := CompactRowLimit(s, o, budget)
			require.NoError(t, err)
			if limit > 0 {
				require.LessOrEqual(t, sizes[limit], budget, "budget %d: limit %d does not fit", budget, limit)
			}
			if limit < n {
				require.Greater(t, sizes[limit+1], budget, "budget %d: limit %d leaves room for one more row", budget, limit)
			}
		}
	}
}
