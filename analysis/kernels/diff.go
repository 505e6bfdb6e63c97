package kernels

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/orprof/orprof/text"
)

// DiffRow is one kernel (name and kind) in either of two summaries.
type DiffRow struct {
	Name                    string
	Kind                    string
	Category                string
	CallsBefore, CallsAfter int64
	// BeforeNs and AfterNs are the kernel's total device time on each side (ns).
	BeforeNs, AfterNs int64
}

// BeforeUs, AfterUs and DeltaUs are BeforeNs, AfterNs and AfterNs − BeforeNs in µs.
func (r *DiffRow) BeforeUs() float64 { return nsToUs(r.BeforeNs) }
func (r *DiffRow) AfterUs() float64  { return nsToUs(r.AfterNs) }
func (r *DiffRow) DeltaUs() float64  { return nsToUs(r.AfterNs - r.BeforeNs) }

// Diff compares two kernel summaries kernel by kernel: every name and kind of either side,
// the largest increase of total time first (then the largest decrease last; ties by name).
func Diff(before, after *Summary, rules *Rules) []DiffRow {
	idx := map[kernelKey]int{}
	var rows []DiffRow
	row := func(k *Kernel) *DiffRow {
		key := kernelKey{k.Name, k.Kind}
		i, ok := idx[key]
		if !ok {
			i = len(rows)
			idx[key] = i
			rows = append(rows, DiffRow{Name: k.Name, Kind: k.Kind.String(), Category: k.Category(rules).String()})
		}
		return &rows[i]
	}
	for _, k := range before.Kernels {
		r := row(k)
		r.CallsBefore, r.BeforeNs = k.Calls, k.TotalNs
	}
	for _, k := range after.Kernels {
		r := row(k)
		r.CallsAfter, r.AfterNs = k.Calls, k.TotalNs
	}
	slices.SortStableFunc(rows, func(a, b DiffRow) int {
		return cmp.Or(cmp.Compare(b.AfterNs-b.BeforeNs, a.AfterNs-a.BeforeNs), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Kind, b.Kind))
	})
	return rows
}

// WriteDiff renders Diff's rows in format f (rowLimit > 0: at most that many in text and
// markdown), then the device totals of both sides.
func WriteDiff(w io.Writer, f text.Format, rows []DiffRow, before, after *Summary, rowLimit, maxName int) error {
	tb, ta := before.DeviceUs(), after.DeviceUs()
	if f == text.JSON {
		type rowJSON struct {
			Name        string  `json:"name"`
			Kind        string  `json:"kind"`
			Category    string  `json:"category"`
			CallsBefore int64   `json:"calls_before"`
			CallsAfter  int64   `json:"calls_after"`
			BeforeUs    float64 `json:"total_us_before"`
			AfterUs     float64 `json:"total_us_after"`
			DeltaUs     float64 `json:"delta_us"`
		}
		doc := struct {
			BeforeUs float64   `json:"device_us_before"`
			AfterUs  float64   `json:"device_us_after"`
			Rows     []rowJSON `json:"kernels"`
		}{tb, ta, []rowJSON{}}
		for _, r := range rows {
			doc.Rows = append(doc.Rows, rowJSON{r.Name, r.Kind, r.Category, r.CallsBefore, r.CallsAfter, r.BeforeUs(), r.AfterUs(), r.DeltaUs()})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(doc)
	}
	all := f == text.CSV
	// One unit for every time of the table and its footer (timeUnit), so that a column reads
	// at a glance and the columns compare: "683.000us" beside "1.700s" did not.
	unit, div := "us", 1.0
	if !all {
		big := max(abs(tb), abs(ta), abs(ta-tb))
		for _, r := range rows {
			big = max(big, r.BeforeUs(), r.AfterUs(), abs(r.DeltaUs()))
		}
		unit, div = timeUnit(big)
	}
	tm := func(v float64) string {
		if all {
			return us(v)
		}
		return strconv.FormatFloat(v/div, 'f', 3, 64)
	}
	t := &table{head: []string{"Kernel", "Kind", "Category", "Calls before", "Calls after", "Before (" + unit + ")",
		"After (" + unit + ")", "Delta (" + unit + ")", "Delta %"},
		left: []bool{true, true, true, false, false, false, false, false, false}}
	shown := rows
	if !all && rowLimit > 0 && len(shown) > rowLimit {
		shown = shown[:rowLimit]
	}
	for _, r := range shown {
		delta := tm(r.DeltaUs())
		if r.DeltaUs() > 0 && !all {
			delta = "+" + delta
		}
		t.rows = append(t.rows, []string{r.Name, r.Kind, r.Category, strconv.FormatInt(r.CallsBefore, 10),
			strconv.FormatInt(r.CallsAfter, 10), tm(r.BeforeUs()), tm(r.AfterUs()), delta, diffPct(r.BeforeNs, r.AfterNs)})
	}
	var b bytes.Buffer
	switch f {
	case text.Text:
		t.text(&b, maxName)
	case text.Markdown:
		t.markdown(&b)
		b.WriteByte('\n')
	case text.CSV:
		t.csv(&b)
		_, err := w.Write(b.Bytes())
		return err
	default:
		return fmt.Errorf("format %q: must be text, markdown, csv or json", f)
	}
	d := tm(ta - tb)
	if ta > tb {
		d = "+" + d
	}
	change := d + " " + unit
	if p := diffPct(before.DeviceNs(), after.DeviceNs()); p != "new" {
		change += ", " + p
	}
	fmt.Fprintf(&b, "Device time total: %s %s before, %s %s after (%s)\n", tm(tb), unit, tm(ta), unit, change)
	_, err := w.Write(b.Bytes())
	return err
}

// diffPct is the change from before to after in % ("new" when before is 0 and after is not).
func diffPct(before, after int64) string {
	switch {
	case before > 0:
		return strconv.FormatFloat(100*float64(after-before)/float64(before), 'f', 2, 64) + "%"
	case after == 0:
		return "0.00%"
	}
	return "new"
}

// timeUnit is the unit that shows µs values up to big ("ms" from 1 ms, else "us"), and the
// divisor that turns µs into it: with three decimals either keeps every µs, where seconds
// would show a 683 µs kernel as 0.001.
func timeUnit(big float64) (string, float64) {
	if big >= 1e3 {
		return "ms", 1e3
	}
	return "us", 1
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
