package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/errtext"
	"github.com/orprof/orprof/internal/quote"
)

// TestBadFlagsOneLine: every bad flag gives one line on stderr naming the flag, quoting at
// most ~100 bytes of it, with "run 'orprof CMD -h'", and exit 2; -h still prints the usage.
func TestBadFlagsOneLine(t *testing.T) {
	long := strings.Repeat("a", 60000)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--bogus"}, []string{"unknown flag --bogus", "run 'orprof run -h'"}},
		{[]string{"table", "--nope", "x.json"}, []string{"unknown flag --nope", "run 'orprof table -h'"}},
		{[]string{"plugins", "--x"}, []string{"unknown flag --x", "run 'orprof plugins -h'"}},
		{[]string{"conformance", "--x"}, []string{"unknown flag --x", "run 'orprof conformance -h'"}},
		{[]string{"version", "--x"}, []string{"unknown flag --x", "run 'orprof version -h'"}},
		{[]string{"run", "--row-limit", "abc"}, []string{`--row-limit "abc": not a valid value`, "run 'orprof run -h'"}},
		{[]string{"run", "--row-limit", "99999999999999999999"}, []string{"--row-limit", "out of range"}},
		{[]string{"run", "--record-shapes=maybe"}, []string{`--record-shapes "maybe": not a boolean`}},
		{[]string{"run", "--trace"}, []string{"--trace needs a value"}},
		{[]string{"run", "---x"}, []string{`bad flag syntax "---x"`}},
		{[]string{"run", "--" + long}, []string{"unknown flag --aaaa", "…"}},
		{[]string{"run", "--row-limit", long}, []string{`--row-limit "aaaa`, `"…: not a valid value`}},
		{[]string{"run", long}, []string{"unexpected argument", "…"}},
		{[]string{long}, []string{"unknown command", "…", "run 'orprof -h'"}},
	}
	for _, tt := range tests {
		name := strings.Join(tt.args, " ")
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch(tt.args, strings.NewReader(""), &out, &errb)
			assert.Equal(t, 2, code)
			msg := errb.String()
			assert.Equal(t, 1, strings.Count(msg, "\n"), "one line: %q", msg)
			assert.Less(t, len(msg), 300, "quotes at most ~100 bytes of the input")
			assert.Empty(t, errtext.Repeated(msg), "a prefix repeated in %q", msg)
			for _, w := range tt.want {
				assert.Contains(t, msg, w)
			}
			assert.Empty(t, out.String())
		})
	}
	var out, errb bytes.Buffer
	assert.Equal(t, 0, dispatch([]string{"run", "-h"}, nil, &out, &errb))
	assert.Contains(t, errb.String(), "-row-limit")
}

// TestRunBadInputOneLine: values the run command refuses before it profiles.
func TestRunBadInputOneLine(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "k.conf")
	require.NoError(t, os.WriteFile(conf, []byte("ACTIVITIES_DURATION_SECS = -5\n"), 0o644))
	longConf := filepath.Join(t.TempDir(), "long.conf")
	require.NoError(t, os.WriteFile(longConf, []byte("ACTIVITY_TYPES = "+strings.Repeat("x", 60000)+"\n"), 0o644))
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--device", "nosuch"}, []string{`--device "nosuch": no backend registered`, "have cpu, ", "openreg"}},
		{[]string{"run", "--activities", ","}, []string{`--activities ",": names no activity type`}},
		{[]string{"run", "--activities", " , ,"}, []string{"names no activity type"}},
		{[]string{"run", "--config", conf}, []string{`ACTIVITIES_DURATION_SECS: "-5": out of range [0, 2147483647]`, "k.conf:1"}},
		{[]string{"run", "--config", longConf}, []string{"long.conf:1", "…"}},
		{[]string{"run", "--format", "csv", "--metrics", "GpuTime"}, []string{"--metrics with --format csv", "--metrics-out"}},
		{[]string{"run", "--metrics-out", "m.txt"}, []string{"--metrics-out: needs --metrics"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[1:], " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch(append(tt.args, "--trace", ""), nil, &out, &errb)
			assert.Equal(t, 2, code)
			msg := errb.String()
			assert.Equal(t, 1, strings.Count(msg, "\n"), "one line: %q", msg)
			assert.Less(t, len(msg), 600)
			assert.Empty(t, errtext.Repeated(msg), "a prefix repeated in %q", msg)
			assert.NotContains(t, msg, strings.Repeat("x", quote.Max+1), "quotes at most quote.Max bytes of the input")
			for _, w := range tt.want {
				assert.Contains(t, msg, w)
			}
		})
	}
}

