package kineto

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orprof/orprof/trace"
)

// PluginDirEnv is the environment variable naming the plugin directory
// (KINETO_PLUGIN_LIB_DIR_PATH, as in kineto PR #1148).
const PluginDirEnv = "KINETO_PLUGIN_LIB_DIR_PATH"

// RegisterSymbol is the one symbol a plugin library exports (kineto_plugin.h).
const RegisterSymbol = "KinetoPlugin_register"

// ErrPluginDir is wrapped by the PluginError LoadPlugins returns when the directory itself
// cannot be read (missing, not a directory, no permission).
var ErrPluginDir = errors.New("plugin directory cannot be read")

// ErrPluginsUnsupported is the error of every plugin load in a build without the plugin host
// (the noplugin build tag, or a platform purego does not load libraries on).
var ErrPluginsUnsupported = errors.New("dynamic plugins are not supported by this build")

// ErrNotLoadable is wrapped by the PluginError of a file the dynamic loader cannot open as a
// library (not a shared object, another architecture, a missing dependency).
var ErrNotLoadable = errors.New("not a loadable library")

// ErrNotPlugin is wrapped by the PluginError of a library that exports no KinetoPlugin_register.
var ErrNotPlugin = errors.New("not a Kineto plugin")

// PluginError is why a plugin library, or one profiler it registered, was refused, or why a
// session of a plugin failed. Path is the library (or the directory, for ErrPluginDir); Name
// is the profiler's name when known.
type PluginError struct {
	Path string
	Name string
	Err  error
}

// Error is "kineto plugin PATH (NAME): reason".
func (e PluginError) Error() string {
	if e.Name != "" {
		return fmt.Sprintf("kineto plugin %s (%s): %v", e.Path, e.Name, e.Err)
	}
	return fmt.Sprintf("kineto plugin %s: %v", e.Path, e.Err)
}

// Unwrap returns the reason.
func (e PluginError) Unwrap() error { return e.Err }

// Plugin is one profiler a plugin library registered, validated and queried: an
// ActivityProfiler whose sessions drive the library's C functions. A Plugin lives as long as
// the process (its library is never closed) and is safe for concurrent use.
//
// A session's ProcessTrace turns what the plugin reports into trace rows: each device info a
// process row, each resource info a thread row, each event an "X" event (cat = the activity
// name, pid = device, tid = |resource|, times UTC ns), an "i" event for CPU_INSTANT_EVENT, or a
// "C" counter event for GPU_PM_COUNTER (args = its metadata, no External id), followed by its
// "s"/"f" flow event (1 = fwdbwd, 2 = ac2g). The args start with "External id": the op's
// correlation id when the plugin linked the event by adding that metadata key (the id it got
// from profilerPushCorrelationId), else the event's own 64-bit id, except for device work,
// runtime and driver calls (Kineto's rule); 0 is omitted. Kernels, copies, memsets and device
// annotations are also the session's DeviceActivities. Every string is copied.
type Plugin struct {
	// Path is the library's path, as found in the directory.
	Path string
	// Index is the position of this profiler among the library's registerProfiler calls.
	Index int
	// Warnings are problems found while loading that did not refuse the plugin (for
	// example a supported-type value this host does not know, taken as a kernel).
	Warnings []string

	name       string
	activities ActivitySet
	types      []int32 // the supported KinetoPlugin_ProfileEventType values, INVALID left out
	fn         *pluginFuncs
}

// Name is the name the plugin gave in profilerQuery (or its file name when that was empty).
func (p *Plugin) Name() string { return p.name }

// AvailableActivities is the set of activity types the plugin said it supports.
func (p *Plugin) AvailableActivities() ActivitySet { return p.activities }

// HasCorrelation reports whether the plugin takes correlation ids (profilerPush/Pop
// CorrelationId are non-NULL); without them a session's Push/PopCorrelationID cost nothing.
func (p *Plugin) HasCorrelation() bool { return p.fn.hasCorrelation() }

// String is "name (path)".
func (p *Plugin) String() string { return p.name + " (" + p.Path + ")" }

func (p *Plugin) errorf(format string, a ...any) error {
	return PluginError{Path: p.Path, Name: p.name, Err: fmt.Errorf(format, a...)}
}

