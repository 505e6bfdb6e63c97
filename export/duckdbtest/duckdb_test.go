package duckdbtest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	_ "github.com/duckdb/duckdb-go/v2"
)

// -update is accepted as by every test binary of the repository; these tests have no golden
// files.
var _ = flag.Bool("update", false, "rewrite golden files (none here)")

// root is the repository's top; orprof the binary the tests build from it (pure Go).
var root, orprof string

func TestMain(m *testing.M) {
	flag.Parse()
	var err error
	if root, err = filepath.Abs("../.."); err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "orprof-duckdbtest-")
	if err != nil {
		panic(err)
	}
	orprof = filepath.Join(dir, "orprof")
	cmd := exec.Command("go", "build", "-o", orprof, "./cmd/orprof")
	cmd.Dir, cmd.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building orprof: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs orprof and returns its standard output; a failure fails the test.
func run(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(orprof, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("orprof %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}

// noDevice runs orprof as run does, for kernels and timeline, which refuse inputs without
// device activity (exit 2, "no device activity"): it reports true for such a refusal,
// and the caller then holds the export's device tables empty.
func noDevice(t *testing.T, args ...string) ([]byte, bool) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(orprof, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if strings.Contains(errb.String(), "no device activity") {
			return nil, true
		}
		t.Fatalf("orprof %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes(), false
}

func decode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// query runs q and returns its rows, each as a string of its columns (fmt's %v, NULL as "NULL"),
// sorted.
func query(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, line(vals...))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// line formats values as query does: floats in Go's shortest form (the same bits print the
// same), NULL for nil.
func line(vals ...any) string {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteByte('|')
		}
		switch x := v.(type) {
		case nil:
			b.WriteString("NULL")
		case float64:
			fmt.Fprintf(&b, "%v", x)
		case *big:
			b.WriteString(x.String())
		default:
			fmt.Fprintf(&b, "%v", x)
		}
	}
	return b.String()
}

type big struct{ s string }

func (b *big) String() string { return b.s }

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	slices.Sort(want)
	if slices.Equal(got, want) {
		return
	}
	for i := 0; i < max(len(got), len(want)); i++ {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Fatalf("%s: %d rows from SQL, %d from orprof; first difference at %d:\n SQL:    %s\n orprof: %s", what, len(got), len(want), i, g, w)
		}
	}
}

// traces are the testdata traces each test exports alone.
func traces(t *testing.T) []string {
	var out []string
	for _, g := range []string{"testdata/kineto/*.json.gz", "testdata/kineto-extra/*.json.gz"} {
		m, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Fatal("no testdata traces")
	}
	return out
}

// table is the glob of one exported table.
func table(dir, name string) string {
	return "read_parquet('" + filepath.Join(dir, name, "*.parquet") + "')"
}

type kernelsJSON struct {
	DeviceNs int64 `json:"device_ns"`
	Ranks    []struct {
		Rank     int64 `json:"rank"`
		DeviceNs int64 `json:"device_ns"`
	} `json:"ranks"`
	Kernels []struct {
		Name       string `json:"name"`
		Kind       string `json:"kind"`
		Category   string `json:"category"`
		Calls      int64  `json:"calls"`
		TotalNs    int64  `json:"total_ns"`
		MinNs      int64  `json:"min_ns"`
		MaxNs      int64  `json:"max_ns"`
		LaunchedBy []struct {
			Op      string `json:"op"`
			Calls   int64  `json:"calls"`
			TotalNs int64  `json:"total_ns"`
		} `json:"launched_by"`
	} `json:"kernels"`
}

