package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/xpu"
)

// metricsSummary is the per-kernel metrics table in data form: one row per scope name, in
// first-seen order, each metric averaged over the row's scopes (what the text table prints).
type metricsSummary struct {
	Columns []metricColumn `json:"columns"`
	Rows    []metricRow    `json:"rows"`
	Scopes  int            `json:"scopes_total"`
}

type metricColumn struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
}

type metricRow struct {
	Name   string    `json:"name"`
	Scopes int       `json:"scopes"`
	Values []float64 `json:"values"` // aligned with Columns
}

func summarizeMetrics(scopes []xpu.Scope) metricsSummary {
	s := metricsSummary{Columns: []metricColumn{}, Rows: []metricRow{}, Scopes: len(scopes)}
	if len(scopes) == 0 {
		return s
	}
	infos := scopes[0].Metrics
	for _, m := range infos {
		s.Columns = append(s.Columns, metricColumn{m.Name, m.Unit})
	}
	byName := map[string]int{}
	for i := range scopes {
		sc := &scopes[i]
		r, ok := byName[sc.Name]
		if !ok {
			r = len(s.Rows)
			byName[sc.Name] = r
			s.Rows = append(s.Rows, metricRow{Name: sc.Name, Values: make([]float64, len(infos))})
		}
		s.Rows[r].Scopes++
		for c, m := range infos {
			if v, ok := sc.Value(m.Name); ok {
				s.Rows[r].Values[c] += v
			}
		}
	}
	for i := range s.Rows {
		for c := range s.Rows[i].Values {
			s.Rows[i].Values[c] /= float64(s.Rows[i].Scopes)
		}
	}
	return s
}

// metricHeads are the metric columns' headers: "GpuTime (ns)".
func (s metricsSummary) metricHeads() []string {
	var hdr []string
	for _, c := range s.Columns {
		h := c.Name
		if c.Unit != "" {
			h += " (" + c.Unit + ")"
		}
		hdr = append(hdr, h)
	}
	return hdr
}

// writeMetricsCSV writes the summary as CSV: name, scopes, then one column per metric
// ("GpuTime (ns)").
func writeMetricsCSV(w io.Writer, s metricsSummary) error {
	t := text.Table{Head: append([]string{"name", "scopes"}, s.metricHeads()...)}
	for _, r := range s.Rows {
		rec := []string{r.Name, strconv.Itoa(r.Scopes)}
		for _, v := range r.Values {
			rec = append(rec, strconv.FormatFloat(v, 'f', -1, 64))
		}
		t.Rows = append(t.Rows, rec)
	}
	return t.WriteCSV(w)
}

// writeMetricsMarkdown writes the summary as the text metrics table's markdown form: the same
// columns and values (xpu.WriteMetricsTable: the average of each metric to 3 decimals), names
// whole, then its "Scopes total" line.
func writeMetricsMarkdown(w io.Writer, s metricsSummary) error {
	t := text.Table{Head: append([]string{"Name", "# of Scopes"}, s.metricHeads()...), Left: []bool{true}}
	for _, r := range s.Rows {
		rec := []string{r.Name, strconv.Itoa(r.Scopes)}
		for _, v := range r.Values {
			rec = append(rec, strconv.FormatFloat(v, 'f', 3, 64))
		}
		t.Rows = append(t.Rows, rec)
	}
	if err := t.WriteMarkdown(w); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\nScopes total: "+strconv.Itoa(s.Scopes)+"\n")
	return err
}

// writeMetricsJSON writes the summary as a JSON document.
func writeMetricsJSON(w io.Writer, s metricsSummary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(s)
}

// withMetricsJSON adds the metrics summary to the table's JSON document as a last member,
// "metrics": the document stays one JSON object with every member of `orprof table --format
// json`, in its order.
func withMetricsJSON(table []byte, s metricsSummary) ([]byte, error) {
	doc := bytes.TrimRight(table, " \t\r\n")
	if !json.Valid(doc) || len(doc) < 2 || doc[0] != '{' || doc[len(doc)-1] != '}' {
		return nil, errors.New("the table's JSON is not an object")
	}
	m, err := json.MarshalIndent(s, " ", " ")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	body := bytes.TrimRight(doc[:len(doc)-1], " \t\r\n")
	b.Write(body)
	if len(bytes.TrimSpace(body)) > 1 { // members before: a comma
		b.WriteByte(',')
	}
	b.WriteString("\n \"metrics\": ")
	b.Write(m)
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}
