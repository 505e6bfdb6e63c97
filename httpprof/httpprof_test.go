package httpprof_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/httpprof"
	"github.com/orprof/orprof/kineto"
	"github.com/orprof/orprof/openreg"
	"github.com/orprof/orprof/openreg/ops"
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// loop runs openreg's MLP a step at a time under p on its own goroutine and keeps the longest
// time between two steps.
type loop struct {
	steps   atomic.Int64
	longest atomic.Int64 // ns
	stop    func()
}

func startLoop(t *testing.T, p *orprof.Profiler, workload string) *loop {
	t.Helper()
	ctx := orprof.WithThread(context.Background(), orprof.NewThread())
	l, err := ops.StartWorkload(ctx, openreg.Default(), workload)
	require.NoError(t, err)
	require.NoError(t, p.Start(ctx))
	lp := &loop{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		last := time.Now()
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := l.Step(ctx); err != nil {
				t.Errorf("workload step: %v", err)
				return
			}
			if err := p.Step(ctx); err != nil {
				t.Errorf("Profiler.Step: %v", err)
				return
			}
			now := time.Now()
			if d := now.Sub(last); int64(d) > lp.longest.Load() {
				lp.longest.Store(int64(d))
			}
			last = now
			lp.steps.Add(1)
		}
	}()
	var once sync.Once
	lp.stop = func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			require.NoError(t, p.Stop())
			require.NoError(t, l.Close(ctx))
		})
	}
	return lp
}

// server mounts the handler as a program would and serves it on 127.0.0.1.
func server(t *testing.T, p *orprof.Profiler) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle(httpprof.Prefix, httpprof.Handler(p))
	srv := httptest.NewServer(mux)
	require.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"), srv.URL)
	t.Cleanup(srv.Close)
	return srv
}

func get(ctx context.Context, url string) (int, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body, err
}

var stepRE = regexp.MustCompile(`"cat": "user_annotation", "name": "ProfilerStep#(\d+)"`)

// traceSteps checks a captured trace and returns the numbers of its steps, ascending.
func traceSteps(t *testing.T, body []byte) []int {
	t.Helper()
	require.NoError(t, trace.Check(body))
	var steps []int
	for _, m := range stepRE.FindAllSubmatch(body, -1) {
		n, _ := strconv.Atoi(string(m[1]))
		steps = append(steps, n)
	}
	sort.Ints(steps)
	return steps
}

func consecutive(steps []int) bool {
	for i := 1; i < len(steps); i++ {
		if steps[i] != steps[i-1]+1 {
			return false
		}
	}
	return true
}

// A capture of 5 MLP steps over HTTP, read back with the table code, gives the table the same
// steps give in-process.
func TestCaptureTableEqualsInProcess(t *testing.T) {
	results := make(chan *orprof.Result, 1)
	p, err := orprof.NewProfiler(orprof.ProfilerOptions{Options: orprof.Options{Device: "openreg"},
		OnTraceReady: func(r *orprof.Result) error { results <- r; return nil }})
	require.NoError(t, err)
	lp := startLoop(t, p, "mlp")
	defer func() { lp.stop() }()
	srv := server(t, p)

	code, hdr, body, err := get(context.Background(), srv.URL+"/debug/orprof/trace?steps=5")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, string(body))
	assert.Equal(t, "application/json", hdr.Get("Content-Type"))
	assert.Regexp(t, `^attachment; filename=".+\.\d+\.pt\.trace\.json"$`, hdr.Get("Content-Disposition"))
	steps := traceSteps(t, body)
	require.Len(t, steps, 5)
	assert.True(t, consecutive(steps), "%v", steps)
	res := <-results

	data, err := tracefile.Read(bytes.NewReader(body), "capture", tracefile.Options{})
	require.NoError(t, err)
	assert.Equal(t, "openreg", data.DeviceName)
	read := events.NewList(data.Events, events.ListOptions{UseDevice: data.DeviceName})
	var fromHTTP, inProcess strings.Builder
	require.NoError(t, optable.WriteTable(&fromHTTP, read.KeyAverages(events.AverageOptions{}),
		optable.TableOptions{UseDevice: data.DeviceName, RowLimit: optable.RowLimitAll}))
	o := optable.TableOptions{UseDevice: res.Device, ProfileMemory: res.Options.ProfileMemory}
	o.RowLimit = optable.RowLimitAll
	require.NoError(t, optable.WriteTable(&inProcess, res.KeyAverages(events.AverageOptions{}), o))
	assert.Equal(t, inProcess.String(), fromHTTP.String())
	assert.Contains(t, fromHTTP.String(), "ProfilerStep*")
	assert.Contains(t, fromHTTP.String(), "Self OPENREG")

	// The table endpoint: another 5 steps, as text.
	code, hdr, body, err = get(context.Background(), srv.URL+"/debug/orprof/table?steps=5&sort_by=self_cpu_time_total&row_limit=-1")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, string(body))
	<-results
	assert.Equal(t, "text/plain; charset=utf-8", hdr.Get("Content-Type"))
	assert.Regexp(t, `(?m)^ +ProfilerStep\*( +\S+){9} +5  $`, string(body), "five steps in the table")
	assert.Contains(t, string(body), "Self CPU time total: ")
}

