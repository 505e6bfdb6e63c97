package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/orprof/orprof/analysis/flame"
	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/ranks"
	"github.com/orprof/orprof/analysis/tbsteps"
	"github.com/orprof/orprof/analysis/timeline"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/input"
	"github.com/orprof/orprof/internal/fanout"
	"github.com/orprof/orprof/internal/parquet"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace/tracefile"
)

// Options tune an export. The zero value is the default.
type Options struct {
	// Grouping is the key_averages grouping of the ops table's rows.
	Grouping events.AverageOptions
	// SkipScopeMetrics and Link are tracefile.Options'.
	SkipScopeMetrics bool
	Link             tracefile.LinkMode
	// Rules class the kernels (nil: kernels.Default()).
	Rules *kernels.Rules
	// Workers is the number of traces read at once; 0 means GOMAXPROCS.
	Workers int
	// Version is orprof's version line, written into every file's metadata.
	Version string
	// Stdin is read for the path "-" (nil: os.Stdin); the files name it "<stdin>".
	Stdin io.Reader
	// OpsTree writes the ops_tree table too: the read walks PyTorch's op tree as it makes the
	// ops rows, which costs CPU and memory the other tables do not need.
	OpsTree bool
	// Linking is tracefile.Options' for every trace's read.
	Linking func(start bool)
}

// rowGroup is the most rows a row group holds; batch, the rows handed to the writer at once;
// pageBuffer, the bytes of a column's values a page holds before it is cut (a column's page
// grows to this size, so most tables, of a few hundred rows, take a few KB).
const (
	rowGroup   = 1 << 17
	batch      = 4096
	pageBuffer = 64 << 10
)

// File is one file written: its table, its rank and its path.
type File struct {
	Table string
	Rank  int64
	Path  string
	Rows  int64
}

// Export reads the traces at paths (Options.Workers at once) and writes each one's tables
// under dir: dir/TABLE/rank-NNNNN.parquet, one file per table and rank (Tables). Every file is
// written under a temporary directory in dir first and renamed into place only when every
// trace has been read and written, so a failed export leaves no file of it behind. A trace's
// rank is its distributedInfo rank, else its position among paths (internal/ranknum's rule);
// two traces of one rank are an error. Files of other ranks already in dir are kept; a rank's
// file already there is replaced.
func Export(paths []string, dir string, o Options) ([]File, []string, error) {
	if len(paths) == 0 {
		return nil, nil, errors.New("no trace to export")
	}
	if o.Rules == nil {
		o.Rules = kernels.Default()
	}
	created := false
	if st, err := os.Stat(dir); err != nil {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return nil, nil, fmt.Errorf("-o %s: %v", quote.String(dir), err)
		}
		created = true
	} else if !st.IsDir() {
		return nil, nil, fmt.Errorf("-o %s: not a directory", quote.String(dir))
	}
	tmp, err := os.MkdirTemp(dir, ".orprof-export-*")
	if err != nil {
		return nil, nil, fmt.Errorf("-o %s: cannot create the temporary directory the tables are written to first: %v", quote.String(dir), err)
	}
	defer os.RemoveAll(tmp)
	fail := func(err error) ([]File, []string, error) {
		os.RemoveAll(tmp)
		if created {
			os.Remove(dir)
		}
		return nil, nil, err
	}
	for _, t := range Tables {
		if err := os.Mkdir(filepath.Join(tmp, t), 0o777); err != nil {
			return fail(err)
		}
	}
	results := make([]result, len(paths))
	errs := fanout.Each(len(paths), o.Workers, func(k int) error {
		r, err := exportOne(paths[k], k, tmp, o)
		results[k] = r
		return err
	})
	if err := fanout.First(errs); err != nil {
		return fail(err)
	}
	byRank := map[int64]int{}
	for k, r := range results {
		if j, dup := byRank[r.rank]; dup {
			return fail(fmt.Errorf("%s and %s are both rank %d: export each job's ranks once", quote.String(paths[j]), quote.String(paths[k]), r.rank))
		}
		byRank[r.rank] = k
	}
	var files []File
	var warns []string
	links := make([]tracefile.DeviceLink, len(results))
	for k, r := range results {
		warns = append(warns, r.warns...)
		links[k] = r.link
		for _, f := range r.files {
			dst := filepath.Join(dir, f.Table)
			if err := os.MkdirAll(dst, 0o777); err != nil {
				return fail(fmt.Errorf("-o %s: %v", quote.String(dir), err))
			}
			dst = filepath.Join(dst, FileName(r.rank))
			if err := os.Rename(f.Path, dst); err != nil {
				return fail(fmt.Errorf("-o %s: %s: %v", quote.String(dir), quote.String(paths[k]), err))
			}
			f.Path = dst
			files = append(files, f)
		}
	}
	names := slices.Clone(paths)
	for i, p := range names {
		if p == "-" {
			names[i] = input.StdinName
		}
	}
	if lw := ranks.LinkWarning(links, names); lw != "" {
		warns = append(warns, lw)
	}
	return files, warns, nil
}

