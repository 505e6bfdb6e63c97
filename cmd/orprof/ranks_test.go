package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/errtext"
)

// rankFiles are four real traces taken as the ranks of one job: rank 0 of HTA's sampled NCCL
// job (distributedInfo.rank 0), a host-only rank 0, a trace without a rank, and a ROCm trace.
var rankFiles = []string{
	"../../testdata/kineto-extra/hta_sampled_rank0.json.gz",
	"../../testdata/kineto-extra/hta_cpu_rank0.json.gz",
	"../../testdata/kineto-extra/hta_no_rank.json.gz",
	"../../testdata/kineto/rocm_mi250_train.json.gz",
}

func run(t *testing.T, args ...string) (string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(args, nil, &out, &errb)
	require.Equal(t, 0, code, "orprof %s: %s", strings.Join(args, " "), errb.String())
	return out.String(), errb.String()
}

// TestMergeEqualsTableOfAllRanks: `orprof merge` of each rank's `orprof table --format json`
// prints the same bytes as `orprof table` over all the traces at once, in every format, sorted
// and limited, with --by-rank, grouped by input shape; so does a merge of merged summaries, and
// a directory of summaries.
func TestMergeEqualsTableOfAllRanks(t *testing.T) {
	variants := []struct {
		name    string
		perRank []string // flags of the map step (grouping)
		table   []string // output flags
	}{
		{"text", nil, nil},
		{"by-rank", nil, []string{"--by-rank"}},
		{"json", nil, []string{"--format", "json"}},
		{"markdown", nil, []string{"--format", "markdown", "--by-rank"}},
		{"csv", nil, []string{"--format", "csv", "--by-rank"}},
		{"sorted", nil, []string{"--sort-by", "self_cpu_time_total", "--row-limit", "12", "--by-rank"}},
		{"by-shape", []string{"--group-by-input-shape"}, []string{"--sort-by", "count"}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			want, _ := run(t, append(append(append([]string{"table"}, v.perRank...), v.table...), rankFiles...)...)
			dir := t.TempDir()
			var sums []string
			for i, f := range rankFiles {
				out, _ := run(t, append(append([]string{"table", "--format", "json"}, v.perRank...), f)...)
				p := filepath.Join(dir, "summary"+string(rune('0'+i))+".json")
				require.NoError(t, os.WriteFile(p, []byte(out), 0o644))
				sums = append(sums, p)
			}
			got, _ := run(t, append(append([]string{"merge"}, v.table...), sums...)...)
			require.Equal(t, want, got)
			if v.name != "json" && v.name != "csv" {
				assert.Contains(t, got, "Ranks: 4 (rank from distributedInfo.rank in 2, position in the file order in 2)")
			}

			// A tree of merges: (0 1) and (2 3), then their merge.
			left, _ := run(t, "merge", "--format", "json", sums[0], sums[1])
			right, _ := run(t, "merge", "--format", "json", sums[2], sums[3])
			lp, rp := filepath.Join(dir, "left.json"), filepath.Join(dir, "right.json")
			require.NoError(t, os.WriteFile(lp, []byte(left), 0o644))
			require.NoError(t, os.WriteFile(rp, []byte(right), 0o644))
			tree, _ := run(t, append(append([]string{"merge"}, v.table...), lp, rp)...)
			if v.name == "text" || v.name == "by-rank" || v.name == "markdown" || v.name == "sorted" || v.name == "by-shape" {
				require.Equal(t, want, tree, "a merge of merges prints the same table")
			}
		})
	}
}

