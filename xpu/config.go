package xpu

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/orprof/orprof/kineto"
)

// The Kineto config keys the scope profiler reads (kineto's XpuptiScopeProfilerConfig).
const (
	// KeyMetrics is the comma-separated list of metric names to collect.
	KeyMetrics = "XPUPTI_PROFILER_METRICS"
	// KeyPerKernel selects one scope per kernel (true) or one per record_function range (false).
	KeyPerKernel = "XPUPTI_PROFILER_ENABLE_PER_KERNEL"
	// KeyMaxScopes caps the number of scopes; later ones are dropped with one warning. 0
	// means the default cap, as in Kineto.
	KeyMaxScopes = "XPUPTI_PROFILER_MAX_SCOPES"
	// KeyCounterTracks is orprof's own key: how the metric values are written as counters,
	// CountersPerMetric (the default) or CountersSingle (Kineto's one "xpu" track).
	KeyCounterTracks = "ORPROF_XPU_COUNTER_TRACKS"
)

// The values of KeyCounterTracks.
const (
	// CountersPerMetric writes one counter track per metric, named "xpu <metric> (<unit>)"
	// ("xpu GpuTime (ns)"; no parentheses without a unit), with the one series <metric>.
	CountersPerMetric = "per_metric"
	// CountersSingle writes Kineto's form: one track named "xpu" carrying every metric as a
	// series, without units.
	CountersSingle = "single"
)

// Default scope caps, as Kineto's: per kernel and per user range.
const (
	DefaultMaxKernelScopes = 1500
	DefaultMaxRangeScopes  = 10
)

// Config is the scope profiler's part of a Kineto config.
type Config struct {
	// Enabled is whether ACTIVITY_TYPES selects xpu_scope_profiler.
	Enabled bool
	// Metrics are the metric names of XPUPTI_PROFILER_METRICS, in order, without duplicates.
	Metrics []string
	// PerKernel is XPUPTI_PROFILER_ENABLE_PER_KERNEL. When the key is absent it is true, the
	// mode PyTorch asks for and the only one Kineto's XPU profiler supports.
	PerKernel bool
	// MaxScopes is XPUPTI_PROFILER_MAX_SCOPES, or DefaultMaxKernelScopes /
	// DefaultMaxRangeScopes by mode when absent or 0.
	MaxScopes int
	// SingleCounter is ORPROF_XPU_COUNTER_TRACKS = single: Kineto's one "xpu" counter track
	// for every metric instead of one track per metric.
	SingleCounter bool
}

// ParseConfig reads the scope profiler's keys from cfg (nil is the default config). It checks
// what the config alone can tell: a bad bool or integer (kineto.ParseConfig already refuses
// them; a hand-built Config may not have been checked), a negative scope cap (0 is the
// default, as in Kineto), an unknown ORPROF_XPU_COUNTER_TRACKS, and an empty
// metric list while xpu_scope_profiler is selected. Metric names are checked against a
// device's source by Validate (Configure and CheckConfig do both). Every error is one line
// naming the key.
func ParseConfig(cfg *kineto.Config) (Config, error) {
	var c Config
	if cfg == nil {
		cfg = kineto.NewConfig()
	}
	c.Enabled = cfg.Activities.Has(kineto.XPUScopeProfiler)
	seen := map[string]bool{}
	for _, m := range cfg.List(KeyMetrics) {
		if !seen[m] {
			seen[m] = true
			c.Metrics = append(c.Metrics, m)
		}
	}
	c.PerKernel = true
	if v, ok := cfg.Get(KeyPerKernel); ok {
		b, err := kineto.ParseBool(v)
		if err != nil {
			return Config{}, fmt.Errorf("xpu: %s: %q is not a bool (want one of n/y/no/yes/f/t/false/true/0/1)", KeyPerKernel, v)
		}
		c.PerKernel = b
	}
	c.MaxScopes = DefaultMaxRangeScopes
	if c.PerKernel {
		c.MaxScopes = DefaultMaxKernelScopes
	}
	if v, ok := cfg.Get(KeyMaxScopes); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 || n > 1<<31-1 {
			return Config{}, fmt.Errorf("xpu: %s: %q is not an integer in [0, 2147483647] (0: the default)", KeyMaxScopes, v)
		}
		if n > 0 {
			c.MaxScopes = int(n)
		}
	}
	if v, ok := cfg.Get(KeyCounterTracks); ok {
		switch strings.TrimSpace(v) {
		case CountersPerMetric:
		case CountersSingle:
			c.SingleCounter = true
		default:
			return Config{}, fmt.Errorf("xpu: %s: %q is not %s or %s", KeyCounterTracks, v, CountersPerMetric, CountersSingle)
		}
	}
	if c.Enabled && len(c.Metrics) == 0 {
		return Config{}, fmt.Errorf("xpu: %s: no metrics given, but ACTIVITY_TYPES selects %s (list metric names, e.g. GpuTime, GpuCoreClocks)",
			KeyMetrics, kineto.XPUScopeProfiler)
	}
	return c, nil
}

