package code

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/orprof/orprof/analysis"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace/tracefile"
)

// ReportVersion is the version of Report's JSON (its first key says it).
const ReportVersion = 1

// Report is the code view of a report summary: the attribution by module and by line of one
// read, each nil with the one-line reason when the trace cannot give it (no python_function
// events, no nn.Module call, no function of the user's code), and by phase when the trace
// has phases and python stacks (absent otherwise, and in summaries written before it; a
// trace with phases and no stacks has PhaseReason instead: the report does not keep the ops
// of a trace without stacks).
type Report struct {
	Version      int      `json:"orprof_code_report"`
	Module       *Summary `json:"module"`
	Line         *Summary `json:"line"`
	ModuleReason string   `json:"module_reason,omitempty"`
	LineReason   string   `json:"line_reason,omitempty"`
	Phase        *Summary `json:"phase,omitempty"`
	PhaseReason  string   `json:"phase_reason,omitempty"`
}

// Analysis names the summary's kind: "code".
func (*Report) Analysis() string { return "code" }

// Analysis is the code view's registry entry (report.Kinds).
var Analysis = &analysis.Kind{
	Name: "code",
	Key:  "orprof_code_report",
	New:  func() analysis.Analysis { return NewReportCollector() },
	Merge: func(parts []analysis.Part) (analysis.Summary, error) {
		if !analysis.All(parts) {
			return nil, nil
		}
		rs := make([]*Report, len(parts))
		for i, p := range parts {
			rs[i] = p.Summary.(*Report)
			for _, s := range []*Summary{rs[i].Module, rs[i].Line, rs[i].Phase} {
				if s == nil {
					continue
				}
				for j := range s.Traces {
					if to, ok := p.Nums[s.Traces[j].Number]; ok && !s.Traces[j].Named {
						s.Traces[j].Number = to
					}
				}
			}
		}
		r, err := MergeReports(rs...)
		if err != nil {
			return nil, fmt.Errorf("code: %v", err)
		}
		return r, nil
	},
	Write: func(w io.Writer, s analysis.Summary) error { return WriteReport(w, s.(*Report)) },
	Read: func(data []byte, member string) (analysis.Summary, error) {
		r, err := ReadReport(data, member)
		if err != nil {
			return nil, err
		}
		return r, nil
	},
}

// ReportCollector is the report's consumer: a Collector whose result is attributed by module,
// by line and by phase.
type ReportCollector struct{ Collector }

// NewReportCollector returns an empty ReportCollector.
func NewReportCollector() *ReportCollector { return &ReportCollector{} }

// Result attributes what was collected by module, by line and by phase.
func (c *ReportCollector) Result() (analysis.Summary, error) {
	in := c.Input()
	r := &Report{Version: ReportVersion}
	switch {
	case c.off && c.phases > 0:
		r.PhaseReason = fmt.Sprintf("%d user annotations name phases, but the report tabulates phases only for traces with python stacks: orprof code --by phase gives them", c.phases)
	case sufficient(in, ByPhase) == nil:
		r.Phase = Attribute(in, ByPhase)
		r.Phase.Version = SummaryVersion
		r.Phase.Traces = []Trace{{c.Rank()}}
	}
	for _, by := range []By{ByModule, ByLine} {
		if err := sufficient(in, by); err != nil {
			if by == ByModule {
				r.ModuleReason = err.Error()
			} else {
				r.LineReason = err.Error()
			}
			continue
		}
		s := Attribute(in, by)
		s.Version = SummaryVersion
		s.Traces = []Trace{{c.Rank()}}
		if by == ByModule {
			r.Module = s
		} else {
			r.Line = s
		}
	}
	return r, nil
}

// MergeReports merges reports in order: each view merged where every report has it, else
// missing with the first missing one's reason.
func MergeReports(rs ...*Report) (*Report, error) {
	out := &Report{Version: ReportVersion}
	var ms, ls, ps []*Summary
	phases := true
	for _, r := range rs {
		phases = phases && r.Phase != nil
		ps = append(ps, r.Phase)
		if r.Phase == nil && out.PhaseReason == "" {
			out.PhaseReason = r.PhaseReason
		}
		if r.Module == nil && out.ModuleReason == "" {
			out.ModuleReason = r.ModuleReason
		}
		if r.Line == nil && out.LineReason == "" {
			out.LineReason = r.LineReason
		}
		ms, ls = append(ms, r.Module), append(ls, r.Line)
	}
	var err error
	if out.ModuleReason == "" {
		if out.Module, err = Merge(ms...); err != nil {
			return nil, err
		}
	}
	if out.LineReason == "" {
		if out.Line, err = Merge(ls...); err != nil {
			return nil, err
		}
	}
	if phases { // a rank without phases leaves the job's table out
		out.PhaseReason = ""
		if out.Phase, err = Merge(ps...); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// WriteReport writes r's JSON.
func WriteReport(w io.Writer, r *Report) error {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadReport reads WriteReport's JSON; its errors start with member.
func ReadReport(data []byte, member string) (*Report, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a code report: %s", member, quote.Clip(err.Error()))
	}
	if r.Version != ReportVersion {
		return nil, fmt.Errorf("%s: \"orprof_code_report\" is %d; this orprof reads version %d", member, r.Version, ReportVersion)
	}
	for _, v := range []struct {
		s      *Summary
		by     string
		reason string
	}{{r.Module, "module", r.ModuleReason}, {r.Line, "line", r.LineReason}} {
		switch {
		case v.s == nil && v.reason == "":
			return nil, fmt.Errorf("%s: no %s view and no reason", member, v.by)
		case v.s == nil:
			continue
		case v.reason != "":
			return nil, fmt.Errorf("%s: a %s view and a reason for its absence", member, v.by)
		case v.s.By != v.by:
			return nil, fmt.Errorf("%s: its %s view is by %s", member, v.by, quote.String(v.s.By))
		}
		if err := checkReportView(v.s, member, v.by); err != nil {
			return nil, err
		}
	}
	if r.Phase != nil {
		if r.PhaseReason != "" {
			return nil, fmt.Errorf("%s: a phase view and a reason for its absence", member)
		}
		if r.Phase.By != "phase" {
			return nil, fmt.Errorf("%s: its phase view is by %s", member, quote.String(r.Phase.By))
		}
		if err := checkReportView(r.Phase, member, "phase"); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

// checkReportView checks a view of a report read back and gives its rows their kernel maps.
func checkReportView(s *Summary, member, by string) error {
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %s: %v", member, by, err)
	}
	for i := range s.Rows {
		if s.Rows[i].Kernels == nil {
			s.Rows[i].Kernels = map[string]int64{}
		}
	}
	return nil
}

var _ tracefile.Consumer = (*ReportCollector)(nil)
