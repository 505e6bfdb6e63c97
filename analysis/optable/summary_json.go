package optable

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/gz"
	"github.com/orprof/orprof/internal/jsonscan"
	"github.com/orprof/orprof/trace"
)

// SummaryVersion is the version of the "summary" object WriteSummaryJSON writes.
const SummaryVersion = 1

// summaryRowJSON is one row of the JSON table (jsonRow: PyTorch's FunctionEventAvg attribute
// names, DESIGN.md's schema) followed by what a merge needs to rebuild the key and the
// per-rank figures.
type summaryRowJSON struct {
	jsonRow

	Flops int64 `json:"flops"`
	// NodeID, DeviceType (a c10::DeviceType number), IsLegacy and IsUserAnnotation are part of
	// PyTorch's key; OverloadName and Stack when grouped by them.
	NodeID           int      `json:"node_id"`
	DeviceType       int      `json:"device_type"`
	IsLegacy         bool     `json:"is_legacy"`
	IsUserAnnotation bool     `json:"is_user_annotation"`
	IsAsync          bool     `json:"is_async"`
	IsRemote         bool     `json:"is_remote"`
	Scope            int      `json:"scope"`
	HasParent        bool     `json:"has_parent"`
	OverloadName     string   `json:"overload_name"`
	Stack            []string `json:"stack"`
	// Order is the row's position in first-occurrence order (rows are written in table order).
	Order int `json:"order"`
	// Ranks counts the ranks the row occurs in; Max*At index summary.ranks.
	Ranks              int     `json:"ranks"`
	MaxCPUTimeTotal    float64 `json:"max_cpu_time_total"`
	MaxCPUAt           int     `json:"max_cpu_time_total_at"`
	MaxDeviceTimeTotal float64 `json:"max_device_time_total"`
	MaxDeviceAt        int     `json:"max_device_time_total_at"`
}

type rankJSON struct {
	Rank                int64   `json:"rank"`
	FromTrace           bool    `json:"rank_from_trace"`
	File                string  `json:"file"`
	SelfCPUTimeTotal    float64 `json:"self_cpu_time_total"`
	SelfDeviceTimeTotal float64 `json:"self_device_time_total"`
	// DeviceLinks is present when DeviceLinks.Notable: some device time was linked by a rule
	// other than the External id. Absent, the rank's device time (self_device_time_total)
	// reached its operators by the External id, or none.
	DeviceLinks *DeviceLinks `json:"device_links,omitempty"`
}

type summaryMetaJSON struct {
	Version           int        `json:"version"`
	Device            string     `json:"device"`
	ProfileMemory     bool       `json:"profile_memory"`
	GroupByInputShape bool       `json:"group_by_input_shape"`
	GroupByStackN     int        `json:"group_by_stack_n"`
	Ranks             []rankJSON `json:"ranks"`
}

type summaryJSON struct {
	SelfCPU    float64          `json:"self_cpu_time_total"`
	SelfDevice float64          `json:"self_device_time_total"`
	Rows       []summaryRowJSON `json:"rows"`
	// RowsLeftOut counts the rows a row limit left out; a summary with any cannot be merged.
	RowsLeftOut int              `json:"rows_left_out"`
	Summary     *summaryMetaJSON `json:"summary"`
}

// printedRows returns the indexes of the rows a table with options o prints, in table order,
// and how many rows it leaves out: sorted by o.SortBy, o.RowLimit rows (RowLimitAll: every
// row), rows with a parent skipped when o.TopLevelEventsOnly.
func printedRows(rows []events.Avg, o TableOptions) ([]int, int, error) {
	o.defaults()
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	if o.SortBy != "" {
		sorted, err := SortAverages(rows, o.SortBy, o.UseDevice)
		if err != nil {
			return nil, 0, err
		}
		// SortAverages is stable, so equal rows keep their order: match them back by position
		// among their equals.
		pos := make(map[string][]int, len(rows))
		var kb []byte
		for i := range rows {
			kb = rowKey(kb, &rows[i])
			pos[string(kb)] = append(pos[string(kb)], i)
		}
		for i := range sorted {
			kb = rowKey(kb, &sorted[i])
			q := pos[string(kb)]
			order[i], pos[string(kb)] = q[0], q[1:]
		}
	}
	var out []int
	for _, k := range order {
		if len(out) == o.RowLimit || o.RowLimit == RowLimitNone {
			break
		}
		if o.TopLevelEventsOnly && rows[k].HasParent {
			continue
		}
		out = append(out, k)
	}
	return out, len(rows) - len(out), nil
}

