package stubstest_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixtureLibs map[string]string
	fixtureErr  error
)

// fixtureLib returns the library of the named fixture, building every fixture on first use:
// ../testdata/good.c compiled once per macro set with gcc, four at a time, into a directory
// TestMain removes.
func fixtureLib(t *testing.T, name string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: the C fixtures cannot be built")
	}
	fixtureOnce.Do(func() {
		if fixtureDir, fixtureErr = os.MkdirTemp("", "stubstest-fixtures"); fixtureErr != nil {
			return
		}
		var (
			mu   sync.Mutex
			wg   sync.WaitGroup
			errs []error
			sem  = make(chan struct{}, 4)
		)
		fixtureLibs = map[string]string{}
		for _, f := range fixtures {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				so := filepath.Join(fixtureDir, "lib"+strings.ToLower(f.name)+".so")
				args := []string{"-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-I..", "-o", so, "../testdata/good.c", "-lpthread"}
				for _, m := range f.macros {
					args = append(args, "-D"+m)
				}
				b, err := exec.Command("gcc", args...).CombinedOutput()
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, fmt.Errorf("gcc %s: %v\n%s", f.name, err, b))
					return
				}
				fixtureLibs[f.name] = so
			})
		}
		wg.Wait()
		fixtureErr = errors.Join(errs...)
	})
	require.NoError(t, fixtureErr)
	require.Contains(t, fixtureLibs, name)
	return fixtureLibs[name]
}

func TestCaseNamesAreStable(t *testing.T) {
	assert.Equal(t, []string{
		"enabled", "device-count", "record-outputs", "record-cpu-clock", "elapsed-self", "elapsed-order",
		"elapsed-host-gap", "elapsed-repeatable", "elapsed-additive", "elapsed-null", "elapsed-devices",
		"elapsed-foreign", "elapsed-released", "error-text", "on-each-device", "device-per-thread",
		"synchronize", "synchronize-keeps-device", "ranges", "ranges-per-thread", "mark", "concurrent-record",
		"events-cross-threads", "elapsed-spans-work", "synchronize-waits-all", "events-outstanding", "event-lifetime",
	}, stubstest.Names())
	for _, c := range stubstest.Cases() {
		assert.NotEmpty(t, c.Desc, c.Name)
		assert.NotContains(t, c.Desc, "\n", c.Name)
	}
}

// The fixture events-outstanding and event-lifetime use: 10,000 outstanding, 20,000 made.
const fixtureEvents = 10_000

// The C fixtures: good.c built with one macro set each, the checks each must fail (every other
// check passing) and the checks each skips. The five defects are the first entries after
// the reference backends.
var fixtures = []struct {
	name        string
	macros      []string
	fail, skips []string
}{
	{"GOOD", nil, nil, nil},
	{"OPENREG_SEMANTICS", []string{"OPENREG_SEMANTICS"}, nil,
		[]string{"ranges", "ranges-per-thread", "elapsed-spans-work", "synchronize-waits-all"}},
	{"BREAK_ELAPSED_SCALE", []string{"BREAK_ELAPSED_SCALE"}, []string{"elapsed-host-gap"}, nil},
	{"GLOBAL_RANGES", []string{"GLOBAL_RANGES"}, []string{"ranges-per-thread"}, nil},
	{"GLOBAL_DEVICE", []string{"GLOBAL_DEVICE"}, []string{"device-per-thread"}, nil},
	{"EVENT_CAP", []string{"EVENT_POOL=4096"}, []string{"events-outstanding"}, nil},
	{"THREAD_EVENTS", []string{"THREAD_EVENTS"}, []string{"events-cross-threads"}, nil},

	{"BREAK_ENABLED", []string{"BREAK_ENABLED"}, []string{"enabled"}, notEnabledSkips()},
	{"BREAK_DEVICE_COUNT", []string{"BREAK_DEVICE_COUNT"}, []string{"device-count"}, nil},
	{"BREAK_RECORD_NULL", []string{"BREAK_RECORD_NULL"}, []string{"record-outputs"}, nil},
	{"BREAK_CPU_CLOCK", []string{"BREAK_CPU_CLOCK"}, []string{"record-cpu-clock"}, nil},
	{"BREAK_ELAPSED_SELF", []string{"BREAK_ELAPSED_SELF"}, []string{"elapsed-self"}, nil},
	{"BREAK_ELAPSED_ORDER", []string{"BREAK_ELAPSED_ORDER"}, []string{"elapsed-order"}, nil},
	{"BREAK_HOST_GAP", []string{"BREAK_HOST_GAP"}, []string{"elapsed-host-gap", "elapsed-spans-work"}, nil},
	{"BREAK_ELAPSED_NULL", []string{"BREAK_ELAPSED_NULL"}, []string{"elapsed-null"}, nil},
	{"BREAK_ERROR_TEXT", []string{"BREAK_ERROR_TEXT"}, []string{"error-text"}, nil},
	{"BREAK_ON_EACH_CURRENT", []string{"BREAK_ON_EACH_CURRENT"},
		[]string{"on-each-device", "elapsed-devices", "synchronize-keeps-device"}, nil},
	{"BREAK_ON_EACH_RESTORE", []string{"BREAK_ON_EACH_RESTORE"}, []string{"on-each-device"}, nil},
	{"BREAK_SYNCHRONIZE", []string{"BREAK_SYNCHRONIZE"},
		[]string{"synchronize", "synchronize-keeps-device", "synchronize-waits-all"}, nil},
	{"BREAK_SYNC_DEVICE", []string{"BREAK_SYNC_DEVICE"}, []string{"synchronize-keeps-device"}, nil},
	{"BREAK_SYNC_CURRENT", []string{"BREAK_SYNC_CURRENT"}, []string{"synchronize-waits-all"}, nil},
	{"BREAK_RANGES", []string{"BREAK_RANGES"}, []string{"ranges"}, nil},
	{"BREAK_MARK", []string{"BREAK_MARK"}, []string{"mark"}, nil},
	{"BREAK_CONCURRENT", []string{"BREAK_CONCURRENT"}, []string{"concurrent-record"}, nil},
	{"BREAK_EVENT_LIFETIME", []string{"BREAK_EVENT_LIFETIME", "EVENT_POOL=15000"}, []string{"event-lifetime"}, nil},
	{"NO_RANGES", []string{"NO_RANGES"}, nil, []string{"ranges", "ranges-per-thread", "mark"}},
	{"NO_QUEUE_WORK", []string{"NO_QUEUE_WORK"}, nil, []string{"elapsed-spans-work", "synchronize-waits-all"}},
	{"V1_SIZE", []string{"V1_SIZE"}, nil, []string{"elapsed-spans-work", "synchronize-waits-all"}},
}

