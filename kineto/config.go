package kineto

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/orprof/orprof/internal/quote"
)

// Config is a parsed Kineto config: Kineto's KEY = VALUE options. A Config is not modified by
// the profilers it is handed, so one may be shared by concurrent sessions.
type Config struct {
	// Activities is ACTIVITY_TYPES, or the default set when the key is absent or empty.
	Activities ActivitySet
	// Options holds every KEY = VALUE pair read, keys upper-case, values trimmed, a later line
	// replacing an earlier one. Unknown keys are kept too, for profilers that read their own.
	Options map[string]string
	// ReportInputShapes is PROFILE_REPORT_INPUT_SHAPES (legacy
	// CLIENT_INTERFACE_ENABLE_OP_INPUTS_COLLECTION): record op input shapes.
	ReportInputShapes bool
	// ProfileMemory is PROFILE_PROFILE_MEMORY: record allocations and frees.
	ProfileMemory bool
	// WithStack is PROFILE_WITH_STACK (legacy PYTHON_STACK_TRACE): keep op call stacks.
	WithStack bool
	// WithFlops is PROFILE_WITH_FLOPS.
	WithFlops bool
	// WithModules is PROFILE_WITH_MODULES.
	WithModules bool
	// Warnings are the problems that did not fail the parse: unknown keys, with line numbers.
	Warnings []string
}

// NewConfig returns a config with the default activities and no options.
func NewConfig() *Config {
	return &Config{Activities: DefaultActivities(), Options: map[string]string{}}
}

// Get returns the value of key (upper-case) and whether it was set.
func (c *Config) Get(key string) (string, bool) {
	if c == nil || c.Options == nil {
		return "", false
	}
	v, ok := c.Options[key]
	return v, ok
}

// Bool returns key's value read as a Kineto bool (ParseBool); ok is false when the key is not
// set or its value is not a bool.
func (c *Config) Bool(key string) (v, ok bool) {
	s, set := c.Get(key)
	if !set {
		return false, false
	}
	b, err := ParseBool(s)
	return b, err == nil
}

// Int returns key's value read as a decimal integer; ok is false when the key is not set or
// its value is not an integer.
func (c *Config) Int(key string) (v int64, ok bool) {
	s, set := c.Get(key)
	if !set {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// List returns key's value split on commas, each entry trimmed, blank entries dropped (nil
// when the key is not set).
func (c *Config) List(key string) []string {
	s, set := c.Get(key)
	if !set {
		return nil
	}
	return splitList(s)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseBool reads a Kineto config bool: n, y, no, yes, f, t, false, true, 0, 1, in any case.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "y", "yes", "t", "true", "1":
		return true, nil
	case "n", "no", "f", "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a bool (want one of n/y/no/yes/f/t/false/true/0/1)", s)
}

// ConfigError is a config line that could not be read. Source is the file name ("" for text
// parsed from memory), Line the 1-based line number.
type ConfigError struct {
	Source string
	Line   int
	Text   string
	Err    error
}

// Error is "kineto config FILE:LINE: reason (line: TEXT)".
func (e *ConfigError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.Source != "" {
		where = fmt.Sprintf("%s:%d", e.Source, e.Line)
	}
	return fmt.Sprintf("kineto config %s: %v (line: %s)", where, e.Err, quote.String(e.Text))
}

// countKey reports whether an integer key is a duration, a count or a size, which cannot be
// negative (ACTIVITIES_DURATION_SECS = -5 is refused).
func countKey(key string) bool {
	for _, s := range []string{"_SECS", "_MSECS", "_ITERATIONS", "_MB", "_SCOPES", "_EVENTS"} {
		if strings.HasSuffix(key, s) {
			return true
		}
	}
	return false
}

// Unwrap returns the reason.
func (e *ConfigError) Unwrap() error { return e.Err }

// keyKind is how a known key's value is checked.
type keyKind uint8

const (
	kindString keyKind = iota
	kindBool
	kindInt
	kindList
	kindIntList
	kindActivities
)

// configKeys are the keys Kineto reads (Config.cpp and the feature configs) and orprof
// therefore accepts without a warning; values are checked by kind as Kineto would. The ones
// orprof acts on are the Config fields; the XPUPTI_PROFILER_* keys are kept for the scope
// profiler.
var configKeys = map[string]keyKind{
	"ACTIVITY_TYPES":                               kindActivities,
	"ACTIVITIES_ENABLED":                           kindBool,
	"ACTIVITIES_DURATION_SECS":                     kindInt,
	"ACTIVITIES_DURATION_MSECS":                    kindInt,
	"ACTIVITIES_ITERATIONS":                        kindInt,
	"ACTIVITIES_WARMUP_PERIOD_SECS":                kindInt,
	"ACTIVITIES_WARMUP_ITERATIONS":                 kindInt,
	"ACTIVITIES_MAX_GPU_BUFFER_SIZE_MB":            kindInt,
	"ACTIVITIES_LOG_FILE":                          kindString,
	"ACTIVITIES_DISPLAY_CUDA_SYNC_WAIT_EVENTS":     kindBool,
	"CUPTI_PER_THREAD_BUFFER_ENABLED":              kindBool,
	"PROFILE_START_TIME":                           kindInt,
	"PROFILE_START_ITERATION":                      kindInt,
	"PROFILE_START_ITERATION_ROUNDUP":              kindInt,
	"REQUEST_TRACE_ID":                             kindString,
	"REQUEST_GROUP_TRACE_ID":                       kindString,
	"CUSTOM_CONFIG":                                kindString,
	"PROFILE_REPORT_INPUT_SHAPES":                  kindBool,
	"PROFILE_PROFILE_MEMORY":                       kindBool,
	"PROFILE_WITH_STACK":                           kindBool,
	"PROFILE_WITH_FLOPS":                           kindBool,
	"PROFILE_WITH_MODULES":                         kindBool,
	"CLIENT_INTERFACE_ENABLE_OP_INPUTS_COLLECTION": kindBool,
	"PYTHON_STACK_TRACE":                           kindBool,
	"PROFILE_MEMORY":                               kindBool,
	"PROFILE_MEMORY_DURATION_MSECS":                kindInt,
	"ENABLE_IPC_FABRIC":                            kindBool,
	"ON_DEMAND_CONFIG_UPDATE_INTERVAL_SECS":        kindInt,
	"VERBOSE_LOG_LEVEL":                            kindInt,
	"VERBOSE_LOG_MODULES":                          kindList,
	"ROCTRACER_MAX_EVENTS":                         kindInt,
	"CUPTI_PM_SAMPLING_METRICS":                    kindList,
	"CUPTI_PM_SAMPLING_DEVICE_ID":                  kindInt,
	"XPUPTI_PROFILER_METRICS":                      kindList,
	"XPUPTI_PROFILER_ENABLE_PER_KERNEL":            kindBool,
	"XPUPTI_PROFILER_MAX_SCOPES":                   kindInt,
	"XPUPTI_PROFILER_DEVICES":                      kindIntList,
}

// ParseConfig reads Kineto config text: one KEY = VALUE per line, '#' starting a comment that
// runs to the end of the line, blank lines ignored, key and value trimmed. A line that does
// not split on '=' into exactly a non-empty key and a value, or a known key with a bad value
// (bool, integer, activity list), is a *ConfigError with its line number. Unknown keys are
// kept in Options and reported in Warnings.
func ParseConfig(text string) (*Config, error) {
	return readConfig(strings.NewReader(text), "")
}

// LoadConfig reads the config file at path (ParseConfig); errors name the file.
func LoadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("kineto config: %w", err)
	}
	defer f.Close()
	return readConfig(f, path)
}

