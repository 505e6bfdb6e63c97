package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

var traceStepRE = regexp.MustCompile(`"cat": "user_annotation", "name": "(ProfilerStep#\d+)"`)

// traceFileSteps checks a trace file and returns its step names in file order.
func traceFileSteps(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, trace.Check(raw), path)
	var steps []string
	for _, m := range traceStepRE.FindAllSubmatch(raw, -1) {
		steps = append(steps, string(m[1]))
	}
	return steps
}

func TestRunSchedule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		files [][]string
	}{
		{"the issue's schedule", []string{"--schedule", "wait=1,warmup=1,active=2,repeat=2"},
			[][]string{{"ProfilerStep#2", "ProfilerStep#3"}, {"ProfilerStep#6", "ProfilerStep#7"}}},
		{"skip_first", []string{"--schedule", "skip_first=3,active=1,repeat=1"}, [][]string{{"ProfilerStep#3"}}},
		{"--steps overrides", []string{"--schedule", "wait=1,active=1", "--steps", "6", "--workload", "multistream"},
			[][]string{{"ProfilerStep#1"}, {"ProfilerStep#3"}, {"ProfilerStep#5"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "traces")
			var out, errb bytes.Buffer
			code := dispatch(append([]string{"run", "--trace-dir", dir}, tc.args...), nil, &out, &errb)
			require.Equal(t, 0, code, errb.String())
			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			sort.Strings(names) // unix ms: time order
			require.Len(t, names, len(tc.files), "%v", names)
			for i, n := range names {
				assert.Regexp(t, `^.+_\d+\.\d{13}\.pt\.trace\.json$`, n)
				assert.Equal(t, tc.files[i], traceFileSteps(t, filepath.Join(dir, n)), n)
				assert.Contains(t, errb.String(), "written to "+filepath.Join(dir, n))
			}
			assert.Equal(t, len(tc.files), strings.Count(out.String(), "Self CPU time total"), "a table per cycle")
		})
	}

	// --trace-gzip, and --steps alone: one cycle of N steps, written to --trace.
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := dispatch([]string{"run", "--schedule", "active=1,repeat=1", "--trace-dir", dir, "--trace-gzip"}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	gz, _ := filepath.Glob(filepath.Join(dir, "*.pt.trace.json.gz"))
	require.Len(t, gz, 1)
	data, err := tracefile.Open(gz[0], tracefile.Options{})
	require.NoError(t, err)
	assert.NotEmpty(t, data.Events)

	trace := filepath.Join(dir, "five.json")
	out.Reset()
	errb.Reset()
	code = dispatch([]string{"run", "--steps", "5", "--trace", trace}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Len(t, traceFileSteps(t, trace), 5)
	assert.Regexp(t, `(?m)^ +ProfilerStep\*( +\S+){9} +5  $`, out.String())
}

func TestRunStepFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--schedule", "wait=1"}, `run: --schedule "wait=1": schedule: active is missing`},
		{[]string{"--schedule", "active=2,bogus=1"}, `unknown key "bogus"`},
		{[]string{"--schedule", "active=1"}, "repeat=0 never ends; add --steps N or --loop"},
		{[]string{"--schedule", "active=1,repeat=1", "--trace", "x.json"}, "run: --trace: with --schedule each cycle has its own trace; use --trace-dir DIR"},
		{[]string{"--schedule", "active=1,repeat=1", "--legacy-trace"}, "run: --legacy-trace: not available"},
		{[]string{"--schedule", "active=1,repeat=1", "--http", "127.0.0.1:0"}, "--http and --schedule: choose one"},
		{[]string{"--trace-dir", "d"}, "run: --trace-dir: needs --schedule"},
		{[]string{"--schedule", "active=1,repeat=1", "--trace-gzip"}, "run: --trace-gzip: needs --trace-dir"},
		{[]string{"--steps", "-1"}, "run: --steps -1: must be ≥ 1"},
		{[]string{"--steps", "2", "--loop", "--http", "127.0.0.1:0"}, "--steps and --loop: choose one"},
		{[]string{"--http", "127.0.0.1:0"}, "run: --http: add --loop"},
		{[]string{"--loop"}, "run: --loop: add --http ADDR or --schedule"},
		{[]string{"--http", "256.1.1.1:http", "--steps", "1"}, `run: --http "256.1.1.1:http": `},
		{[]string{"--steps", "1", "--workload", "nosuch"}, `unknown workload`},
		{[]string{"--steps", "1", "--device", "opencl"}, "run: --device opencl: the step-by-step modes"},
		// Checked before the first cycle runs (before, both cycle tables were printed first).
		{[]string{"--schedule", "active=1,repeat=2", "--trace-dir", "/proc/nope"}, `run: --trace-dir "/proc/nope": cannot create the directory in "/proc"`},
		{[]string{"--http", "127.0.0.1:0", "--steps", "1", "--row-limit", "5"}, "run: --row-limit: with --http the tables go to the HTTP clients"},
		{[]string{"--http", "127.0.0.1:0", "--steps", "1", "--format", "json"}, "run: --format: with --http the tables go to the HTTP clients"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch(append([]string{"run"}, tc.args...), nil, &out, &errb)
			assert.Equal(t, 2, code)
			assert.Contains(t, errb.String(), tc.msg)
			assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %s", errb.String())
			assert.Empty(t, out.String(), "a refused run prints nothing")
		})
	}
}

