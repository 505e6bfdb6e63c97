package input

// Kind is what an input holds.
type Kind int

const (
	// Trace is a trace, or anything that is not a summary: the trace reader says what is wrong.
	Trace           Kind = iota
	TableSummary         // orprof table --format json
	KernelsSummary       // orprof kernels --format json
	TimelineSummary      // orprof timeline --format json
	ReportSummary        // orprof report --format json
	CodeSummary          // orprof code --format json
)

// The top-level keys that name each kind. A summary's key is written first, but found
// anywhere among the top-level keys.
const (
	TableKey    = "self_cpu_time_total"
	KernelsKey  = "orprof_kernels"
	TimelineKey = "orprof_timeline"
	ReportKey   = "orprof_report"
	CodeKey     = "orprof_code_summary"
	traceKey    = "traceEvents"
)

// ReportVersion is the version of the report summary this orprof writes and reads.
const ReportVersion = 1

var kindKeys = map[string]Kind{
	TableKey:    TableSummary,
	KernelsKey:  KernelsSummary,
	TimelineKey: TimelineSummary,
	ReportKey:   ReportSummary,
	CodeKey:     CodeSummary,
	traceKey:    Trace,
}

// String says what the kind is, as an error line names it.
func (k Kind) String() string {
	switch k {
	case TableSummary:
		return "a table summary (orprof table --format json)"
	case KernelsSummary:
		return "a kernels summary (orprof kernels --format json)"
	case TimelineSummary:
		return "a timeline summary (orprof timeline --format json)"
	case ReportSummary:
		return "a report summary (orprof report --format json)"
	case CodeSummary:
		return "a code summary (orprof code --format json)"
	}
	return "a trace"
}

// ReadBy names the commands that read the kind, for a line refusing it elsewhere.
func (k Kind) ReadBy() string {
	switch k {
	case TableSummary:
		return "orprof merge prints its table, orprof diff compares it, orprof report renders it"
	case KernelsSummary:
		return "orprof kernels reads it, orprof merge merges it, orprof diff compares it"
	case TimelineSummary:
		return "orprof timeline reads it"
	case ReportSummary:
		return "orprof report renders it; orprof merge, diff, kernels and timeline read its views"
	case CodeSummary:
		return "orprof code reads it"
	}
	return "every command reads it"
}