// Configure makes a session for the requested activities the plugin supports (aliases
// included, ActivitySet.Has), or returns nil, nil when it supports none of them. It calls
// profilerCreate with those types as plugin enum values; the array stays valid until the
// session's profilerDestroy returns (Kineto frees it when create returns, so a portable plugin
// copies it). cfg is not passed to the plugin: the C ABI has no config. A failing create is a
// PluginError. Configure blocks for as long as profilerCreate runs.
func (p *Plugin) Configure(want ActivitySet, cfg *Config) (ActivityProfilerSession, error) {
	var enabled []int32
	for _, v := range p.types {
		if t, _, _ := activityFromPlugin(v); want.Has(t) {
			enabled = append(enabled, v)
		}
	}
	if len(enabled) == 0 {
		return nil, nil
	}
	s := &pluginSession{p: p}
	if err := p.fn.create(s, enabled); err != nil {
		return nil, p.errorf("%w", err)
	}
	return s, nil
}

// Probe drives one throwaway session of p as a profile would: profilerCreate for every type
// p supports, profilerStart, profilerStop, profilerProcessEvents and profilerDestroy. It
// returns the first call that failed (a PluginError), or nil; what processEvents reported is
// dropped, and its problems are not Probe's (a profile reports them as warnings). A plugin
// with no activity type has no session to drive. onStep, when not nil, gets the name of each
// function before it is called, so that a process watching a probe that crashes can say
// where. Probe runs plugin code: a crash in it ends the process, so a host runs it in a
// child process first (orprof plugins and orprof run --plugin-dir do).
func (p *Plugin) Probe(onStep func(string)) error {
	step := func(name string) {
		if onStep != nil {
			onStep(name)
		}
	}
	step("profilerCreate")
	s, err := p.Configure(p.activities, nil)
	if err != nil || s == nil {
		return err
	}
	step("profilerStart")
	if err := s.Start(); err != nil {
		return err // Start destroyed the session
	}
	step("profilerStop")
	stopErr := s.Stop()
	step("profilerProcessEvents and profilerDestroy")
	_ = s.ProcessTrace(&trace.Trace{}) // destroys the session; its warnings are a profile's
	return stopErr
}

// pluginSession is one profile of a plugin. The session methods run on the profiling
// session's goroutine; Push/Pop run concurrently on the ops' goroutines and touch only the
// immutable handle and function values.
type pluginSession struct {
	p      *Plugin
	handle uintptr // the plugin's KinetoPlugin_ProfilerHandle*, opaque
	hold   hostMemory

	mu                         sync.Mutex
	started, stopped, finished bool
	startNs, stopNs            int64
	acts                       []DeviceActivity

	corrFailures atomic.Int64
}

// Start records the start time (UTC ns) and calls profilerStart. When it fails the plugin
// session is destroyed and the error returned.
func (s *pluginSession) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished || s.started {
		return s.p.errorf("session already started")
	}
	s.started = true
	s.startNs = time.Now().UnixNano()
	if rc := s.p.fn.start(s.handle); rc != 0 {
		s.destroyLocked()
		return s.p.errorf("profilerStart returned %d", rc)
	}
	return nil
}

// Stop calls profilerStop and records the stop time.
func (s *pluginSession) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished || !s.started || s.stopped {
		return s.p.errorf("session not running")
	}
	s.stopped = true
	rc := s.p.fn.stop(s.handle)
	s.stopNs = time.Now().UnixNano()
	if rc != 0 {
		return s.p.errorf("profilerStop returned %d", rc)
	}
	return nil
}

// PushCorrelationID calls profilerPushCorrelationId when the plugin has it; otherwise it does
// nothing. It is safe for concurrent use and does not block beyond the plugin's own code.
func (s *pluginSession) PushCorrelationID(id uint64) {
	if rc := s.p.fn.pushCorrelation(s.handle, id); rc != 0 {
		s.corrFailures.Add(1)
	}
}

// PopCorrelationID calls profilerPopCorrelationId when the plugin has it.
func (s *pluginSession) PopCorrelationID() {
	if rc := s.p.fn.popCorrelation(s.handle); rc != 0 {
		s.corrFailures.Add(1)
	}
}

