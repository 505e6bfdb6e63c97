package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/orprof/orprof/trace/perfetto"
)

// perfettoSection measures `orprof convert` (issue 35) beside `orprof table` of the same file
// in the same run: the conversion of mtia_rank0 (raw and .gz) to a .pftrace, the size of the
// .pftrace with and without interning, and 16 copies of the trace (ranks 0–15 in their
// distributedInfo) fused in one call, with its peak RSS beside the size of one input.
func perfettoSection(root, tmp string) {
	gz := filepath.Join(root, "testdata", "kineto", "mtia_rank0.json.gz")
	raw := filepath.Join(tmp, "pf_mtia_rank0.json")
	bin := filepath.Join(tmp, "orprof-pf")
	names := []string{
		"`orprof table` mtia_rank0 raw (anchor of the conversion)",
		"`orprof convert -o x.pftrace` mtia_rank0 raw (target: ≥ 0.7× the throughput of `orprof table`)",
		"`orprof table` mtia_rank0.json.gz (anchor of the conversion)",
		"`orprof convert -o x.pftrace` mtia_rank0.json.gz",
		"`orprof convert -o x.pftrace` of 16 ranks of mtia_rank0.json.gz (target: peak RSS ≤ 0.5× one input)",
	}
	data, fail, ok := mtiaRun(root, gz, raw, bin, names)
	if !ok {
		return
	}
	// Run a copy of the binary: a freshly linked one maps up to 5 MB more of its own pages
	// while it runs (its page-cache state, not the program), which the peak RSS would count.
	if cp, err := copyFile(bin, bin+"-copy"); err == nil {
		bin = cp
	} else {
		fail(err.Error())
		return
	}
	// 16 ranks: the same events, each file's distributedInfo naming its rank.
	ranksDir := filepath.Join(tmp, "pf_ranks")
	if err := os.MkdirAll(ranksDir, 0o755); err != nil {
		fail(err.Error())
		return
	}
	for k := range 16 {
		b := bytes.Replace(data, []byte(`"rank": 0`), []byte(`"rank": `+strconv.Itoa(k)), 1)
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
		zw.Write(b)
		zw.Close()
		if err := os.WriteFile(filepath.Join(ranksDir, fmt.Sprintf("rank%d.json.gz", k)), z.Bytes(), 0o644); err != nil {
			fail(err.Error())
			return
		}
	}
	out := filepath.Join(tmp, "pf_out.pftrace")
	type job struct {
		what   string
		argv   []string
		s, cpu *sample
		rss    int64
		skip   string
		vs     []string
	}
	jobs := []*job{
		{what: names[0], argv: []string{bin, "table", raw}},
		{what: names[1], argv: []string{bin, "convert", "-o", out, raw}, vs: []string{names[0]}},
		{what: names[2], argv: []string{bin, "table", gz}},
		{what: names[3], argv: []string{bin, "convert", "-o", out, gz}, vs: []string{names[2]}},
		{what: names[4], argv: []string{bin, "convert", "-o", filepath.Join(tmp, "pf_16.pftrace"), ranksDir}},
	}
	for _, j := range jobs {
		j.s, j.cpu = &sample{unit: "s"}, &sample{unit: "s"}
		run(j.argv) // warm-up
	}
	for k := 0; k < *count; k++ {
		for _, j := range jobs {
			if j.skip != "" {
				continue
			}
			fmt.Fprintf(os.Stderr, "bench: %s (run %d of %d)\n", j.what, k+1, *count)
			d, cpu, rss, err := runStat(j.argv)
			if err != nil {
				j.skip = err.Error()
				continue
			}
			j.s.add(d.Seconds())
			j.cpu.add(cpu.Seconds())
			j.rss = max(j.rss, rss)
		}
	}
	mb := float64(len(data)) / 1e6
	for i, j := range jobs {
		r := &row{what: j.what, s: j.s, vs: j.vs, note: j.skip}
		if j.skip == "" && len(j.s.vals) > 0 {
			jmb := mb
			if i == 4 {
				jmb = 16 * mb
			}
			r.note = fmt.Sprintf("%.0f MB/s of uncompressed JSON by the median, CPU time %.2f s by the median", jmb/j.s.median(), j.cpu.median())
			if len(j.vs) > 0 {
				a := jobs[i-1]
				r.note += fmt.Sprintf(" (%.2f× the anchor's throughput by wall time, %.2f× by CPU time)",
					a.s.median()/j.s.median(), a.cpu.median()/j.cpu.median())
			}
			if j.rss > 0 {
				r.note += fmt.Sprintf(", peak RSS %.1f MB (%.2f× the %.1f MB of one input's JSON)",
					float64(j.rss)/1e6, float64(j.rss)/(mb*1e6), mb)
			}
			if i == 1 {
				r.note += sizes(raw, out, mb)
			}
		}
		add(r)
	}
}

// copyFile copies the executable src to dst and returns dst.
func copyFile(src, dst string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return "", err
	}
	return dst, out.Close()
}

// sizes says how large the .pftrace is beside the JSON, and what interning saves: the same
// conversion with names, categories and arg keys written in every event.
func sizes(raw, out string, mb float64) string {
	pf := float64(fileSize(out)) / 1e6
	var n countWriter
	if _, err := perfetto.Convert(&n, []perfetto.Input{perfetto.FileInput(raw)}, perfetto.Options{NoIntern: true}); err != nil {
		return "; sizes: " + err.Error()
	}
	inline := float64(n) / 1e6
	return fmt.Sprintf("; the .pftrace is %.1f MB, %.2f× the JSON (%.1f MB without interning, %.2f×: the binary encoding saves %.0f%% of the JSON, interning %.0f%% of the rest)",
		pf, pf/mb, inline, inline/mb, 100*(1-inline/mb), 100*(1-pf/inline))
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