func notEnabledSkips() []string {
	var out []string
	for _, n := range stubstest.Names() {
		if n != "enabled" {
			out = append(out, n)
		}
	}
	return out
}

// Every fixture fails exactly the checks it breaks and skips exactly the ones it lacks; the
// correct ones fail none. (TestRunCBackend runs the correct fixture under the race detector.)
func TestFixturesFailExactlyTheirChecksNoRace(t *testing.T) {
	if raceEnabled {
		t.Skip("verdicts only: run without -race (CI's NoRace step)")
	}
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			lib := fixtureLib(t, f.name)
			open := func() (stubs.Stubs, error) { return stubs.Open(lib) }
			var fails, skips []string
			for _, c := range stubstest.Cases() {
				r := c.Run(open, stubstest.Timeout(20*time.Second), stubstest.Events(fixtureEvents))
				switch r.Status {
				case stubstest.Fail:
					fails = append(fails, r.Name)
					t.Log(r)
				case stubstest.Skip:
					skips = append(skips, r.Name)
				}
			}
			sort.Strings(fails)
			sort.Strings(skips)
			assert.Equal(t, sorted(f.fail), fails, "failed checks")
			assert.Equal(t, sorted(f.skips), skips, "skipped checks")
		})
	}
}

// The five defects each fail their check in 20 runs of 20: no verdict depends on
// scheduling. Only the check a fixture must fail is repeated (TestFixturesFailExactlyTheirChecks
// runs the rest once), and the fixtures run in parallel, each library in its own state.
func TestDefectsFailEveryRunNoRace(t *testing.T) {
	if raceEnabled {
		t.Skip("verdicts only: run without -race (CI's NoRace step)")
	}
	const runs = 20
	defects := fixtures[2:7]
	var names []string
	for _, f := range defects {
		names = append(names, f.name)
	}
	require.Equal(t, []string{"BREAK_ELAPSED_SCALE", "GLOBAL_RANGES", "GLOBAL_DEVICE", "EVENT_CAP", "THREAD_EVENTS"}, names)
	for _, f := range defects {
		t.Run(f.name, func(t *testing.T) {
			lib := fixtureLib(t, f.name)
			t.Parallel()
			open := func() (stubs.Stubs, error) { return stubs.Open(lib) }
			for _, c := range stubstest.Cases() {
				if !slices.Contains(f.fail, c.Name) {
					continue
				}
				failed := 0
				for range runs {
					r := c.Run(open, stubstest.Timeout(20*time.Second), stubstest.Events(fixtureEvents))
					if r.Status == stubstest.Fail {
						failed++
					} else {
						t.Log(r)
					}
				}
				assert.Equal(t, runs, failed, "%s failed %d of %d runs", c.Name, failed, runs)
			}
		})
	}
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

func TestRunCBackend(t *testing.T) {
	lib := fixtureLib(t, "GOOD")
	stubstest.Run(t, func(t *testing.T) stubs.Stubs {
		s, err := stubs.Open(lib)
		require.NoError(t, err)
		return s
	})
}

// A backend that is not enabled fails enabled and skips every other case with "not enabled".
func TestNotEnabledSkipsTheRest(t *testing.T) {
	err := stubstest.Check(func() (stubs.Stubs, error) { return stubs.Default("nodev"), nil })
	assert.EqualError(t, err, "enabled: Enabled() = false: the backend says it is not usable")
	for _, c := range stubstest.Cases()[1:] {
		r := c.Run(func() (stubs.Stubs, error) { return stubs.Default("nodev"), nil })
		assert.Equal(t, "SKIP "+c.Name+": not enabled: Enabled() is false, so the backend cannot be checked", r.String())
	}
}

func TestCheckNewBackendError(t *testing.T) {
	err := stubstest.Check(func() (stubs.Stubs, error) { return nil, errors.New("no device") })
	assert.ErrorContains(t, err, "enabled: new backend: no device")
}

// TestResultString: a reason of several lines is folded as plugintest's is (verdict.Fold).
func TestResultString(t *testing.T) {
	for _, tc := range []struct {
		r    stubstest.Result
		want string
	}{
		{stubstest.Result{Name: "mark", Status: stubstest.Pass}, "PASS mark"},
		{stubstest.Result{Name: "ranges", Status: stubstest.Fail, Reason: "a\nb"}, "FAIL ranges: a; b"},
		{stubstest.Result{Name: "ranges", Status: stubstest.Fail, Reason: "a\n\n  b\n"}, "FAIL ranges: a; b"},
		{stubstest.Result{Name: "mark", Status: stubstest.Skip, Reason: "no marks"}, "SKIP mark: no marks"},
	} {
		assert.Equal(t, tc.want, tc.r.String())
	}
}
