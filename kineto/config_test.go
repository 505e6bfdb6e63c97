package kineto

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		name  string
		text  string
		check func(t *testing.T, c *Config)
		err   string // the error, "" for none
		line  int
		warns []string
	}{
		{name: "empty", text: "", check: func(t *testing.T, c *Config) {
			assert.Equal(t, DefaultActivities(), c.Activities)
			assert.Empty(t, c.Options)
		}},
		{name: "comments and blanks", text: "# a comment\n\n   \nACTIVITY_TYPES = cpu_op # trailing comment\n",
			check: func(t *testing.T, c *Config) {
				assert.Equal(t, NewActivitySet(CPUOp), c.Activities)
				assert.Equal(t, map[string]string{"ACTIVITY_TYPES": "cpu_op"}, c.Options)
			}},
		{name: "activity list", text: "ACTIVITY_TYPES=Runtime, driver,KERNEL", check: func(t *testing.T, c *Config) {
			assert.Equal(t, NewActivitySet(Runtime, Driver, ConcurrentKernel), c.Activities)
		}},
		{name: "empty activity list is the default", text: "ACTIVITY_TYPES=\n", check: func(t *testing.T, c *Config) {
			assert.Equal(t, DefaultActivities(), c.Activities)
			assert.Equal(t, 18, c.Activities.Len())
		}},
		{name: "profile bools", text: "PROFILE_REPORT_INPUT_SHAPES = true\nPROFILE_PROFILE_MEMORY=Y\nPROFILE_WITH_STACK = 1\nPROFILE_WITH_FLOPS=no\nPROFILE_WITH_MODULES=T",
			check: func(t *testing.T, c *Config) {
				assert.True(t, c.ReportInputShapes)
				assert.True(t, c.ProfileMemory)
				assert.True(t, c.WithStack)
				assert.False(t, c.WithFlops)
				assert.True(t, c.WithModules)
			}},
		{name: "legacy names", text: "CLIENT_INTERFACE_ENABLE_OP_INPUTS_COLLECTION=yes\nPYTHON_STACK_TRACE=t", check: func(t *testing.T, c *Config) {
			assert.True(t, c.ReportInputShapes)
			assert.True(t, c.WithStack)
		}},
		{name: "later line wins", text: "PROFILE_WITH_STACK=1\nPROFILE_WITH_STACK=false", check: func(t *testing.T, c *Config) {
			assert.False(t, c.WithStack)
			assert.Equal(t, "false", c.Options["PROFILE_WITH_STACK"])
		}},
		{name: "xpupti keys kept", text: "XPUPTI_PROFILER_METRICS = GpuTime, XVE_ACTIVE\nXPUPTI_PROFILER_ENABLE_PER_KERNEL=1\nXPUPTI_PROFILER_MAX_SCOPES=1500\nXPUPTI_PROFILER_DEVICES=0,2,3",
			check: func(t *testing.T, c *Config) {
				assert.Equal(t, []string{"GpuTime", "XVE_ACTIVE"}, c.List("XPUPTI_PROFILER_METRICS"))
				v, ok := c.Bool("XPUPTI_PROFILER_ENABLE_PER_KERNEL")
				assert.True(t, ok && v)
				n, ok := c.Int("XPUPTI_PROFILER_MAX_SCOPES")
				assert.True(t, ok)
				assert.Equal(t, int64(1500), n)
				assert.Equal(t, []string{"0", "2", "3"}, c.List("XPUPTI_PROFILER_DEVICES"))
				assert.Empty(t, c.Warnings)
			}},
		// Kineto's keys are case-sensitive (its ConfigTest: a lower-case key is not read).
		{name: "lower-case key", text: "profile_with_stack = y", check: func(t *testing.T, c *Config) {
			assert.False(t, c.WithStack, "a lower-case key takes no effect")
			assert.Equal(t, "y", c.Options["profile_with_stack"], "it is kept as written")
		}, warns: []string{"kineto config line 1: unknown key profile_with_stack (kept, not used; keys are case-sensitive, did you mean PROFILE_WITH_STACK?)"}},
		{name: "blanks are spaces, tabs and newlines", text: " \t\n\t \n\n", check: func(t *testing.T, c *Config) {
			assert.Empty(t, c.Options)
		}},
		{name: "only CRLF", text: "\r\n", err: "carriage return: Kineto reads only spaces and tabs as blanks", line: 1},
		{name: "CRLF line ends", text: "ACTIVITY_TYPES = cpu_op\r\nPROFILE_WITH_STACK = 1\r\n", err: "carriage return", line: 1},
		{name: "carriage return in a comment", text: "ACTIVITY_TYPES = cpu_op # a\r\n", check: func(t *testing.T, c *Config) {
			assert.Equal(t, NewActivitySet(CPUOp), c.Activities)
		}},
		{name: "ints at the ends of the range", text: "ACTIVITIES_DURATION_MSECS = 2147483647\nPROFILE_START_ITERATION = 0",
			check: func(t *testing.T, c *Config) {
				n, ok := c.Int("ACTIVITIES_DURATION_MSECS")
				assert.True(t, ok)
				assert.Equal(t, int64(2147483647), n)
			}},
		{name: "int past INT32_MAX", text: "ACTIVITIES_DURATION_MSECS = 2147483648", err: `ACTIVITIES_DURATION_MSECS: "2147483648": out of range [0, 2147483647]`, line: 1},
		{name: "negative iteration", text: "PROFILE_START_ITERATION = -1", err: `PROFILE_START_ITERATION: "-1": out of range [0, 2147483647]`, line: 1},
		{name: "int past int64", text: "ACTIVITIES_WARMUP_ITERATIONS = 99999999999999999999", err: "out of range", line: 1},
		{name: "int list out of range", text: "XPUPTI_PROFILER_DEVICES = 0,-2", err: `XPUPTI_PROFILER_DEVICES: "-2": out of range`, line: 1},
		{name: "start time 0 is now", text: "PROFILE_START_TIME = 0"},
		{name: "start time in the future", text: fmt.Sprintf("PROFILE_START_TIME = %d", time.Now().Add(time.Minute).UnixMilli())},
		{name: "start time 5 s ago", text: fmt.Sprintf("PROFILE_START_TIME = %d", time.Now().Add(-5*time.Second).UnixMilli())},
		{name: "start time 15 s ago", text: fmt.Sprintf("PROFILE_START_TIME = %d", time.Now().Add(-15*time.Second).UnixMilli()),
			err: "in the past: Kineto refuses a start time more than 10s old", line: 1},
		{name: "negative start time", text: "PROFILE_START_TIME = -1", err: "must be ≥ 0", line: 1},
		{name: "unknown keys warn", text: "ACTIVITIES_WARMUP_PERIOD_SECS=0\nFOO_BAR = 3\n\nMY_PLUGIN_LEVEL=high",
			check: func(t *testing.T, c *Config) {
				assert.Equal(t, "3", c.Options["FOO_BAR"], "unknown keys are kept")
				assert.Equal(t, "high", c.Options["MY_PLUGIN_LEVEL"])
			},
			warns: []string{"kineto config line 2: unknown key FOO_BAR (kept, not used)", "kineto config line 4: unknown key MY_PLUGIN_LEVEL (kept, not used)"}},
		{name: "no equals", text: "ACTIVITY_TYPES=cpu_op\nPROFILE_WITH_STACK\n", err: "want one KEY = VALUE", line: 2},
		{name: "two equals", text: "# x\n\nREQUEST_TRACE_ID = a=b", err: "want one KEY = VALUE", line: 3},
		{name: "empty key", text: " = 3", err: "empty key", line: 1},
		{name: "bad bool", text: "PROFILE_PROFILE_MEMORY = maybe", err: `PROFILE_PROFILE_MEMORY: "maybe" is not a bool`, line: 1},
		{name: "bad int", text: "\nACTIVITIES_DURATION_MSECS = 5s", err: `ACTIVITIES_DURATION_MSECS: "5s" is not an integer`, line: 2},
		{name: "bad int list", text: "XPUPTI_PROFILER_DEVICES=0,x", err: `XPUPTI_PROFILER_DEVICES: "x" is not an integer`, line: 1},
		{name: "bad activity", text: "ACTIVITY_TYPES = cpu_op, cuda", err: `ACTIVITY_TYPES: activity list "cpu_op, cuda": entry 2: unknown activity type "cuda"`, line: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig(tc.text)
			if tc.err != "" {
				require.Error(t, err)
				var ce *ConfigError
				require.ErrorAs(t, err, &ce)
				assert.Equal(t, tc.line, ce.Line)
				assert.Contains(t, err.Error(), fmt.Sprintf("line %d:", tc.line))
				assert.Contains(t, err.Error(), tc.err)
				assert.Nil(t, c)
				return
			}
			require.NoError(t, err)
			if tc.check != nil {
				tc.check(t, c)
			}
			assert.Equal(t, tc.warns, c.Warnings)
		})
	}
}