// checkKernels compares the kernels table with orprof kernels --format json of the same inputs.
func checkKernels(t *testing.T, db *sql.DB, dir string, inputs []string) {
	var k kernelsJSON
	kt := table(dir, "kernels")
	raw, none := noDevice(t, append([]string{"kernels", "--format", "json"}, inputs...)...)
	if none {
		same(t, "kernels of a trace without device activity", query(t, db, `SELECT count(*) FROM `+kt+` WHERE device_time`), []string{line(0)})
		return
	}
	decode(t, raw, &k)
	var want []string
	var wantOps []string
	for _, r := range k.Kernels {
		want = append(want, line(r.Name, r.Kind, r.Category, r.Calls, r.TotalNs, r.MinNs, r.MaxNs))
		for _, o := range r.LaunchedBy {
			wantOps = append(wantOps, line(r.Name, r.Kind, o.Op, o.Calls, o.TotalNs))
		}
	}
	same(t, "kernels", query(t, db, `SELECT name, kind, any_value(category), count(*), sum(dur_ns)::BIGINT, min(dur_ns), max(dur_ns)
		FROM `+kt+` WHERE device_time GROUP BY name, kind HAVING count(DISTINCT category) = 1`), want)
	same(t, "kernels by op", query(t, db, `SELECT name, kind, op, count(*), sum(dur_ns)::BIGINT FROM `+kt+` WHERE device_time GROUP BY ALL`), wantOps)
	want = []string{line(k.DeviceNs)}
	same(t, "device_ns", query(t, db, `SELECT coalesce(sum(dur_ns), 0)::BIGINT FROM `+kt+` WHERE device_time`), want)
	want = nil
	for _, r := range k.Ranks {
		if r.DeviceNs > 0 {
			want = append(want, line(r.Rank, r.DeviceNs))
		}
	}
	same(t, "device_ns by rank", query(t, db, `SELECT rank, sum(dur_ns)::BIGINT FROM `+kt+` WHERE device_time GROUP BY rank`), want)
}

type tableJSON struct {
	Rows []struct {
		Key                   string   `json:"key"`
		Count                 int64    `json:"count"`
		SelfCPUTimeTotal      float64  `json:"self_cpu_time_total"`
		CPUTimeTotal          float64  `json:"cpu_time_total"`
		SelfDeviceTimeTotal   float64  `json:"self_device_time_total"`
		DeviceTimeTotal       float64  `json:"device_time_total"`
		CPUMemoryUsage        int64    `json:"cpu_memory_usage"`
		SelfCPUMemoryUsage    int64    `json:"self_cpu_memory_usage"`
		DeviceMemoryUsage     int64    `json:"device_memory_usage"`
		SelfDeviceMemoryUsage int64    `json:"self_device_memory_usage"`
		InputShapes           string   `json:"input_shapes"`
		Flops                 int64    `json:"flops"`
		NodeID                int64    `json:"node_id"`
		DeviceType            int64    `json:"device_type"`
		IsLegacy              bool     `json:"is_legacy"`
		IsUserAnnotation      bool     `json:"is_user_annotation"`
		OverloadName          string   `json:"overload_name"`
		Stack                 []string `json:"stack"`
		Ranks                 int64    `json:"ranks"`
	} `json:"rows"`
	Summary struct {
		Ranks []struct {
			Rank             int64   `json:"rank"`
			SelfCPUTimeTotal float64 `json:"self_cpu_time_total"`
		} `json:"ranks"`
	} `json:"summary"`
}

// sumInOrder is a float sum as orprof's merge makes it: rank by rank, in order.
func sumInOrder(col string) string {
	return "list_reduce(list(" + col + " ORDER BY rank), (a, b) -> a + b)"
}

// checkOps compares the ops table with orprof table --format json of the same inputs (rows
// merged over the ranks in order, as orprof merges them).
func checkOps(t *testing.T, db *sql.DB, dir string, inputs []string) {
	var tj tableJSON
	decode(t, run(t, append([]string{"table", "--format", "json"}, inputs...)...), &tj)
	var want []string
	for _, r := range tj.Rows {
		want = append(want, line(r.Key, r.NodeID, r.DeviceType, r.IsLegacy, r.IsUserAnnotation, r.OverloadName, r.InputShapes,
			strings.Join(r.Stack, "\n"), r.Count, r.CPUTimeTotal, r.SelfCPUTimeTotal, r.DeviceTimeTotal, r.SelfDeviceTimeTotal,
			r.CPUMemoryUsage, r.SelfCPUMemoryUsage, r.DeviceMemoryUsage, r.SelfDeviceMemoryUsage, r.Flops, r.Ranks))
	}
	same(t, "ops", query(t, db, `SELECT name, node_id, device_type, is_legacy, is_user_annotation, overload_name, input_shapes, stack,
		sum(calls)::BIGINT, `+sumInOrder("cpu_time_total_us")+`, `+sumInOrder("self_cpu_time_total_us")+`,
		`+sumInOrder("device_time_total_us")+`, `+sumInOrder("self_device_time_total_us")+`,
		sum(cpu_memory_usage)::BIGINT, sum(self_cpu_memory_usage)::BIGINT, sum(device_memory_usage)::BIGINT,
		sum(self_device_memory_usage)::BIGINT, sum(flops)::BIGINT, count(*)
		FROM `+table(dir, "ops")+` GROUP BY ALL`), want)
	want = nil
	for _, r := range tj.Summary.Ranks {
		want = append(want, line(r.Rank, r.SelfCPUTimeTotal))
	}
	same(t, "self CPU total by rank", query(t, db, `SELECT rank, list_reduce(list(self_cpu_time_total_us ORDER BY row_order), (a, b) -> a + b)
		FROM `+table(dir, "ops")+` GROUP BY rank`), want)
}

