package code

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/orprof/orprof/internal/gz"
	"github.com/orprof/orprof/internal/quote"
	"github.com/orprof/orprof/trace"
)

// SummaryVersion is the version of the JSON summary (its first key says it).
const SummaryVersion = 1

// Summary is the code view of one trace or of several merged (ranks): it is what
// `orprof code --format json` writes and reads back. Times are integer ns, so that merges
// are exact.
type Summary struct {
	// Version is SummaryVersion; the key names the document's kind.
	Version int `json:"orprof_code_summary"`
	// By is "module", "line" or "phase".
	By string `json:"by"`
	// Traces are the traces summed, in input order.
	Traces []Trace `json:"traces,omitempty"`
	// Rows are exclusive: each op's self CPU time, and the device time linked to it, count
	// for one row. The none row ("(no module)" or "(no source)") is among them.
	Rows []Row `json:"rows"`
	// CPUNs is the self CPU time of every host op and user annotation (the table's "Self CPU
	// time total"); DevNs the device time the reader linked to them; both are the rows' sums.
	CPUNs int64 `json:"cpu_ns"`
	DevNs int64 `json:"device_ns"`
	// UnlinkedDevNs is the device time linked to no op: in no row.
	UnlinkedDevNs int64 `json:"unlinked_device_ns"`
	// Unattributed says why the none row has its time.
	Unattributed []Unattributed `json:"unattributed,omitempty"`
}

// Trace is one input of a summary: its rank, the one rank identity of every summary
// (trace.Rank: the trace's own, or its position among the inputs; Trace is its file).
type Trace struct{ trace.Rank }

// traceJSON is Trace as the summary writes it.
type traceJSON struct {
	File      string `json:"file"`
	Rank      int64  `json:"rank"`
	FromTrace bool   `json:"rank_from_trace,omitempty"`
}

func (t Trace) MarshalJSON() ([]byte, error) {
	return json.Marshal(traceJSON{File: t.Trace, Rank: t.Number, FromTrace: t.Named})
}

func (t *Trace) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var j traceJSON
	if err := dec.Decode(&j); err != nil {
		return err
	}
	t.Rank = trace.Rank{Number: j.Rank, Named: j.FromTrace, Trace: j.File}
	return nil
}

// Row is one module (path), or one source line, or the none row.
type Row struct {
	Key string `json:"key"`
	// Calls is how many times the module, or the function, was called (its python_function
	// events).
	Calls    int64 `json:"calls"`
	FwdCPUNs int64 `json:"fwd_cpu_ns"`
	FwdDevNs int64 `json:"fwd_device_ns"`
	BwdCPUNs int64 `json:"bwd_cpu_ns"`
	BwdDevNs int64 `json:"bwd_device_ns"`
	// Kernels is the device time of each kernel (and copy, fill) name in the row.
	Kernels map[string]int64 `json:"kernels,omitempty"`
}

// CPUNs is the row's forward and backward CPU time.
func (r *Row) CPUNs() int64 { return r.FwdCPUNs + r.BwdCPUNs }

// DevNs is the row's forward and backward device time.
func (r *Row) DevNs() int64 { return r.FwdDevNs + r.BwdDevNs }

// TopKernels returns the row's n largest kernels, largest first.
func (r *Row) TopKernels(n int) []KernelTime {
	ks := make([]KernelTime, 0, len(r.Kernels))
	for name, ns := range r.Kernels {
		ks = append(ks, KernelTime{name, ns})
	}
	slices.SortFunc(ks, func(a, b KernelTime) int { return cmp.Or(cmp.Compare(b.Ns, a.Ns), cmp.Compare(a.Name, b.Name)) })
	if n > 0 && len(ks) > n {
		ks = ks[:n]
	}
	return ks
}

// KernelTime is a kernel name and its time in a row.
type KernelTime struct {
	Name string
	Ns   int64
}

// Unattributed is a reason for time in the none row, and how much.
type Unattributed struct {
	Reason string `json:"reason"`
	CPUNs  int64  `json:"cpu_ns"`
	DevNs  int64  `json:"device_ns"`
}

func (s *Summary) addReason(reason uint8, by By, cpu, dev int64) {
	what := "nn.Module call"
	switch by {
	case ByLine:
		what = "Python function of the user's code"
	case ByPhase:
		what = "user annotation naming a phase (ProfilerStep#N aside)"
	}
	var text string
	switch reason {
	case reasonOutside:
		text = fmt.Sprintf(ReasonOutside, what)
		if by == ByPhase {
			text = fmt.Sprintf(ReasonOutsidePhase, what)
		}
	case reasonBwdNoForward:
		text = ReasonBwdNoForward
	case reasonBwdOutside:
		text = fmt.Sprintf(ReasonBwdOutside, what)
	case reasonNoPhase:
		text = ReasonNoPhase
	default:
		return
	}
	s.addUnattributed(Unattributed{text, cpu, dev})
}

func (s *Summary) addUnattributed(u Unattributed) {
	for i := range s.Unattributed {
		if s.Unattributed[i].Reason == u.Reason {
			s.Unattributed[i].CPUNs += u.CPUNs
			s.Unattributed[i].DevNs += u.DevNs
			return
		}
	}
	s.Unattributed = append(s.Unattributed, u)
}

