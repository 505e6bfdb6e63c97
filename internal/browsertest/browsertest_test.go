package browsertest

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// probePage misbehaves on purpose: a console error, an uncaught exception, an image and a
// fetch from a local server (SERVER), and a button that counts clicks. A recorder that misses
// any of it would let the report's "no error, no request" checks pass for nothing.
const probePage = `<!doctype html><html><head><meta charset="utf-8"><title>probe</title></head><body>
<button id="b" style="margin-top:1500px" onclick="this.dataset.n = String(Number(this.dataset.n || 0) + 1)">press</button>
<img src="SERVER/probe.png">
<script>
console.error("probe: an error");
fetch("SERVER/probe.json").catch(() => {});
setTimeout(() => { document.body.dataset.ready = "1"; throw new Error("probe: uncaught"); }, 10);
</script></body></html>`

// probeCSP asks for an image and a fetch under the report's Content-Security-Policy.
const probeCSP = `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'"></head><body>
<img src="SERVER/csp.png"><script>fetch("SERVER/csp.json").catch(() => {}); document.body.dataset.ready = "1";</script></body></html>`

// TestRecordersBrowser: in each browser, the page's console error and uncaught exception are
// recorded as errors and its two requests as requests, and under a Content-Security-Policy
// like the report's the two refused requests are recorded as errors; Eval reads values back
// as JSON; Click reaches a button below the fold; Screenshot writes a PNG.
func TestRecordersBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts browsers")
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	dir := t.TempDir()
	page := filepath.Join(dir, "probe.html")
	if err := os.WriteFile(page, []byte(strings.ReplaceAll(probePage, "SERVER", srv.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	cspPage := filepath.Join(dir, "csp.html")
	if err := os.WriteFile(cspPage, []byte(strings.ReplaceAll(probeCSP, "SERVER", srv.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct {
		name  string
		start func(t *testing.T) func(t *testing.T, file string) Tab
	}{
		{"chromium", func(t *testing.T) func(t *testing.T, file string) Tab {
			br := Start(t)
			return func(t *testing.T, file string) Tab { return br.Open(t, file, "body[data-ready]") }
		}},
		{"firefox", func(t *testing.T) func(t *testing.T, file string) Tab {
			br := StartFirefox(t)
			return func(t *testing.T, file string) Tab { return br.Open(t, file, "body[data-ready]") }
		}},
	} {
		t.Run(b.name, func(t *testing.T) {
			open := b.start(t)
			p := open(t, page)
			deadline := time.Now().Add(10 * time.Second)
			for (len(p.Errors()) < 2 || len(p.Requests()) < 2) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			errs, reqs := strings.Join(p.Errors(), "\n"), p.Requests()
			for _, want := range []string{"probe: an error", "probe: uncaught"} {
				if !strings.Contains(errs, want) {
					t.Errorf("errors %q: no %q", errs, want)
				}
			}
			for _, want := range []string{srv.URL + "/probe.png", srv.URL + "/probe.json"} {
				if !slices.Contains(reqs, want) {
					t.Errorf("requests %q: no %q", reqs, want)
				}
			}
			var got struct {
				A []int  `json:"a"`
				S string `json:"s"`
			}
			p.Eval(t, `({a: [1, 2, 3], s: document.title})`, &got)
			if !slices.Equal(got.A, []int{1, 2, 3}) || got.S != "probe" {
				t.Errorf("Eval gave %+v", got)
			}
			p.Click(t, "#b")
			p.Click(t, "#b")
			var n string
			p.Eval(t, `document.getElementById("b").dataset.n`, &n)
			if n != "2" {
				t.Errorf("two clicks counted %q", n)
			}
			// Under the report's policy a request is not made but refused, and the refusal
			// is an error the recorder sees.
			csp := open(t, cspPage)
			deadline = time.Now().Add(10 * time.Second)
			for len(csp.Errors()) < 2 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			for _, want := range []string{srv.URL + "/csp.png", srv.URL + "/csp.json"} {
				if !slices.ContainsFunc(csp.Errors(), func(e string) bool { return strings.Contains(e, want) }) {
					t.Errorf("the policy's refusals %q: no %q", csp.Errors(), want)
				}
			}
			shot := filepath.Join(dir, b.name+".png")
			p.Screenshot(t, shot)
			if png, err := os.ReadFile(shot); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
				t.Errorf("screenshot: %v, %d bytes", err, len(png))
			}
		})
	}
}

// TestWebSocketFrames: the client's frames as RFC 6455 has them, against a server made of
// bytes: masked text frames of every length encoding out; unmasked frames in, fragmented
// messages joined, a ping answered with its payload, a close ending the reads.
func TestWebSocketFrames(t *testing.T) {
	for _, n := range []int{0, 1, 125, 126, 65535, 65536, 300000} {
		client, server := net.Pipe()
		w := &wsConn{c: client, br: newReader(client)}
		msg := bytes.Repeat([]byte("x"), n)
		go w.WriteText(msg)
		var h [2]byte
		io.ReadFull(server, h[:])
		if h[0] != 0x81 || h[1]&0x80 == 0 {
			t.Fatalf("%d bytes: header %x: want FIN, text, masked", n, h)
		}
		ln := int(h[1] & 0x7f)
		switch ln {
		case 126:
			var b [2]byte
			io.ReadFull(server, b[:])
			ln = int(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			io.ReadFull(server, b[:])
			ln = int(binary.BigEndian.Uint64(b[:]))
		}
		if ln != n {
			t.Fatalf("%d bytes: length %d", n, ln)
		}
		var mask [4]byte
		io.ReadFull(server, mask[:])
		got := make([]byte, ln)
		io.ReadFull(server, got)
		for i := range got {
			got[i] ^= mask[i&3]
		}
		if !bytes.Equal(got, msg) {
			t.Fatalf("%d bytes: payload differs", n)
		}
		client.Close()
		server.Close()
	}

	client, server := net.Pipe()
	defer client.Close()
	w := &wsConn{c: client, br: newReader(client)}
	go func() {
		server.Write([]byte{0x01, 3, 'a', 'b', 'c'}) // text, not final
		server.Write([]byte{0x89, 2, 'h', 'i'})      // a ping between the fragments
		server.Write(append([]byte{0x80, 126, 0, 200}, bytes.Repeat([]byte("d"), 200)...))
		server.Write([]byte{0x88, 0}) // close
	}()
	pong := make(chan []byte, 1)
	go func() {
		var b [8]byte
		io.ReadFull(server, b[:2])
		io.ReadFull(server, b[2:8]) // mask + "hi"
		p := []byte{b[6] ^ b[2], b[7] ^ b[3]}
		pong <- append([]byte{b[0]}, p...)
		io.Copy(io.Discard, server)
	}()
	msg, err := w.ReadMessage()
	if err != nil || string(msg) != "abc"+strings.Repeat("d", 200) {
		t.Fatalf("fragmented message: %q, %v", msg, err)
	}
	if p := <-pong; p[0] != 0x8A || string(p[1:]) != "hi" {
		t.Errorf("pong %x: want 8a and the ping's payload", p)
	}
	if _, err := w.ReadMessage(); err != io.EOF {
		t.Errorf("after a close: %v, want io.EOF", err)
	}
}
