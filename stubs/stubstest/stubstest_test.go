package stubstest_test

import (
	"errors"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/stubs"
	"github.com/orprof/orprof/stubs/stubstest"
)

// buildFixtures compiles ../testdata/good.c once per macro set, in parallel, into dir.
func buildFixtures(t *testing.T, dir string, defs map[string][]string) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		out  = map[string]string{}
		errs []string
	)
	for name, d := range defs {
		wg.Go(func() {
			so := filepath.Join(dir, "lib"+strings.ToLower(name)+".so")
			args := []string{"-shared", "-fPIC", "-O2", "-I..", "-o", so, "../testdata/good.c", "-lpthread"}
			for _, m := range d {
				args = append(args, "-D"+m)
			}
			b, err := exec.Command("gcc", args...).CombinedOutput()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, name+": "+err.Error()+"\n"+string(b))
				return
			}
			out[name] = so
		})
	}
	wg.Wait()
	require.Empty(t, errs)
	return out
}

func TestCaseNamesAreStable(t *testing.T) {
	var names []string
	for _, c := range stubstest.Cases() {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{
		"enabled", "device-count", "record-outputs", "record-cpu-clock", "elapsed-self", "elapsed-order",
		"elapsed-host-gap", "elapsed-null", "on-each-device", "synchronize", "ranges", "mark",
		"concurrent-record", "event-lifetime",
	}, names)
}

// Every faulty fixture fails exactly the checks it breaks, and the correct one fails none. The
// event count is cut to keep the table fast (the leaking fixture's pool is cut to match);
// TestRunCBackend runs the full default against the correct fixture.
func TestFaultyBackendsFailExactlyTheirChecks(t *testing.T) {
	fixtures := []struct {
		macro       string
		fail, skips []string
	}{
		{"GOOD", nil, nil},
		{"BREAK_ENABLED", []string{"enabled"}, nil},
		{"BREAK_DEVICE_COUNT", []string{"device-count"}, nil},
		{"BREAK_RECORD_NULL", []string{"record-outputs"}, nil},
		{"BREAK_CPU_CLOCK", []string{"record-cpu-clock"}, nil},
		{"BREAK_ELAPSED_SELF", []string{"elapsed-self"}, nil},
		{"BREAK_ELAPSED_ORDER", []string{"elapsed-order"}, nil},
		{"BREAK_HOST_GAP", []string{"elapsed-host-gap"}, nil},
		{"BREAK_ELAPSED_NULL", []string{"elapsed-null"}, nil},
		{"BREAK_ON_EACH_CURRENT", []string{"on-each-device"}, nil},
		{"BREAK_ON_EACH_RESTORE", []string{"on-each-device"}, nil},
		{"BREAK_SYNCHRONIZE", []string{"synchronize"}, nil},
		{"BREAK_RANGES", []string{"ranges"}, nil},
		{"BREAK_MARK", []string{"mark"}, nil},
		{"BREAK_CONCURRENT", []string{"concurrent-record"}, nil},
		{"BREAK_EVENT_LIFETIME", []string{"event-lifetime"}, nil},
		{"NO_RANGES", nil, []string{"ranges", "mark"}},
	}
	defs := map[string][]string{}
	for _, f := range fixtures {
		switch f.macro {
		case "GOOD":
			defs[f.macro] = nil
		case "BREAK_EVENT_LIFETIME":
			defs[f.macro] = []string{f.macro, "EVENT_POOL=8192"}
		default:
			defs[f.macro] = []string{f.macro}
		}
	}
	libs := buildFixtures(t, t.TempDir(), defs)
	for _, f := range fixtures {
		t.Run(f.macro, func(t *testing.T) {
			open := func() (stubs.Stubs, error) { return stubs.Open(libs[f.macro]) }
			var fails, skips []string
			for _, c := range stubstest.Cases() {
				r := c.Run(open, stubstest.Timeout(20*time.Second), stubstest.Events(10_000))
				switch r.Status {
				case stubstest.Fail:
					fails = append(fails, r.Name)
					t.Log(r)
				case stubstest.Skip:
					skips = append(skips, r.Name)
				}
			}
			sort.Strings(f.fail)
			sort.Strings(fails)
			assert.Equal(t, f.fail, fails, "failed checks")
			assert.Equal(t, f.skips, skips, "skipped checks")
		})
	}
}

func TestRunCBackend(t *testing.T) {
	lib := buildFixtures(t, t.TempDir(), map[string][]string{"good": nil})["good"]
	stubstest.Run(t, func(t *testing.T) stubs.Stubs {
		s, err := stubs.Open(lib)
		require.NoError(t, err)
		return s
	})
}

func TestCheckReportsEveryFailureByName(t *testing.T) {
	err := stubstest.Check(func() (stubs.Stubs, error) { return stubs.Default("nodev"), nil })
	require.Error(t, err)
	msg := err.Error()
	for _, c := range stubstest.Cases() {
		assert.Contains(t, msg, c.Name+": ", "every case fails on stubs that are not enabled (Default has DeviceCount, ranges and marks too)")
	}
	assert.Contains(t, msg, "enabled: Enabled() = false")
	assert.Contains(t, msg, "nodev used in profiler but not enabled.")
	assert.Len(t, strings.Split(msg, "\n"), len(stubstest.Cases()))
}

func TestCheckNewBackendError(t *testing.T) {
	err := stubstest.Check(func() (stubs.Stubs, error) { return nil, errors.New("no device") })
	assert.ErrorContains(t, err, "enabled: new backend: no device")
}

func TestResultString(t *testing.T) {
	assert.Equal(t, "PASS mark", stubstest.Result{Name: "mark", Status: stubstest.Pass}.String())
	assert.Equal(t, "FAIL ranges: a; b", stubstest.Result{Name: "ranges", Status: stubstest.Fail, Reason: "a\nb"}.String())
	assert.Equal(t, "SKIP mark: no marks", stubstest.Result{Name: "mark", Status: stubstest.Skip, Reason: "no marks"}.String())
}