// Validate checks that every configured metric is one of available (a source's Metrics), and
// fails with one line naming the key, the unknown names and the available ones.
func (c Config) Validate(available []MetricInfo) error {
	have := make(map[string]bool, len(available))
	names := make([]string, len(available))
	for i, m := range available {
		have[m.Name] = true
		names[i] = m.Name
	}
	var unknown []string
	for _, m := range c.Metrics {
		if !have[m] {
			unknown = append(unknown, strconv.Quote(m))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	what := "unknown metric"
	if len(unknown) > 1 {
		what += "s"
	}
	return fmt.Errorf("xpu: %s: %s %s (available: %s)", KeyMetrics, what, strings.Join(unknown, ", "), strings.Join(names, ", "))
}

// CheckConfig is ParseConfig followed by Validate against device's metric source, for a
// program that wants bad metric names refused before a profile starts. It returns nil when cfg
// does not select xpu_scope_profiler, and an error when device has no metric source.
func CheckConfig(cfg *kineto.Config, device string) error {
	c, err := ParseConfig(cfg)
	if err != nil || !c.Enabled {
		return err
	}
	src, err := sourceFor(device)
	if err != nil {
		return err
	}
	return c.Validate(src.Metrics())
}

// sourceFor makes device's source or explains that there is none.
func sourceFor(device string) (MetricSource, error) {
	src, ok := Source(device)
	if !ok {
		have := strings.Join(Sources(), ", ")
		if have == "" {
			have = "none"
		}
		return nil, fmt.Errorf("xpu: device %q has no metric source (registered: %s)", device, have)
	}
	return src, nil
}

// WithMetrics returns a copy of cfg (nil is the default config) that asks for metrics the way
// PyTorch's XPU request does (buildXpuScopeConfig): xpu_scope_profiler and kernel added to
// ACTIVITY_TYPES and XPUPTI_PROFILER_METRICS set to metrics. XPUPTI_PROFILER_ENABLE_PER_KERNEL
// and XPUPTI_PROFILER_MAX_SCOPES stay as cfg has them. A session given the result should take
// its Activities too. cfg is not modified.
func WithMetrics(cfg *kineto.Config, metrics []string) *kineto.Config {
	if cfg == nil {
		cfg = kineto.NewConfig()
	}
	c := *cfg
	c.Options = make(map[string]string, len(cfg.Options)+1)
	for k, v := range cfg.Options {
		c.Options[k] = v
	}
	c.Warnings = append([]string(nil), cfg.Warnings...)
	c.Activities = c.Activities.Add(kineto.XPUScopeProfiler).Add(kineto.ConcurrentKernel)
	c.Options[KeyMetrics] = strings.Join(metrics, ",")
	return &c
}