type timelineJSON struct {
	Steps []struct {
		Rank  int64 `json:"rank"`
		Steps []struct {
			Step        int64            `json:"step"`
			HostStartNs int64            `json:"host_start_ns"`
			HostEndNs   int64            `json:"host_end_ns"`
			StartNs     int64            `json:"start_ns"`
			EndNs       int64            `json:"end_ns"`
			Times       map[string]any   `json:"times"`
			Exclusive   map[string]int64 `json:"-"`
		} `json:"steps"`
	} `json:"steps"`
	Idle []struct {
		Rank, Device, Stream, Events, SpanNs, BusyNs, IdleNs int64
		HostWaitNs, KernelWaitNs, OtherNs                    int64
	} `json:"idle"`
	Stragglers struct {
		Collectives []struct {
			Rank  int64            `json:"rank"`
			Items []collectiveJSON `json:"items"`
		} `json:"collectives"`
		ByCollective []struct {
			Op         string `json:"op"`
			Group      string `json:"group"`
			Calls      int64  `json:"calls"`
			DurationNs int64  `json:"duration_ns"`
			SizedCalls int64  `json:"sized_calls"`
			Bytes      int64  `json:"bytes"`
			MinBytes   int64  `json:"min_bytes"`
			MaxBytes   int64  `json:"max_bytes"`
		} `json:"by_collective"`
		ByCollectiveOmitted int `json:"by_collective_omitted"`
	} `json:"stragglers"`
}

type collectiveJSON struct {
	Name       string `json:"name"`
	StartNs    int64  `json:"start_ns"`
	EndNs      int64  `json:"end_ns"`
	Op         string `json:"op"`
	Group      string `json:"group"`
	GroupRanks string `json:"group_ranks"`
	Seq        int64  `json:"seq"`
	HasSeq     bool   `json:"has_seq"`
	P2P        string `json:"p2p"`
	Peer       int64  `json:"peer"`
	CommsID    string `json:"comms_id"`
	Bytes      int64  `json:"bytes"`
	GroupSize  int64  `json:"group_size"`
}