// TestFailPrefixOnce: the CLI's "orprof: " is printed once when a wrapped error of the root
// package starts with it too.
func TestFailPrefixOnce(t *testing.T) {
	tests := []struct{ in, want string }{
		{"run: orprof: a profiling session is already running", "orprof: run: a profiling session is already running\n"},
		{"orprof: run: x", "orprof: run: x\n"},
		{"run: --trace a: b", "orprof: run: --trace a: b\n"},
		{"table: a\x1b[2Jb", "orprof: table: a\\x1b[2Jb\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		assert.Equal(t, 2, fail(&b, "%s", tt.in))
		assert.Equal(t, tt.want, b.String())
		assert.Empty(t, errtext.Repeated(b.String()))
	}
}

// TestDocumentedCommandsNoWarning: the README's run commands print no warning, the kernels
// example (no gpu_memset) included: a memset launch whose work is not traced gets no half flow.
func TestDocumentedCommandsNoWarning(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--activities", "cpu_op,kernel,gpu_memcpy,privateuse1_runtime"},
		{"--workload", "multistream", "--activities", "cpu_op,kernel,gpu_memcpy,privateuse1_runtime"},
		{"--workload", "multistream"},
		{"--device", "cpu"},
		{"--profile-memory", "--record-shapes"},
		{"--metrics", "GpuTime,GpuCoreClocks,XVE_ACTIVE"},
		{"--legacy-trace"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "trace.json")
			var out, errb bytes.Buffer
			code := dispatch(append([]string{"run", "--trace", trace}, args...), nil, &out, &errb)
			require.Equal(t, 0, code, errb.String())
			assert.Equal(t, "orprof: trace written to "+trace+"\n", errb.String())
		})
	}
}

// TestTextTableEscapesControls: op names with ANSI escapes and control characters are escaped
// in the text table and in CSV (as the text table escapes them); markdown (numeric references,
// backslash escapes) and JSON keep the exact name in their own encoding.
func TestTextTableEscapesControls(t *testing.T) {
	name := "evil\x1b[2J\x1b[31mred\tname\u202e"
	ev, err := json.Marshal(name)
	require.NoError(t, err)
	trace := `[{"name": ` + string(ev) + `, "ph": "X", "ts": 0, "dur": 10, "tid": 1, "pid": "CPU functions", "args": {}}]`
	run := func(format string) string {
		var out, errb bytes.Buffer
		require.Equal(t, 0, dispatch([]string{"table", "--format", format, "-"}, strings.NewReader(trace), &out, &errb), errb.String())
		return out.String()
	}
	text := run("text")
	assert.NotContains(t, text, "\x1b")
	assert.NotContains(t, text, "\t")
	assert.Contains(t, text, `evil\x1b[2J\x1b[31mred\tname\u202e`)

	md := run("markdown")
	assert.NotContains(t, md, "\x1b")
	assert.Contains(t, md, `evil&#x1b;\[2J&#x1b;\[31mred&#x9;name`, "markdown: numeric references, punctuation escaped")
	pipe := `[{"name": "a|b __init__ as_strided", "ph": "X", "ts": 0, "dur": 10, "tid": 1, "pid": "CPU functions", "args": {}}]`
	var out, errb bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"table", "--format", "markdown", "-"}, strings.NewReader(pipe), &out, &errb), errb.String())
	assert.Contains(t, out.String(), `| a\|b \_\_init\_\_ as_strided |`, "a | in a name does not end the cell")

	var doc struct {
		Rows []struct {
			Key string `json:"key"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(run("json")), &doc))
	require.Len(t, doc.Rows, 1)
	assert.Equal(t, name, doc.Rows[0].Key)

	// CSV escapes control characters as the text table does (issue 33: no raw ESC in a cell).
	recs, err := csv.NewReader(strings.NewReader(run("csv"))).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, `evil\x1b[2J\x1b[31mred\tname\u202e`, recs[1][0])
}

// TestRunMetricsFormats: --metrics with --format json puts the metrics table inside the JSON
// document; --metrics-out writes it to a file in the chosen format; the table output stays
// valid in every format.
func TestRunMetricsFormats(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "--workload", "mlp", "--metrics", "GpuTime,GpuCoreClocks", "--trace", ""}

	var out, errb bytes.Buffer
	require.Equal(t, 0, dispatch(append(args, "--format", "json"), nil, &out, &errb), errb.String())
	var doc struct {
		Rows    []map[string]any `json:"rows"`
		Metrics struct {
			Columns []struct{ Name, Unit string } `json:"columns"`
			Rows    []struct {
				Name   string    `json:"name"`
				Scopes int       `json:"scopes"`
				Values []float64 `json:"values"`
			} `json:"rows"`
			Scopes int `json:"scopes_total"`
		} `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc), out.String())
	require.NotEmpty(t, doc.Rows)
	// Every member of the table's document is kept, in its order, "metrics" last.
	var plain bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"table", "--format", "json", "-"}, strings.NewReader(`[{"name": "a", "ph": "X", "ts": 0, "dur": 10, "tid": 1, "pid": "CPU functions", "args": {}}]`), &plain, &errb))
	assert.Equal(t, append(topKeys(t, plain.Bytes()), "metrics"), topKeys(t, out.Bytes()))
	require.Len(t, doc.Metrics.Columns, 2)
	assert.Equal(t, "GpuTime", doc.Metrics.Columns[0].Name)
	require.NotEmpty(t, doc.Metrics.Rows)
	n := 0
	for _, r := range doc.Metrics.Rows {
		assert.Len(t, r.Values, 2)
		n += r.Scopes
	}
	assert.Equal(t, doc.Metrics.Scopes, n)

	for _, format := range []string{"csv", "json", "text", "markdown"} {
		t.Run(format, func(t *testing.T) {
			mpath := filepath.Join(dir, "metrics."+format)
			var out, errb bytes.Buffer
			require.Equal(t, 0, dispatch(append(args, "--format", format, "--metrics-out", mpath), nil, &out, &errb), errb.String())
			m, err := os.ReadFile(mpath)
			require.NoError(t, err)
			switch format {
			case "csv":
				recs, err := csv.NewReader(&out).ReadAll()
				require.NoError(t, err, "the table alone is one valid CSV")
				assert.Equal(t, "key", recs[0][0])
				mrecs, err := csv.NewReader(bytes.NewReader(m)).ReadAll()
				require.NoError(t, err)
				assert.Equal(t, []string{"name", "scopes", "GpuTime (ns)", "GpuCoreClocks (cycles)"}, mrecs[0][:4])
			case "json":
				var v map[string]any
				require.NoError(t, json.Unmarshal(out.Bytes(), &v))
				assert.NotContains(t, v, "metrics")
				require.NoError(t, json.Unmarshal(m, &v))
				assert.Contains(t, v, "columns")
			case "markdown":
				// A markdown table, as the operator table above it is (it was the text table).
				lines := strings.Split(strings.TrimSpace(string(m)), "\n")
				require.Greater(t, len(lines), 4, string(m))
				// The one markdown style of every command (package text): padded columns.
				assert.Regexp(t, `^\| Name +\| # of Scopes \| GpuTime \(ns\) \| GpuCoreClocks \(cycles\) \|$`, lines[0])
				assert.Regexp(t, `^\|:-+\|-+:\|-+:\|-+:\|$`, lines[1])
				for _, l := range lines[2 : len(lines)-2] {
					assert.Regexp(t, `^\| \S.* +\| +\d+ \| +\d+\.\d{3} \| +\d+\.\d{3} \|$`, l)
				}
				assert.Empty(t, lines[len(lines)-2])
				assert.Regexp(t, `^Scopes total: \d+$`, lines[len(lines)-1])
				assert.NotContains(t, out.String(), "Scopes total:")
			default:
				assert.Contains(t, string(m), "Scopes total:")
				assert.NotContains(t, out.String(), "Scopes total:")
			}
		})
	}
}