func TestParseBool(t *testing.T) {
	for _, s := range []string{"y", "Y", "yes", "YES", "t", "true", "True", "1", " 1 "} {
		v, err := ParseBool(s)
		assert.NoError(t, err, s)
		assert.True(t, v, s)
	}
	for _, s := range []string{"n", "no", "No", "f", "false", "FALSE", "0"} {
		v, err := ParseBool(s)
		assert.NoError(t, err, s)
		assert.False(t, v, s)
	}
	for _, s := range []string{"", "2", "on", "off", "yess", "-1"} {
		_, err := ParseBool(s)
		assert.Error(t, err, s)
	}
}

func TestLoadConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "libkineto.conf")
	require.NoError(t, os.WriteFile(path, []byte("ACTIVITY_TYPES=kernel\nUNKNOWN_X=1\nPROFILE_WITH_STACK=perhaps\n"), 0o644))
	_, err := LoadConfig(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+":3:")

	require.NoError(t, os.WriteFile(path, []byte("ACTIVITY_TYPES=kernel\nUNKNOWN_X=1\n"), 0o644))
	c, err := LoadConfig(path)
	require.NoError(t, err)
	assert.Equal(t, NewActivitySet(ConcurrentKernel), c.Activities)
	assert.Equal(t, []string{"kineto config " + path + ":2: unknown key UNKNOWN_X (kept, not used)"}, c.Warnings)

	_, err = LoadConfig(filepath.Join(t.TempDir(), "missing.conf"))
	assert.True(t, errors.Is(err, os.ErrNotExist))
}

