package httpprof

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/gz"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/report"
	"github.com/orprof/orprof/report/html"
	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/perfetto"
)

// Prefix is where programs usually mount the handler: mux.Handle(httpprof.Prefix, h).
const Prefix = "/debug/orprof/"

// The default bounds of a capture (Options). A capture of orprof run's built-in mlp workload
// reaches DefaultMaxEvents records (host records and their device events or kernels) in 5–9 s,
// with the process at 140–170 MB at its peak (docs/on-demand.md).
const (
	DefaultMaxEvents  = 100000
	DefaultMaxSteps   = 10000
	DefaultMaxSeconds = 600
)

// Options bound what one request may capture, so that a capture cannot grow without end
// (steps=100000 or seconds=3600 of a busy program is gigabytes). A request past MaxSteps or
// MaxSeconds is refused with 400 naming the bound; a capture that reaches MaxEvents records
// ends there (orprof.CaptureOptions.MaxEvents) and its response carries an
// X-Orprof-Warning header saying so. A zero field takes its default; a negative one removes
// the bound.
type Options struct {
	MaxEvents  int     // records of one capture: host records and device records (orprof.CaptureOptions.MaxEvents)
	MaxSteps   int     // steps=N
	MaxSeconds float64 // seconds=S
	// OmitSpans leaves the span event with "pid":"Spans" out of the traces served (speedscope
	// cannot load it), as orprof run --no-spans does.
	OmitSpans bool
}

func (o Options) withDefaults() Options {
	if o.MaxEvents == 0 {
		o.MaxEvents = DefaultMaxEvents
	}
	if o.MaxSteps == 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	if o.MaxSeconds == 0 {
		o.MaxSeconds = DefaultMaxSeconds
	}
	return o
}

// Handler returns the handler of p's captures with the default Options. It serves the paths
// ending in "/trace", "/table" and "/report" under wherever it is mounted, and a short index at
// the mount point itself.
func Handler(p *orprof.Profiler) http.Handler { return NewHandler(p, Options{}) }

// NewHandler is Handler with bounds and choices of its own.
func NewHandler(p *orprof.Profiler, o Options) http.Handler {
	return &handler{p: p, o: o.withDefaults()}
}

type handler struct {
	p *orprof.Profiler
	o Options
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet {
		// Not even HEAD: every request to trace or table runs a capture.
		w.Header().Set("Allow", "GET")
		http.Error(w, "orprof: "+r.Method+" not allowed (use GET)", http.StatusMethodNotAllowed)
		return
	}
	switch path.Base(r.URL.Path) {
	case "trace":
		h.capture(w, r, kindTrace)
	case "table":
		h.capture(w, r, kindTable)
	case "report":
		h.capture(w, r, kindReport)
	default:
		if strings.HasSuffix(r.URL.Path, "/") {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, index)
			return
		}
		http.Error(w, "orprof: no such endpoint "+quote(r.URL.Path)+" (have trace, table, report)", http.StatusNotFound)
	}
}

const index = `orprof on-demand capture
  trace?steps=N | trace?seconds=S   the next N steps (or S seconds) as a Kineto trace (gzip=1: .json.gz; format=pftrace: Perfetto's)
  table?steps=N | table?seconds=S   the same as PyTorch's key_averages() table (sort_by, row_limit, format)
  report?steps=N | report?seconds=S the same as one offline HTML report (group_by_input_shape)
  all: activities=LIST, record_shapes=1, profile_memory=1, with_stack=1
`

// request is a parsed query.
type request struct {
	capture   orprof.CaptureOptions
	gzip      bool
	pftrace   bool // trace: Perfetto's protobuf instead of Kineto JSON
	sortBy    string
	rowLimit  int
	byShape   bool
	format    text.Format
	hasFormat bool
}

// The kinds of capture.
const (
	kindTrace = iota
	kindTable
	kindReport
)

