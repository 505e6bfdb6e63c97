package kernels

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// WriteOptions tune Write.
type WriteOptions struct {
	// Rules classify the kernels (nil: the built-in rules).
	Rules *Rules
	// RowLimit is how many kernels (or, ByOp, operators) text and markdown print: N > 0 the
	// first N, text.RowLimitNone none (the totals line still prints), 0 or text.RowLimitAll
	// all. csv and json print every row.
	RowLimit int
	// ByOp groups the kernels under the operators that launched them.
	ByOp bool
	// MaxNameWidth caps the kernel and operator name columns of text (0: 55).
	MaxNameWidth int
	// CompactJSON writes json on one line, without the indentation (what a page embeds:
	// package report/html).
	CompactJSON bool
}

// Write renders s in format f. text and markdown print one table, largest total first, then a
// line of totals; csv the same rows, every one; json the whole summary (every row, with what a
// merge needs), which Load reads back.
func Write(w io.Writer, f text.Format, s *Summary, o WriteOptions) error {
	if f == text.JSON {
		return writeJSON(w, s, o.Rules, o.CompactJSON)
	}
	t := s.table(o, f == text.CSV)
	var b bytes.Buffer
	switch f {
	case text.Text:
		t.text(&b, o.MaxNameWidth)
		b.WriteString(s.footer())
	case text.Markdown:
		t.markdown(&b)
		b.WriteString("\n" + s.footer())
	case text.CSV:
		t.csv(&b)
	default:
		return fmt.Errorf("format %q: must be text, markdown, csv or json", f)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// footer is the line under a table: the device time, its kernels and the ranks.
func (s *Summary) footer() string {
	var calls int64
	for _, k := range s.Kernels {
		calls += k.Calls
	}
	r := ""
	if len(s.Ranks) > 1 {
		r = fmt.Sprintf(", %d ranks", len(s.Ranks))
	}
	return fmt.Sprintf("Device time total: %s in %d calls of %d kernels%s\n", text.Time(s.DeviceUs()), calls, len(s.Kernels), r)
}

// table is what text, markdown and csv print: a header and rows of cells; left marks the
// left-aligned (name) columns.
type table struct {
	head []string
	left []bool
	rows [][]string
}

func pct(t, total float64) string { return text.Percent(t, total, 2, "0.00%") }

// pctOf is 100·t/total, the share every format prints.
func pctOf(t, total float64) float64 { return 100 * t / total }

// us renders µs for csv: the shortest digits, to the ns.
func us(v float64) string {
	return strconv.FormatFloat(float64(int64(v*1000+0.5*sign(v)))/1000, 'f', -1, 64)
}

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

func streams(ss []Stream) string {
	var b strings.Builder
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i == 4 {
			fmt.Fprintf(&b, "+%d", len(ss)-4)
			break
		}
		fmt.Fprintf(&b, "%d:%d", s.Device, s.Stream)
	}
	return b.String()
}

func (s *Summary) table(o WriteOptions, all bool) *table {
	total := s.DeviceUs()
	tm := text.Time
	if all {
		tm = us
	}
	if o.ByOp {
		t := &table{head: []string{"Operator", "Kernel", "Category", "Calls", "Total", "% of device", "% of op", "Mean"},
			left: []bool{true, true, true, false, false, false, false, false}}
		if all {
			t.head[4], t.head[7] = "Total (us)", "Mean (us)"
		}
		ops := s.ByOp()
		if !all {
			ops = limitRows(ops, o.RowLimit)
		}
		for _, op := range ops {
			name := op.Op
			if name == "" {
				name = "(no operator)"
			}
			t.rows = append(t.rows, []string{name, "", "", strconv.FormatInt(op.Calls, 10), tm(op.TotalUs()), pct(op.TotalUs(), total), "100.00%",
				tm(meanUs(op.TotalNs, op.Calls))})
			for _, k := range op.Kernels {
				t.rows = append(t.rows, []string{"", k.Kernel.Name, k.Kernel.Category(o.Rules).String(), strconv.FormatInt(k.Share.Calls, 10),
					tm(k.Share.TotalUs()), pct(k.Share.TotalUs(), total), pct(k.Share.TotalUs(), op.TotalUs()),
					tm(meanUs(k.Share.TotalNs, k.Share.Calls))})
			}
		}
		return t
	}
	t := &table{head: []string{"Kernel", "Kind", "Category", "Calls", "Total", "% of device", "Mean", "Median", "Min", "Max",
		"Std", "Streams", "Operator", "Ops"}, left: make([]bool, 14)}
	t.left[0], t.left[1], t.left[2], t.left[11], t.left[12] = true, true, true, true, true
	if all {
		for i, h := range t.head[4:11] {
			if h != "% of device" {
				t.head[4+i] = h + " (us)"
			}
		}
	}
	ks := s.ByTotal()
	if !all {
		ks = limitRows(ks, o.RowLimit)
	}
	for _, k := range ks {
		op, nops := k.Op()
		if op == "" {
			op = "(none)"
		}
		t.rows = append(t.rows, []string{k.Name, k.Kind.String(), k.Category(o.Rules).String(), strconv.FormatInt(k.Calls, 10),
			tm(k.TotalUs()), pct(k.TotalUs(), total), tm(k.MeanUs()), tm(k.MedianUs()), tm(k.MinUs()), tm(k.MaxUs()), tm(k.StdUs()),
			streams(k.Streams), op, strconv.Itoa(nops)})
	}
	return t
}

// limitRows is rows cut to limit (WriteOptions.RowLimit).
func limitRows[T any](rows []T, limit int) []T {
	switch {
	case limit == text.RowLimitNone:
		return nil
	case limit > 0 && len(rows) > limit:
		return rows[:limit]
	}
	return rows
}

// text writes the table with columns padded to their widest cell, framed by rules; names are
// cut to maxName runes (0: 55) with "...", and control characters escaped (text.Table).
func (t *table) text(b *bytes.Buffer, maxName int) {
	if maxName <= 0 {
		maxName = 55
	}
	tt := text.Table{Head: t.head, Left: t.left, Rows: t.rows}
	tt.WriteText(b, text.TextOptions{MaxName: maxName, Framed: true}) // a bytes.Buffer does not fail
}

// markdown writes a GitHub table (text.Table: cells escaped to render as the exact strings).
func (t *table) markdown(b *bytes.Buffer) {
	(&text.Table{Head: t.head, Left: t.left, Rows: t.rows}).WriteMarkdown(b) // a bytes.Buffer does not fail
}

// csv writes the table as CSV (text.Table).
func (t *table) csv(b *bytes.Buffer) {
	(&text.Table{Head: t.head, Rows: t.rows}).WriteCSV(b) // a bytes.Buffer does not fail
}

// The JSON document (version 2): {"orprof_kernels": 2, "device", "device_ns", "device_us",
// "ranks", "kernels"}, every kernel in first-occurrence order. The exact figures, which a
// read and a merge use, are integers of ns: calls, total_ns, min_ns, max_ns, the sum of the
// squared durations sum_sq_ns2 (ns², a string of decimal digits: it passes 2⁶⁴), the
// histogram and launched_by's calls and total_ns; each rank's device_ns. The µs figures
// (total_us, mean_us, median_us, min_us, max_us, std_us, percent_of_device, device_us) and
// category, group, op and ops are derived from them for people and the report's page: a read
// ignores them and derives them again.
//
// Version 1 (orprof before the exact statistics) had float µs figures and a Welford "m2";
// a mean and a deviation cannot be made exact from them, so ReadSummary refuses it, naming
// the file and the field.
const jsonVersion = 2

type docJSON struct {
	Version  int          `json:"orprof_kernels"`
	Device   string       `json:"device"`
	DeviceNs int64        `json:"device_ns"`
	DeviceUs float64      `json:"device_us"`
	Ranks    []rankJSON   `json:"ranks"`
	Kernels  []kernelJSON `json:"kernels"`
}

type rankJSON struct {
	Rank      int64   `json:"rank"`
	FromTrace bool    `json:"rank_from_trace"`
	File      string  `json:"file"`
	DeviceNs  int64   `json:"device_ns"`
	DeviceUs  float64 `json:"device_us"`
}

type kernelJSON struct {
	// Name is a pointer so that a row without one (a summary edited by hand) is told from a
	// kernel named "".
	Name       *string    `json:"name"`
	Kind       string     `json:"kind"`
	Category   string     `json:"category"`
	Group      string     `json:"group"`
	Calls      int64      `json:"calls"`
	TotalNs    int64      `json:"total_ns"`
	TotalUs    float64    `json:"total_us"`
	Percent    float64    `json:"percent_of_device"`
	MeanUs     float64    `json:"mean_us"`
	MedianUs   float64    `json:"median_us"`
	MinNs      int64      `json:"min_ns"`
	MinUs      float64    `json:"min_us"`
	MaxNs      int64      `json:"max_ns"`
	MaxUs      float64    `json:"max_us"`
	StdUs      float64    `json:"std_us"`
	SumSqNs2   *u128      `json:"sum_sq_ns2"`
	Streams    []Stream   `json:"streams"`
	Op         string     `json:"op"`
	Ops        int        `json:"ops"`
	Ranks      int        `json:"ranks"`
	Hist       [][2]int64 `json:"hist"`
	LaunchedBy []opJSON   `json:"launched_by"`
}

type opJSON struct {
	Op string `json:"op"`
	OpShare
	TotalUs float64 `json:"total_us"`
}

var kindByName = func() map[string]tracefile.Kind {
	m := map[string]tracefile.Kind{}
	for k := tracefile.KindKernel; k <= tracefile.KindScopeMetrics; k++ {
		m[k.String()] = k
	}
	return m
}()

func writeJSON(w io.Writer, s *Summary, rules *Rules, compact bool) error {
	doc := docJSON{Version: jsonVersion, Device: s.Device, DeviceNs: s.DeviceNs(), DeviceUs: s.DeviceUs(),
		Ranks: []rankJSON{}, Kernels: []kernelJSON{}}
	for _, r := range s.Ranks {
		doc.Ranks = append(doc.Ranks, rankJSON{r.Number, r.Named, r.Trace, r.DeviceNs, r.DeviceUs()})
	}
	total := s.DeviceUs()
	for _, k := range s.Kernels { // first-occurrence order, which a merge keeps
		op, nops := k.Op()
		c := k.Category(rules)
		sq := k.sumSq
		j := kernelJSON{Name: &k.Name, Kind: k.Kind.String(), Category: c.String(), Group: c.Group(), Calls: k.Calls,
			TotalNs: k.TotalNs, TotalUs: k.TotalUs(), MeanUs: k.MeanUs(), MedianUs: k.MedianUs(), MinNs: k.MinNs, MinUs: k.MinUs(),
			MaxNs: k.MaxNs, MaxUs: k.MaxUs(), StdUs: k.StdUs(), SumSqNs2: &sq,
			Streams: k.Streams, Op: op, Ops: nops, Ranks: k.Ranks, Hist: [][2]int64{}, LaunchedBy: []opJSON{}}
		if total > 0 {
			j.Percent = pctOf(k.TotalUs(), total)
		}
		if j.Streams == nil {
			j.Streams = []Stream{}
		}
		for b, n := range k.Hist {
			j.Hist = append(j.Hist, [2]int64{int64(b), n})
		}
		slices.SortFunc(j.Hist, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
		for n, sh := range k.Ops {
			j.LaunchedBy = append(j.LaunchedBy, opJSON{n, *sh, sh.TotalUs()})
		}
		slices.SortFunc(j.LaunchedBy, func(a, b opJSON) int {
			return cmp.Or(cmp.Compare(b.TotalNs, a.TotalNs), cmp.Compare(a.Op, b.Op))
		})
		doc.Kernels = append(doc.Kernels, j)
	}
	enc := json.NewEncoder(w)
	if !compact {
		enc.SetIndent("", " ")
	}
	return enc.Encode(doc)
}

// maxSummaryBytes bounds a summary file (a kernel row is a few hundred bytes).
const maxSummaryBytes = 1 << 30

// ReadSummary reads a kernels summary (Write's json, version 2, plain or gzip already undone
// by the caller) from r; name is used in errors. Strict JSON, one object. Anything
// inconsistent is an error naming the kernel: an unknown kind, negative counts or times,
// figures no set of durations can have (a total outside calls × [min, max], a sum of squares
// below total²/calls or outside total × [min, max]), a histogram or operator counts and
// times that do not add up to the kernel's, kernel totals that do not add up to the ranks'
// device time, two rows with the same name and kind. A version 1 summary is refused (its
// figures are floats that do not merge exactly).
func ReadSummary(r io.Reader, name string) (*Summary, error) {
	lr := &io.LimitedReader{R: r, N: maxSummaryBytes + 1}
	data, err := io.ReadAll(lr)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", name, quote.Clip(err.Error()))
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("%s: larger than %d bytes: not a kernels summary", name, maxSummaryBytes)
	}
	if v, ok := peekVersion(data); ok && v != jsonVersion {
		if v == 1 {
			return nil, fmt.Errorf("%s: kernels summary version 1: its float statistics (field \"m2\") do not merge exactly; "+
				"this orprof reads version %d: write the summary again with orprof kernels --format json TRACE", name, jsonVersion)
		}
		return nil, fmt.Errorf("%s: kernels summary version %d: this orprof reads version %d", name, v, jsonVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc docJSON
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: not a valid kernels summary: %s", name, quote.Clip(err.Error()))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: byte %d: data after the kernels summary", name, dec.InputOffset())
	}
	if doc.Version != jsonVersion {
		return nil, fmt.Errorf("%s: kernels summary version %d: this orprof reads version %d", name, doc.Version, jsonVersion)
	}
	if len(doc.Ranks) == 0 {
		return nil, fmt.Errorf("%s: a kernels summary with no ranks", name)
	}
	s := &Summary{Device: doc.Device, index: map[kernelKey]int{}}
	var ranksNs, kernelsNs int64
	for i, r := range doc.Ranks {
		var over bool
		ranksNs, over = addNs(ranksNs, r.DeviceNs)
		if r.DeviceNs < 0 || over {
			return nil, fmt.Errorf("%s: rank %d: device_ns %d out of range", name, i+1, r.DeviceNs)
		}
		s.Ranks = append(s.Ranks, Rank{Rank: trace.Rank{Number: r.Rank, Named: r.FromTrace, Trace: r.File}, DeviceNs: r.DeviceNs})
	}
	for i, j := range doc.Kernels {
		if j.Name == nil {
			return nil, fmt.Errorf("%s: kernel %d: no field \"name\" (every row names its kernel)", name, i+1)
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s: kernel %d (%s): %s", name, i+1, quote.String(*j.Name), fmt.Sprintf(format, a...))
		}
		kind, ok := kindByName[j.Kind]
		if !ok || !kind.DeviceTime() {
			return nil, bad("kind %s is not a device event kind", quote.String(j.Kind))
		}
		if j.Calls < 1 || j.TotalNs < 0 || j.MinNs < 0 || j.MaxNs < j.MinNs || j.Ranks < 1 || j.Ranks > len(doc.Ranks) {
			return nil, bad("calls %d, times or ranks out of range", j.Calls)
		}
		if j.SumSqNs2 == nil {
			return nil, bad("no sum_sq_ns2")
		}
		var over bool
		if kernelsNs, over = addNs(kernelsNs, j.TotalNs); over {
			return nil, bad("total_ns %d: the kernels' device time passes 2^63 ns", j.TotalNs)
		}
		if err := checkMoments(j.Calls, j.TotalNs, j.MinNs, j.MaxNs, *j.SumSqNs2); err != "" {
			return nil, bad("%s", err)
		}
		k := &Kernel{Name: *j.Name, Kind: kind, Calls: j.Calls, TotalNs: j.TotalNs, MinNs: j.MinNs, MaxNs: j.MaxNs,
			sumSq: *j.SumSqNs2, Hist: map[int32]int64{}, Streams: j.Streams, Ops: map[string]*OpShare{}, Ranks: j.Ranks}
		var n int64
		for _, h := range j.Hist {
			if h[1] < 1 || h[1] > j.Calls || h[0] < -1 || h[0] > 1<<20 {
				return nil, bad("histogram bucket %d: count %d out of range", h[0], h[1])
			}
			k.Hist[int32(h[0])] += h[1]
			if n += h[1]; n > j.Calls {
				break
			}
		}
		if n != j.Calls {
			return nil, bad("the histogram counts %d calls of %d", n, j.Calls)
		}
		n = 0
		var t int64
		for _, o := range j.LaunchedBy {
			if o.Calls < 1 || o.Calls > j.Calls || o.TotalNs < 0 || o.TotalNs > j.TotalNs {
				return nil, bad("launched_by %s: calls %d or total_ns %d out of range", quote.String(o.Op), o.Calls, o.TotalNs)
			}
			if _, dup := k.Ops[o.Op]; dup {
				return nil, bad("launched_by %s twice", quote.String(o.Op))
			}
			sh := o.OpShare
			k.Ops[o.Op] = &sh
			n += o.Calls
			t += o.TotalNs
			if n > j.Calls || t > j.TotalNs {
				break
			}
		}
		if n != j.Calls || t != j.TotalNs {
			return nil, bad("launched_by counts %d calls of %d ns; the kernel, %d of %d ns", n, t, j.Calls, j.TotalNs)
		}
		if !slices.IsSortedFunc(k.Streams, cmpStream) {
			slices.SortFunc(k.Streams, cmpStream)
		}
		k.Streams = slices.CompactFunc(k.Streams, func(a, b Stream) bool { return a == b })
		key := kernelKey{k.Name, k.Kind}
		if _, dup := s.index[key]; dup {
			return nil, bad("a second row with the same name and kind")
		}
		s.index[key] = len(s.Kernels)
		s.Kernels = append(s.Kernels, k)
	}
	if kernelsNs != ranksNs {
		return nil, fmt.Errorf("%s: the kernels' total_ns add up to %d, the ranks' device_ns to %d", name, kernelsNs, ranksNs)
	}
	return s, nil
}

// peekVersion reads the value of the document's first member when it is "orprof_kernels".
func peekVersion(data []byte) (int, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, false
	}
	if t, err := dec.Token(); err != nil || t != "orprof_kernels" {
		return 0, false
	}
	var v int
	if err := dec.Decode(&v); err != nil {
		return 0, false
	}
	return v, true
}