// TestTableDirectory: a directory stands for its traces, in natural order.
func TestTableDirectory(t *testing.T) {
	dir := t.TempDir()
	for i, f := range rankFiles {
		abs, err := filepath.Abs(f)
		require.NoError(t, err)
		name := []string{"rank2", "rank10", "rank1", "rank3"}[i] + ".json.gz"
		require.NoError(t, os.Symlink(abs, filepath.Join(dir, name)))
	}
	got, _ := run(t, "table", "--by-rank", dir)
	for _, want := range []string{"rank1.json.gz", "rank2.json.gz", "rank3.json.gz", "rank10.json.gz"} {
		assert.Contains(t, got, want)
	}
	i1, i2, i10 := strings.Index(got, "rank1.json.gz"), strings.Index(got, "rank2.json.gz"), strings.Index(got, "rank10.json.gz")
	assert.True(t, i1 < i2 && i2 < i10, "natural order: rank1, rank2, …, rank10")
	assert.Contains(t, got, "Ranks: 4 (rank from distributedInfo.rank in 2, position in the file order in 2)")

	var out, errb bytes.Buffer
	require.Equal(t, 2, dispatch([]string{"table", t.TempDir()}, nil, &out, &errb))
	assert.Contains(t, errb.String(), "a directory with no .json or .json.gz file")
	assert.Equal(t, 1, strings.Count(errb.String(), "\n"))
}

// TestTableFormatsPrintEveryRowLarge: csv and json print every row unless --row-limit is given;
// with one, json says how many rows it left out and csv notes it on stderr. It reads the 35 MB
// trace seven times: without -race only (.ci/run's second step; the name says Large).
func TestTableFormatsPrintEveryRowLarge(t *testing.T) {
	skipUnderRace(t)
	trace := "../../testdata/kineto/cuda_train_step.json.gz"
	all, _ := run(t, "table", "--format", "csv", "--row-limit", "-1", trace)
	n := strings.Count(all, "\n") - 1
	require.Greater(t, n, 100, "the trace has more rows than the text table's default limit")
	csvOut, _ := run(t, "table", "--format", "csv", trace)
	assert.Equal(t, all, csvOut)
	var doc struct {
		Rows        []map[string]any `json:"rows"`
		RowsLeftOut int              `json:"rows_left_out"`
	}
	js, _ := run(t, "table", "--format", "json", trace)
	require.NoError(t, json.Unmarshal([]byte(js), &doc))
	assert.Len(t, doc.Rows, n)
	assert.Zero(t, doc.RowsLeftOut)

	js, _ = run(t, "table", "--format", "json", "--row-limit", "7", trace)
	require.NoError(t, json.Unmarshal([]byte(js), &doc))
	assert.Len(t, doc.Rows, 7)
	assert.Equal(t, n-7, doc.RowsLeftOut)
	limited, stderr := run(t, "table", "--format", "csv", "--row-limit", "7", trace)
	assert.Equal(t, 8, strings.Count(limited, "\n"))
	assert.Contains(t, stderr, "orprof: note: --row-limit 7 left out "+itoa(n-7)+" rows of the CSV\n")
	assert.NotContains(t, stderr, "warning", "every kernel reaches its op by its launch")
	_, stderr = run(t, "table", "--link", "external-id", "--format", "csv", "--row-limit", "7", trace)
	assert.Contains(t, stderr, "orprof: warning: "+trace+": 501567.000 µs of 501567.000 µs of device time (100.0%, 9450 events) reached no operator: its \"External id\" equals the event's own \"correlation\"",
		"a trace whose device time reaches no op says so, in one line")
	text, _ := run(t, "table", trace)
	assert.Equal(t, 3+100+1+2+1, strings.Count(text, "\n"), "text keeps PyTorch's default of 100 rows (and says how the kernels reached their ops)")
}

func itoa(n int) string { return strings.TrimSpace(strings.TrimLeft(jsonNumber(n), "0")) }

func jsonNumber(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	limited, _ := run(t, "table", "--format", "json", "--row-limit", "3", rankFiles[0])
	lp := filepath.Join(dir, "limited.json")
	require.NoError(t, os.WriteFile(lp, []byte(limited), 0o644))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"merge"}, "merge: need at least one SUMMARY argument"},
		{[]string{"merge", lp}, lp + ": 394 rows were left out by a row limit, so it cannot be merged"},
		{[]string{"merge", "--group-by-input-shape", lp}, "are chosen when the summaries are written"},
		{[]string{"merge", filepath.Join(dir, "nope.json")}, "nope.json: no such file"},
		{[]string{"merge", rankFiles[0], "../../testdata/kineto/mtia_rank0.json.gz"},
			`"../../testdata/kineto/mtia_rank0.json.gz" is of device "mtia", "` + rankFiles[0] + `" of "cuda"`},
		{[]string{"diff", lp}, "diff: need BEFORE and AFTER, got 1 argument"},
		{[]string{"diff", "--format", "xml", lp, lp}, `diff: --format "xml"`},
		{[]string{"pprof", rankFiles[0]}, "pprof: -o FILE is required"},
		{[]string{"table", "-", rankFiles[0]}, "- (stdin) can only be read alone"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := dispatch(c.args, nil, &out, &errb)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, errb.String(), c.want, "%v", c.args)
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %q", errb.String())
		assert.Empty(t, errtext.Repeated(errb.String()), "a prefix repeated in %q", errb.String())
	}
}