func (h *handler) parse(r *http.Request, kind int) (*request, error) {
	q, err := urlQuery(r)
	if err != nil {
		return nil, err
	}
	opts := h.p.Options()
	req := &request{format: text.Text}
	allowed := map[string]bool{"steps": true, "seconds": true, "activities": true, "record_shapes": true,
		"profile_memory": true, "with_stack": true}
	switch kind {
	case kindTrace:
		allowed["gzip"] = true
		allowed["format"] = true
	case kindTable:
		for _, k := range []string{"sort_by", "row_limit", "group_by_input_shape", "format"} {
			allowed[k] = true
		}
	case kindReport:
		allowed["group_by_input_shape"] = true
	}
	for k, vs := range q {
		if !allowed[k] {
			return nil, fmt.Errorf("unknown parameter %s (have %s)", quote(k), names(allowed))
		}
		if len(vs) > 1 {
			return nil, fmt.Errorf("parameter %s given %d times", quote(k), len(vs))
		}
	}
	get := func(k string) (string, bool) {
		vs, ok := q[k]
		if !ok {
			return "", false
		}
		return vs[0], true
	}
	boolean := func(k string, dst *bool) error {
		v, ok := get(k)
		if !ok {
			return nil
		}
		if v == "" {
			*dst = true
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%s=%s: want 1 or 0, true or false", k, quote(v))
		}
		*dst = b
		return nil
	}
	steps, hasSteps := get("steps")
	secs, hasSecs := get("seconds")
	switch {
	case hasSteps && hasSecs:
		return nil, errors.New("give steps=N or seconds=S, not both")
	case hasSteps:
		n, err := strconv.Atoi(steps)
		switch {
		case err != nil && !isDigits(steps) || err == nil && n < 1:
			return nil, fmt.Errorf("steps=%s: want a whole number of steps, at least 1", quote(steps))
		case h.o.MaxSteps > 0 && (err != nil || n > h.o.MaxSteps):
			return nil, fmt.Errorf("steps=%s: past this server's bound of %d steps (httpprof.Options.MaxSteps)", quote(steps), h.o.MaxSteps)
		case err != nil:
			return nil, fmt.Errorf("steps=%s: too many steps", quote(steps))
		}
		req.capture.Steps = n
	case hasSecs:
		f, err := strconv.ParseFloat(secs, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f) || f <= 0:
			return nil, fmt.Errorf("seconds=%s: want a number of seconds above 0", quote(secs))
		case h.o.MaxSeconds > 0 && f > h.o.MaxSeconds:
			return nil, fmt.Errorf("seconds=%s: past this server's bound of %s seconds (httpprof.Options.MaxSeconds)", quote(secs), strconv.FormatFloat(h.o.MaxSeconds, 'f', -1, 64))
		case f > float64(math.MaxInt64/int64(time.Second)):
			return nil, fmt.Errorf("seconds=%s: too long", quote(secs))
		case time.Duration(f*float64(time.Second)) <= 0:
			return nil, fmt.Errorf("seconds=%s: want a number of seconds above 0 (a nanosecond at least)", quote(secs))
		}
		req.capture.Duration = time.Duration(f * float64(time.Second))
	default:
		return nil, errors.New("say how long to capture: steps=N (the next N steps) or seconds=S")
	}
	if v, ok := get("activities"); ok {
		if strings.Trim(v, ", ") == "" {
			return nil, fmt.Errorf("activities=%s: names no activity type", quote(v))
		}
		set, err := kineto.ParseActivities(v)
		if err != nil {
			return nil, fmt.Errorf("activities=%s: %v", quote(v), err)
		}
		opts.Activities = set
	}
	for _, b := range []struct {
		k   string
		dst *bool
	}{{"record_shapes", &opts.RecordShapes}, {"profile_memory", &opts.ProfileMemory},
		{"with_stack", &opts.WithStack}, {"gzip", &req.gzip}, {"group_by_input_shape", &req.byShape}} {
		if err := boolean(b.k, b.dst); err != nil {
			return nil, err
		}
	}
	req.capture.Options = &opts
	if v, ok := get("sort_by"); ok && v != "" && v != "key" {
		if _, ok := events.SortKey(v, ""); !ok {
			return nil, fmt.Errorf("sort_by=%s: FunctionEventAvg has no such attribute (try cpu_time_total, self_cpu_time_total, self_device_time_total, cpu_memory_usage, count)", quote(v))
		}
		req.sortBy = v
	}
	req.rowLimit = 100
	if v, ok := get("row_limit"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < -1 {
			return nil, fmt.Errorf("row_limit=%s: want -1 (all) or a count ≥ 0", quote(v))
		}
		req.rowLimit = n
	}
	if v, ok := get("format"); ok && kind == kindTrace {
		switch v {
		case "json":
		case "pftrace":
			req.pftrace = true
		default:
			return nil, fmt.Errorf("format=%s: want json (Kineto's, the default) or pftrace (Perfetto's protobuf)", quote(v))
		}
	} else if ok {
		f, ok := text.ParseFormat(v)
		if !ok {
			return nil, fmt.Errorf("format=%s: want text, markdown, csv or json", quote(v))
		}
		req.format = f
	}
	return req, nil
}

func urlQuery(r *http.Request) (map[string][]string, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("bad query: %v", err)
	}
	return q, nil
}