// checkMoments says what makes calls durations in [min, max] with sum total and sum of
// squares s2 impossible ("" if nothing does): the checks that keep every figure derived from
// them finite and in range (a variance ≥ 0, a mean within [min, max]).
func checkMoments(calls, total, minNs, maxNs int64, s2 u128) string {
	n, t := big.NewInt(calls), big.NewInt(total)
	lo, hi := big.NewInt(minNs), big.NewInt(maxNs)
	// (n−1)·min + max ≤ total ≤ min + (n−1)·max: the least and the greatest are two of the calls.
	n1 := big.NewInt(calls - 1)
	if calls == 1 && (minNs != maxNs || total != minNs) ||
		new(big.Int).Add(new(big.Int).Mul(n1, lo), hi).Cmp(t) > 0 || new(big.Int).Add(new(big.Int).Mul(n1, hi), lo).Cmp(t) < 0 {
		return fmt.Sprintf("total_ns %d is not the sum of %d durations from min_ns %d to max_ns %d", total, calls, minNs, maxNs)
	}
	sq := s2.big()
	// total·min ≤ Σd² ≤ total·max (each d² is between d·min and d·max) and n·Σd² ≥ total²
	// (Cauchy–Schwarz: the variance is not negative).
	if new(big.Int).Mul(t, lo).Cmp(sq) > 0 || new(big.Int).Mul(t, hi).Cmp(sq) < 0 || new(big.Int).Mul(n, sq).Cmp(new(big.Int).Mul(t, t)) < 0 {
		return fmt.Sprintf("sum_sq_ns2 %s is not the sum of the squares of %d durations of total_ns %d from min_ns %d to max_ns %d",
			quote.Clip(s2.String()), calls, total, minNs, maxNs)
	}
	return ""
}