// TestDiffCLI: a trace against its own summary differs nowhere; two traces give every format,
// with ops on one side marked.
func TestDiffCLI(t *testing.T) {
	dir := t.TempDir()
	sum, _ := run(t, "table", "--format", "json", rankFiles[0])
	sp := filepath.Join(dir, "s.json")
	require.NoError(t, os.WriteFile(sp, []byte(sum), 0o644))
	noChange := func(out string) {
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		require.NoError(t, err)
		require.Greater(t, len(recs), 10)
		require.Equal(t, "self_cpu_time_total_delta", recs[0][7])
		for _, r := range recs[1:] {
			assert.Equal(t, []string{"0", "0", ""}, []string{r[7], r[10], r[2]}, "no change: %v", r)
		}
	}
	out, _ := run(t, "diff", "--format", "csv", rankFiles[0], sp)
	noChange(out)
	// A directory stands for all its ranks.
	both := t.TempDir()
	for i, f := range rankFiles[:2] {
		abs, err := filepath.Abs(f)
		require.NoError(t, err)
		require.NoError(t, os.Symlink(abs, filepath.Join(both, "r"+itoa(i)+".json.gz")))
	}
	merged, _ := run(t, "merge", "--format", "json", rankFiles[0], rankFiles[1])
	mp := filepath.Join(dir, "merged.json")
	require.NoError(t, os.WriteFile(mp, []byte(merged), 0o644))
	same, _ := run(t, "diff", "--format", "csv", both, mp)
	noChange(same)
	text, _ := run(t, "diff", rankFiles[1], rankFiles[0])
	assert.Contains(t, text, "after only")
	assert.Contains(t, text, "Self CPU time total: 75.498ms -> 1.296s")
	md, _ := run(t, "diff", "--format", "markdown", "--row-limit", "3", rankFiles[1], rankFiles[0])
	assert.Contains(t, md, "more ops left out by the row limit")
	js, _ := run(t, "diff", "--format", "json", rankFiles[0], rankFiles[1])
	var doc struct {
		Rows []struct {
			Key  string `json:"key"`
			Only string `json:"only"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &doc))
	only := 0
	for _, r := range doc.Rows {
		if r.Only == "before" {
			only++
		}
	}
	assert.Positive(t, only, "ops of rank 0 that the host-only trace lacks are marked")
}

// TestPprofCLI: `orprof pprof` and `orprof run --pprof` write profiles the profile package
// reads, with the three sample types.
func TestPprofCLI(t *testing.T) {
	dir := t.TempDir()
	p1 := filepath.Join(dir, "ops.pb.gz")
	run(t, "pprof", rankFiles[3], "-o", p1)
	p2 := filepath.Join(dir, "run.pb.gz")
	run(t, "run", "--trace", "", "--pprof", p2)
	for _, p := range []string{p1, p2} {
		f, err := os.Open(p)
		require.NoError(t, err)
		prof, err := profile.Parse(f)
		f.Close()
		require.NoError(t, err)
		require.NoError(t, prof.CheckValid())
		assert.Len(t, prof.SampleType, 3)
		assert.NotEmpty(t, prof.Sample)
	}
	var out, errb bytes.Buffer
	require.Equal(t, 2, dispatch([]string{"pprof", rankFiles[3], "-o", filepath.Join(dir, "no", "such", "dir.pb.gz")}, nil, &out, &errb))
	assert.Contains(t, errb.String(), "pprof: -o ")
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 2, "no temporary file left behind")
}
