package kineto

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/orprof/orprof/internal/quote"
)

// Config is a parsed Kineto config: Kineto's KEY = VALUE options. A Config is not modified by
// the profilers it is handed, so one may be shared by concurrent sessions.
type Config struct {
	// Activities is ACTIVITY_TYPES, or the default set when the key is absent or empty.
	Activities ActivitySet
	// Options holds every KEY = VALUE pair read, keys as written (Kineto's keys are
	// case-sensitive), values trimmed, a later line replacing an earlier one. Unknown keys are
	// kept too, for profilers that read their own.
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

// Get returns the value of key (exactly as written, Kineto's keys being upper-case) and
// whether it was set.
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
	kindStartTime
)

// maxConfigInt is the largest value of an integer key: Kineto reads them as 32-bit ints in
// [0, INT32_MAX] and refuses the rest.
const maxConfigInt = 1<<31 - 1

// maxStartTimeAge is how far in the past PROFILE_START_TIME may be (Kineto's 10 s).
const maxStartTimeAge = 10 * time.Second

// configNow is the clock PROFILE_START_TIME is checked against (tests replace it).
var configNow = time.Now

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
	"PROFILE_START_TIME":                           kindStartTime,
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
	"ORPROF_XPU_COUNTER_TRACKS":                    kindString, // orprof's own: package xpu
}

// ParseConfig reads Kineto config text as Kineto does: one KEY = VALUE per line ('\n' ends a
// line), '#' starting a comment that runs to the end of the line, blank lines ignored, key and
// value trimmed of spaces and tabs. A line that does not split on '=' into exactly a non-empty
// key and a value, a carriage return outside a comment (Kineto does not read it as a blank:
// save the file with LF line ends), or a known key with a bad value is a *ConfigError with its
// line number. Values are checked as Kineto checks them: bools (ParseBool), integers in
// [0, 2147483647], PROFILE_START_TIME in ms since the Unix epoch, 0 (now) or at most 10 s in
// the past when the text is parsed, activity lists. Keys are case-sensitive: an unknown key,
// a lower-case spelling of a known one included, is kept in Options, takes no effect and is
// reported in Warnings.
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
	sc.Split(scanLF)
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
			hint := ""
			if _, upper := configKeys[strings.ToUpper(key)]; upper {
				hint = fmt.Sprintf("; keys are case-sensitive, did you mean %s?", strings.ToUpper(key))
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("kineto config %s: unknown key %s (kept, not used%s)", where, quote.Printable(key), hint))
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
	if strings.IndexByte(s, '\r') >= 0 {
		return "", errors.New("carriage return: Kineto reads only spaces and tabs as blanks (save the file with LF line ends)")
	}
	if strings.Trim(s, " \t") == "" {
		return "", nil
	}
	parts := strings.Split(s, "=")
	if len(parts) != 2 {
		return "", errors.New("want one KEY = VALUE")
	}
	key := strings.Trim(parts[0], " \t")
	val := strings.Trim(parts[1], " \t")
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
		if _, err := configInt(val); err != nil {
			return err
		}
	case kindIntList:
		for _, p := range splitList(val) {
			if _, err := configInt(p); err != nil {
				return err
			}
		}
	case kindStartTime:
		ms, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return fmt.Errorf("%s is not an integer (ms since the Unix epoch)", quote.String(val))
		}
		if ms < 0 {
			return fmt.Errorf("%d: must be ≥ 0 (ms since the Unix epoch; 0 is now)", ms)
		}
		if age := configNow().Sub(time.UnixMilli(ms)); ms != 0 && age > maxStartTimeAge {
			return fmt.Errorf("%d is %s in the past: Kineto refuses a start time more than %s old", ms, age.Round(time.Millisecond), maxStartTimeAge)
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

// configInt reads an integer key's value: a decimal integer in [0, 2147483647], as Kineto.
func configInt(val string) (int64, error) {
	n, err := strconv.ParseInt(val, 10, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s is not an integer", quote.String(val))
	case err != nil || n < 0 || n > maxConfigInt:
		return 0, fmt.Errorf("%s: out of range [0, %d]", quote.String(val), maxConfigInt)
	}
	return n, nil
}

// scanLF splits on '\n' only: unlike bufio.ScanLines it keeps a '\r' before the '\n', which
// Kineto does not read as a blank.
func scanLF(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
