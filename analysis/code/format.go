package code

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/text"
)

// Format is the one output form of every command's tables (text.Format).
type Format = text.Format

// The forms, as package text names them.
const (
	Text     = text.Text
	Markdown = text.Markdown
	CSV      = text.CSV
	JSON     = text.JSON
)

// ParseFormat reads a --format value.
func ParseFormat(s string) (Format, bool) { return text.ParseFormat(s) }

// WriteOptions tune Write.
type WriteOptions struct {
	// RowLimit is how many rows text and markdown print (the largest; the none row is
	// always printed): N > 0 the first N, text.RowLimitNone none (the totals still print),
	// 0 or text.RowLimitAll all. csv and json print every row.
	RowLimit int
	// TopKernels is how many kernels a row names (0: 3).
	TopKernels int
	// MaxNameWidth caps the name columns of text (0: 60).
	MaxNameWidth int
}

// Write renders s in format f: text and markdown a table, largest first (device time, then
// CPU time), and the lines that say what the totals are and what could not be attributed;
// csv the same rows, every one, times in integer ns; json the summary, which ReadSummary
// reads back and Merge merges.
func Write(w io.Writer, f Format, s *Summary, o WriteOptions) error {
	if f == JSON {
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	if o.TopKernels <= 0 {
		o.TopKernels = 3
	}
	rows := s.Sorted()
	none := s.noneKey()
	if f != CSV && o.RowLimit == text.RowLimitNone {
		rows = nil
	}
	if f != CSV && o.RowLimit > 0 && len(rows) > o.RowLimit {
		var kept []Row
		for i, r := range rows {
			if i < o.RowLimit || r.Key == none {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	t := s.table(rows, f == CSV, o.TopKernels)
	var b bytes.Buffer
	switch f {
	case Text:
		writeText(&b, t, o.MaxNameWidth)
		b.WriteString(s.footer(len(rows)))
	case Markdown:
		if err := t.WriteMarkdown(&b); err != nil {
			return err
		}
		b.WriteString("\n" + s.footer(len(rows)))
	case CSV:
		if err := t.WriteCSV(&b); err != nil {
			return err
		}
	default:
		return fmt.Errorf("format %s: must be text, markdown, csv or json", quote.String(string(f)))
	}
	_, err := w.Write(b.Bytes())
	return err
}

func (s *Summary) noneKey() string { return byName(s.By).None() }

// rowName is the head of the rows' column.
func (s *Summary) rowName() string {
	switch byName(s.By) {
	case ByLine:
		return "Source line"
	case ByPhase:
		return "Phase"
	}
	return "Module"
}

func (s *Summary) table(rows []Row, csv bool, top int) *text.Table {
	name := s.rowName()
	t := &text.Table{Left: []bool{true}}
	incl := s.By == "module"
	if csv {
		t.Head = []string{name, "calls", "fwd_cpu_ns", "fwd_device_ns", "bwd_cpu_ns", "bwd_device_ns"}
		if incl {
			t.Head = append(t.Head, "incl_cpu_ns", "incl_device_ns")
		}
		t.Head = append(t.Head, "top_kernels")
	} else {
		t.Head = []string{name, "Calls", "Fwd CPU", "Fwd device", "Bwd CPU", "Bwd device", "CPU %", "Device %"}
		if incl {
			t.Head = append(t.Head, "Incl CPU", "Incl device")
		}
		t.Head = append(t.Head, "Top kernels")
	}
	for len(t.Left) < len(t.Head)-1 {
		t.Left = append(t.Left, false)
	}
	t.Left = append(t.Left, true)
	for i := range rows {
		r := &rows[i]
		var cells []string
		if csv {
			cells = []string{r.Key, itoa(r.Calls), itoa(r.FwdCPUNs), itoa(r.FwdDevNs), itoa(r.BwdCPUNs), itoa(r.BwdDevNs)}
			if incl {
				c, d := s.Inclusive(r.Key)
				cells = append(cells, itoa(c), itoa(d))
			}
		} else {
			cells = []string{r.Key, itoa(r.Calls), fmtNs(r.FwdCPUNs), fmtNs(r.FwdDevNs), fmtNs(r.BwdCPUNs), fmtNs(r.BwdDevNs),
				pct(r.CPUNs(), s.CPUNs), pct(r.DevNs(), s.DevNs)}
			if incl {
				c, d := s.Inclusive(r.Key)
				cells = append(cells, fmtNs(c), fmtNs(d))
			}
		}
		var ks []string
		for _, k := range r.TopKernels(top) {
			if csv {
				ks = append(ks, k.Name+" ("+itoa(k.Ns)+")")
			} else {
				ks = append(ks, k.Name+" ("+pct(k.Ns, r.DevNs())+")")
			}
		}
		cells = append(cells, strings.Join(ks, "; "))
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// footer says what the totals are, that the rows sum to them, and what is in the none row.
func (s *Summary) footer(shown int) string {
	var b strings.Builder
	if shown < len(s.Rows) {
		fmt.Fprintf(&b, "%d of %d rows shown (--row-limit); the totals are every row's.\n", shown, len(s.Rows))
	}
	fmt.Fprintf(&b, "CPU op time (self time of every op, annotation and runtime call, as the table's Self CPU time total): %s; device time linked to ops: %s. The rows sum to both.\n",
		fmtNs(s.CPUNs), fmtNs(s.DevNs))
	for _, u := range s.Unattributed {
		fmt.Fprintf(&b, "%s: %s CPU, %s device: %s.\n", s.noneKey(), fmtNs(u.CPUNs), fmtNs(u.DevNs), u.Reason)
	}
	if s.UnlinkedDevNs > 0 {
		fmt.Fprintf(&b, "Not in any row: %s of device time linked to no op (the reader's warning says why).\n", fmtNs(s.UnlinkedDevNs))
	}
	if len(s.Traces) > 1 {
		fmt.Fprintf(&b, "%d traces summed.\n", len(s.Traces))
	}
	return b.String()
}

func writeText(b *bytes.Buffer, t *text.Table, maxName int) {
	if maxName <= 0 {
		maxName = 60
	}
	cells := [][]string{t.Head}
	for _, r := range t.Rows {
		c := make([]string, len(r))
		for i, v := range r {
			v = quote.Printable(v)
			if i < len(t.Left) && t.Left[i] && utf8.RuneCountInString(v) > maxName {
				if rs := []rune(v); i == 0 {
					v = "..." + string(rs[len(rs)-(maxName-3):]) // a path's end is its most telling part
				} else {
					v = string(rs[:maxName-3]) + "..."
				}
			}
			c[i] = v
		}
		cells = append(cells, c)
	}
	w := make([]int, len(t.Head))
	for _, r := range cells {
		for i, v := range r {
			w[i] = max(w[i], utf8.RuneCountInString(v))
		}
	}
	line := func(r []string) {
		var l strings.Builder
		for i, v := range r {
			pad := strings.Repeat(" ", w[i]-utf8.RuneCountInString(v))
			if t.Left[i] {
				l.WriteString(v + pad)
			} else {
				l.WriteString(pad + v)
			}
			l.WriteString("  ")
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	sep := func() {
		var l strings.Builder
		for i := range w {
			l.WriteString(strings.Repeat("-", w[i]) + "  ")
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	sep()
	line(cells[0])
	sep()
	for _, r := range cells[1:] {
		line(r)
	}
	sep()
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// fmtNs prints a time as the operator table does: µs below a millisecond, ms below a
// second, else s, with three decimals.
func fmtNs(ns int64) string {
	switch us := float64(ns) / 1e3; {
	case us >= 1e6:
		return strconv.FormatFloat(us/1e6, 'f', 3, 64) + "s"
	case us >= 1e3:
		return strconv.FormatFloat(us/1e3, 'f', 3, 64) + "ms"
	default:
		return strconv.FormatFloat(us, 'f', 3, 64) + "us"
	}
}

func pct(part, total int64) string {
	if total == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(part)/float64(total), 'f', 2, 64) + "%"
}

// WriteKernels renders s as the kernels of each row (`orprof kernels --by module|line`): one
// line per row and kernel name, largest first, with the kernel's device time in the row and its
// share of the row's and of all linked device time. text, markdown and csv only (the summary
// itself is Write's json).
func WriteKernels(w io.Writer, f Format, s *Summary, o WriteOptions) error {
	name := s.rowName()
	type pair struct {
		row    *Row
		kernel KernelTime
	}
	var pairs []pair
	rows := s.Sorted()
	for i := range rows {
		for _, k := range rows[i].TopKernels(0) {
			pairs = append(pairs, pair{&rows[i], k})
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return cmp.Compare(b.kernel.Ns, a.kernel.Ns) })
	shown := len(pairs)
	if f != CSV && o.RowLimit > 0 && shown > o.RowLimit {
		shown = o.RowLimit
	}
	if f != CSV && o.RowLimit == text.RowLimitNone {
		shown = 0
	}
	t := &text.Table{Left: []bool{true, true}}
	if f == CSV {
		t.Head = []string{strings.ToLower(strings.ReplaceAll(name, " ", "_")), "kernel", "device_ns"}
	} else {
		t.Head = []string{name, "Kernel", "Device", "% of row", "% of device"}
	}
	for _, p := range pairs[:shown] {
		if f == CSV {
			t.Rows = append(t.Rows, []string{p.row.Key, p.kernel.Name, itoa(p.kernel.Ns)})
		} else {
			t.Rows = append(t.Rows, []string{p.row.Key, p.kernel.Name, fmtNs(p.kernel.Ns), pct(p.kernel.Ns, p.row.DevNs()), pct(p.kernel.Ns, s.DevNs)})
		}
	}
	for len(t.Left) < len(t.Head) {
		t.Left = append(t.Left, false)
	}
	var b bytes.Buffer
	footer := func() {
		if shown < len(pairs) {
			fmt.Fprintf(&b, "%d of %d rows shown (--row-limit).\n", shown, len(pairs))
		}
		fmt.Fprintf(&b, "Device time linked to ops: %s, in %d pairs of a row and a kernel name (%d rows).\n", fmtNs(s.DevNs), len(pairs), len(s.Rows))
		if s.UnlinkedDevNs > 0 {
			fmt.Fprintf(&b, "Not in any row: %s of device time linked to no op.\n", fmtNs(s.UnlinkedDevNs))
		}
	}
	switch f {
	case Text:
		writeText(&b, t, o.MaxNameWidth)
		footer()
	case Markdown:
		if err := t.WriteMarkdown(&b); err != nil {
			return err
		}
		b.WriteString("\n")
		footer()
	case CSV:
		if err := t.WriteCSV(&b); err != nil {
			return err
		}
	default:
		return fmt.Errorf("format %s: the kernels of each row are text, markdown or csv (orprof code --format json writes the summary)", quote.String(string(f)))
	}
	_, err := w.Write(b.Bytes())
	return err
}