// PushUserCorrelationID calls profilerPushUserCorrelationId when the plugin has it.
func (s *pluginSession) PushUserCorrelationID(id uint64) {
	if rc := s.p.fn.pushUserCorrelation(s.handle, id); rc != 0 {
		s.corrFailures.Add(1)
	}
}

// PopUserCorrelationID calls profilerPopUserCorrelationId when the plugin has it.
func (s *pluginSession) PopUserCorrelationID() {
	if rc := s.p.fn.popUserCorrelation(s.handle); rc != 0 {
		s.corrFailures.Add(1)
	}
}

// ProcessTrace calls profilerProcessEvents with a trace builder, then profilerDestroy, and
// adds what the plugin reported to t. Problems (a rejected event, invalid metadata, a failing
// call) come back as one PluginError; whatever was valid is in t regardless.
func (s *pluginSession) ProcessTrace(t *trace.Trace) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return s.p.errorf("session already finished")
	}
	b := newTraceBuilder()
	rc := s.p.fn.processEvents(s.handle, b)
	s.destroyLocked()
	stop := s.stopNs
	if !s.stopped {
		stop = time.Now().UnixNano()
	}
	s.acts = b.appendTo(t, pluginSpan{name: s.p.name, startNs: s.startNs, stopNs: stop})
	var msgs []string // one line: session warnings are printed one per line
	if rc != 0 {
		msgs = append(msgs, fmt.Sprintf("profilerProcessEvents returned %d", rc))
	}
	if err := b.err(); err != nil {
		msgs = append(msgs, err.Error())
	}
	if n := s.corrFailures.Load(); n > 0 {
		msgs = append(msgs, fmt.Sprintf("correlation id push/pop failed %d times", n))
	}
	if len(msgs) > 0 {
		return s.p.errorf("%s", strings.Join(msgs, "; "))
	}
	return nil
}

// DeviceActivities returns the kernels, copies, memsets and device annotations the plugin
// reported, for the operator table; Correlation is the op the plugin linked each to through
// its "External id" metadata (0: none). Valid after ProcessTrace; the slice is the caller's.
func (s *pluginSession) DeviceActivities() []DeviceActivity {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]DeviceActivity(nil), s.acts...)
}

// destroyLocked calls profilerDestroy once and releases the host memory the plugin could see.
func (s *pluginSession) destroyLocked() {
	if s.finished {
		return
	}
	s.finished = true
	s.p.fn.destroy(s.handle)
	s.hold.release()
}

// pluginFiles lists the regular files (symbolic links followed) named *.so directly in dir,
// sorted by name.
func pluginFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".so") || name == ".so" {
			continue
		}
		path := filepath.Join(dir, name)
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			out = append(out, path)
		}
	}
	return out, nil
}

// loaded caches the libraries this process has kept open, by absolute path, so loading a
// directory twice registers each library once.
var (
	loadedMu sync.Mutex
	loaded   = map[string]loadResult{}
)

type loadResult struct {
	plugins []*Plugin
	errs    []PluginError
}

// LoadPlugins loads every plugin library in dir (regular *.so files, not recursive, in name
// order): dlopen, KinetoPlugin_register, validation of each registered interface, then
// profilerQuery. It returns the profilers that passed and, for every library or interface
// refused, a PluginError with the path and the reason; a bad library never stops the others.
// An unreadable dir is one PluginError wrapping ErrPluginDir. A library already loaded by this
// process is not opened or registered again: its earlier result is returned. LoadPlugins runs
// plugin code (KinetoPlugin_register, profilerQuery) and blocks while it runs; it is safe for
// concurrent use. It does not register the plugins with sessions (RegisterPlugins does).
func LoadPlugins(dir string) ([]*Plugin, []PluginError) {
	files, err := pluginFiles(dir)
	if err != nil {
		return nil, []PluginError{{Path: dir, Err: fmt.Errorf("%w: %w", ErrPluginDir, err)}}
	}
	var ps []*Plugin
	var errs []PluginError
	for _, f := range files {
		r := loadCached(f)
		ps = append(ps, r.plugins...)
		errs = append(errs, r.errs...)
	}
	return ps, errs
}