// WriteSummaryJSON writes s as `orprof table --format json` does: DESIGN.md's
// {"self_cpu_time_total", "self_device_time_total", "rows"} with the rows in table order (o's
// sort and row limit), each row also carrying its key fields and per-rank figures, then
// "rows_left_out" (rows the limit left out) and a "summary" object (device, grouping, the
// ranks). With every row written (RowLimitAll), ReadSummary reads it back into s exactly.
func WriteSummaryJSON(w io.Writer, s *Summary, o TableOptions) error {
	o = s.TableOptions(o)
	avgs := s.Averages()
	idx, left, err := printedRows(avgs, o)
	if err != nil {
		return err
	}
	tot := TableTotals(avgs)
	out := summaryJSON{SelfCPU: tot.SelfCPU, SelfDevice: tot.SelfDevice, Rows: make([]summaryRowJSON, 0, len(idx)),
		RowsLeftOut: left, Summary: &summaryMetaJSON{Version: SummaryVersion, Device: s.Device,
			ProfileMemory: s.ProfileMemory, GroupByInputShape: s.GroupByInputShape, GroupByStackN: s.GroupByStackN,
			Ranks: make([]rankJSON, len(s.Ranks))}}
	for i, r := range s.Ranks {
		out.Summary.Ranks[i] = rankJSON{Rank: r.Number, FromTrace: r.Named, File: r.Trace,
			SelfCPUTimeTotal: r.SelfCPUTimeTotal, SelfDeviceTimeTotal: r.SelfDeviceTimeTotal}
		if r.DeviceLinks.Notable() {
			l := r.DeviceLinks
			out.Summary.Ranks[i].DeviceLinks = &l
		}
	}
	for _, k := range idx {
		out.Rows = append(out.Rows, s.rowJSON(k))
	}
	enc := json.NewEncoder(w)
	if !o.CompactJSON {
		enc.SetIndent("", " ")
	}
	return enc.Encode(out)
}

// rowJSON is row k of s as WriteSummaryJSON writes it.
func (s *Summary) rowJSON(k int) summaryRowJSON {
	r := &s.Rows[k]
	stack := r.Stack
	if stack == nil {
		stack = []string{}
	}
	return summaryRowJSON{newJSONRow(&r.Avg),
		r.Flops, r.NodeID, r.DeviceType.C10(), r.IsLegacy, r.IsUserAnnotation, r.IsAsync, r.IsRemote, r.Scope,
		r.HasParent, r.OverloadName, stack, k, r.Ranks, r.MaxCPUTimeTotal, r.MaxCPUAt, r.MaxDeviceTimeTotal, r.MaxDeviceAt}
}

