package optable

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/orprof/orprof/text"
)

// DiffSide is one op's figures on one side of a diff.
type DiffSide struct {
	Count      int64   `json:"count"`
	SelfCPU    float64 `json:"self_cpu_time_total"`
	SelfDevice float64 `json:"self_device_time_total"`
}

// DiffRow is one op of a diff: its figures before and after, and which side it is missing from.
type DiffRow struct {
	Key string `json:"key"`
	// DeviceType is the row's device ("cpu" for host ops, "cuda" for kernels, …).
	DeviceType string   `json:"device_type"`
	Before     DiffSide `json:"before"`
	After      DiffSide `json:"after"`
	// Only is "before" or "after" for an op found on one side only, else "".
	Only string `json:"only,omitempty"`
}

// DeltaCPU is After − Before of the self CPU time (µs).
func (r *DiffRow) DeltaCPU() float64 { return r.After.SelfCPU - r.Before.SelfCPU }

// DeltaDevice is After − Before of the self device time (µs).
func (r *DiffRow) DeltaDevice() float64 { return r.After.SelfDevice - r.Before.SelfDevice }

// Regression is how much more self time the op took, host and device together: ΔCPU + Δdevice
// (negative when it got faster).
func (r *DiffRow) Regression() float64 { return r.DeltaCPU() + r.DeltaDevice() }

// CheckDiff returns why before and after cannot be compared op by op, or nil: summaries grouped
// differently (by input shape, by stack frames) have different keys for the same op, so every
// op would be "before only" or "after only". MergeSummaries refuses the same pair. The error
// is a *MergeError with Index 1 (after) and Other 0 (before), to be named by the caller.
// Summaries of different devices can be compared: the diff labels each side with its own.
func CheckDiff(before, after *Summary) error {
	if before.GroupByInputShape != after.GroupByInputShape || before.GroupByStackN != after.GroupByStackN {
		return &MergeError{Index: 1, Other: 0,
			pre:  fmt.Sprintf("was grouped differently (group by input shape %v, stack frames %d) from ", after.GroupByInputShape, after.GroupByStackN),
			post: fmt.Sprintf(" (%v, %d): make both with the same grouping flags", before.GroupByInputShape, before.GroupByStackN)}
	}
	return nil
}

// Diff matches the rows of two summaries by their key_averages key (name, node id, device type,
// legacy and user-annotation flags, and the grouped fields) and returns one row per op, sorted
// by the largest regression first (DiffRow.Regression: the change of self CPU plus self device
// time; ties in the order the ops first occur, before's then after's). Ops on one side only are
// marked.
func Diff(before, after *Summary) []DiffRow {
	idx := make(map[string]int, len(before.Rows))
	var out []DiffRow
	var kb []byte
	add := func(s *Summary, side int) {
		for i := range s.Rows {
			a := &s.Rows[i].Avg
			kb = rowKey(kb, a)
			k, ok := idx[string(kb)]
			if !ok {
				k = len(out)
				idx[string(kb)] = k
				out = append(out, DiffRow{Key: diffKey(a.Key, a.InputShapes, a.Stack), DeviceType: a.DeviceType.String()})
				if side == 0 {
					out[k].Only = "before"
				} else {
					out[k].Only = "after"
				}
			} else if side == 1 && out[k].Only == "before" {
				out[k].Only = ""
			}
			d := &out[k].Before
			if side == 1 {
				d = &out[k].After
			}
			d.Count += a.Count
			d.SelfCPU += a.SelfCPUTimeTotal
			d.SelfDevice += a.SelfDeviceTimeTotal
		}
	}
	add(before, 0)
	add(after, 1)
	slices.SortStableFunc(out, func(a, b DiffRow) int {
		x, y := a.Regression(), b.Regression()
		switch {
		case x > y:
			return -1
		case y > x:
			return 1
		}
		return 0
	})
	return out
}

// diffKey names a row with its grouped fields, so rows that differ only in them stay apart.
func diffKey(key, shapes string, stack []string) string {
	if shapes != "" {
		key += " " + shapes
	}
	if len(stack) > 0 {
		key += " @ " + strings.Join(stack, "; ")
	}
	return key
}

// DiffOptions shape WriteDiff's output.
type DiffOptions struct {
	// RowLimit is the number of rows written; RowLimitAll or 0 writes all, RowLimitNone none.
	RowLimit int
	// Device labels the device columns ("" = "device"): of both sides, or of the before side
	// when AfterDevice is set.
	Device string
	// AfterDevice labels the after side's device columns when it is another device than
	// Device's (a diff of a CUDA trace and an OpenReg one); "" = the same as Device. The delta
	// columns then say "device".
	AfterDevice string
	// MaxNameColumnWidth caps the Name column of text output (default 55).
	MaxNameColumnWidth int
	// Totals, when set, are the footer totals of before and after (Summary.Totals), printed
	// under text and markdown output.
	Totals *[2]Totals
}

// pct renders a change as a percentage of before: "+12.5%", "−3.0%"; "new" or "gone" for ops on
// one side; "" when both are 0.
func pct(before, after float64) string {
	switch {
	case before == 0 && after == 0:
		return ""
	case before == 0:
		return "new"
	case after == 0:
		return "gone"
	}
	p := (after - before) / before * 100
	return strconv.FormatFloat(p, 'f', 1, 64) + "%"
}

