package browsertest

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Firefox, driven over WebDriver BiDi: the W3C protocol Firefox speaks on a WebSocket when
// started with --remote-debugging-port (no geckodriver, no library: the client is this file
// and ws.go). Commands are JSON objects {id, method, params} answered by {id, type:
// "success", result} or {id, type: "error", error, message}; events come as {type: "event",
// method, params}. The test pages subscribe to log.entryAdded (console errors and uncaught
// exceptions) and network.beforeRequestSent (every request), and use browsingContext.create,
// navigate, setViewport and captureScreenshot, script.evaluate and input.performActions.

// FirefoxExec returns the path of the Firefox to run, or "" and why there is none.
func FirefoxExec() (string, string) {
	return findBrowser("ORPROF_FIREFOX", "Firefox", "firefox-esr", "firefox-esr", "firefox")
}

// Firefox is one headless Firefox process and its BiDi session; each Open is a tab of it.
type Firefox struct {
	cmd  *exec.Cmd
	ws   *wsConn
	done chan struct{} // closed when the reader ends

	mu      sync.Mutex
	nextID  int
	pending map[int]chan bidiReply
	pages   map[string]*FirefoxPage // by browsing context id
	readErr error
	Version string // the browser's name and version, from session.new

	stopOnce sync.Once
}

type bidiReply struct {
	Type    string          `json:"type"`
	ID      *int            `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
}

var listening = regexp.MustCompile(`WebDriver BiDi listening on (ws://\S+)`)

// StartFirefox starts a headless Firefox with a fresh profile for t, or skips t saying why
// there is none. It is stopped when t ends.
func StartFirefox(t testing.TB) *Firefox {
	t.Helper()
	skipUnderRace(t)
	path, why := FirefoxExec()
	if path == "" {
		t.Skip("Firefox test skipped: " + why)
	}
	profile := t.TempDir()
	// A few preferences on top of the ones the remote agent sets for automation: no first-run
	// pages, no default-browser check, no background connections this machine cannot make.
	prefs := strings.Join([]string{
		`user_pref("browser.shell.checkDefaultBrowser", false);`,
		`user_pref("browser.startup.homepage_override.mstone", "ignore");`,
		`user_pref("datareporting.policy.dataSubmissionEnabled", false);`,
		`user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);`,
		`user_pref("network.connectivity-service.enabled", false);`,
		`user_pref("app.normandy.enabled", false);`,
		`user_pref("messaging-system.rsexperimentloader.enabled", false);`,
		`user_pref("browser.region.network.url", "");`,
	}, "\n")
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(prefs+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "-headless", "-no-remote", "-profile", profile, "--remote-debugging-port=0", "about:blank")
	cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1", "MOZ_HEADLESS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its content processes stop with it
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	f := &Firefox{cmd: cmd, done: make(chan struct{}), pending: map[int]chan bidiReply{}, pages: map[string]*FirefoxPage{}}
	t.Cleanup(f.stop)
	wsURL := make(chan string, 1)
	var tail []string
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		sent := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				wsURL <- m[1]
				sent = true
			} else if !sent && len(tail) < 20 {
				tail = append(tail, sc.Text())
			}
		}
		if !sent {
			close(wsURL)
		}
	}()
	var u string
	select {
	case u = <-wsURL:
	case <-time.After(60 * time.Second):
	}
	if u == "" {
		t.Fatalf("%s did not start WebDriver BiDi: %s", path, strings.Join(tail, " | "))
	}
	ws, err := wsDial(u+"/session", 10*time.Second)
	if err != nil {
		t.Fatalf("connecting to %s: %v", u, err)
	}
	f.ws = ws
	go f.read()
	var sess struct {
		Capabilities struct {
			BrowserName    string `json:"browserName"`
			BrowserVersion string `json:"browserVersion"`
		} `json:"capabilities"`
	}
	if err := f.call("session.new", map[string]any{"capabilities": map[string]any{}}, &sess); err != nil {
		t.Fatalf("session.new: %v", err)
	}
	f.Version = sess.Capabilities.BrowserName + " " + sess.Capabilities.BrowserVersion
	if err := f.call("session.subscribe", map[string]any{"events": []string{"log.entryAdded", "network.beforeRequestSent"}}, nil); err != nil {
		t.Fatalf("session.subscribe: %v", err)
	}
	return f
}

