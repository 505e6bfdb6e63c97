package input

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gzs(t testing.TB, s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	require.NoError(t, w.Close())
	return b.String()
}

// timelineDoc is how orprof timeline --format json starts a summary.
const timelineDoc = "{\n  \"orprof_timeline\": 1,\n  \"options\": {\"steps\": [1, 2]},\n  \"ranks\": [{\"rank\": 0}]\n}\n"

// TestIdentify: the kind is named by a top-level key wherever it is among the keys, whatever
// the whitespace, escapes or key order; keys inside values do not count; anything else is a
// trace. A timeline summary re-saved with its keys sorted and another indentation (as jq -S or
// python3 -m json.tool --sort-keys write it) is still a timeline summary.
func TestIdentify(t *testing.T) {
	big := strings.Repeat(`{"ph": "X", "name": "k \"}\" [", "ts": 1},`, 5000)
	var generic any
	require.NoError(t, json.Unmarshal([]byte(timelineDoc), &generic))
	sorted, err := json.MarshalIndent(generic, "", "    ")
	require.NoError(t, err)
	for _, c := range []struct {
		in   string
		want Kind
	}{
		{timelineDoc, TimelineSummary},
		{string(sorted), TimelineSummary},
		{`{"options":{},"orprof_timeline":1}`, TimelineSummary},
		{`{"kernels": [` + big + `{}], "orprof_kernels": 2}`, KernelsSummary},
		{"\uFEFF \r\n\t{ \"self_cpu_time_total\" : 0, \"rows\": []}", TableSummary},
		{`{"table": {"self_cpu_time_total": 0}, "orprof_report": 1}`, ReportSummary},
		{`{"\u006frprof_report": 1}`, ReportSummary},
		{`{"schemaVersion": 1, "traceEvents": [` + big + `{}], "orprof_kernels": 2}`, Trace},
		{`{"deviceProperties": [{"orprof_kernels": 2}], "traceEvents": []}`, Trace},
		{`[{"ph": "X"}]`, Trace},
		{`{"orprof_kernelsx": 2}`, Trace},
		{`{"a": "orprof_kernels"}`, Trace},
		{`{"a": 1`, Trace},
		{`{"a": "\`, Trace},
		{``, Trace},
		{`"orprof_report"`, Trace},
		{`{"` + strings.Repeat("x", 1000) + `": 1, "orprof_report": 1}`, ReportSummary},
	} {
		assert.Equal(t, c.want, IdentifyBytes([]byte(c.in)), "%.80q", c.in)
		assert.Equal(t, c.want, Parse([]byte(gzs(t, c.in)), "x").Kind, "gzip: %.80q", c.in)
	}
}

// TestReadGivesEveryByte: Read identifies a stream from its start and Stream gives every byte
// back, plain or gzip, short or long.
func TestReadGivesEveryByte(t *testing.T) {
	big := `{"traceEvents": [` + strings.Repeat(`{"ph": "X", "name": "k", "ts": 1, "dur": 1},`, 5000) + `{}]}`
	sortedBig := `{"a": [` + strings.Repeat(`1,`, 100000) + `1], "orprof_timeline": 1}`
	for _, c := range []struct {
		name, in string
		want     Kind
	}{
		{"timeline", timelineDoc, TimelineSummary},
		{"timeline gzip", gzs(t, timelineDoc), TimelineSummary},
		{"large trace", big, Trace},
		{"large trace gzip", gzs(t, big), Trace},
		{"key far in", sortedBig, TimelineSummary},
		{"empty", "", Trace},
		{"gzip magic, then garbage", "\x1f\x8bxxxx", Trace},
	} {
		in, err := Read(strings.NewReader(c.in), StdinName)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, in.Kind, c.name)
		rc, err := in.Stream()
		require.NoError(t, err)
		all, err := io.ReadAll(rc)
		require.NoError(t, err, c.name)
		assert.True(t, string(all) == c.in, "%s: every byte comes back", c.name)
	}
}

// TestDocument: a summary's document is gunzipped whole; a corrupt gzip stream is said to be
// corrupt, not parsed.
func TestDocument(t *testing.T) {
	z := []byte(gzs(t, timelineDoc+strings.Repeat(" ", 10000)))
	doc, err := Parse(z, "t.json.gz").Document()
	require.NoError(t, err)
	assert.Equal(t, timelineDoc, strings.TrimRight(string(doc), " "))
	z[len(z)-6] ^= 0xff // the CRC-32
	_, err = Parse(z, "t.json.gz").Document()
	assert.ErrorContains(t, err, "t.json.gz: the gzip stream is corrupt")
}

// TestMember: a report summary's member is its JSON; a missing or null member and another
// version are one line naming the input and the member.
func TestMember(t *testing.T) {
	for _, c := range []struct {
		doc, want, err string
	}{
		{`{"orprof_report": 1, "kernels": {"orprof_kernels": 2}}`, `{"orprof_kernels": 2}`, ""},
		{`{"orprof_report": 1, "kernels": null}`, "", "r.json: field kernels: null: this report summary has no kernels summary"},
		{`{"orprof_report": 1}`, "", "r.json: field kernels: missing"},
		{`{"orprof_report": 2, "kernels": {}}`, "", "r.json: field orprof_report: version 2: this orprof reads version 1"},
		{`{"orprof_report": 1, "kernels": `, "", "r.json: not a valid report summary"},
	} {
		m, err := Parse([]byte(c.doc), "r.json").Member("kernels")
		if c.err != "" {
			assert.ErrorContains(t, err, c.err, c.doc)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, c.want, string(m))
	}
	_, err := Parse([]byte(timelineDoc), "t.json").Member("kernels")
	assert.ErrorContains(t, err, "not a report summary")
}

// TestExpandSkipsFIFO: a FIFO named like a trace in a directory is skipped with a warning
// naming it, never opened (opening it would block until a writer came).
func TestExpandSkipsFIFO(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"r10.json", "r2.json.gz", "r1.json", "notes.txt", "r02b.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(`{"traceEvents": []}`), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub.json"), 0o755))
	if err := syscall.Mkfifo(filepath.Join(dir, "x.json"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	got, warns, err := Expand([]string{"a.json", dir, "b.json"})
	require.NoError(t, err)
	want := []string{"a.json"}
	for _, n := range []string{"r1.json", "r2.json.gz", "r02b.json", "r10.json"} {
		want = append(want, filepath.Join(dir, n))
	}
	assert.Equal(t, append(want, "b.json"), got)
	require.Len(t, warns, 2)
	assert.Contains(t, warns[0], "sub.json\": skipped: a directory, not a regular file")
	assert.Contains(t, warns[1], "x.json\": skipped: a FIFO, not a regular file")
	ins, lw, err := Load([]string{dir}, LoadOptions{})
	require.NoError(t, err)
	assert.Len(t, ins, 4)
	assert.Equal(t, warns, lw)

	_, _, err = Expand([]string{t.TempDir()})
	assert.ErrorContains(t, err, "a directory with no .json or .json.gz file")
	names := []string{"rank10", "rank9", "rank01", "rank1", "a", "rank"}
	slices.SortFunc(names, naturalCompare)
	assert.Equal(t, []string{"a", "rank", "rank01", "rank1", "rank9", "rank10"}, names)
}

// TestCheck: an input of a kind the command does not read is one line saying what it is and
// which command reads it.
func TestCheck(t *testing.T) {
	ins := []*Input{Parse([]byte(`{"traceEvents": []}`), "a.json"), Parse([]byte(timelineDoc), "t.json")}
	err := Check(ins, "merge", Trace, TableSummary)
	var ke *KindError
	require.True(t, errors.As(err, &ke))
	assert.Equal(t, `"t.json" is a timeline summary (orprof timeline --format json), not a trace or a summary orprof merge reads: orprof timeline reads it`, err.Error())
	assert.NoError(t, Check(ins, "timeline", Trace, TimelineSummary))
}
