package httpprof

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/orprof/orprof"
)

// FuzzParseQuery: any query is either refused with a reason or gives a capture within the
// limits; nothing panics.
func FuzzParseQuery(f *testing.F) {
	for _, q := range []string{"steps=5", "seconds=0.5&gzip=1", "steps=1&activities=cpu_op,kernel&record_shapes",
		"steps=2&sort_by=count&row_limit=-1&format=csv", "seconds=1e308", "steps=1;2", "%zz", "steps=1&steps=1"} {
		f.Add(q, true)
		f.Add(q, false)
	}
	p, err := orprof.NewProfiler(orprof.ProfilerOptions{})
	if err != nil {
		f.Fatal(err)
	}
	h := &handler{p: p, o: Options{}.withDefaults()}
	f.Fuzz(func(t *testing.T, query string, trace bool) {
		r := httptest.NewRequest("GET", "/debug/orprof/trace", nil)
		r.URL.RawQuery = query
		kind := kindTable
		if trace {
			kind = kindTrace
		}
		// Every query is parsed for the report too, which takes a subset of the table's.
		if rreq, rerr := h.parse(r, kindReport); rerr == nil {
			if rreq.capture.Options == nil || rreq.capture.Steps == 0 && rreq.capture.Duration <= 0 {
				t.Fatalf("%q: report capture %+v", query, rreq.capture)
			}
		} else if rerr.Error() == "" {
			t.Fatal("an empty reason")
		}
		req, err := h.parse(r, kind)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty reason")
			}
			return
		}
		c := req.capture
		if (c.Steps < 1 || c.Steps > DefaultMaxSteps) && (c.Steps != 0 || c.Duration <= 0 || c.Duration > DefaultMaxSeconds*time.Second) {
			t.Fatalf("%q: capture out of limits: %+v", query, c)
		}
		if req.rowLimit < -1 || c.Options == nil {
			t.Fatalf("%q: %+v", query, req)
		}
	})
}