// TestRunHTTPStepsWarns: run --http ADDR --steps 3 serves only while the 3 steps run (tens of
// ms): when no capture was asked for meanwhile it says so in one warning line pointing to
// --loop (before, it served 20 ms and exited 0 without a word).
func TestRunHTTPStepsWarns(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"run", "--http", "127.0.0.1:0", "--steps", "3"}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Empty(t, out.String())
	assert.Regexp(t, `(?m)^orprof: warning: --http "127\.0\.0\.1:0": the server stopped when the workload's 3 steps ended \(\S+\) and no capture was asked for; --loop serves until SIGINT or SIGTERM$`, errb.String())
}

// TestRunHTTPLoopChild is `orprof run --http ... --loop` in a child process (the signals of
// TestRunHTTPLoop go to it alone); it does nothing in a normal test run.
func TestRunHTTPLoopChild(t *testing.T) {
	if os.Getenv("ORPROF_HTTP_CHILD") != "1" {
		t.Skip("runs only as TestRunHTTPLoop's child process")
	}
	os.Exit(dispatch([]string{"run", "--http", "127.0.0.1:0", "--loop"}, nil, os.Stdout, os.Stderr))
}

// `orprof run --http ADDR --loop`: a capture of 5 MLP steps over HTTP holds them, and the
// process logs it in one line, printing no table (before, every capture's whole table went to
// stdout: 4.6 MB after 400 captures); SIGINT and SIGTERM stop it cleanly (exit 0).
func TestRunHTTPLoop(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestRunHTTPLoopChild$")
			cmd.Dir = t.TempDir() // where a stray default trace.json would land
			cmd.Env = append(os.Environ(), "ORPROF_HTTP_CHILD=1")
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			stderr, err := cmd.StderrPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			defer cmd.Process.Kill() //nolint:errcheck // already gone when the test passes
			lines := bufio.NewScanner(stderr)
			var base string
			for base == "" && lines.Scan() {
				if m := regexp.MustCompile(`serving captures on (http://\S+/debug/orprof/)`).FindStringSubmatch(lines.Text()); m != nil {
					base = m[1]
				}
			}
			require.NotEmpty(t, base, "the child says where it serves")
			rest := make(chan string, 1)
			go func() {
				b, _ := io.ReadAll(readerOf(lines))
				rest <- string(b)
			}()

			client := &http.Client{Timeout: 60 * time.Second}
			resp, err := client.Get(base + "trace?steps=5")
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
			path := filepath.Join(t.TempDir(), "capture.pt.trace.json")
			require.NoError(t, os.WriteFile(path, body, 0o644))
			assert.Len(t, traceFileSteps(t, path), 5)

			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				require.NoError(t, err, "exit status 0 after %v", sig)
			case <-time.After(30 * time.Second):
				t.Fatalf("still running 30 s after %v", sig)
			}
			log := <-rest
			_, err = os.Stat(filepath.Join(cmd.Dir, "trace.json"))
			assert.ErrorIs(t, err, os.ErrNotExist, "captures go to the clients, not to --trace's default")
			assert.Regexp(t, `(?m)^orprof: captured ProfilerStep#\d+\.\.#\d+ \(\d+ events\)$`, log)
			assert.Equal(t, 1, strings.Count(log, "captured"), "one line per capture: %s", log)
			assert.Regexp(t, `stopped by signal after \d+ steps`, log)
			assert.Empty(t, stdout.String(), "no table per capture on stdout")
		})
	}
}

// readerOf turns the rest of a scanner's lines back into a reader.
func readerOf(s *bufio.Scanner) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		for s.Scan() {
			pw.Write(append(s.Bytes(), '\n')) //nolint:errcheck // the reader reads to the end
		}
		pw.Close()
	}()
	return pr
}
