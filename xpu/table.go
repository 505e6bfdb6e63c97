package xpu

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/orprof/orprof/internal/quote"
)

// maxNameWidth caps the Name column, as PyTorch's table does (max_name_column_width).
const maxNameWidth = 55

// WriteMetricsTable prints the metrics table, meant to follow the operator table: one row per
// kernel name (per-kernel scopes) or range name (per-range scopes), in order of first
// appearance, with the number of scopes and the average of each metric over them. metrics
// chooses and orders the metric columns by name; nil means every metric of the scopes. The
// layout is PyTorch's table: right-aligned columns separated by two spaces, dashed rules, the
// Name column 4 wider than the longest name and at most 55, names of 52 characters or more
// cut to 52 with "...". A metric the scopes lack is an error naming it.
func WriteMetricsTable(w io.Writer, scopes []Scope, metrics []string) error {
	var infos []MetricInfo
	if len(scopes) > 0 {
		infos = scopes[0].Metrics
	}
	cols := make([]int, 0, len(infos))
	if metrics == nil {
		for i := range infos {
			cols = append(cols, i)
		}
	} else {
		for _, name := range metrics {
			i := indexOf(infos, name)
			if i < 0 {
				return fmt.Errorf("xpu: metrics table: the scopes have no metric %q", name)
			}
			cols = append(cols, i)
		}
	}
	type group struct {
		name string
		n    int
		sums []float64
	}
	var groups []*group
	byName := map[string]*group{}
	for i := range scopes {
		s := &scopes[i]
		g := byName[s.Name]
		if g == nil {
			g = &group{name: quote.Printable(s.Name), sums: make([]float64, len(cols))} // no terminal escapes
			byName[s.Name] = g
			groups = append(groups, g)
		}
		g.n++
		for c, m := range cols {
			if v, ok := metricOf(s, infos[m].Name, m); ok {
				g.sums[c] += v
			}
		}
	}

	header := []string{"Name", "# of Scopes"}
	for _, m := range cols {
		h := infos[m].Name
		if infos[m].Unit != "" {
			h += " (" + infos[m].Unit + ")"
		}
		header = append(header, h)
	}
	nameW := utf8.RuneCountInString(header[0])
	for _, g := range groups {
		nameW = max(nameW, utf8.RuneCountInString(g.name))
	}
	nameW = min(nameW+4, maxNameWidth) // PyTorch's name column: 4 wider than the longest name
	rows := make([][]string, len(groups))
	for r, g := range groups {
		row := []string{cutName(g.name, nameW), strconv.Itoa(g.n)}
		for c := range cols {
			row = append(row, strconv.FormatFloat(g.sums[c]/float64(g.n), 'f', 3, 64))
		}
		rows[r] = row
	}
	widths := make([]int, len(header))
	for c, h := range header {
		widths[c] = max(12, utf8.RuneCountInString(h))
	}
	for _, row := range rows {
		for c, v := range row {
			widths[c] = max(widths[c], utf8.RuneCountInString(v))
		}
	}
	widths[0] = nameW

	var b strings.Builder
	rule := func() {
		for _, wd := range widths {
			b.WriteString(strings.Repeat("-", wd))
			b.WriteString("  ")
		}
		b.WriteByte('\n')
	}
	line := func(vals []string) {
		for c, v := range vals {
			b.WriteString(strings.Repeat(" ", widths[c]-utf8.RuneCountInString(v)))
			b.WriteString(v)
			b.WriteString("  ")
		}
		b.WriteByte('\n')
	}
	rule()
	line(header)
	rule()
	for _, row := range rows {
		line(row)
	}
	rule()
	fmt.Fprintf(&b, "Scopes total: %d\n", len(scopes))
	_, err := io.WriteString(w, b.String())
	return err
}

// indexOf is the index of the metric called name, or -1.
func indexOf(infos []MetricInfo, name string) int {
	for i, m := range infos {
		if m.Name == name {
			return i
		}
	}
	return -1
}

// metricOf is s's value of the metric name, expected at index i (scopes of one profile share
// their metrics); other scopes are searched by name.
func metricOf(s *Scope, name string, i int) (float64, bool) {
	if i < len(s.Metrics) && s.Metrics[i].Name == name && i < len(s.Values) {
		return s.Values[i], true
	}
	return s.Value(name)
}

// cutName cuts a name as PyTorch does: one of at least width-3 characters keeps width-3 of
// them and gets "...".
func cutName(name string, width int) string {
	if utf8.RuneCountInString(name) < width-3 {
		return name
	}
	r := []rune(name)
	return string(r[:width-3]) + "..."
}