// The real test: the OpenReg workload runs in a loop while concurrent clients capture, collide
// and walk away; every trace passes the checker and holds exactly the steps asked for, and the
// loop never stalls. Bounded: a fixed number of requests and a deadline.
func TestConcurrentClients(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p, err := orprof.NewProfiler(orprof.ProfilerOptions{Options: orprof.Options{Device: "openreg"}})
	require.NoError(t, err)
	lp := startLoop(t, p, "mlp")
	defer func() { lp.stop() }()
	srv := server(t, p)
	base := srv.URL + httpprof.Prefix

	// A conflict: a long capture holds the profiler and others get 409, until its client
	// walks away, which cancels it. (Tried again if the probe happened to come first.)
	var conflict string
	for held := false; !held; {
		require.NoError(t, ctx.Err(), "no conflict seen")
		longCtx, walkAway := context.WithCancel(ctx)
		longDone := make(chan int, 1)
		go func() {
			code, _, _, _ := get(longCtx, base+"trace?steps=5000")
			longDone <- code
		}()
		time.Sleep(10 * time.Millisecond) // a head start; the probe may still come first
	probe:
		for {
			select {
			case <-longDone: // the probe's capture came first: the long one was refused
				break probe
			default:
			}
			code, _, body, err := get(ctx, base+"table?steps=1")
			require.NoError(t, err)
			if code == http.StatusConflict {
				conflict, held = string(body), true
				break probe
			}
		}
		walkAway()
		if held {
			assert.Zero(t, <-longDone, "the walked-away client got no answer")
		}
	}
	assert.Contains(t, conflict, "a capture is already running (one at a time)")

	var captured, conflicts, cancelled atomic.Int64
	var wg sync.WaitGroup
	client := func(id int, query string, want int) {
		defer wg.Done()
		for attempt := 0; ctx.Err() == nil; attempt++ {
			code, _, body, err := get(ctx, base+"trace?"+query)
			if err != nil {
				t.Errorf("client %d: %v", id, err)
				return
			}
			switch code {
			case http.StatusConflict:
				conflicts.Add(1)
				time.Sleep(time.Duration(5+id) * time.Millisecond)
				continue
			case http.StatusOK:
			default:
				t.Errorf("client %d: %d %s", id, code, body)
				return
			}
			steps := traceSteps(t, body)
			if want > 0 {
				assert.Len(t, steps, want, "client %d: %s", id, query)
			}
			assert.True(t, consecutive(steps), "client %d: %v", id, steps)
			captured.Add(1)
			return
		}
		t.Errorf("client %d: no capture before the deadline", id)
	}
	canceller := func(id int) {
		defer wg.Done()
		for cancelled.Load() < 3 && ctx.Err() == nil {
			cctx, stop := context.WithTimeout(ctx, 30*time.Millisecond)
			code, _, _, err := get(cctx, base+"trace?steps=5000")
			stop()
			switch {
			case err != nil:
				cancelled.Add(1)
			case code == http.StatusConflict:
				conflicts.Add(1)
				time.Sleep(time.Millisecond)
			default:
				t.Errorf("canceller %d: the capture of 5000 steps answered %d", id, code)
				return
			}
		}
	}
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go client(i, fmt.Sprintf("steps=%d", 1+i%3), 1+i%3)
	}
	wg.Add(3)
	go client(100, "seconds=0.05", 0)
	go client(101, "steps=2&record_shapes=1&profile_memory=1&gzip=0", 2)
	go canceller(200)
	wg.Wait()
	require.NoError(t, ctx.Err(), "deadline")
	assert.Equal(t, int64(10), captured.Load())
	assert.Equal(t, int64(3), cancelled.Load())
	t.Logf("%d captures, %d conflicts answered 409, %d cancelled; %d workload steps, longest %v",
		captured.Load(), conflicts.Load(), cancelled.Load(), lp.steps.Load(), time.Duration(lp.longest.Load()))

	// After all that the profiler is free and the loop still steps.
	before := lp.steps.Load()
	code, _, body, err := get(ctx, base+"trace?steps=3")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, string(body))
	assert.Len(t, traceSteps(t, body), 3)
	assert.Greater(t, lp.steps.Load(), before)
	assert.Less(t, time.Duration(lp.longest.Load()), 5*time.Second, "the workload never stalls")
}

