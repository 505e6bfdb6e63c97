package httpprof_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/httpprof"
)

// TestCaptureBounds: a handler's Options bound what a request may capture — steps and seconds
// past the bound are refused with 400 naming it, and a capture that reaches MaxEvents
// records ends there, long before the 60 s it asked for, with a warning header (before, a
// capture grew without end: ~14 MB a second until the process died) — and OmitSpans leaves
// the span event out of the traces served. A cut capture's text table and report page say it
// was cut.
func TestCaptureBounds(t *testing.T) {
	p, err := orprof.NewProfiler(orprof.ProfilerOptions{Options: orprof.Options{Device: "openreg"}})
	require.NoError(t, err)
	lp := startLoop(t, p, "mlp")
	defer func() { lp.stop() }()
	mux := http.NewServeMux()
	mux.Handle(httpprof.Prefix, httpprof.NewHandler(p, httpprof.Options{MaxEvents: 2000, MaxSteps: 5, MaxSeconds: 60, OmitSpans: true}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	base := srv.URL + httpprof.Prefix
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()

	for query, want := range map[string]string{
		"trace?steps=6":       `steps="6": past this server's bound of 5 steps (httpprof.Options.MaxSteps)`,
		"table?seconds=60.5":  `seconds="60.5": past this server's bound of 60 seconds (httpprof.Options.MaxSeconds)`,
		"report?seconds=3600": "past this server's bound of 60 seconds",
	} {
		code, _, body, err := get(ctx, base+query)
		require.NoError(t, err)
		assert.Equal(t, http.StatusBadRequest, code, query)
		assert.Contains(t, string(body), want, query)
	}

	start := time.Now()
	code, hdr, body, err := get(ctx, base+"trace?seconds=60")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, string(body))
	assert.Less(t, time.Since(start), 30*time.Second, "the bound ended the capture")
	warn := strings.Join(hdr.Values("X-Orprof-Warning"), "; ")
	assert.Contains(t, warn, orprof.CaptureBoundWarning+"2000 records (CaptureOptions.MaxEvents)")
	var doc struct {
		TraceEvents []struct {
			Cat string          `json:"cat"`
			Pid json.RawMessage `json:"pid"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(body, &doc))
	host := 0
	for _, e := range doc.TraceEvents {
		if e.Cat == "cpu_op" || e.Cat == "user_annotation" {
			host++
		}
		assert.NotEqual(t, `"Spans"`, string(e.Pid), "OmitSpans")
	}
	assert.GreaterOrEqual(t, host, 1000, "the capture holds about its bound")
	assert.Less(t, host, 20000, "and not much more")

	// In kernels mode the kernels and launches the backend's profiler holds count too: the
	// capture ends with fewer than MaxEvents host records (counting host records alone, it
	// ended past 2000 of them, with as many device records again on top).
	code, _, body, err = get(ctx, base+"trace?seconds=60&activities=cpu_op,kernel,privateuse1_runtime")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, string(body))
	doc.TraceEvents = nil
	require.NoError(t, json.Unmarshal(body, &doc))
	host, device := 0, 0
	for _, e := range doc.TraceEvents {
		switch e.Cat {
		case "cpu_op", "user_annotation":
			host++
		case "kernel", "privateuse1_runtime":
			device++
		}
	}
	assert.Greater(t, device, 100, "a kernels-mode capture")
	assert.Less(t, host, 2000, "device records count toward the bound")

	// The table text and the report page say so too, not only the header (before, a cut
	// table read as a whole one).
	for query, want := range map[string]string{
		"table?seconds=60":                 "\nwarning: " + orprof.CaptureBoundWarning + "2000 records",
		"table?seconds=60&format=markdown": "\nwarning: " + orprof.CaptureBoundWarning + "2000 records",
		"report?seconds=60":                `<div class="sub" role="alert">warning: ` + orprof.CaptureBoundWarning + "2000 records",
	} {
		code, _, body, err := get(ctx, base+query)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, code, query)
		assert.Contains(t, string(body), want, query)
	}
	code, _, body, err = get(ctx, base+"table?seconds=60&format=csv")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code)
	assert.NotContains(t, string(body), "warning:", "a CSV table keeps its shape: the header says it")

	code, hdr, body, err = get(ctx, base+"table?steps=2")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
	assert.NotContains(t, strings.Join(hdr.Values("X-Orprof-Warning"), "; "), orprof.CaptureBoundWarning, "2 steps stay under the bound")
	assert.NotContains(t, string(body), "warning:", "no line under a whole capture's table")
}
