// Package report renders key averages as PyTorch's key_averages() table (byte-identical layout)
// and as markdown, CSV and JSON; keeps them as summaries that merge across ranks (Summary, whose
// JSON form `orprof merge` reads back) and compares two of them op by op (Diff). Traces are
// elsewhere: the model, writer and checker in trace, the reader in trace/tracefile,
// many traces at once in analysis/ranks, the pprof form in analysis/pprof.
package optable

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/text"
)

// Target selects which PyTorch release's labels a table uses.
type Target int

const (
	// TargetMain prints memory as KB/MB/GB/B, device columns named after the device
	// ("Self OPENREG") and every stack frame.
	TargetMain Target = iota
	// Target113 prints PyTorch 1.13's labels: Kb/Mb/Gb/b, device columns named CUDA, and at most
	// four extra stack frames.
	Target113
)

// TableOptions are table()'s arguments plus what the EventList carries.
type TableOptions struct {
	// SortBy is a FunctionEventAvg attribute name; "" keeps the key_averages order.
	SortBy string
	// RowLimit is the number of rows printed. The zero value means PyTorch's default, 100;
	// RowLimitAll (−1) prints every row and RowLimitNone (−2) none (PyTorch's row_limit=0).
	RowLimit int
	// MaxNameColumnWidth caps the Name column (default 55); MaxShapesColumnWidth the Input
	// Shapes column (default 80); MaxSrcColumnWidth the Source Location column (default 75).
	MaxNameColumnWidth   int
	MaxShapesColumnWidth int
	MaxSrcColumnWidth    int
	// Header, when set, is printed above the table under a line of '='.
	Header string
	// TopLevelEventsOnly prints only rows whose first event had no parent.
	TopLevelEventsOnly bool
	// UseDevice is the lower-case device name the profile used ("openreg"); it names the
	// device columns. Empty for CPU-only profiles.
	UseDevice     string
	ProfileMemory bool
	WithFlops     bool
	Target        Target
	// CompactJSON makes WriteSummaryJSON write its document on one line, without the
	// indentation (what a page embeds: package html).
	CompactJSON bool
}

// Special RowLimit values.
const (
	RowLimitAll  = text.RowLimitAll
	RowLimitNone = text.RowLimitNone
)

func (o *TableOptions) defaults() {
	if o.RowLimit == 0 {
		o.RowLimit = 100
	}
	if o.MaxNameColumnWidth == 0 {
		o.MaxNameColumnWidth = 55
	}
	if o.MaxShapesColumnWidth == 0 {
		o.MaxShapesColumnWidth = 80
	}
	if o.MaxSrcColumnWidth == 0 {
		o.MaxSrcColumnWidth = 75
	}
}

// SortAverages returns rows sorted by a PyTorch attribute name, descending and stable, as
// sorted(..., reverse=True) does. An empty name returns rows unchanged; an unknown name is an
// error naming it.
func SortAverages(rows []events.Avg, sortBy, useDevice string) ([]events.Avg, error) {
	if sortBy == "" {
		return rows, nil
	}
	var cmp func(a, b *events.Avg) int
	if sortBy == "key" {
		cmp = func(a, b *events.Avg) int { return strings.Compare(b.Key, a.Key) }
	} else {
		f, ok := events.SortKey(sortBy, useDevice)
		if !ok {
			return nil, fmt.Errorf("unknown sort key %q: FunctionEventAvg has no such attribute (try cpu_time_total, self_cpu_time_total, self_device_time_total, cpu_memory_usage, count)", sortBy)
		}
		cmp = func(a, b *events.Avg) int {
			switch x, y := f(a), f(b); {
			case x > y:
				return -1
			case y > x:
				return 1
			}
			return 0
		}
	}
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b events.Avg) int { return cmp(&a, &b) })
	return out, nil
}

// formatTimeShare renders t as a percentage of total ("12.34%"), or "NaN" when total is 0.
func formatTimeShare(t, total float64) string { return text.Percent(t, total, 2, "NaN") }