func TestParameters(t *testing.T) {
	p, err := orprof.NewProfiler(orprof.ProfilerOptions{Options: orprof.Options{Device: "openreg"}})
	require.NoError(t, err)
	lp := startLoop(t, p, "mlp")
	defer func() { lp.stop() }()
	srv := server(t, p)
	base := srv.URL + httpprof.Prefix
	for _, tc := range []struct{ query, msg string }{
		{"trace", "say how long to capture: steps=N (the next N steps) or seconds=S"},
		{"trace?steps=0", `steps="0": want a whole number of steps, at least 1`},
		{"trace?steps=100000", `steps="100000": past this server's bound of 10000 steps (httpprof.Options.MaxSteps)`},
		{"trace?steps=99999999999999999999999", `past this server's bound of 10000 steps`},
		{"trace?steps=x", `steps="x"`},
		{"trace?seconds=-1", `seconds="-1": want a number of seconds above 0`},
		{"trace?seconds=3600", `seconds="3600": past this server's bound of 600 seconds (httpprof.Options.MaxSeconds)`},
		{"trace?seconds=1e400", `past this server's bound of 600 seconds`},
		{"trace?seconds=NaN", `seconds="NaN"`},
		{"trace?seconds=1e-12", `seconds="1e-12"`},
		{"trace?steps=1&seconds=1", "not both"},
		{"trace?steps=1&steps=2", `parameter "steps" given 2 times`},
		{"trace?step=1", `unknown parameter "step" (have steps, seconds, activities, record_shapes, profile_memory, with_stack, gzip, format)`},
		{"trace?steps=1&format=text", `format="text": want json (Kineto's, the default) or pftrace (Perfetto's protobuf)`},
		{"trace?steps=1&sort_by=count", `unknown parameter "sort_by"`},
		{"table?steps=1&gzip=1", `unknown parameter "gzip"`},
		{"trace?steps=1&activities=warp_drive", `activities="warp_drive": `},
		{"trace?steps=1&activities=,", `activities=",": names no activity type`},
		{"trace?steps=1&record_shapes=maybe", `record_shapes="maybe": want 1 or 0, true or false`},
		{"table?steps=1&sort_by=nonsense", `sort_by="nonsense": FunctionEventAvg has no such attribute`},
		{"table?steps=1&row_limit=-5", `row_limit="-5": want -1 (all) or a count ≥ 0`},
		{"table?steps=1&format=xml", `format="xml": want text, markdown, csv or json`},
		{"trace?steps=1;x", "bad query"},
		{"trace?steps=" + strings.Repeat("9", 500), "…"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			code, _, body, err := get(context.Background(), base+tc.query)
			require.NoError(t, err)
			assert.Equal(t, http.StatusBadRequest, code)
			assert.Contains(t, string(body), tc.msg)
			assert.Less(t, len(body), 300)
			assert.Equal(t, 1, strings.Count(string(body), "\n"), "one line")
		})
	}

	resp, err := http.Post(base+"trace?steps=1", "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, "GET", resp.Header.Get("Allow"))
	code, _, body, err := get(context.Background(), base+"nosuch")
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotFound, code, string(body))
	code, _, body, err = get(context.Background(), base)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(body), "trace?steps=N")
	code, _, _, err = get(context.Background(), srv.URL+"/debug/pprof/")
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotFound, code, "only what is mounted is served")

	// A profiler that follows a schedule takes no captures; a stopped one neither.
	sched, err := orprof.NewProfiler(orprof.ProfilerOptions{Schedule: &orprof.Schedule{Wait: 1000, Active: 1}})
	require.NoError(t, err)
	code, _, body, err = get(context.Background(), server(t, sched).URL+httpprof.Prefix+"trace?steps=1")
	require.NoError(t, err)
	assert.Equal(t, http.StatusConflict, code)
	assert.Contains(t, string(body), "follows a schedule")
	stopped, err := orprof.NewProfiler(orprof.ProfilerOptions{})
	require.NoError(t, err)
	require.NoError(t, stopped.Start(context.Background()))
	require.NoError(t, stopped.Stop())
	code, _, body, err = get(context.Background(), server(t, stopped).URL+httpprof.Prefix+"table?seconds=1")
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, string(body), "the profiler is stopped")
}