// read dispatches the replies to their callers and the events to their pages, until the
// connection ends.
func (f *Firefox) read() {
	defer close(f.done)
	for {
		msg, err := f.ws.ReadMessage()
		if err != nil {
			f.mu.Lock()
			f.readErr = err
			for id, ch := range f.pending {
				close(ch)
				delete(f.pending, id)
			}
			f.mu.Unlock()
			return
		}
		var r bidiReply
		if err := json.Unmarshal(msg, &r); err != nil {
			continue
		}
		if r.Type == "event" {
			f.event(r.Method, r.Params)
			continue
		}
		if r.ID == nil {
			continue
		}
		f.mu.Lock()
		ch := f.pending[*r.ID]
		delete(f.pending, *r.ID)
		f.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
}

func (f *Firefox) event(method string, params json.RawMessage) {
	var p struct {
		Level   string `json:"level"`
		Type    string `json:"type"`
		Text    string `json:"text"`
		Context string `json:"context"`
		Source  struct {
			Context string `json:"context"`
		} `json:"source"`
		Request struct {
			URL string `json:"url"`
		} `json:"request"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	ctx := p.Context
	if ctx == "" {
		ctx = p.Source.Context
	}
	f.mu.Lock()
	page := f.pages[ctx]
	f.mu.Unlock()
	if page == nil {
		return
	}
	page.mu.Lock()
	defer page.mu.Unlock()
	switch method {
	case "log.entryAdded":
		if p.Level == "error" {
			page.errs = append(page.errs, p.Type+": "+p.Text)
		}
	case "network.beforeRequestSent":
		// A data: URL fetches nothing. Firefox reports one on any page with a list: the
		// bullet font (-moz-bullet-font) its own user-agent style sheet (html.css) embeds.
		if p.Request.URL != page.url && !strings.HasPrefix(p.Request.URL, "data:") {
			page.reqs = append(page.reqs, p.Request.URL)
		}
	}
}

// call sends a command and decodes its result into out (nil: discard it).
func (f *Firefox) call(method string, params any, out any) error {
	return f.callTimeout(method, params, out, 60*time.Second)
}

func (f *Firefox) callTimeout(method string, params any, out any, timeout time.Duration) error {
	f.mu.Lock()
	if f.readErr != nil {
		f.mu.Unlock()
		return fmt.Errorf("%s: the connection to Firefox ended: %v", method, f.readErr)
	}
	f.nextID++
	id := f.nextID
	ch := make(chan bidiReply, 1)
	f.pending[id] = ch
	f.mu.Unlock()
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	if err := f.ws.WriteText(msg); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	select {
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: the connection to Firefox ended", method)
		}
		if r.Type == "error" {
			return fmt.Errorf("%s: %s: %s", method, r.Error, r.Message)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-ctx.Done():
		f.mu.Lock()
		delete(f.pending, id)
		f.mu.Unlock()
		return fmt.Errorf("%s: no reply in %v", method, timeout)
	}
}

// stop ends the session and the browser: browser.close, then the process group's kill if
// it has not exited within a few seconds.
func (f *Firefox) stop() { f.stopOnce.Do(f.stop1) }

func (f *Firefox) stop1() {
	if f.ws != nil {
		f.callTimeout("browser.close", map[string]any{}, nil, 5*time.Second)
		f.ws.Close()
		<-f.done
	}
	exited := make(chan struct{})
	go func() { f.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		syscall.Kill(-f.cmd.Process.Pid, syscall.SIGKILL) // the group started with it
		<-exited
	}
}

// FirefoxPage is an open tab and what it did.
type FirefoxPage struct {
	f       *Firefox
	context string
	url     string
	recorder
	closed bool // guarded by mu
}

// Open opens file (a local path) in a new tab of f at 1280×860, records its console errors,
// uncaught exceptions and network requests from before it loads, and waits until the element
// matching ready (a CSS selector) exists. The tab is closed when t ends.
func (f *Firefox) Open(t testing.TB, file, ready string) *FirefoxPage {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Context string `json:"context"`
	}
	if err := f.call("browsingContext.create", map[string]any{"type": "tab"}, &created); err != nil {
		t.Fatal(err)
	}
	p := &FirefoxPage{f: f, context: created.Context, url: "file://" + abs}
	f.mu.Lock()
	f.pages[p.context] = p
	f.mu.Unlock()
	t.Cleanup(p.Close)
	if err := f.call("browsingContext.setViewport", map[string]any{"context": p.context,
		"viewport": map[string]int{"width": 1280, "height": 860}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.call("browsingContext.navigate", map[string]any{"context": p.context, "url": p.url, "wait": "complete"}, nil); err != nil {
		t.Fatalf("opening %s: %v", file, err)
	}
	p.WaitFor(t, ready)
	return p
}

// evaluate runs the JavaScript expression expr in the page and returns JSON.stringify of its
// value ("" for undefined).
func (p *FirefoxPage) evaluate(expr string) (string, error) {
	var r struct {
		Type   string `json:"type"`
		Result struct {
			Type  string `json:"type"`
			Value any    `json:"value"`
		} `json:"result"`
		ExceptionDetails struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	err := p.f.call("script.evaluate", map[string]any{"expression": "JSON.stringify((" + expr + "))",
		"target": map[string]string{"context": p.context}, "awaitPromise": true, "resultOwnership": "none"}, &r)
	switch {
	case err != nil:
		return "", err
	case r.Type == "exception":
		return "", errors.New("exception: " + r.ExceptionDetails.Text)
	case r.Result.Type == "undefined":
		return "", nil
	case r.Result.Type != "string":
		return "", fmt.Errorf("JSON.stringify gave a %s", r.Result.Type)
	}
	return r.Result.Value.(string), nil
}

// Eval evaluates the JavaScript expression expr in the page and decodes its value into out
// (nil: discard it), through JSON.
func (p *FirefoxPage) Eval(t testing.TB, expr string, out any) {
	t.Helper()
	js, err := p.evaluate(expr)
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	if out == nil || js == "" {
		return
	}
	if err := json.Unmarshal([]byte(js), out); err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
}

// WaitFor waits (up to a minute) until an element matches the CSS selector sel.
func (p *FirefoxPage) WaitFor(t testing.TB, sel string) {
	t.Helper()
	q, _ := json.Marshal(sel)
	deadline := time.Now().Add(60 * time.Second)
	for {
		js, err := p.evaluate("document.querySelector(" + string(q) + ") !== null")
		if err != nil {
			t.Fatalf("waiting for %s: %v", sel, err)
		}
		if js == "true" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: not there after a minute (page errors: %v)", sel, p.Errors())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Click clicks the first element matching sel as a person would: scrolled into view, the
// pointer moved to its middle, the button pressed and released (input.performActions).
func (p *FirefoxPage) Click(t testing.TB, sel string) {
	t.Helper()
	q, _ := json.Marshal(sel)
	var r struct {
		Type   string `json:"type"`
		Result struct {
			Type     string `json:"type"`
			SharedID string `json:"sharedId"`
		} `json:"result"`
	}
	err := p.f.call("script.evaluate", map[string]any{"expression": "(() => { const e = document.querySelector(" + string(q) +
		"); if (e) e.scrollIntoView({block: 'center', inline: 'center'}); return e; })()",
		"target": map[string]string{"context": p.context}, "awaitPromise": false, "resultOwnership": "none"}, &r)
	if err != nil || r.Type != "success" || r.Result.Type != "node" {
		t.Fatalf("clicking %s: no such element (%v)", sel, err)
	}
	el := map[string]any{"type": "element", "element": map[string]string{"sharedId": r.Result.SharedID}}
	if err := p.f.call("input.performActions", map[string]any{"context": p.context, "actions": []any{map[string]any{
		"type": "pointer", "id": "mouse", "parameters": map[string]string{"pointerType": "mouse"},
		"actions": []any{
			map[string]any{"type": "pointerMove", "x": 0, "y": 0, "origin": el},
			map[string]any{"type": "pointerDown", "button": 0},
			map[string]any{"type": "pointerUp", "button": 0},
		}}}}, nil); err != nil {
		t.Fatalf("clicking %s: %v", sel, err)
	}
}

// Screenshot writes a PNG of the viewport to path.
func (p *FirefoxPage) Screenshot(t testing.TB, path string) {
	t.Helper()
	var r struct {
		Data string `json:"data"`
	}
	if err := p.f.call("browsingContext.captureScreenshot", map[string]any{"context": p.context}, &r); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Close closes the tab (it is closed when the test ends otherwise).
func (p *FirefoxPage) Close() {
	p.mu.Lock()
	closed := p.closed
	p.closed = true
	p.mu.Unlock()
	if closed {
		return
	}
	p.f.callTimeout("browsingContext.close", map[string]any{"context": p.context}, nil, 10*time.Second)
	p.f.mu.Lock()
	delete(p.f.pages, p.context)
	p.f.mu.Unlock()
}

// CheckClean fails t if the page logged an error or made a network request.
func (p *FirefoxPage) CheckClean(t testing.TB) { checkClean(t, p) }