// Merge sums summaries of the same By (ranks of one job): rows by key, traces in order.
func Merge(sums ...*Summary) (*Summary, error) {
	if len(sums) == 0 {
		return nil, errors.New("no summary to merge")
	}
	out := &Summary{Version: SummaryVersion, By: sums[0].By}
	rows := map[string]*Row{}
	for _, s := range sums {
		if s.By != out.By {
			return nil, fmt.Errorf("cannot merge a summary by %s with one by %s", quote.String(s.By), quote.String(out.By))
		}
		out.Traces = append(out.Traces, s.Traces...)
		out.CPUNs += s.CPUNs
		out.DevNs += s.DevNs
		out.UnlinkedDevNs += s.UnlinkedDevNs
		for _, u := range s.Unattributed {
			out.addUnattributed(u)
		}
		for i := range s.Rows {
			r := &s.Rows[i]
			x := rows[r.Key]
			if x == nil {
				x = &Row{Key: r.Key, Kernels: map[string]int64{}}
				rows[r.Key] = x
			}
			x.Calls += r.Calls
			x.FwdCPUNs += r.FwdCPUNs
			x.FwdDevNs += r.FwdDevNs
			x.BwdCPUNs += r.BwdCPUNs
			x.BwdDevNs += r.BwdDevNs
			for k, v := range r.Kernels {
				x.Kernels[k] += v
			}
		}
	}
	for _, x := range rows {
		out.Rows = append(out.Rows, *x)
	}
	slices.SortFunc(out.Rows, func(a, b Row) int { return cmp.Compare(a.Key, b.Key) })
	return out, nil
}

// Sorted returns the rows largest first: by device time, then CPU time, then key.
func (s *Summary) Sorted() []Row {
	rows := slices.Clone(s.Rows)
	slices.SortStableFunc(rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(b.DevNs(), a.DevNs()), cmp.Compare(b.CPUNs(), a.CPUNs()), cmp.Compare(a.Key, b.Key))
	})
	return rows
}

// Inclusive returns a module path's forward and backward CPU and device time with its
// submodules' (the rows whose key is path or starts with path + "/"). For lines, and for
// the none row, it is the row's own.
func (s *Summary) Inclusive(key string) (cpu, dev int64) {
	for i := range s.Rows {
		r := &s.Rows[i]
		if r.Key == key || s.By == "module" && strings.HasPrefix(r.Key, key+"/") {
			cpu += r.CPUNs()
			dev += r.DevNs()
		}
	}
	return cpu, dev
}

// check reports what makes a read summary unusable.
func (s *Summary) check() error {
	switch {
	case s.Version != SummaryVersion:
		return fmt.Errorf("\"orprof_code_summary\" is %d; this orprof reads version %d", s.Version, SummaryVersion)
	case s.By != "module" && s.By != "line" && s.By != "phase":
		return fmt.Errorf("\"by\" is %s, not \"module\", \"line\" or \"phase\"", quote.String(s.By))
	}
	if s.UnlinkedDevNs < 0 {
		return errors.New("\"unlinked_device_ns\" is negative")
	}
	for _, u := range s.Unattributed {
		if u.CPUNs < 0 || u.DevNs < 0 {
			return fmt.Errorf("unattributed %s has a negative figure", quote.String(u.Reason))
		}
	}
	var cpu, dev int64
	seen := map[string]bool{}
	for i := range s.Rows {
		r := &s.Rows[i]
		// CPU figures are self times, which PyTorch's tree makes negative where ops that
		// overlap without nesting are children of one op; device times and calls never are.
		if r.FwdDevNs < 0 || r.BwdDevNs < 0 || r.Calls < 0 {
			return fmt.Errorf("row %s has a negative figure", quote.String(r.Key))
		}
		if seen[r.Key] {
			return fmt.Errorf("two rows %s", quote.String(r.Key))
		}
		seen[r.Key] = true
		var kern int64
		for k, v := range r.Kernels {
			if v < 0 {
				return fmt.Errorf("row %s: kernel %s has a negative time", quote.String(r.Key), quote.String(k))
			}
			kern += v
		}
		// Sums of non-negative figures that wrap past 2⁶³ are refused as the sums they state.
		if !addOK(r.FwdCPUNs, r.BwdCPUNs) || !addOK(cpu, r.CPUNs()) || dev+r.DevNs() < dev || r.DevNs() < 0 || kern < 0 {
			return fmt.Errorf("row %s: figures beyond 2^63 ns", quote.String(r.Key))
		}
		if kern != r.DevNs() {
			return fmt.Errorf("row %s: its kernels sum to %d ns, not its device time %d ns", quote.String(r.Key), kern, r.DevNs())
		}
		cpu += r.CPUNs()
		dev += r.DevNs()
	}
	if cpu != s.CPUNs || dev != s.DevNs {
		return fmt.Errorf("the rows sum to %d ns of CPU and %d ns of device time, not the \"cpu_ns\" %d and \"device_ns\" %d it states",
			cpu, dev, s.CPUNs, s.DevNs)
	}
	return nil
}

// ReadSummary reads a summary (plain or gzip) written by WriteJSON.
func ReadSummary(r io.Reader, name string) (*Summary, error) {
	br := bufio.NewReader(r)
	var in io.Reader = br
	if m, _ := br.Peek(2); gz.IsGzip(m) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		defer gz.Close()
		in = gz
	}
	dec := json.NewDecoder(in)
	dec.DisallowUnknownFields()
	var s Summary
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: not a code summary: %s", name, quote.String(err.Error()))
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	for i := range s.Rows {
		if s.Rows[i].Kernels == nil {
			s.Rows[i].Kernels = map[string]int64{}
		}
	}
	return &s, nil
}

// addOK reports whether a + b does not overflow.
func addOK(a, b int64) bool {
	c := a + b
	return (c > a) == (b > 0)
}