func loadCached(path string) loadResult {
	key, err := filepath.Abs(path)
	if err != nil {
		key = path
	}
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if r, ok := loaded[key]; ok {
		return r
	}
	r, keep := loadLibrary(path)
	if keep {
		loaded[key] = r
	}
	return r
}

// LoadPluginFile loads one plugin library as LoadPlugins loads each file of a directory: the
// profilers it registered that passed, and a PluginError for the library or each profiler
// refused. A path that is not a regular file is refused with its reason. Like LoadPlugins it
// runs plugin code, opens a library once per process, and is safe for concurrent use.
func LoadPluginFile(path string) ([]*Plugin, []PluginError) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, []PluginError{{Path: path, Err: err}}
	case !fi.Mode().IsRegular():
		return nil, []PluginError{{Path: path, Err: errors.New("not a regular file")}}
	}
	r := loadCached(path)
	return r.plugins, r.errs
}

// PluginHandle returns the KinetoPlugin_ProfilerHandle the plugin's profilerCreate assigned to
// a session Configure returned (0 when the plugin left it NULL); ok is false when s is not a
// plugin's session. For conformance checks (kineto/plugintest).
func PluginHandle(s ActivityProfilerSession) (h uintptr, ok bool) {
	ps, ok := s.(*pluginSession)
	if !ok {
		return 0, false
	}
	return ps.handle, true
}

// RegisterPlugins loads dir's plugins (LoadPlugins) and adds them to RegisteredProfilers, so
// every later session configures them. Each refusal is registered too, as a profiler with no
// activities whose Configure returns the PluginError: sessions with activities then report it
// in their warnings. Registering a library twice has no effect.
func RegisterPlugins(dir string) ([]*Plugin, []PluginError) {
	return registerLoaded(LoadPlugins(dir))
}

// RegisterPluginFile is RegisterPlugins for the one library at path (a caller that chose the
// files itself, after probing each in a child process, say).
func RegisterPluginFile(path string) ([]*Plugin, []PluginError) {
	return registerLoaded(LoadPluginFile(path))
}

// registerLoaded adds what a load gave to RegisteredProfilers: each plugin, and each refusal
// as a profiler whose Configure returns it.
func registerLoaded(ps []*Plugin, errs []PluginError) ([]*Plugin, []PluginError) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, p := range ps {
		addRegisteredLocked(p)
	}
	for _, e := range errs {
		addRegisteredLocked(refusedPlugin{e})
	}
	return ps, errs
}

// RegisterPlugin adds one plugin LoadPluginFile or LoadPlugins returned to
// RegisteredProfilers (a caller that probed each profiler first and keeps some of them).
// Registering a plugin twice has no effect.
func RegisterPlugin(p *Plugin) {
	regMu.Lock()
	defer regMu.Unlock()
	addRegisteredLocked(p)
}

// RegisterRefused registers a library the caller refused without loading it (one whose
// loading crashed a child process, say): every session reports it in its warnings, as it
// reports the libraries RegisterPlugins refuses.
func RegisterRefused(e PluginError) {
	regMu.Lock()
	defer regMu.Unlock()
	addRegisteredLocked(refusedPlugin{e})
}

// LoadPluginsFromEnv registers the plugins of the directory $KINETO_PLUGIN_LIB_DIR_PATH names
// (RegisterPlugins). It does nothing when the variable is unset or empty. Nothing loads
// plugins implicitly: a program (the CLI) calls this once at start-up.
func LoadPluginsFromEnv() ([]*Plugin, []PluginError) {
	dir := os.Getenv(PluginDirEnv)
	if dir == "" {
		return nil, nil
	}
	return RegisterPlugins(dir)
}

// refusedPlugin stands for a refused library among the registered profilers, so that the
// refusal reaches every session's warnings.
type refusedPlugin struct{ err PluginError }

func (r refusedPlugin) Name() string                     { return "refused " + filepath.Base(r.err.Path) }
func (r refusedPlugin) AvailableActivities() ActivitySet { return 0 }
func (r refusedPlugin) Configure(ActivitySet, *Config) (ActivityProfilerSession, error) {
	return nil, r.err
}
