//go:build !(darwin || freebsd || linux || netbsd) || noplugin

package kineto

// Without the plugin host every library is refused with ErrPluginsUnsupported; no Plugin is
// ever made, so the pluginFuncs methods are never reached.

type pluginFuncs struct{}

type hostMemory struct{}

func (*hostMemory) release() {}

func loadLibrary(path string) (loadResult, bool) {
	return loadResult{errs: []PluginError{{Path: path, Err: ErrPluginsUnsupported}}}, false
}

func (*pluginFuncs) hasCorrelation() bool                       { return false }
func (*pluginFuncs) create(*pluginSession, []int32) error       { return ErrPluginsUnsupported }
func (*pluginFuncs) start(uintptr) int32                        { return -1 }
func (*pluginFuncs) stop(uintptr) int32                         { return -1 }
func (*pluginFuncs) destroy(uintptr) int32                      { return -1 }
func (*pluginFuncs) pushCorrelation(uintptr, uint64) int32      { return 0 }
func (*pluginFuncs) popCorrelation(uintptr) int32               { return 0 }
func (*pluginFuncs) pushUserCorrelation(uintptr, uint64) int32  { return 0 }
func (*pluginFuncs) popUserCorrelation(uintptr) int32           { return 0 }
func (*pluginFuncs) processEvents(uintptr, *traceBuilder) int32 { return -1 }