// Recording switches and compression by query parameter.
func TestCaptureOptions(t *testing.T) {
	p, err := orprof.NewProfiler(orprof.ProfilerOptions{Options: orprof.Options{Device: "openreg"}})
	require.NoError(t, err)
	lp := startLoop(t, p, "mlp")
	defer func() { lp.stop() }()
	srv := server(t, p)
	base := srv.URL + httpprof.Prefix

	// A .json.gz file.
	code, hdr, body, err := get(context.Background(), base+"trace?steps=1&gzip=1&record_shapes=1&profile_memory")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, string(body))
	assert.Equal(t, "application/gzip", hdr.Get("Content-Type"))
	assert.Regexp(t, `\.pt\.trace\.json\.gz"$`, hdr.Get("Content-Disposition"))
	zr, err := gzip.NewReader(bytes.NewReader(body))
	require.NoError(t, err)
	plain, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Len(t, traceSteps(t, plain), 1)
	assert.Contains(t, string(plain), `"Input Dims"`, "record_shapes")
	assert.Contains(t, string(plain), `"[memory]"`, "profile_memory")

	// Gzip as a content encoding, for a client that asks for it.
	req, _ := http.NewRequest(http.MethodGet, base+"trace?steps=1&activities=cpu_op,kernel,privateuse1_runtime", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "gzip", resp.Header.Get("Content-Encoding"))
	zr, err = gzip.NewReader(resp.Body)
	require.NoError(t, err)
	plain, err = io.ReadAll(zr)
	require.NoError(t, err)
	assert.Len(t, traceSteps(t, plain), 1)
	assert.Contains(t, string(plain), `"cat": "kernel"`, "activities: the kernels of OpenReg's activity profiler")
	assert.NotContains(t, string(plain), `"Input Dims"`, "the switches of one capture do not stay")

	// A program that never steps (a server handling requests) is captured by time.
	lp.stop()
	idle, err := orprof.NewProfiler(orprof.ProfilerOptions{})
	require.NoError(t, err)
	srv2 := server(t, idle)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ctx := orprof.WithThread(context.Background(), orprof.NewThread())
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
				orprof.RecordFunction(ctx, "handle request").End()
			}
		}
	}()
	code, _, body, err = get(context.Background(), srv2.URL+httpprof.Prefix+"table?seconds=0.05&format=csv")
	close(done)
	wg.Wait()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, string(body))
	assert.Regexp(t, `(?m)^handle request,`, string(body))
	assert.NotContains(t, string(body), "ProfilerStep")
}

// The report endpoint: a capture of 3 steps as one HTML page whose embedded operator summary
// is the one the same capture gives in-process (optable.NewSummary of its key averages, in
// orprof table's JSON); parameters the report does not take are refused.
func TestCaptureReport(t *testing.T) {
	results := make(chan *orprof.Result, 1)
	p, err := orprof.NewProfiler(orprof.ProfilerOptions{Options: orprof.Options{Device: "openreg"},
		OnTraceReady: func(r *orprof.Result) error { results <- r; return nil }})
	require.NoError(t, err)
	lp := startLoop(t, p, "mlp")
	defer func() { lp.stop() }()
	srv := server(t, p)

	code, _, body, err := get(context.Background(), srv.URL+"/debug/orprof/report?format=json&steps=1")
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, string(body), `unknown parameter "format"`)

	code, hdr, body, err := get(context.Background(), srv.URL+"/debug/orprof/report?steps=3")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, string(body))
	res := <-results
	assert.Equal(t, "text/html; charset=utf-8", hdr.Get("Content-Type"))
	assert.Contains(t, hdr.Get("Content-Security-Policy"), "default-src 'none'")
	m := regexp.MustCompile(`(?s)<script id="orprof-data" type="application/json">(.*?)</script>`).FindSubmatch(body)
	require.NotNil(t, m, "the page embeds its data")
	var page struct {
		Title string          `json:"title"`
		Table json.RawMessage `json:"table"`
		Flame *struct {
			Nodes int `json:"nodes"`
		} `json:"flame"`
	}
	require.NoError(t, json.Unmarshal(m[1], &page))
	assert.Equal(t, "capture of 3 steps", page.Title)
	require.NotNil(t, page.Flame)
	assert.Positive(t, page.Flame.Nodes)
	s := optable.NewSummary(res.KeyAverages(events.AverageOptions{}), optable.RankInfo{},
		optable.SummaryOptions{Device: res.Device, ProfileMemory: res.Options.ProfileMemory})
	var want bytes.Buffer
	require.NoError(t, optable.WriteSummaryJSON(&want, s, optable.TableOptions{RowLimit: optable.RowLimitAll}))
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, want.Bytes()))
	var got bytes.Buffer
	require.NoError(t, json.Compact(&got, page.Table))
	assert.Equal(t, compact.String(), got.String())
	assert.Contains(t, got.String(), `"key":"ProfilerStep*","count":3,`)
}