func (h *handler) capture(w http.ResponseWriter, r *http.Request, kind int) {
	req, err := h.parse(r, kind)
	if err != nil {
		http.Error(w, "orprof: "+err.Error(), http.StatusBadRequest)
		return
	}
	if h.o.MaxEvents > 0 {
		req.capture.MaxEvents = h.o.MaxEvents
	}
	res, err := h.p.Capture(r.Context(), req.capture)
	if res == nil {
		switch {
		case r.Context().Err() != nil:
			return // the client is gone; the capture was cancelled
		case errors.Is(err, orprof.ErrCaptureBusy), errors.Is(err, orprof.ErrAlreadyProfiling), errors.Is(err, orprof.ErrScheduled):
			http.Error(w, err.Error(), http.StatusConflict)
		case errors.Is(err, orprof.ErrProfilerStopped):
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
		default:
			http.Error(w, "orprof: capture failed: "+strings.TrimPrefix(err.Error(), "orprof: "), http.StatusInternalServerError)
		}
		return
	}
	// Backend failures and OnTraceReady errors come with a usable result: say so in a header.
	var warns []string
	if err != nil {
		warns = append(warns, err.Error())
	}
	warns = append(warns, res.Warnings...)
	cut := "" // the capture reached Options.MaxEvents: said in the page and the table text too
	for _, m := range warns {
		w.Header().Add("X-Orprof-Warning", headerSafe(m))
		if cut == "" && strings.HasPrefix(m, orprof.CaptureBoundWarning) {
			cut = m
		}
	}
	switch kind {
	case kindTrace:
		writeTrace(w, r, res, req.gzip, h.o.OmitSpans, req.pftrace)
		return
	case kindReport:
		// The table and the op tree from the capture's events; the timeline, kernel, step and
		// memory views from its trace, read back as a file.
		g := events.AverageOptions{GroupByInputShape: req.byShape}
		m := html.ListModel(res.Events, optable.RankInfo{}, res.Device, res.Options.ProfileMemory, g)
		bd, _, err := report.FromTrace(res.Trace(), "capture", report.Options{})
		if err != nil {
			http.Error(w, "orprof: report: "+err.Error(), http.StatusInternalServerError)
			return
		}
		m.UseBundle(bd)
		m.Title = "capture of " + captureLength(req.capture)
		if cut != "" {
			m.Warnings = append(m.Warnings, cut)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", html.ContentSecurityPolicy)
		html.Write(w, m) //nolint:errcheck // a write error means the client left
		return
	}
	rows := res.KeyAverages(events.AverageOptions{GroupByInputShape: req.byShape})
	o := optable.TableOptions{UseDevice: res.Device, ProfileMemory: res.Options.ProfileMemory}
	o.SortBy, o.RowLimit = req.sortBy, req.rowLimit
	if o.RowLimit == 0 {
		o.RowLimit = optable.RowLimitNone
	}
	switch req.format {
	case text.JSON:
		w.Header().Set("Content-Type", "application/json")
	case text.CSV:
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	default:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	optable.Write(w, req.format, rows, o) //nolint:errcheck // a write error means the client left
	if cut != "" && (req.format == text.Text || req.format == text.Markdown) {
		// A line under the table; CSV and JSON keep their shape (the header says it).
		fmt.Fprintf(w, "\nwarning: %s\n", cut)
	}
}

// captureLength says how long a capture was asked to be: "3 steps", "2s".
func captureLength(c orprof.CaptureOptions) string {
	if c.Steps > 0 {
		if c.Steps == 1 {
			return "1 step"
		}
		return strconv.Itoa(c.Steps) + " steps"
	}
	return c.Duration.String()
}

func writeTrace(w http.ResponseWriter, r *http.Request, res *orprof.Result, asFile, omitSpans, pftrace bool) {
	name := orprof.DefaultWorkerName() + "." + strconv.FormatInt(time.Now().UnixMilli(), 10) + ".pt.trace.json"
	if pftrace {
		name = strings.TrimSuffix(name, ".json") + ".pftrace"
	}
	hdr := w.Header()
	compress := false
	switch {
	case asFile:
		name += ".gz"
		hdr.Set("Content-Type", "application/gzip")
		compress = true
	case pftrace:
		hdr.Set("Content-Type", "application/octet-stream")
	default:
		hdr.Set("Content-Type", "application/json")
		hdr.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r) {
			hdr.Set("Content-Encoding", "gzip")
			compress = true
		}
	}
	hdr.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	t := *res.Trace() // a copy: the result stays as it was
	t.OmitSpans = t.OmitSpans || omitSpans
	t.TraceName = name
	write := trace.Write
	if pftrace {
		write = perfetto.WriteTrace
	}
	if !compress {
		write(w, &t) //nolint:errcheck // a write error means the client left
		return
	}
	zw := gz.NewWriter(w)
	write(zw, &t) //nolint:errcheck // a write error means the client left
	zw.Close()    // always: it ends the compressing goroutine
}

func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0" {
				return true
			}
		}
	}
	return false
}

// headerSafe makes one header line of a message: no control characters, at most ~200 bytes.
func headerSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// quote quotes at most ~100 bytes of s for an error message.
func quote(s string) string {
	if len(s) > 100 {
		return strconv.Quote(s[:100]) + "…"
	}
	return strconv.Quote(s)
}

// isDigits reports whether s is a non-empty run of ASCII digits (a count too large for an int).
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func names(set map[string]bool) string {
	var out []string
	for _, k := range []string{"steps", "seconds", "activities", "record_shapes", "profile_memory", "with_stack",
		"gzip", "sort_by", "row_limit", "group_by_input_shape", "format"} {
		if set[k] {
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}