// FileName is the name of a rank's file in each table's directory.
func FileName(rank int64) string {
	if rank < 0 {
		return "rank-neg" + strconv.FormatInt(-rank, 10) + ".parquet"
	}
	return fmt.Sprintf("rank-%05d.parquet", rank)
}

type result struct {
	rank  int64
	files []File
	warns []string
	link  tracefile.DeviceLink
}

// exportOne reads one trace in one pass feeding every consumer and writes its tables under tmp.
func exportOne(path string, pos int, tmp string, o Options) (result, error) {
	var res result
	in, err := input.OpenArg(path, o.Stdin)
	if err != nil {
		return res, err
	}
	if in.Kind != input.Trace {
		return res, fmt.Errorf("%s is %s, not a trace: export reads traces (the per-event tables need the events)", quote.String(in.Name), in.Kind)
	}
	path = in.Name
	rw := newRows(o.Rules)
	var tree *flame.Builder
	var walk func(*events.TreeEvent)
	if o.OpsTree {
		tree = flame.NewBuilder()
		walk = tree.Add
	}
	tc := timeline.NewConsumer(timeline.DefaultOptions(), o.Rules)
	tc.AfterRead() // its analyses beside the kernels table's writing, once the records are garbage
	steps := tbsteps.NewCollector()
	rank := int64(pos)
	meta := func(table string) []parquet.KeyValue {
		return []parquet.KeyValue{
			{Key: "orprof.schema_version", Value: strconv.Itoa(SchemaVersion)},
			{Key: "orprof.version", Value: o.Version},
			{Key: "orprof.table", Value: table},
			{Key: "orprof.source", Value: path},
			{Key: "orprof.rank", Value: strconv.FormatInt(rank, 10)},
		}
	}
	name := func(table string) string { return filepath.Join(tmp, table, strconv.Itoa(pos)+".parquet") }
	av, err := in.ReadAverages(tracefile.Options{NoShapes: !o.Grouping.GroupByInputShape, NoStacks: o.Grouping.GroupByStackN == 0,
		Consumers: []tracefile.Consumer{rw, tc, steps}, Position: pos, Tree: walk,
		SkipScopeMetrics: o.SkipScopeMetrics, Link: o.Link, Linking: o.Linking, Paced: true}, o.Grouping)
	if err != nil {
		return res, err
	}
	rank = rw.rank
	res.rank = rank
	res.warns, res.link = av.Data.ReadWarnings(path), av.Data.DeviceLink
	// The kernels table, the largest, is written on a goroutine of its own beside the others
	// (each file's columns are encoded and compressed by its writer, one after the other), so
	// that a trace's tables take both cores when it is the only one being read.
	var (
		wg    sync.WaitGroup
		kfile File
		kerr  error
	)
	wg.Go(func() {
		kfile, kerr = writeStream(name(TableKernels), meta(TableKernels), func(emit func([]KernelRow) error) error {
			return rw.kernelRows(rank, batch, emit)
		})
		kfile.Table, kfile.Rank = TableKernels, rank
	})
	var ft *flame.Tree
	if tree != nil {
		ft = tree.Tree()
	}
	err = writeSmall(&res, path, pos, rank, av, rw, tc.Summary(), steps.Summary(), ft, o, name, meta)
	wg.Wait()
	if kerr != nil {
		return res, fmt.Errorf("%s: kernels: %v", quote.String(path), kerr)
	}
	if err != nil {
		return res, err
	}
	res.files = append([]File{kfile}, res.files...)
	return res, nil
}