// CompactRowLimit returns the largest row limit under which the compact document
// WriteSummaryJSON writes of s with options o (its RowLimit aside) is at most budget bytes,
// its newline left out; 0 when not even one row fits. Each row is encoded once, alone: a
// caller that cuts a large table to a size writes it once, not once per try.
func CompactRowLimit(s *Summary, o TableOptions, budget int) (int, error) {
	o.RowLimit, o.CompactJSON = RowLimitNone, true
	var b bytes.Buffer
	if err := WriteSummaryJSON(&b, s, o); err != nil {
		return 0, err
	}
	n := len(s.Rows)
	// The document without rows leaves every row out; rows_left_out's digits shrink as rows
	// are put in.
	base := b.Len() - len("\n") - len(strconv.Itoa(n))
	o.RowLimit = RowLimitAll
	idx, _, err := printedRows(s.Averages(), s.TableOptions(o))
	if err != nil {
		return 0, err
	}
	size, limit := base, 0
	for i, k := range idx {
		row, err := json.Marshal(s.rowJSON(k))
		if err != nil {
			return 0, err
		}
		size += len(row)
		if i > 0 {
			size++ // the comma
		}
		if size+len(strconv.Itoa(n-i-1)) > budget {
			break
		}
		limit = i + 1
	}
	return limit, nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// maxSummaryBytes bounds a summary file: far beyond any real one (a row is ~1 KB), and it keeps
// a hostile input from exhausting memory.
const maxSummaryBytes = 1 << 30

// ReadSummary reads a summary written by WriteSummaryJSON (plain or gzip) from r; name is used
// in errors. Strict JSON, one object, a UTF-8 byte order mark allowed. A summary written with a
// row limit that left rows out is refused (it cannot be merged), as is anything inconsistent:
// unknown device types, duplicate keys or orders, rank indexes out of range.
func ReadSummary(r io.Reader, name string) (*Summary, error) {
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); gz.IsGzip(magic) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: not a valid gzip stream: %w", name, err)
		}
		defer gz.Close()
		br = bufio.NewReader(gz)
	}
	if p, _ := br.Peek(3); bytes.Equal(p, utf8BOM) {
		br.Discard(3)
	}
	lr := &io.LimitedReader{R: br, N: maxSummaryBytes + 1}
	dec := json.NewDecoder(lr)
	var doc summaryJSON
	if err := dec.Decode(&doc); err != nil {
		if lr.N <= 0 {
			return nil, fmt.Errorf("%s: larger than %d bytes: not a summary", name, maxSummaryBytes)
		}
		return nil, fmt.Errorf("%s: not a valid summary: %s", name, jsonErrText(err, maxSummaryBytes+1-lr.N))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: byte %d: data after the summary object", name, dec.InputOffset())
	}
	s, err := doc.summary()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// embeddedRow is the Go name of the struct summaryRowJSON embeds.
var embeddedRow = reflect.TypeFor[jsonRow]().Name()

// jsonErrText renders a decoding error with the byte offset it happened at.
func jsonErrText(err error, read int64) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("byte %d: %v", se.Offset, se)
	case errors.As(err, &te):
		// encoding/json names the embedded jsonRow in the path ("rows.jsonRow.count"); the
		// document has no such level.
		field := strings.Replace(te.Field, "."+embeddedRow+".", ".", 1)
		return fmt.Sprintf("byte %d: field %s: %s where %s belongs", te.Offset, jsonscan.Clip(field), te.Value, te.Type)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("byte %d: unexpected end of input", read)
	}
	return err.Error()
}

