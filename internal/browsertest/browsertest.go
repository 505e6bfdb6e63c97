// Package browsertest opens pages in a real headless Chromium (through
// github.com/chromedp/chromedp, a test-only dependency) or Firefox (over WebDriver BiDi, by
// this package's own small client: firefox.go, ws.go) for tests: it records every console
// error, uncaught exception and browser-log error, and every network request the page makes,
// so a test can require none; it evaluates JavaScript, clicks and takes screenshots. Both
// browsers' pages are a Tab. Where a browser is not installed (Debian's chromium and
// firefox-esr packages; $ORPROF_CHROMIUM and $ORPROF_FIREFOX name others), the test is
// skipped with the reason.
package browsertest

import (
	"context"
	"strings"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Exec returns the path of the Chromium to run, or "" and why there is none.
func Exec() (string, string) {
	return findBrowser("ORPROF_CHROMIUM", "Chromium", "chromium",
		"chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
}

// findBrowser is the executable $env names, or else the first of names on $PATH; or "" and
// why there is none (pkg: the Debian package to install).
func findBrowser(env, browser, pkg string, names ...string) (string, string) {
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Sprintf("$%s=%s: %v", env, p, err)
		}
		return p, ""
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p, ""
		}
	}
	return "", fmt.Sprintf("no %s found (apt-get install %s, or set $%s)", browser, pkg, env)
}

// Browser is one headless Chromium process; each Open is a tab of it.
type Browser struct {
	ctx    context.Context
	cancel func()
}

// Start starts a headless Chromium for t, or skips t saying why there is none. It is stopped
// when t ends. Browser tests run without -race (see skipUnderRace).
func Start(t testing.TB) *Browser {
	t.Helper()
	skipUnderRace(t)
	path, why := Exec()
	if path == "" {
		t.Skip("browser test skipped: " + why)
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()))
	ctx, cancel := chromedp.NewContext(actx)
	// The first Run starts the browser; it must not run under a timeout.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		acancel()
		t.Fatalf("starting %s: %v", path, err)
	}
	b := &Browser{ctx: ctx, cancel: func() { cancel(); acancel() }}
	t.Cleanup(b.cancel)
	return b
}

// Page is an open tab and what it did.
type Page struct {
	ctx    context.Context
	cancel func()
	recorder
	url string
}

// recorder is what a page has recorded: its console errors and uncaught exceptions (a
// Chromium page: browser-log errors too), and the URLs it requested but its own (a Firefox
// page: data: URLs too). mu guards them.
type recorder struct {
	mu   sync.Mutex
	errs []string
	reqs []string
}

// Errors are the console errors and uncaught exceptions so far.
func (r *recorder) Errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// Requests are the URLs the page requested so far (see recorder for those left out).
func (r *recorder) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reqs...)
}

// Open opens file (a local path) in a new tab of b, waits until the element matching ready
// (a CSS selector) exists, and starts recording console errors and network requests before
// the page loads. The tab is closed when t ends.
func (b *Browser) Open(t testing.TB, file, ready string) *Page {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(b.ctx)
	p := &Page{ctx: ctx, cancel: cancel, url: "file://" + abs}
	t.Cleanup(cancel)
	if err := chromedp.Listen(ctx, p.event); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if err := p.do(chromedp.EmulateViewport(1280, 860), chromedp.Navigate(p.url)); err != nil {
		t.Fatalf("opening %s: %v", file, err)
	}
	p.WaitFor(t, ready)
	return p
}

func (p *Page) event(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			msg := "console." + string(e.Type)
			for _, a := range e.Args {
				msg += " " + string(a.Value) + a.Description
			}
			p.errs = append(p.errs, msg)
		}
	case *runtime.EventExceptionThrown:
		msg := "exception"
		if d := e.ExceptionDetails; d != nil {
			msg += ": " + d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
		}
		p.errs = append(p.errs, msg)
	case *log.EventEntryAdded:
		if e.Entry != nil && e.Entry.Level == log.EntryLevelError {
			p.errs = append(p.errs, "log: "+e.Entry.Text+" "+e.Entry.URL)
		}
	case *network.EventRequestWillBeSent:
		if e.Request != nil && e.Request.URL != p.url {
			p.reqs = append(p.reqs, e.Request.URL)
		}
	}
}

func (p *Page) do(actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

// WaitFor waits until an element matches the CSS selector sel.
func (p *Page) WaitFor(t testing.TB, sel string) {
	t.Helper()
	if err := p.do(chromedp.WaitReady(chromedp.CSS(sel))); err != nil {
		t.Fatalf("waiting for %s: %v (page errors: %v)", sel, err, p.Errors())
	}
}

// Eval evaluates the JavaScript expression expr in the page and decodes its value into out
// (nil: discard it).
func (p *Page) Eval(t testing.TB, expr string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	if out == nil {
		return
	}
	if err := remarshal(v, out); err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
}

// Click clicks the first element matching sel.
func (p *Page) Click(t testing.TB, sel string) {
	t.Helper()
	if err := p.do(chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("clicking %s: %v", sel, err)
	}
}

// Screenshot writes a PNG of the viewport to path.
func (p *Page) Screenshot(t testing.TB, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
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
func (p *Page) Close() { p.cancel() }

// CheckClean fails t if the page logged an error or made a network request.
func (p *Page) CheckClean(t testing.TB) { checkClean(t, p) }

// Tab is an open page in Chromium (Page) or Firefox (FirefoxPage), for tests that run in
// both.
type Tab interface {
	// Eval evaluates a JavaScript expression and decodes its value into out (nil: discard).
	Eval(t testing.TB, expr string, out any)
	// WaitFor waits until an element matches a CSS selector.
	WaitFor(t testing.TB, sel string)
	// Click clicks the first element matching a CSS selector.
	Click(t testing.TB, sel string)
	// Screenshot writes a PNG of the viewport.
	Screenshot(t testing.TB, path string)
	// Errors and Requests are what the page logged as errors and requested so far.
	Errors() []string
	Requests() []string
	// CheckClean fails t if the page logged an error or made a network request.
	CheckClean(t testing.TB)
	// Close closes the tab.
	Close()
}

var (
	_ Tab = (*Page)(nil)
	_ Tab = (*FirefoxPage)(nil)
)

func checkClean(t testing.TB, p Tab) {
	t.Helper()
	if e := p.Errors(); len(e) > 0 {
		t.Errorf("%d console errors, the first: %s", len(e), e[0])
	}
	if r := p.Requests(); len(r) > 0 {
		t.Errorf("%d network requests, the first: %s", len(r), r[0])
	}
}

// skipUnderRace skips t in a -race build. The browser is another process: the race detector
// sees only the test's side, the CLI run in process, which the other tests cover, and slows it
// several times. .ci/run runs the browser tests without -race by name, so a browser test's
// name must say Browser or Firefox (a benchmark's need not: CI runs none).
func skipUnderRace(t testing.TB) {
	t.Helper()
	if _, test := t.(*testing.T); test && !strings.Contains(t.Name(), "Browser") && !strings.Contains(t.Name(), "Firefox") {
		t.Fatalf("%s starts a browser: its name must contain Browser or Firefox (.ci/run runs those without -race)", t.Name())
	}
	if raceEnabled {
		t.Skip("browser tests run without -race (.ci/run's second test step)")
	}
}
