package duckdbtest

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fleetQueries are docs/fleet.md's DuckDB queries, by the name of the comment before each.
func fleetQueries(t *testing.T) map[string]string {
	b, err := os.ReadFile(filepath.Join(root, "docs", "fleet.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- duckdb-test: ([a-z-]+) -->\n```sql\n(.*?)```")
	out := map[string]string{}
	for _, m := range re.FindAllSubmatch(b, -1) {
		out[string(m[1])] = string(m[2])
	}
	for _, n := range []string{"slowest-ranks", "regressed", "step-percentiles"} {
		if out[n] == "" {
			t.Fatalf("docs/fleet.md has no DuckDB query %q", n)
		}
	}
	return out
}

// TestFleetQueries runs docs/fleet.md's DuckDB queries over two exported jobs of three ranks
// each and holds their results equal to the same figures worked out from orprof's JSON of the
// same traces.
func TestFleetQueries(t *testing.T) {
	qs := fleetQueries(t)
	tmp := t.TempDir()
	jobs := map[string][]string{}
	for name, src := range map[string]string{"before": "testdata/kineto-extra/hta_sampled_rank0.json.gz", "after": "testdata/kineto/cuda_train_step.json.gz"} {
		in := filepath.Join(tmp, name+"-traces")
		if err := os.Mkdir(in, 0o777); err != nil {
			t.Fatal(err)
		}
		jobs[name] = ranked(t, filepath.Join(root, src), in, 3)
		run(t, "export", "--quiet", "--ops-tree", "-o", filepath.Join(tmp, name), in)
	}
	db := open(t)
	paths := func(q string, job string) string {
		q = strings.ReplaceAll(q, "'job/", "'"+filepath.Join(tmp, job)+"/")
		q = strings.ReplaceAll(q, "'before/", "'"+filepath.Join(tmp, "before")+"/")
		return strings.ReplaceAll(q, "'after/", "'"+filepath.Join(tmp, "after")+"/")
	}

	t.Run("regressed", func(t *testing.T) {
		mean := func(job string) map[string][2]int64 {
			var k kernelsJSON
			decode(t, run(t, append([]string{"kernels", "--format", "json"}, jobs[job]...)...), &k)
			m := map[string][2]int64{}
			for _, r := range k.Kernels {
				v := m[r.Name]
				m[r.Name] = [2]int64{v[0] + r.Calls, v[1] + r.TotalNs}
			}
			return m
		}
		b, a := mean("before"), mean("after")
		var want []string
		for name, bv := range b {
			av, ok := a[name]
			if !ok {
				continue
			}
			bm, am := float64(bv[1])/float64(bv[0]), float64(av[1])/float64(av[0])
			want = append(want, line(name, bm, am, am/bm))
		}
		if len(want) == 0 {
			t.Fatal("the two jobs share no kernel")
		}
		same(t, "regressed", query(t, db, paths(qs["regressed"], "")), want)
	})

	t.Run("time-under", func(t *testing.T) {
		for _, job := range []string{"before", "after"} {
			// Each rank's own tree (orprof report of its trace alone): the outermost node of each
			// ProfilerStep name (the tree's ProfilerStep*), summed.
			var want []string
			for _, in := range jobs[job] {
				var rep struct {
					Flame struct {
						Root *flameNode `json:"root"`
					} `json:"flame"`
					Table struct {
						Summary struct {
							Ranks []struct {
								Rank int64 `json:"rank"`
							} `json:"ranks"`
						} `json:"summary"`
					} `json:"table"`
				}
				out := filepath.Join(t.TempDir(), "r.json")
				run(t, "report", "--format", "json", "-o", out, in)
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				decode(t, b, &rep)
				if len(rep.Table.Summary.Ranks) != 1 {
					t.Fatalf("%s: %d ranks in its report", in, len(rep.Table.Summary.Ranks))
				}
				rank := rep.Table.Summary.Ranks[0].Rank
				type sums struct{ calls, cpu, dev int64 }
				by := map[string]*sums{}
				var walk func(n *flameNode, inside map[string]bool)
				walk = func(n *flameNode, inside map[string]bool) {
					if strings.HasPrefix(n.Name, "ProfilerStep") && !inside[n.Name] {
						if by[n.Name] == nil {
							by[n.Name] = &sums{}
						}
						s := by[n.Name]
						s.calls, s.cpu, s.dev = s.calls+n.Calls, s.cpu+n.CPU, s.dev+n.Device
					}
					was := inside[n.Name]
					inside[n.Name] = true
					for _, c := range n.Children {
						walk(c, inside)
					}
					inside[n.Name] = was
				}
				for _, c := range rep.Flame.Root.Children {
					walk(c, map[string]bool{})
				}
				for name, s := range by {
					want = append(want, line(rank, name, s.calls, s.cpu, s.dev))
				}
			}
			if len(want) == 0 {
				t.Fatalf("%s: no ProfilerStep in the op tree", job)
			}
			same(t, job, query(t, db, paths(qs["time-under"], job)), want)
		}
	})

	t.Run("step-percentiles", func(t *testing.T) {
		for _, job := range []string{"before", "after"} {
			var tl timelineJSON
			decode(t, run(t, append([]string{"timeline", "--format", "json"}, jobs[job]...)...), &tl)
			var totals []int64
			for _, rs := range tl.Steps {
				for _, s := range rs.Steps {
					totals = append(totals, int64(s.Times["total_ns"].(float64)))
				}
			}
			if len(totals) == 0 {
				t.Fatalf("%s: no steps", job)
			}
			slices.Sort(totals)
			at := func(q float64) int64 { return totals[int(math.Floor(q*float64(len(totals)-1)))] }
			same(t, job, query(t, db, paths(qs["step-percentiles"], job)),
				[]string{line(int64(len(totals)), at(0.5), at(0.9), at(0.99))})
		}
	})

	t.Run("slowest-ranks", func(t *testing.T) {
		for _, job := range []string{"before", "after"} {
			var tl timelineJSON
			decode(t, run(t, append([]string{"timeline", "--format", "json"}, jobs[job]...)...), &tl)
			type inst struct {
				group, name string
				instance    int64
			}
			type agg struct {
				first, last int64
				lastRanks   []int64
				ranks       int64
			}
			m := map[inst]*agg{}
			for _, rc := range tl.Stragglers.Collectives {
				items := slices.Clone(rc.Items)
				slices.SortStableFunc(items, func(a, b collectiveJSON) int { return cmp.Compare(a.StartNs, b.StartNs) })
				order := map[[2]string]int64{}
				for _, c := range items {
					k2 := [2]string{c.Group, c.Name}
					order[k2]++
					k := inst{c.Group, c.Name, order[k2]}
					if c.HasSeq {
						k.instance = c.Seq
					}
					g := m[k]
					if g == nil {
						g = &agg{first: c.StartNs, last: c.StartNs}
						m[k] = g
					}
					g.first = min(g.first, c.StartNs)
					switch {
					case c.StartNs > g.last:
						g.last, g.lastRanks = c.StartNs, []int64{rc.Rank}
					case c.StartNs == g.last:
						g.lastRanks = append(g.lastRanks, rc.Rank)
					}
					g.ranks++
				}
			}
			type row struct {
				inst
				*agg
			}
			var rows []row
			for k, g := range m {
				rows = append(rows, row{k, g})
			}
			if len(rows) == 0 {
				t.Fatalf("%s: no collective", job)
			}
			slices.SortFunc(rows, func(a, b row) int {
				return cmp.Or(cmp.Compare(b.last-b.first, a.last-a.first), cmp.Compare(a.group, b.group), cmp.Compare(a.name, b.name), cmp.Compare(a.instance, b.instance))
			})
			rows = rows[:min(len(rows), 20)]
			got := query(t, db, `SELECT process_group, name, instance, wait_ns, ranks, last_rank FROM (`+
				strings.TrimSuffix(strings.TrimSpace(paths(qs["slowest-ranks"], job)), ";")+`)`)
			var want []string
			lastOK := map[string][]int64{}
			for _, r := range rows {
				key := line(r.group, r.name, r.instance, r.last-r.first, r.ranks)
				lastOK[key] = r.lastRanks
				want = append(want, key)
			}
			var trimmed []string
			for _, g := range got {
				i := strings.LastIndexByte(g, '|')
				key := g[:i]
				ok := false
				for _, r := range lastOK[key] {
					if line(r) == g[i+1:] {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s: %s: last_rank %s is not a rank that arrived last (%v)", job, key, g[i+1:], lastOK[key])
				}
				trimmed = append(trimmed, key)
			}
			slices.Sort(trimmed)
			same(t, job, trimmed, want)
		}
	})
}

// TestFleetGroupByTiming times the ops table's GROUP BY that orprof merge makes (a job's rows
// per key, summed over its ranks) over an export named by $ORPROF_FLEET_DIR, the median of
// $ORPROF_FLEET_RUNS runs (scripts/bench-export.sh); skipped without it.
func TestFleetGroupByTiming(t *testing.T) {
	dir := os.Getenv("ORPROF_FLEET_DIR")
	if dir == "" {
		t.Skip("ORPROF_FLEET_DIR not set (scripts/bench-export.sh sets it)")
	}
	runs := 5
	if n, err := strconv.Atoi(os.Getenv("ORPROF_FLEET_RUNS")); err == nil && n > 0 {
		runs = n
	}
	db := open(t)
	for _, q := range []struct{ name, sum string }{
		{"sum", "sum(%s)"},
		{"sum in rank order", "list_reduce(list(%s ORDER BY rank), (a, b) -> a + b)"},
	} {
		s := func(col string) string { return fmt.Sprintf(q.sum, col) }
		sql := `SELECT name, node_id, device_type, is_legacy, is_user_annotation, overload_name, input_shapes, stack,
			sum(calls), ` + s("cpu_time_total_us") + `, ` + s("self_cpu_time_total_us") + `, ` + s("device_time_total_us") + `, ` +
			s("self_device_time_total_us") + `, count(*) FROM ` + table(dir, "ops") + ` GROUP BY ALL`
		var times []time.Duration
		var rows int
		for range runs {
			start := time.Now()
			rows = len(query(t, db, sql))
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		t.Logf("fleet GROUP BY (%s): %d rows, median %.3f s of %d runs", q.name, rows, times[len(times)/2].Seconds(), runs)
	}
}