func TestConfigAccessors(t *testing.T) {
	var nilCfg *Config
	_, ok := nilCfg.Get("X")
	assert.False(t, ok)
	c := NewConfig()
	c.Options["B"] = "maybe"
	_, ok = c.Bool("B")
	assert.False(t, ok, "not a bool")
	_, ok = c.Int("B")
	assert.False(t, ok)
	assert.Nil(t, c.List("MISSING"))
}

func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{"", "ACTIVITY_TYPES = cpu_op\n# c\nPROFILE_WITH_STACK=1", "a=b=c", "=", "X=1\n\nY",
		"\r\n", "profile_with_stack = 1", "ACTIVITIES_DURATION_MSECS = 2147483648", "PROFILE_START_TIME = 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseConfig(text)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Line < 1 || ce.Line > strings.Count(text, "\n")+1 {
				t.Fatalf("error without a valid line number: %v", err)
			}
			return
		}
		if c.Activities.Empty() {
			t.Fatal("a parsed config always has activities")
		}
	})
}

func ExampleParseConfig() {
	cfg, err := ParseConfig(`
# a Kineto config
ACTIVITY_TYPES = cpu_op, cuda_runtime, kernel
PROFILE_REPORT_INPUT_SHAPES = true
MY_OWN_KEY = 1
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Activities, cfg.ReportInputShapes)
	fmt.Println(cfg.Warnings)
	_, err = ParseConfig("PROFILE_WITH_STACK = sometimes")
	fmt.Println(err)
	// Output:
	// cpu_op,cuda_runtime,kernel true
	// [kineto config line 5: unknown key MY_OWN_KEY (kept, not used)]
	// kineto config line 1: PROFILE_WITH_STACK: "sometimes" is not a bool (want one of n/y/no/yes/f/t/false/true/0/1) (line: "PROFILE_WITH_STACK = sometimes")
}