// readConfig reads config text from r (ParseConfig); source names r in errors and warnings.
func readConfig(r io.Reader, source string) (*Config, error) {
	c := NewConfig()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		raw := sc.Text()
		key, err := c.setLine(raw)
		if err != nil {
			return nil, &ConfigError{Source: source, Line: line, Text: raw, Err: err}
		}
		if _, known := configKeys[key]; key != "" && !known {
			where := fmt.Sprintf("line %d", line)
			if source != "" {
				where = fmt.Sprintf("%s:%d", source, line)
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("kineto config %s: unknown key %s (kept, not used)", where, key))
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = errors.New("line longer than 1 MiB")
		}
		return nil, &ConfigError{Source: source, Line: line + 1, Err: err}
	}
	return c, nil
}

// setLine applies one line and returns its key ("" for a blank or comment line).
func (c *Config) setLine(raw string) (string, error) {
	s := raw
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	if strings.TrimSpace(s) == "" {
		return "", nil
	}
	parts := strings.Split(s, "=")
	if len(parts) != 2 {
		return "", errors.New("want one KEY = VALUE")
	}
	key := strings.ToUpper(strings.TrimSpace(parts[0]))
	val := strings.TrimSpace(parts[1])
	if key == "" {
		return "", errors.New("empty key")
	}
	if err := c.apply(key, val); err != nil {
		return "", fmt.Errorf("%s: %w", key, err)
	}
	c.Options[key] = val
	return key, nil
}

// apply checks val against key's kind and sets the typed field it feeds.
func (c *Config) apply(key, val string) error {
	switch configKeys[key] {
	case kindBool:
		b, err := ParseBool(val)
		if err != nil {
			return err
		}
		switch key {
		case "PROFILE_REPORT_INPUT_SHAPES", "CLIENT_INTERFACE_ENABLE_OP_INPUTS_COLLECTION":
			c.ReportInputShapes = b
		case "PROFILE_PROFILE_MEMORY":
			c.ProfileMemory = b
		case "PROFILE_WITH_STACK", "PYTHON_STACK_TRACE":
			c.WithStack = b
		case "PROFILE_WITH_FLOPS":
			c.WithFlops = b
		case "PROFILE_WITH_MODULES":
			c.WithModules = b
		}
	case kindInt:
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return fmt.Errorf("%s is not an integer", quote.String(val))
		}
		if n < 0 && countKey(key) {
			return fmt.Errorf("%d: must be ≥ 0", n)
		}
	case kindIntList:
		for _, p := range splitList(val) {
			if _, err := strconv.ParseInt(p, 10, 64); err != nil {
				return fmt.Errorf("%s is not an integer", quote.String(p))
			}
		}
	case kindActivities:
		set, err := ParseActivities(val)
		if err != nil {
			return err
		}
		c.Activities = set
	}
	return nil
}
