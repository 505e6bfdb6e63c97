// Package kineto is orprof's Kineto-compatible layer: activity types, Kineto's KEY = VALUE config
// and the child activity-profiler interfaces a session drives, with the PrivateUse1 profiler
// registry. It also hosts dynamic profiler plugins in shared libraries (kineto PR #1148's C ABI,
// header kineto_plugin.h; docs/kineto-plugins.md is the guide for plugin authors).
//
// # Differences from Kineto and PyTorch
//
// Kineto's and PyTorch's own tests and headers are the specification. Where orprof does
// something else on purpose, it is listed here with the reason and the test that pins it.
//
//	| where | Kineto / PyTorch | orprof | why | test |
//	|---|---|---|---|---|
//	| plugin scan | PR #1148 compares the extension with "so" (no dot), so it never loads a file | loads regular *.so files | the PR's intent; its check is a bug | TestBrokenPlugins |
//	| ProfileEvent size check | checked against 24 (the process-events params' size) | checked against 48, the event's own size | the PR's check is a bug | TestBrokenPlugins |
//	| event ids | cut to 32 bits | kept as 64-bit | the ABI's field is int64 | TestSamplePluginTrace |
//	| failing profilerQuery | the profiler is named "N/A" and the types it wrote are used | the profiler is refused with "profilerQuery returned N", naming the library | a plugin that failed to describe itself may have written half its types; running it silently under "N/A" hides which library is broken | TestPluginLoadingEdgeCases |
//	| name written past the 32-byte buffer | undefined behaviour (the write lands past the host's buffer) | caught by guard bytes after the buffer (and after the type array) and refused | a plugin's bug must not corrupt the host | TestPluginLoadingEdgeCases |
//	| empty profiler name | kept empty | the library's file name without ".so", and a warning in `orprof plugins` | a trace row and a warning need a name to be found | TestPluginLoadingEdgeCases |
//	| a library that registers no profiler | loaded with no profiler, no message about it | reported as "registered no profiler" (the library stays loaded) | an author who forgot the call should hear of it | TestPluginLoadingEdgeCases |
//	| metadata that is not JSON | stored raw, so the trace file is not valid JSON | written as a JSON string, and the session's warning names the event and key | a plugin's bug must not make the whole trace unreadable | TestBrokenPlugins |
//	| malformed trace from a plugin (an unpaired or backwards flow, a non-numeric counter, slices on one row that overlap without nesting) | written as given | the bad flow is left out; every such problem is one warning of the session naming the event | viewers drop or mis-draw such events silently | TestBrokenPlugins, plugin_trace_test.go |
//	| a plugin whose create leaves pProfilerHandle NULL | runs it with a NULL handle | runs it the same way; `orprof conformance --plugin` fails its lifecycle check | Kineto's own mock assigns a handle; a NULL one works only for a plugin with one global state | plugintest.TestBrokenPluginsFail |
//	| device-specific activity types | PR #1212 makes cuda_runtime, xpu_runtime, privateuse1_runtime, … one value with runtime (drivers likewise) | Kineto main's types stay apart; the generic runtime/driver match all of them (ActivitySet.Has): a set containing cuda_runtime has cuda_runtime and runtime, not xpu_runtime or privateuse1_runtime | PR #1212 is not merged; main, PyTorch's activity groups and the trace's cat strings keep them distinct | TestActivityAliases |
//	| mtia_counters vs gpu_pm_counter | (PR #1212 declares no MTIA_COUNTERS alias; main has no GPU_PM_COUNTER) | two types, no alias; gpu_pm_counter is not a default | as PR #1212's header; main's default mtia_counters must not switch plugin counters on | TestDefaultActivities |
//	| unknown config keys | accepted without a word | accepted, kept in Config.Options, and a warning names each (a lower-case spelling of a known key gets "did you mean") | a misspelt key silently does nothing in Kineto | TestParseConfig |
//
// The config reads as Kineto's ConfigTest says (TestParseConfig): keys are case-sensitive (a
// lower-case key takes no effect); blanks are spaces, tabs and newlines, so a carriage return
// outside a comment (a text of only "\r\n", a CRLF file) is refused; integer keys are in
// [0, 2147483647]; PROFILE_START_TIME is ms since the epoch, 0 for now, refused when more than
// 10 s in the past at parse time.
//
// The PrivateUse1 registry behaves as PyTorch's (TestPrivateUse1Registry): the profiler is made
// from the registered factory on first use and then fixed for the process, a later
// registration warning and changing nothing, as PyTorch's factory reaches Kineto once; before
// first use a later registration replaces the earlier one with a warning. Why not "last
// wins": a session must never see its PrivateUse1 profiler swapped under it.
//
// The same as Kineto, and pinned by TestPluginLoadingEdgeCases: registerProfiler(NULL) answers
// -1 (orprof also reports "interface #N refused" for the library); a library may register two
// or more profilers, each loaded in order (Plugin.Index); a name cut to 31 characters as the
// header asks is taken as it is.
package kineto
