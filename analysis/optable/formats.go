package optable

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/text"
)

// Write renders rows in format f: the PyTorch text table, a markdown table of the same cells, or
// CSV/JSON with full names and raw numbers (µs, bytes) for the same rows in the same order.
func Write(w io.Writer, f text.Format, rows []events.Avg, o TableOptions) error {
	switch f {
	case text.Markdown:
		return writeMarkdown(w, rows, o)
	case text.CSV:
		return writeCSV(w, rows, o)
	case text.JSON:
		return writeJSON(w, rows, o)
	}
	return WriteTable(w, rows, o)
}

// writeMarkdown writes the table's cells as a GitHub markdown table (names right-aligned as in
// the text table, Source Location left-aligned), then the footer lines. Continuation rows of
// stacks are left out.
func writeMarkdown(w io.Writer, rows []events.Avg, o TableOptions) error {
	m, err := buildTable(rows, o)
	if err != nil || len(m.cols) == 0 {
		return err
	}
	t := text.Table{Head: make([]string, len(m.cols)), Left: make([]bool, len(m.cols))}
	for i, c := range m.cols {
		t.Head[i], t.Left[i] = c.header, c.left
	}
	for _, ln := range m.lines {
		if ln.row >= 0 {
			t.Rows = append(t.Rows, ln.cells)
		}
	}
	var buf bytes.Buffer
	if err := t.WriteMarkdown(&buf); err != nil {
		return err
	}
	buf.WriteString("\n")
	for _, f := range m.footers() {
		buf.WriteString(f + "\n")
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// rowFields are the FunctionEventAvg attribute names of CSV columns and JSON keys.
var rowFields = []string{"key", "count", "self_cpu_time_total", "cpu_time_total", "cpu_time",
	"self_device_time_total", "device_time_total", "device_time", "cpu_memory_usage",
	"self_cpu_memory_usage", "device_memory_usage", "self_device_memory_usage", "input_shapes"}

// csvTime is a time total (µs) as CSV prints it: to the nanosecond, the resolution of every
// time orprof records or reads, in the shortest digits: a sum's float error
// (39.49800000000005) is not printed as if it were data. JSON keeps the exact float (a summary
// is merged from it).
func csvTime(us float64) string {
	return strconv.FormatFloat(math.Round(us*1e3)/1e3, 'f', -1, 64)
}

// csvAvg is an average time (µs): a total rounded as csvTime, divided by the count, to the
// picosecond (an average of whole ns need not be one).
func csvAvg(totalUs float64, count int64) string {
	if count == 0 {
		return "0"
	}
	return strconv.FormatFloat(math.Round(math.Round(totalUs*1e3)/float64(count)*1e3)/1e6, 'f', -1, 64)
}

func fieldValues(r *events.Avg) []string {
	f := csvTime
	return []string{r.Key, strconv.FormatInt(r.Count, 10), f(r.SelfCPUTimeTotal), f(r.CPUTimeTotal), csvAvg(r.CPUTimeTotal, r.Count),
		f(r.SelfDeviceTimeTotal), f(r.DeviceTimeTotal), csvAvg(r.DeviceTimeTotal, r.Count),
		strconv.FormatInt(r.CPUMemoryUsage, 10), strconv.FormatInt(r.SelfCPUMemoryUsage, 10),
		strconv.FormatInt(r.DeviceMemoryUsage, 10), strconv.FormatInt(r.SelfDeviceMemoryUsage, 10), r.InputShapes}
}

// writeCSV writes the printed rows with a header of FunctionEventAvg attribute names, full
// names and raw numbers.
func writeCSV(w io.Writer, rows []events.Avg, o TableOptions) error {
	m, err := buildTable(rows, o)
	if err != nil {
		return err
	}
	t := text.Table{Head: rowFields, Rows: make([][]string, len(m.rows))}
	for i := range m.rows {
		t.Rows[i] = fieldValues(&m.rows[i])
	}
	return t.WriteCSV(w)
}

// jsonRow is a row of the JSON table, keyed by PyTorch's FunctionEventAvg attribute names
// (DESIGN.md's schema); a summary's row (summaryRowJSON) is one with more fields.
type jsonRow struct {
	Key                   string  `json:"key"`
	Count                 int64   `json:"count"`
	SelfCPUTimeTotal      float64 `json:"self_cpu_time_total"`
	CPUTimeTotal          float64 `json:"cpu_time_total"`
	CPUTime               float64 `json:"cpu_time"`
	SelfDeviceTimeTotal   float64 `json:"self_device_time_total"`
	DeviceTimeTotal       float64 `json:"device_time_total"`
	DeviceTime            float64 `json:"device_time"`
	CPUMemoryUsage        int64   `json:"cpu_memory_usage"`
	SelfCPUMemoryUsage    int64   `json:"self_cpu_memory_usage"`
	DeviceMemoryUsage     int64   `json:"device_memory_usage"`
	SelfDeviceMemoryUsage int64   `json:"self_device_memory_usage"`
	InputShapes           string  `json:"input_shapes"`
}

func newJSONRow(r *events.Avg) jsonRow {
	return jsonRow{r.Key, r.Count, r.SelfCPUTimeTotal, r.CPUTimeTotal, r.CPUTime(),
		r.SelfDeviceTimeTotal, r.DeviceTimeTotal, r.DeviceTime(), r.CPUMemoryUsage, r.SelfCPUMemoryUsage,
		r.DeviceMemoryUsage, r.SelfDeviceMemoryUsage, r.InputShapes}
}

// writeJSON writes {"self_cpu_time_total": us, "self_device_time_total": us, "rows": [...]}
// with one object per printed row, keyed by FunctionEventAvg attribute names.
func writeJSON(w io.Writer, rows []events.Avg, o TableOptions) error {
	m, err := buildTable(rows, o)
	if err != nil {
		return err
	}
	tot := TableTotals(rows)
	out := struct {
		SelfCPU    float64   `json:"self_cpu_time_total"`
		SelfDevice float64   `json:"self_device_time_total"`
		Rows       []jsonRow `json:"rows"`
	}{SelfCPU: tot.SelfCPU, SelfDevice: tot.SelfDevice, Rows: []jsonRow{}}
	for i := range m.rows {
		out.Rows = append(out.Rows, newJSONRow(&m.rows[i]))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}