// writeSmall writes the tables of one trace other than kernels (each a few rows per op, step,
// stream or memory record) and adds their files to res.
func writeSmall(res *result, path string, pos int, rank int64, av *tracefile.Averages, rw *rows, tl *timeline.Summary,
	tb *tbsteps.Summary, ft *flame.Tree, o Options, name func(string) string, meta func(string) []parquet.KeyValue) error {
	sum := ranks.SummarizeAverages(av, path, pos, o.Grouping)
	add := func(table string, f File, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %s: %v", quote.String(path), table, err)
		}
		f.Table, f.Rank = table, rank
		res.files = append(res.files, f)
		return nil
	}
	ops := make([]OpRow, len(sum.Rows))
	for i := range sum.Rows {
		a := &sum.Rows[i].Avg
		ops[i] = OpRow{Rank: rank, Order: int64(i), Name: a.Key, NodeID: int64(a.NodeID), DeviceType: int64(a.DeviceType.C10()),
			IsLegacy: a.IsLegacy, IsUserAnnotation: a.IsUserAnnotation, IsAsync: a.IsAsync, IsRemote: a.IsRemote,
			Scope: int64(a.Scope), OverloadName: a.OverloadName, InputShapes: a.InputShapes, Stack: strings.Join(a.Stack, "\n"),
			HasParent: a.HasParent, Calls: a.Count, CPUTimeTotalUs: a.CPUTimeTotal, SelfCPUTimeTotalUs: a.SelfCPUTimeTotal,
			DeviceTimeTotalUs: a.DeviceTimeTotal, SelfDeviceTimeTotalUs: a.SelfDeviceTimeTotal,
			CPUMemoryUsage: a.CPUMemoryUsage, SelfCPUMemoryUsage: a.SelfCPUMemoryUsage,
			DeviceMemoryUsage: a.DeviceMemoryUsage, SelfDeviceMemoryUsage: a.SelfDeviceMemoryUsage, Flops: a.Flops}
	}
	f, err := writeRows(name(TableOps), meta(TableOps), ops)
	if err := add(TableOps, f, err); err != nil {
		return err
	}
	f, err = writeRows(name(TableSteps), meta(TableSteps), stepRows(rank, tl, tb))
	if err := add(TableSteps, f, err); err != nil {
		return err
	}
	f, err = writeRows(name(TableCollectives), meta(TableCollectives), collectiveRows(rank, tl))
	if err := add(TableCollectives, f, err); err != nil {
		return err
	}
	f, err = writeRows(name(TableIdle), meta(TableIdle), idleRows(rank, tl))
	if err := add(TableIdle, f, err); err != nil {
		return err
	}
	for i := range rw.mem {
		rw.mem[i].Rank = rank
	}
	f, err = writeRows(name(TableMemory), meta(TableMemory), rw.mem)
	if err := add(TableMemory, f, err); err != nil || ft == nil {
		return err
	}
	f, err = writeRows(name(TableOpsTree), meta(TableOpsTree), treeRows(rank, ft))
	return add(TableOpsTree, f, err)
}

// treeRows are the nodes of one rank's op call tree in depth-first order (a node before its
// children, children in the order their path first occurs), numbered from 0 in that order.
func treeRows(rank int64, t *flame.Tree) []OpTreeRow {
	if t == nil || t.Root == nil {
		return nil
	}
	out := make([]OpTreeRow, 0, t.Nodes)
	var path []string
	var walk func(n *flame.Node, parent *int64)
	walk = func(n *flame.Node, parent *int64) {
		path = append(path, n.Name)
		id := int64(len(out))
		out = append(out, OpTreeRow{Rank: rank, Node: id, Parent: parent, Depth: int64(len(path)), Name: n.Name,
			Kernel: n.Kernel, Path: slices.Clone(path), Calls: n.Calls, CPUNs: n.CPU, SelfCPUNs: n.SelfCPU,
			DeviceNs: n.Device, SelfDeviceNs: n.SelfDevice})
		for _, c := range n.Children {
			walk(c, &id)
		}
		path = path[:len(path)-1]
	}
	for _, c := range t.Root.Children {
		walk(c, nil)
	}
	return out
}