// nullIfZero is v, or nil (SQL's NULL) for the summary's 0: unknown.
func nullIfZero(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

// checkTimeline compares the steps, idle and collectives tables with orprof timeline --format
// json of the same inputs.
func checkTimeline(t *testing.T, db *sql.DB, dir string, inputs []string) {
	raw, none := noDevice(t, append([]string{"timeline", "--format", "json"}, inputs...)...)
	if none {
		return // orprof timeline has no figure to compare: no device activity
	}
	var tl timelineJSON
	decode(t, raw, &tl)
	// The idle rows' keys are snake_case: decode them through a map.
	var idle struct {
		Idle []map[string]any `json:"idle"`
	}
	decode(t, raw, &idle)
	var want []string
	for _, rs := range tl.Steps {
		for _, s := range rs.Steps {
			tm := s.Times
			ex := tm["exclusive"].(map[string]any)
			n := func(m map[string]any, k string) int64 { return int64(m[k].(float64)) }
			want = append(want, line(rs.Rank, s.Step, s.HostStartNs, s.HostEndNs, s.StartNs, s.EndNs, n(tm, "total_ns"), n(tm, "busy_ns"),
				n(tm, "idle_ns"), n(tm, "compute_ns"), n(tm, "communication_ns"), n(tm, "memory_ns"), n(tm, "other_ns"),
				n(tm, "exposed_communication_ns"), n(tm, "exposed_memory_ns"), n(tm, "comm_compute_overlap_ns"),
				n(ex, "compute_ns"), n(ex, "communication_ns"), n(ex, "memory_ns"), n(ex, "other_ns"), n(ex, "idle_ns")))
		}
	}
	same(t, "steps", query(t, db, `SELECT rank, step, host_start_ns, host_end_ns, start_ns, end_ns, total_ns, busy_ns, idle_ns,
		compute_ns, communication_ns, memory_ns, other_ns, exposed_communication_ns, exposed_memory_ns, comm_compute_overlap_ns,
		exclusive_compute_ns, exclusive_communication_ns, exclusive_memory_ns, exclusive_other_ns, exclusive_idle_ns
		FROM `+table(dir, "steps")), want)
	want = nil
	for _, m := range idle.Idle {
		n := func(k string) int64 { return int64(m[k].(float64)) }
		want = append(want, line(n("rank"), n("device"), n("stream"), n("events"), n("span_ns"), n("busy_ns"), n("idle_ns"),
			n("host_wait_ns"), n("kernel_wait_ns"), n("other_ns")))
	}
	same(t, "idle", query(t, db, `SELECT rank, device, stream, events, span_ns, busy_ns, idle_ns, host_wait_ns, kernel_wait_ns, other_ns
		FROM `+table(dir, "idle")), want)
	want = nil
	for _, rc := range tl.Stragglers.Collectives {
		for _, c := range rc.Items {
			seq, peer := any(nil), any(nil)
			if c.HasSeq {
				seq = c.Seq
			}
			if c.P2P != "" && c.Peer >= 0 {
				peer = c.Peer
			}
			want = append(want, line(rc.Rank, c.Name, c.Op, c.Group, c.GroupRanks, seq, c.P2P, peer, c.CommsID,
				nullIfZero(c.Bytes), nullIfZero(c.GroupSize), c.StartNs, c.EndNs, c.EndNs-c.StartNs))
		}
	}
	same(t, "collectives", query(t, db, `SELECT rank, name, collective, process_group, process_group_ranks, seq, p2p, peer, comms_id,
		bytes, group_size, start_ns, end_ns, dur_ns FROM `+table(dir, "collectives")), want)
	if tl.Stragglers.ByCollectiveOmitted > 0 {
		return // the summary keeps the largest rows only
	}
	want = nil
	for _, s := range tl.Stragglers.ByCollective {
		want = append(want, line(s.Op, s.Group, s.Calls, s.DurationNs, s.SizedCalls, s.Bytes, s.MinBytes, s.MaxBytes))
	}
	// The stragglers view's figures per call and group: the row of a group's sends and recvs
	// is "send/recv", a call the trace does not name goes by its kernel's name.
	same(t, "collectives by call and group", query(t, db, `SELECT CASE WHEN p2p <> '' THEN 'send/recv' WHEN collective = '' THEN name
		ELSE collective END AS op, process_group, count(*), sum(dur_ns)::BIGINT, count(bytes), coalesce(sum(bytes), 0)::BIGINT,
		coalesce(min(bytes), 0), coalesce(max(bytes), 0) FROM `+table(dir, "collectives")+` GROUP BY ALL`), want)
}

// checkCollectiveKeys holds each communication kernel's collective keys in the kernels table
// (process group, seq, Comms Id, bytes) equal to the timeline's for the same kernel (orprof
// timeline --format json: its stragglers' items, which the collectives table is made of).
func checkCollectiveKeys(t *testing.T, db *sql.DB, dir string, inputs []string) {
	raw := run(t, append([]string{"timeline", "--format", "json"}, inputs...)...)
	var tl timelineJSON
	decode(t, raw, &tl)
	var want []string
	for _, rc := range tl.Stragglers.Collectives {
		for _, c := range rc.Items {
			seq := any(nil)
			if c.HasSeq {
				seq = c.Seq
			}
			want = append(want, line(rc.Rank, c.Name, c.StartNs, c.Group, seq, c.CommsID, nullIfZero(c.Bytes)))
		}
	}
	if len(want) == 0 {
		t.Fatal("no collectives: the test's traces must have some")
	}
	same(t, "kernels' collective keys", query(t, db, `SELECT k.rank, k.name, k.start_ns, k.process_group, k.seq, k.comms_id, k.bytes
		FROM `+table(dir, "kernels")+` AS k SEMI JOIN `+table(dir, "collectives")+` AS c
		ON k.rank = c.rank AND k.name = c.name AND k.start_ns = c.start_ns`), want)
	if got := query(t, db, `SELECT count(*) FROM `+table(dir, "kernels")+` WHERE comms_id <> '' AND seq IS NULL`); !slices.Equal(got, []string{"0"}) {
		t.Fatalf("kernels with a Comms Id and no Seq: %v", got)
	}
}

// TestCollectivesEqualOrprof exports traces whose collectives carry "Comms Id", "Seq" and
// message sizes (two ranks of one job; one rank of an NCCL trace of 2026) and holds the
// collectives table and the kernels table's collective keys equal to orprof's own figures.
func TestCollectivesEqualOrprof(t *testing.T) {
	for _, c := range []struct {
		name   string
		inputs []string
	}{
		{"commsid", []string{"analysis/timeline/testdata/commsid/rank0.json", "analysis/timeline/testdata/commsid/rank1.json"}},
		{"nccl_dev_kernel", []string{"testdata/kineto-2026/nccl_dev_kernel.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var inputs []string
			for _, in := range c.inputs {
				inputs = append(inputs, filepath.Join(root, in))
			}
			dir := filepath.Join(t.TempDir(), "out")
			run(t, append([]string{"export", "--quiet", "-o", dir}, inputs...)...)
			db := open(t)
			checkKernels(t, db, dir, inputs)
			checkTimeline(t, db, dir, inputs)
			checkCollectiveKeys(t, db, dir, inputs)
		})
	}
}

// TestEachTraceEqualsOrprof exports each testdata trace alone and holds every table's SQL
// figures equal to orprof's own JSON of the trace.
func TestEachTraceEqualsOrprof(t *testing.T) {
	for _, tr := range traces(t) {
		t.Run(filepath.Base(tr), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			run(t, "export", "--quiet", "--ops-tree", "-o", dir, tr)
			db := open(t)
			checkKernels(t, db, dir, []string{tr})
			checkOps(t, db, dir, []string{tr})
			checkOpsTree(t, db, dir, []string{tr})
			checkTimeline(t, db, dir, []string{tr})
			checkMetadata(t, db, dir, tr)
			checkArrowReads(t, db, dir)
			checkStats(t, db, dir)
		})
	}
}