func TestVersion(t *testing.T) {
	info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/orprof/orprof", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-23T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Regexp(t, `^orprof v1\.2\.3 revision abc123 \(2026-11-23T10:00:00Z\) modified go\S+ \S+/\S+$`, versionLine(info, true))
	assert.Regexp(t, `^orprof \(unknown\) go`, versionLine(nil, false))
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errb bytes.Buffer
		require.Equal(t, 0, dispatch(args, nil, &out, &errb))
		assert.Regexp(t, `^orprof \S+ .*go1\.\d+`, out.String())
		assert.Equal(t, 1, strings.Count(out.String(), "\n"))
	}
}

// TestBadTraceQuotesCapped: errors about a trace quote at most ~100 bytes of what they name (a
// 5,000-digit timestamp, a 60 KB name).
func TestBadTraceQuotesCapped(t *testing.T) {
	for _, trace := range []string{
		`[{"name": "a", "ph": "X", "ts": ` + strings.Repeat("9", 5000) + `, "dur": 1}]`,
		`[{"name": "` + strings.Repeat("n", 60000) + `", "ph": "X", "dur": 1}]`,
		`[{"name": "a", "ph": "X", "ts": 1, "dur": 1e` + strings.Repeat("9", 5000) + `}]`,
	} {
		// A malformed event is skipped with a warning, or the trace refused: one line either way.
		var out, errb bytes.Buffer
		code := dispatch([]string{"table", "-"}, strings.NewReader(trace), &out, &errb)
		assert.Contains(t, []int{0, 2}, code)
		msg := errb.String()
		assert.Equal(t, 1, strings.Count(msg, "\n"), msg)
		assert.Less(t, len(msg), 350, msg)
		assert.Contains(t, msg, "<stdin>")
		assert.Contains(t, msg, "…")
	}
}

// topKeys lists the member names of a JSON object in document order.
func topKeys(t *testing.T, doc []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}