// summary checks doc and turns it into a Summary with rows in first-occurrence order.
func (doc *summaryJSON) summary() (*Summary, error) {
	m := doc.Summary
	if m == nil {
		return nil, errors.New(`not an orprof summary: no "summary" object (write one with orprof table --format json)`)
	}
	if m.Version != SummaryVersion {
		return nil, fmt.Errorf("summary version %d: this orprof reads version %d", m.Version, SummaryVersion)
	}
	if doc.RowsLeftOut != 0 {
		rows := fmt.Sprintf("%d rows were", doc.RowsLeftOut)
		if doc.RowsLeftOut == 1 {
			rows = "1 row was"
		}
		return nil, fmt.Errorf("%s left out by a row limit, so it cannot be merged: write it again without --row-limit", rows)
	}
	if len(m.Ranks) == 0 {
		return nil, errors.New(`summary has no ranks`)
	}
	if m.GroupByStackN < 0 {
		return nil, fmt.Errorf("group_by_stack_n %d: must be ≥ 0", m.GroupByStackN)
	}
	s := &Summary{Device: m.Device, ProfileMemory: m.ProfileMemory, GroupByInputShape: m.GroupByInputShape,
		GroupByStackN: m.GroupByStackN, Ranks: make([]RankInfo, len(m.Ranks)), Rows: make([]SummaryRow, len(doc.Rows))}
	for i, r := range m.Ranks {
		s.Ranks[i] = RankInfo{Rank: trace.Rank{Number: r.Rank, Named: r.FromTrace, Trace: r.File},
			SelfCPUTimeTotal: r.SelfCPUTimeTotal, SelfDeviceTimeTotal: r.SelfDeviceTimeTotal}
		if l := r.DeviceLinks; l != nil {
			if l.ExternalIDUs < 0 || l.LaunchUs < 0 || l.OrderUs < 0 || l.EnclosingUs < 0 || l.UnlinkedUs < 0 || l.GraphUs < 0 {
				return nil, fmt.Errorf("rank %d: device_links: a negative time", i)
			}
			s.Ranks[i].DeviceLinks = *l
		}
	}
	seen := make([]bool, len(doc.Rows))
	keys := make(map[string]struct{}, len(doc.Rows))
	var kb []byte
	for i := range doc.Rows {
		j := &doc.Rows[i]
		what := func(format string, a ...any) error {
			return fmt.Errorf("row %d (%s): %s", i+1, jsonscan.Clip(j.Key), fmt.Sprintf(format, a...))
		}
		if j.Order < 0 || j.Order >= len(doc.Rows) || seen[j.Order] {
			return nil, what("order %d: not a distinct position among %d rows", j.Order, len(doc.Rows))
		}
		seen[j.Order] = true
		dt, ok := c10Type(j.DeviceType)
		if !ok {
			return nil, what("device_type %d: not a device type orprof knows", j.DeviceType)
		}
		if j.Count < 0 || j.Ranks < 1 || j.Ranks > len(m.Ranks) {
			return nil, what("count %d, ranks %d: out of range (%d ranks)", j.Count, j.Ranks, len(m.Ranks))
		}
		if j.MaxCPUAt < 0 || j.MaxCPUAt >= len(m.Ranks) || j.MaxDeviceAt < 0 || j.MaxDeviceAt >= len(m.Ranks) {
			return nil, what("max_*_at %d, %d: not an index into %d ranks", j.MaxCPUAt, j.MaxDeviceAt, len(m.Ranks))
		}
		if len(j.Stack) > m.GroupByStackN || (!m.GroupByInputShape && j.InputShapes != "") {
			return nil, what("stack or input shapes present but not grouped by")
		}
		var stack []string
		if len(j.Stack) > 0 {
			stack = slices.Clone(j.Stack)
		}
		a := events.Avg{Key: j.Key, NodeID: j.NodeID, IsAsync: j.IsAsync, IsRemote: j.IsRemote, IsLegacy: j.IsLegacy,
			IsUserAnnotation: j.IsUserAnnotation, DeviceType: dt, Scope: j.Scope, InputShapes: j.InputShapes,
			Stack: stack, OverloadName: j.OverloadName, HasParent: j.HasParent, Count: j.Count,
			CPUTimeTotal: j.CPUTimeTotal, SelfCPUTimeTotal: j.SelfCPUTimeTotal, DeviceTimeTotal: j.DeviceTimeTotal,
			SelfDeviceTimeTotal: j.SelfDeviceTimeTotal, CPUMemoryUsage: j.CPUMemoryUsage,
			SelfCPUMemoryUsage: j.SelfCPUMemoryUsage, DeviceMemoryUsage: j.DeviceMemoryUsage,
			SelfDeviceMemoryUsage: j.SelfDeviceMemoryUsage, Flops: j.Flops}
		kb = rowKey(kb, &a)
		if _, dup := keys[string(kb)]; dup {
			return nil, what("a second row with the same key")
		}
		keys[string(kb)] = struct{}{}
		s.Rows[j.Order] = SummaryRow{Avg: a, Ranks: j.Ranks, MaxCPUTimeTotal: j.MaxCPUTimeTotal, MaxCPUAt: j.MaxCPUAt,
			MaxDeviceTimeTotal: j.MaxDeviceTimeTotal, MaxDeviceAt: j.MaxDeviceAt}
	}
	return s, nil
}

// describeRanks is the line under a multi-rank table: how many ranks and where their numbers
// came from.
func describeRanks(s *Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ranks: %d (%s)", len(s.Ranks), s.RankSource())
	return b.String()
}