// formatMemory renders bytes as PyTorch does, base 1024, in the target's units.
func formatMemory(n int64, t Target) string {
	const kb, mb, gb = 1024, 1024 * 1024, 1024 * 1024 * 1024
	units := [4]string{" GB", " MB", " KB", " B"}
	if t == Target113 {
		units = [4]string{" Gb", " Mb", " Kb", " b"}
	}
	a := n
	if a < 0 {
		a = -a
	}
	switch {
	case a >= gb:
		return strconv.FormatFloat(float64(n)*1.0/gb, 'f', 2, 64) + units[0]
	case a >= mb:
		return strconv.FormatFloat(float64(n)*1.0/mb, 'f', 2, 64) + units[1]
	case a >= kb:
		return strconv.FormatFloat(float64(n)*1.0/kb, 'f', 2, 64) + units[2]
	}
	return strconv.FormatInt(n, 10) + units[3]
}

// deviceLabel is the upper-case device name of the device columns.
func deviceLabel(o *TableOptions) string {
	if o.Target == Target113 || o.UseDevice == "" {
		return "CUDA"
	}
	return strings.ToUpper(o.UseDevice)
}

// Totals are the footer sums of a table.
type Totals struct {
	SelfCPU    float64
	SelfDevice float64
	HasDevice  bool
}

// TableTotals sums the self CPU time of every row and the self device time of legacy host rows
// and device rows (user annotations excluded), as the table footer does. A scope profiler's
// "metrics: <kernel>" rows are left out of the device time too (events.IsScopeMetrics): their
// time is their kernel's, which another row counts.
func TableTotals(rows []events.Avg) Totals {
	var t Totals
	for i := range rows {
		r := &rows[i]
		t.SelfCPU += r.SelfCPUTimeTotal
		if r.SelfDeviceTimeTotal > 0 {
			t.HasDevice = true
		}
		if r.DeviceType == devices.CPU {
			if r.IsLegacy {
				t.SelfDevice += r.SelfDeviceTimeTotal
			}
		} else if !r.IsUserAnnotation && !events.IsScopeMetrics(r.Key, r.DeviceType) {
			t.SelfDevice += r.SelfDeviceTimeTotal
		}
	}
	return t
}