// change is a footer's change from before to after: the difference and its %, or "no
// change" when both are 0 (it printed "0.000us, " with an empty %).
func change(before, after float64) string {
	p := pct(before, after)
	if p == "" {
		return "no change"
	}
	return signedTime(after-before) + ", " + p
}

func signedTime(us float64) string {
	if us > 0 {
		return "+" + text.Time(us)
	}
	if us < 0 {
		return "-" + text.Time(-us)
	}
	return text.Time(0)
}

// WriteDiff writes rows in format f. Text and markdown: one line per op with count, self CPU and
// self device time before and after, their deltas and percentages, and a mark ("before only",
// "after only") for ops on one side. CSV and JSON carry the raw µs.
func WriteDiff(w io.Writer, f text.Format, rows []DiffRow, o DiffOptions) error {
	left := 0
	if o.RowLimit == RowLimitNone {
		left, rows = len(rows), nil
	}
	if o.RowLimit > 0 && len(rows) > o.RowLimit {
		left = len(rows) - o.RowLimit
		rows = rows[:o.RowLimit]
	}
	if o.MaxNameColumnWidth == 0 {
		o.MaxNameColumnWidth = 55
	}
	label := func(d string) string {
		if d == "" {
			return "device"
		}
		return strings.ToUpper(d)
	}
	dev, devAfter := label(o.Device), label(o.Device)
	if o.AfterDevice != "" && !strings.EqualFold(o.AfterDevice, o.Device) {
		devAfter = label(o.AfterDevice)
	}
	devBefore := dev
	if devAfter != devBefore {
		dev = "device" // the deltas are of two devices
	}
	switch f {
	case text.JSON:
		out := struct {
			Rows        []DiffRow `json:"rows"`
			RowsLeftOut int       `json:"rows_left_out"`
		}{Rows: rows, RowsLeftOut: left}
		if out.Rows == nil {
			out.Rows = []DiffRow{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(out)
	case text.CSV:
		t := text.Table{Head: []string{"key", "device_type", "only", "count_before", "count_after",
			"self_cpu_time_total_before", "self_cpu_time_total_after", "self_cpu_time_total_delta",
			"self_device_time_total_before", "self_device_time_total_after", "self_device_time_total_delta"}}
		g := csvTime
		for i := range rows {
			r := &rows[i]
			t.Rows = append(t.Rows, []string{r.Key, r.DeviceType, r.Only, strconv.FormatInt(r.Before.Count, 10),
				strconv.FormatInt(r.After.Count, 10), g(r.Before.SelfCPU), g(r.After.SelfCPU), g(r.DeltaCPU()),
				g(r.Before.SelfDevice), g(r.After.SelfDevice), g(r.DeltaDevice())})
		}
		return t.WriteCSV(w)
	}
	t := textTable{md: f == text.Markdown, cols: []column{{"Name", 4, false}, {"Calls before", 12, false},
		{"Calls after", 11, false}, {"Self CPU before", 15, false}, {"Self CPU after", 14, false},
		{"Δ Self CPU", 10, false}, {"Δ%", 6, false}, {"Self " + devBefore + " before", 12, false},
		{"Self " + devAfter + " after", 12, false}, {"Δ Self " + dev, 10, false}, {"Δ% " + dev, 6, false}, {"Note", 4, true}}}
	for i := range t.cols {
		// Never narrower than the header: "Self OPENREG before" overran its rule.
		t.cols[i].width = max(t.cols[i].width, runeLen(t.cols[i].header))
	}
	for i := range rows {
		r := &rows[i]
		name := r.Key
		if runeLen(name) >= o.MaxNameColumnWidth-3 {
			name = string([]rune(name)[:o.MaxNameColumnWidth-3]) + "..."
		}
		mark := ""
		if r.Only != "" {
			mark = r.Only + " only"
		}
		t.add(name, strconv.FormatInt(r.Before.Count, 10), strconv.FormatInt(r.After.Count, 10),
			text.Time(r.Before.SelfCPU), text.Time(r.After.SelfCPU), signedTime(r.DeltaCPU()),
			pct(r.Before.SelfCPU, r.After.SelfCPU), text.Time(r.Before.SelfDevice), text.Time(r.After.SelfDevice),
			signedTime(r.DeltaDevice()), pct(r.Before.SelfDevice, r.After.SelfDevice), mark)
	}
	var b bytes.Buffer
	t.write(&b)
	if left > 0 {
		if left == 1 {
			b.WriteString("1 more op left out by the row limit\n")
		} else {
			b.WriteString(strconv.Itoa(left) + " more ops left out by the row limit\n")
		}
	}
	if o.Totals != nil {
		tb, ta := o.Totals[0], o.Totals[1]
		b.WriteString("Self CPU time total: " + text.Time(tb.SelfCPU) + " -> " + text.Time(ta.SelfCPU) +
			" (" + change(tb.SelfCPU, ta.SelfCPU) + ")\n")
		if tb.HasDevice || ta.HasDevice {
			what := "Self " + dev + " time total: "
			if devBefore != devAfter {
				what = "Self device time total (" + devBefore + " -> " + devAfter + "): "
			}
			b.WriteString(what + text.Time(tb.SelfDevice) + " -> " + text.Time(ta.SelfDevice) +
				" (" + change(tb.SelfDevice, ta.SelfDevice) + ")\n")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}