// stepRows are the steps table's rows of one rank: the timeline's steps, each with the
// TensorBoard plugin's breakdown of the step of the same number when it has one.
func stepRows(rank int64, tl *timeline.Summary, tb *tbsteps.Summary) []StepRow {
	tbs := map[string]*tbsteps.Step{}
	if tb != nil {
		for i := range tb.Ranks {
			for j := range tb.Ranks[i].Steps {
				s := &tb.Ranks[i].Steps[j]
				tbs[s.Name] = s
			}
		}
	}
	var out []StepRow
	if tl == nil {
		return out
	}
	for _, rs := range tl.Steps {
		for _, s := range rs.Steps {
			t := s.Times
			r := StepRow{Rank: rank, Step: s.Step, HostStartNs: s.HostStartNs, HostEndNs: s.HostEndNs, StartNs: s.StartNs, EndNs: s.EndNs,
				TotalNs: t.TotalNs, BusyNs: t.BusyNs, IdleNs: t.IdleNs, ComputeNs: t.ComputeNs, CommunicationNs: t.CommunicationNs,
				MemoryNs: t.MemoryNs, OtherNs: t.OtherNs, ExposedCommunicationNs: t.ExposedCommunicationNs, ExposedMemoryNs: t.ExposedMemoryNs,
				OverlapNs: t.OverlapNs, ExclusiveComputeNs: t.Exclusive.ComputeNs, ExclusiveCommNs: t.Exclusive.CommunicationNs,
				ExclusiveMemoryNs: t.Exclusive.MemoryNs, ExclusiveOtherNs: t.Exclusive.OtherNs, ExclusiveIdleNs: t.Exclusive.IdleNs}
			if b, ok := tbs[strconv.FormatInt(s.Step, 10)]; ok {
				r.TBTotalNs = ptr(b.TotalNs)
				r.TBKernelNs, r.TBMemcpyNs, r.TBMemsetNs = ptr(b.Ns[tbsteps.Kernel]), ptr(b.Ns[tbsteps.Memcpy]), ptr(b.Ns[tbsteps.Memset])
				r.TBCommunicationNs, r.TBRuntimeNs = ptr(b.Ns[tbsteps.Communication]), ptr(b.Ns[tbsteps.Runtime])
				r.TBDataLoaderNs, r.TBCPUExecNs, r.TBOtherNs = ptr(b.Ns[tbsteps.DataLoader]), ptr(b.Ns[tbsteps.CPUExec]), ptr(b.Ns[tbsteps.Other])
			}
			out = append(out, r)
		}
	}
	return out
}

// collectiveRows are the timeline's collectives of one rank.
func collectiveRows(rank int64, tl *timeline.Summary) []CollectiveRow {
	var out []CollectiveRow
	if tl == nil {
		return out
	}
	for _, rc := range tl.Stragglers.Collectives {
		for _, c := range rc.Items {
			r := CollectiveRow{Rank: rank, Name: c.Name, Collective: c.Op, Group: c.Group, GroupRanks: c.Ranks, P2P: c.P2P,
				StartNs: c.StartNs, EndNs: c.EndNs, DurNs: c.EndNs - c.StartNs, CommsID: c.CommsID}
			if c.HasSeq {
				r.Seq = ptr(c.Seq)
			}
			if c.P2P != "" && c.Peer >= 0 {
				r.Peer = ptr(c.Peer)
			}
			if c.Bytes > 0 { // the timeline's 0: unknown
				r.Bytes = ptr(c.Bytes)
			}
			if c.GroupSize > 0 {
				r.GroupSize = ptr(c.GroupSize)
			}
			out = append(out, r)
		}
	}
	return out
}

// idleRows are the timeline's idle time by cause of each stream of one rank.
func idleRows(rank int64, tl *timeline.Summary) []IdleRow {
	var out []IdleRow
	if tl == nil {
		return out
	}
	for _, s := range tl.Idle {
		out = append(out, IdleRow{Rank: rank, Device: int64(s.Device), Stream: s.Stream, Events: int64(s.Events), SpanNs: s.SpanNs,
			BusyNs: s.BusyNs, IdleNs: s.IdleNs, HostWaitNs: s.HostWaitNs, KernelWaitNs: s.KernelWaitNs, OtherNs: s.OtherNs,
			HostWaitGaps: int64(s.HostWaitGaps), KernelWaitGaps: int64(s.KernelWaitGaps), OtherGaps: int64(s.OtherGaps)})
	}
	return out
}

// writeRows writes rows as one Parquet file at path.
func writeRows[T any](path string, meta []parquet.KeyValue, rows []T) (File, error) {
	return writeStream(path, meta, func(emit func([]T) error) error {
		for len(rows) > 0 {
			n := min(len(rows), batch)
			if err := emit(rows[:n]); err != nil {
				return err
			}
			rows = rows[n:]
		}
		return nil
	})
}

// codec compresses every file's pages: one for all, so that its pool of zstd encoders serves
// every file and worker rather than one new encoder a file.
var codec = &parquet.Zstd{Window: pageBuffer}

// writeStream writes the rows that fill hands its emit function as one Parquet file at path:
// zstd-compressed columns, dictionary-encoded strings, a row group every rowGroup rows.
func writeStream[T any](path string, meta []parquet.KeyValue, fill func(emit func([]T) error) error) (File, error) {
	f, err := os.Create(path)
	if err != nil {
		return File{}, err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	w, err := parquet.NewWriter[T](bw, parquet.Options{Codec: codec, PageBytes: pageBuffer, RowGroupRows: rowGroup,
		CreatedBy: "orprof", Meta: meta})
	if err != nil {
		f.Close()
		return File{}, err
	}
	var n int64
	err = fill(func(rows []T) error {
		m, err := w.Write(rows)
		n += int64(m)
		return err
	})
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return File{Path: path, Rows: n}, err
}