type flameNode struct {
	Name       string       `json:"name"`
	Kernel     bool         `json:"kernel"`
	SelfCPU    int64        `json:"self_cpu_ns"`
	SelfDevice int64        `json:"self_device_ns"`
	CPU        int64        `json:"cpu_ns"`
	Device     int64        `json:"device_ns"`
	Calls      int64        `json:"calls"`
	Children   []*flameNode `json:"children"`
}

// checkOpsTree compares the ops_tree table with the op tree of orprof report --format json
// of the same inputs (its flame member: the ranks' trees merged path by path), node by node,
// and holds each top-level node's total equal to the sum of the self times under it: the
// query the flat ops table cannot answer (time under a ProfilerStep or a module).
func checkOpsTree(t *testing.T, db *sql.DB, dir string, inputs []string) {
	var rep struct {
		Flame struct {
			Root  *flameNode `json:"root"`
			Nodes int        `json:"nodes"`
		} `json:"flame"`
	}
	out := filepath.Join(t.TempDir(), "r.json")
	run(t, append([]string{"report", "--format", "json", "-o", out}, inputs...)...)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	decode(t, b, &rep)
	var want []string
	var walk func(n *flameNode, path []string)
	walk = func(n *flameNode, path []string) {
		path = append(path, n.Name)
		want = append(want, line(strings.Join(path, "\x1f"), int64(len(path)), n.Kernel, n.Calls, n.CPU, n.SelfCPU, n.Device, n.SelfDevice))
		for _, c := range n.Children {
			walk(c, path)
		}
	}
	if rep.Flame.Root != nil {
		for _, c := range rep.Flame.Root.Children {
			walk(c, nil)
		}
	}
	// The report caps names over 1024 bytes (internal/namecap); the table keeps them whole, so
	// the paths are capped here as the report caps them before they are compared.
	rows, err := db.Query(`SELECT path, kernel, sum(calls)::BIGINT, sum(cpu_ns)::BIGINT, sum(self_cpu_ns)::BIGINT,
		sum(device_ns)::BIGINT, sum(self_device_ns)::BIGINT FROM ` + table(dir, "ops_tree") + ` GROUP BY path, kernel`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var path any
		var kernel bool
		var calls, cpu, selfCPU, dev, selfDev int64
		if err := rows.Scan(&path, &kernel, &calls, &cpu, &selfCPU, &dev, &selfDev); err != nil {
			t.Fatal(err)
		}
		list, ok := path.([]any)
		if !ok {
			t.Fatalf("path is %T, not a list", path)
		}
		names := make([]string, len(list))
		for i, n := range list {
			names[i] = capName(n.(string))
		}
		got = append(got, line(strings.Join(names, "\x1f"), int64(len(names)), kernel, calls, cpu, selfCPU, dev, selfDev))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	same(t, "ops_tree", got, want)
	// Time under each top-level node of each rank: its total is what its subtree's self times
	// add up to, found by the path's first name and the node's parent links alike.
	same(t, "ops_tree totals under a top-level node", query(t, db, `SELECT rank, name, cpu_ns, device_ns FROM `+table(dir, "ops_tree")+` WHERE depth = 1`),
		query(t, db, `WITH RECURSIVE t AS (SELECT * FROM `+table(dir, "ops_tree")+`),
			under(rank, top, node) AS (SELECT rank, node, node FROM t WHERE depth = 1
				UNION ALL SELECT t.rank, under.top, t.node FROM t JOIN under ON t.rank = under.rank AND t.parent = under.node)
			SELECT top.rank, top.name, sum(t.self_cpu_ns)::BIGINT, sum(t.self_device_ns)::BIGINT
			FROM under JOIN t ON t.rank = under.rank AND t.node = under.node JOIN t AS top ON top.rank = under.rank AND top.node = under.top
			GROUP BY top.rank, top.node, top.name`))
}

// checkMetadata holds each file's key-value metadata: the schema version, orprof's version,
// the source trace and its rank.
func checkMetadata(t *testing.T, db *sql.DB, dir, src string) {
	for _, tb := range []string{"kernels", "ops", "steps", "collectives", "idle", "memory", "ops_tree"} {
		got := query(t, db, `SELECT decode(key), decode(value) FROM parquet_kv_metadata('`+filepath.Join(dir, tb, "*.parquet")+`')
			WHERE decode(key) IN ('orprof.schema_version', 'orprof.table', 'orprof.source')`)
		want := []string{line("orprof.schema_version", "1"), line("orprof.table", tb), line("orprof.source", src)}
		same(t, tb+" metadata", got, want)
		v := query(t, db, `SELECT decode(value) FROM parquet_kv_metadata('`+filepath.Join(dir, tb, "*.parquet")+`') WHERE decode(key) = 'orprof.version'`)
		if len(v) != 1 || !strings.HasPrefix(v[0], "orprof ") {
			t.Fatalf("%s: orprof.version %q", tb, v)
		}
	}
}

// rankRe finds the rank of a trace's distributedInfo.
var rankRe = regexp.MustCompile(`("distributedInfo": *\{[^}]*?"rank": *)\d+`)

// ranked writes n copies of the gzip trace src under dir with ranks 0…n−1 (distributedInfo
// rewritten, as scripts/fleet-ranks.sh does) and returns their paths.
func ranked(t *testing.T, src, dir string, n int) []string {
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !rankRe.Match(b) {
		t.Fatalf("%s: no distributedInfo rank", src)
	}
	var out []string
	for k := range n {
		p := filepath.Join(dir, fmt.Sprintf("rank%d.json", k))
		if err := os.WriteFile(p, rankRe.ReplaceAll(b, []byte(fmt.Sprintf("${1}%d", k))), 0o666); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// TestRanksEqualOrprof exports a job of several ranks in one call and holds the SQL over all
// its files equal to orprof's merge of the same ranks: kernels, the op table and its per-rank
// totals, each rank's steps, idle streams and collectives.
func TestRanksEqualOrprof(t *testing.T) {
	for _, src := range []string{"testdata/kineto-extra/hta_sampled_rank0.json.gz", "testdata/kineto/cuda_train_step.json.gz"} {
		t.Run(filepath.Base(src), func(t *testing.T) {
			job := t.TempDir()
			inputs := ranked(t, filepath.Join(root, src), job, 3)
			dir := filepath.Join(t.TempDir(), "out")
			run(t, "export", "--quiet", "-o", dir, job)
			db := open(t)
			checkKernels(t, db, dir, inputs)
			checkOps(t, db, dir, inputs)
			checkTimeline(t, db, dir, inputs)
			if got := query(t, db, `SELECT count(DISTINCT rank) FROM `+table(dir, "kernels")); !slices.Equal(got, []string{"3"}) {
				t.Fatalf("ranks in kernels: %v", got)
			}
		})
	}
}

// capName is a name as the report writes it (internal/namecap.Cap, which this module cannot
// import): up to 1024 bytes as it is, else its first bytes, "…" and the whole name's length
// and digest, in 1024 bytes at most.
func capName(name string) string {
	const max = 1024
	if len(name) <= max {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	tail := "…[" + strconv.Itoa(len(name)) + " bytes sha256:" + hex.EncodeToString(sum[:8]) + "]"
	cut := max - len(tail)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + tail
}