// The report endpoint shows the views a trace gives, from the capture's trace read back: the
// step breakdown of its ProfilerSteps, the timeline analyses, the kernel view (kernel mode:
// the backend's kernels).
func TestCaptureReportViews(t *testing.T) {
	p, err := orprof.NewProfiler(orprof.ProfilerOptions{Options: orprof.Options{Device: "openreg",
		Activities: kineto.DefaultActivities()}})
	require.NoError(t, err)
	lp := startLoop(t, p, "mlp")
	defer func() { lp.stop() }()
	srv := server(t, p)
	code, _, body, err := get(context.Background(), srv.URL+"/debug/orprof/report?steps=2")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, string(body))
	m := regexp.MustCompile(`(?s)<script id="orprof-data" type="application/json">(.*?)</script>`).FindSubmatch(body)
	require.NotNil(t, m, "the page embeds its data")
	var page struct {
		Timeline *struct {
			Ranks []json.RawMessage `json:"ranks"`
		} `json:"timeline"`
		Steps *struct {
			Ranks []struct {
				Steps []json.RawMessage `json:"steps"`
			} `json:"ranks"`
		} `json:"steps"`
		Kernels *struct {
			Doc json.RawMessage `json:"doc"`
		} `json:"kernels"`
		Why map[string]string `json:"why"`
	}
	require.NoError(t, json.Unmarshal(m[1], &page))
	require.NotNil(t, page.Timeline, "no timeline: %v", page.Why["timeline"])
	assert.Len(t, page.Timeline.Ranks, 1)
	require.NotNil(t, page.Steps, "no step breakdown: %v", page.Why["breakdown"])
	require.Len(t, page.Steps.Ranks, 1)
	assert.Len(t, page.Steps.Ranks[0].Steps, 2)
	require.NotNil(t, page.Kernels, "no kernels: %v", page.Why["kernels"])
	assert.Contains(t, string(page.Kernels.Doc), `"orprof_kernels"`)
}

// TestCapturePftrace: format=pftrace sends the capture as a Perfetto trace (protobuf), as a
// .pftrace file or, with gzip=1, a .pftrace.gz one.
func TestCapturePftrace(t *testing.T) {
	p, err := orprof.NewProfiler(orprof.ProfilerOptions{Options: orprof.Options{Device: "openreg"}})
	require.NoError(t, err)
	lp := startLoop(t, p, "mlp")
	defer func() { lp.stop() }()
	base := server(t, p).URL + httpprof.Prefix
	for _, tc := range []struct{ query, suffix, ctype string }{
		{"trace?steps=1&format=pftrace", ".pftrace", "application/octet-stream"},
		{"trace?steps=1&format=pftrace&gzip=1", ".pftrace.gz", "application/gzip"},
	} {
		code, hdr, body, err := get(context.Background(), base+tc.query)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, code, string(body))
		assert.Equal(t, tc.ctype, hdr.Get("Content-Type"))
		assert.Contains(t, hdr.Get("Content-Disposition"), tc.suffix+`"`)
		if strings.HasSuffix(tc.suffix, ".gz") {
			z, err := gzip.NewReader(bytes.NewReader(body))
			require.NoError(t, err)
			body, err = io.ReadAll(z)
			require.NoError(t, err)
		}
		// A Trace: packets (field 1, length-delimited), one holding a track event named
		// ProfilerStep#N among them.
		require.NotEmpty(t, body)
		assert.Equal(t, byte(1<<3|2), body[0], "a Trace's first field is a packet")
		assert.Contains(t, string(body), "ProfilerStep#")
	}
}