type column struct {
	header string
	width  int
	left   bool
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// pad appends s aligned in width w plus the two-space gap.
func pad(b []byte, s string, w int, left bool) []byte {
	n := w - runeLen(s)
	if !left {
		for ; n > 0; n-- {
			b = append(b, ' ')
		}
	}
	b = append(b, s...)
	if left {
		for ; n > 0; n-- {
			b = append(b, ' ')
		}
	}
	return append(b, ' ', ' ')
}

// WriteTable writes rows as PyTorch's EventList.table() prints them, byte for byte: sorted by
// SortBy, RowLimit rows, the footer totals. rows is not modified. An empty rows writes nothing.
func WriteTable(w io.Writer, rows []events.Avg, o TableOptions) error {
	b, err := appendTable(nil, rows, o)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// tableLine is one printed line of the table body: a row, a stack continuation or a blank.
type tableLine struct {
	cells []string
	row   int // index into model.rows; −1 for continuation and blank lines
}

// tableModel is a table laid out but not yet printed.
type tableModel struct {
	cols    []column
	lines   []tableLine
	rows    []events.Avg // the printed rows, in order
	totals  Totals
	dev     string
	lineLen int
}

// buildTable sorts, limits and lays out rows exactly as PyTorch's _build_table does.
func buildTable(rows []events.Avg, o TableOptions) (*tableModel, error) {
	o.defaults()
	rows, err := SortAverages(rows, o.SortBy, o.UseDevice)
	if err != nil {
		return nil, err
	}
	m := &tableModel{}
	if len(rows) == 0 {
		return m, nil
	}
	tot := TableTotals(rows)
	m.totals = tot
	var hasShapes, hasStack, hasNode, hasDevMem bool
	nameW, shapesW, srcW := 0, 0, 0
	for i := range rows {
		r := &rows[i]
		if n := runeLen(r.Key); n > nameW {
			nameW = n
		}
		s := r.InputShapes
		if s == "" {
			s = "None"
		}
		if n := runeLen(s); n > shapesW {
			shapesW = n
		}
		if r.InputShapes != "" && r.InputShapes != "[]" {
			hasShapes = true
		}
		if len(r.Stack) > 0 {
			hasStack = true
		}
		for _, f := range r.Stack {
			if n := runeLen(f); n > srcW {
				srcW = n
			}
		}
		if r.NodeID != -1 {
			hasNode = true
		}
		if r.SelfDeviceMemoryUsage > 0 {
			hasDevMem = true
		}
	}
	if o.Target == TargetMain && o.UseDevice == "" {
		hasDevMem = false
	}
	nameW = min(nameW+4, o.MaxNameColumnWidth)
	shapesW = min(shapesW+4, o.MaxShapesColumnWidth)
	srcW = min(srcW+4, o.MaxSrcColumnWidth)
	dev := deviceLabel(&o)

	cols := []column{{"Name", nameW, false}}
	for _, h := range []string{"Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"} {
		cols = append(cols, column{h, 12, false})
	}
	if tot.HasDevice {
		for _, h := range []string{"Self " + dev, "Self " + dev + " %", dev + " total", dev + " time avg"} {
			cols = append(cols, column{h, 12, false})
		}
	}
	if o.ProfileMemory {
		cols = append(cols, column{"CPU Mem", 12, false}, column{"Self CPU Mem", 12, false})
		if hasDevMem {
			cols = append(cols, column{dev + " Mem", 12, false}, column{"Self " + dev + " Mem", 12, false})
		}
	}
	cols = append(cols, column{"# of Calls", 12, false})
	if hasNode {
		cols = append(cols, column{"Node ID", 12, false})
	}
	if hasShapes {
		cols = append(cols, column{"Input Shapes", shapesW, false})
	}
	if hasStack {
		cols = append(cols, column{"Source Location", srcW, true})
	}
	withFlops := false
	flopsScale, flopsHeader := 1.0, ""
	if o.WithFlops {
		minF := int64(0)
		for i := range rows {
			if f := rows[i].Flops; f > 0 && (minF == 0 || f < minF) {
				minF = f
			}
		}
		if minF > 0 {
			withFlops = true
			flopsScale, flopsHeader = autoScaleFlops(float64(minF))
			cols = append(cols, column{"Total " + flopsHeader, 12, false})
		}
	}
	m.cols = cols
	m.dev = dev
	m.lineLen = -2
	for _, c := range cols {
		m.lineLen += c.width + 2
	}
	maxFrames := -1
	if o.Target == Target113 {
		maxFrames = 4
	}
	limit := 0
	vals := make([]string, 0, len(cols))
	for i := range rows {
		r := &rows[i]
		if limit == o.RowLimit || o.RowLimit == RowLimitNone {
			break
		}
		if o.TopLevelEventsOnly && r.HasParent {
			continue
		}
		limit++
		name := r.Key
		if runeLen(name) >= o.MaxNameColumnWidth-3 {
			name = string([]rune(name)[:o.MaxNameColumnWidth-3]) + "..."
		}
		vals = vals[:0]
		vals = append(vals, name,
			formatTimeShare(r.SelfCPUTimeTotal, tot.SelfCPU),
			text.Time(r.SelfCPUTimeTotal))
		if r.IsAsync {
			vals = append(vals, "0")
		} else {
			vals = append(vals, formatTimeShare(r.CPUTimeTotal, tot.SelfCPU))
		}
		vals = append(vals, text.Time(r.CPUTimeTotal), text.Time(r.CPUTime()))
		if tot.HasDevice {
			vals = append(vals, text.Time(r.SelfDeviceTimeTotal),
				formatTimeShare(r.SelfDeviceTimeTotal, tot.SelfDevice),
				text.Time(r.DeviceTimeTotal), text.Time(r.DeviceTime()))
		}
		if o.ProfileMemory {
			vals = append(vals, formatMemory(r.CPUMemoryUsage, o.Target), formatMemory(r.SelfCPUMemoryUsage, o.Target))
			if hasDevMem {
				vals = append(vals, formatMemory(r.DeviceMemoryUsage, o.Target), formatMemory(r.SelfDeviceMemoryUsage, o.Target))
			}
		}
		vals = append(vals, strconv.FormatInt(r.Count, 10))
		if hasNode {
			vals = append(vals, strconv.Itoa(r.NodeID))
		}
		if hasShapes {
			s := r.InputShapes
			if s == "" {
				s = "None"
			}
			if rs := []rune(s); len(rs) > shapesW {
				s = string(rs[:shapesW])
			}
			vals = append(vals, s)
		}
		src := ""
		if hasStack && len(r.Stack) > 0 {
			src = trimPath(r.Stack[0], srcW)
		}
		flops := ""
		if withFlops {
			flops = "--"
			if r.Flops > 0 {
				flops = fmt.Sprintf("%8.3f", float64(r.Flops)*flopsScale)
			}
		}
		// PyTorch (1.13 and main) appends the FLOPs value before the source location although
		// its headers put the source first, so each lands under the other's header. The 1.13
		// target prints that, to match PyTorch's bytes; the default puts values under their
		// own headers.
		swap := o.Target == Target113
		if withFlops && (swap || !hasStack) {
			vals = append(vals, flops)
		}
		if hasStack {
			vals = append(vals, src)
		}
		if withFlops && hasStack && !swap {
			vals = append(vals, flops)
		}
		m.rows = append(m.rows, *r)
		m.lines = append(m.lines, tableLine{cells: append([]string(nil), vals...), row: len(m.rows) - 1})
		if hasStack {
			frames := r.Stack
			if len(frames) > 0 {
				frames = frames[1:]
			}
			if maxFrames >= 0 && len(frames) > maxFrames {
				frames = frames[:maxFrames]
			}
			// PyTorch puts continuation frames in the last column, which is Total FLOPs when
			// FLOPs are shown; the default target puts them under Source Location.
			at := len(cols) - 1
			if withFlops && !swap {
				at = len(cols) - 2
			}
			for _, f := range frames {
				blank := make([]string, len(cols))
				blank[at] = trimPath(f, srcW)
				m.lines = append(m.lines, tableLine{cells: blank, row: -1})
			}
			m.lines = append(m.lines, tableLine{cells: make([]string, len(cols)), row: -1})
		}
	}
	return m, nil
}

// appendTable is WriteTable into a byte slice.
func appendTable(b []byte, rows []events.Avg, o TableOptions) ([]byte, error) {
	m, err := buildTable(printableRows(rows), o)
	if err != nil || len(m.cols) == 0 {
		return b, err
	}
	sep := make([]byte, 0, m.lineLen+3)
	for _, c := range m.cols {
		sep = append(sep, strings.Repeat("-", c.width)...)
		sep = append(sep, ' ', ' ')
	}
	sep = append(sep, '\n')
	row := func(b []byte, vals []string) []byte {
		for i, c := range m.cols {
			b = pad(b, vals[i], c.width, c.left)
		}
		return append(b, '\n')
	}
	if o.Header != "" {
		b = append(b, strings.Repeat("=", m.lineLen)...)
		b = append(b, '\n')
		b = append(b, o.Header...)
		b = append(b, '\n')
	}
	if o.TopLevelEventsOnly {
		b = append(b, strings.Repeat("=", m.lineLen)...)
		b = append(b, "\nThis report only display top-level ops statistics\n"...)
	}
	b = append(b, sep...)
	hdr := make([]string, len(m.cols))
	for i, c := range m.cols {
		hdr[i] = c.header
	}
	b = row(b, hdr)
	b = append(b, sep...)
	for _, ln := range m.lines {
		b = row(b, ln.cells)
	}
	b = append(b, sep...)
	for _, f := range m.footers() {
		b = append(b, f...)
		b = append(b, '\n')
	}
	return b, nil
}

// footers are the lines under the table.
func (m *tableModel) footers() []string {
	out := []string{"Self CPU time total: " + text.Time(m.totals.SelfCPU)}
	if m.totals.HasDevice {
		out = append(out, "Self "+m.dev+" time total: "+text.Time(m.totals.SelfDevice))
	}
	return out
}

func trimPath(p string, w int) string {
	rs := []rune(p)
	if len(rs) > w {
		rs = rs[len(rs)-w:]
		if len(rs) > 3 {
			rs = append([]rune("..."), rs[3:]...)
		}
	}
	return string(rs)
}

func autoScaleFlops(f float64) (float64, string) {
	headers := []string{"FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"}
	lg := math.Max(0, math.Min(math.Log10(f)/3, float64(len(headers)-1)))
	return math.Pow(10, math.Floor(lg)*-3.0), headers[int(lg)]
}
