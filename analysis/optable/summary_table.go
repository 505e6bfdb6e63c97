package optable

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/text"
)

// SummaryOutput selects what WriteSummary adds to the operator table.
type SummaryOutput struct {
	// ByRank adds the per-rank totals and, per printed op, the slowest rank (text and markdown:
	// two more tables; CSV: four more columns; JSON always has them).
	ByRank bool
}

// WriteSummary writes s in format f: the operator table of its rows (as Write does) and, when
// it sums several ranks, a line saying how many and where their numbers came from; JSON is
// WriteSummaryJSON. It returns how many rows the row limit left out.
func WriteSummary(w io.Writer, f text.Format, s *Summary, o TableOptions, out SummaryOutput) (left int, err error) {
	o = s.TableOptions(o)
	avgs := s.Averages()
	idx, left, err := printedRows(avgs, o)
	if err != nil {
		return 0, err
	}
	switch f {
	case text.JSON:
		return left, WriteSummaryJSON(w, s, o)
	case text.CSV:
		return left, writeSummaryCSV(w, s, idx, out.ByRank)
	}
	if err := Write(w, f, avgs, o); err != nil {
		return 0, err
	}
	var b bytes.Buffer
	if l := s.DeviceLinks(); l.Notable() {
		b.WriteString(l.Line() + "\n")
	}
	if len(s.Ranks) < 2 && !out.ByRank {
		_, err = w.Write(b.Bytes())
		return left, err
	}
	b.WriteString("\n" + describeRanks(s) + "\n")
	if out.ByRank {
		md := f == text.Markdown
		dev := deviceLabel(&o)
		// The device column is there when the operator table has device columns: a CPU-only
		// profile has no device time to show, not a column of zeros.
		hasDev := TableTotals(avgs).HasDevice
		b.WriteString("\n")
		rt := textTable{md: md, cols: []column{{"Rank", 6, false}, {"Self CPU", 12, false}, {"Self " + dev, 12, false}, {"File", 4, true}}}
		if !hasDev {
			rt.cols = append(rt.cols[:2], rt.cols[3])
		}
		for _, r := range s.Ranks {
			if hasDev {
				rt.add(strconv.FormatInt(r.Number, 10), text.Time(r.SelfCPUTimeTotal), text.Time(r.SelfDeviceTimeTotal), r.Trace)
			} else {
				rt.add(strconv.FormatInt(r.Number, 10), text.Time(r.SelfCPUTimeTotal), r.Trace)
			}
		}
		rt.write(&b)
		if hasDev {
			b.WriteString("\nSlowest rank per op: the rank with the largest CPU total (" + dev +
				" total for ops with device time); mean over the ranks the op ran on.\n\n")
		} else {
			b.WriteString("\nSlowest rank per op: the rank with the largest CPU total; mean over the ranks the op ran on.\n\n")
		}
		name := min(o.MaxNameColumnWidth, 55)
		if name == 0 {
			name = 55
		}
		st := textTable{md: md, cols: []column{{"Name", 4, false}, {"Ranks", 8, false}, {"Slowest rank", 12, false},
			{"Slowest", 12, false}, {"Mean", 12, false}, {"Slowest/mean", 12, false}}}
		for _, k := range idx {
			r := &s.Rows[k]
			at, us, _ := r.Slowest()
			total := r.CPUTimeTotal
			if r.DeviceTimeTotal > 0 {
				total = r.DeviceTimeTotal
			}
			mean := total / float64(r.Ranks)
			ratio := "NaN"
			if mean > 0 {
				ratio = strconv.FormatFloat(us/mean, 'f', 2, 64)
			}
			key := r.Key
			if runeLen(key) >= name-3 {
				key = string([]rune(key)[:name-3]) + "..."
			}
			st.add(key, strconv.Itoa(r.Ranks), strconv.FormatInt(s.Ranks[at].Number, 10), text.Time(us), text.Time(mean), ratio)
		}
		st.write(&b)
	}
	_, err = w.Write(b.Bytes())
	return left, err
}

// textTable is a small table in the operator table's style (columns right-aligned unless
// left, two spaces apart, dashed rules) or, with md, a markdown table.
type textTable struct {
	md   bool
	cols []column
	rows [][]string
}

// add adds a row of cells: in text escaped as the op table escapes its names, for a terminal
// (quote.Printable); markdown escapes them as it writes them (text.MarkdownCell).
func (t *textTable) add(cells ...string) {
	for i, c := range cells {
		if t.md {
			continue
		}
		c = quote.Printable(c)
		cells[i] = c
		if n := runeLen(c); n > t.cols[i].width {
			t.cols[i].width = n
		}
	}
	t.rows = append(t.rows, cells)
}

func (t *textTable) write(b *bytes.Buffer) {
	hdr := make([]string, len(t.cols))
	for i, c := range t.cols {
		hdr[i] = c.header
	}
	if t.md {
		m := text.Table{Head: hdr, Left: make([]bool, len(t.cols)), Rows: t.rows}
		for i, c := range t.cols {
			m.Left[i] = c.left
		}
		m.WriteMarkdown(b) // a bytes.Buffer does not fail
		return
	}
	var sep []byte
	for _, c := range t.cols {
		sep = append(sep, strings.Repeat("-", c.width)...)
		sep = append(sep, ' ', ' ')
	}
	sep = append(sep, '\n')
	row := func(cells []string) {
		var l []byte
		for i, c := range t.cols {
			l = pad(l, cells[i], c.width, c.left)
		}
		b.Write(bytes.TrimRight(l, " "))
		b.WriteByte('\n')
	}
	b.Write(sep)
	row(hdr)
	b.Write(sep)
	for _, r := range t.rows {
		row(r)
	}
	b.Write(sep)
}

// writeSummaryCSV is WriteCSV over the rows idx of s, with the per-rank columns when byRank.
func writeSummaryCSV(w io.Writer, s *Summary, idx []int, byRank bool) error {
	t := text.Table{Head: rowFields}
	if byRank {
		t.Head = append(t.Head[:len(t.Head):len(t.Head)], "ranks", "slowest_rank", "slowest_time_total", "slowest_by")
	}
	for _, k := range idx {
		r := &s.Rows[k]
		vals := fieldValues(&r.Avg)
		if byRank {
			at, us, dev := r.Slowest()
			by := "cpu_time_total"
			if dev {
				by = "device_time_total"
			}
			vals = append(vals, strconv.Itoa(r.Ranks), strconv.FormatInt(s.Ranks[at].Number, 10),
				csvTime(us), by)
		}
		t.Rows = append(t.Rows, vals)
	}
	return t.WriteCSV(w)
}
