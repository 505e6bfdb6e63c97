package kineto

import (
	"strings"
	"sync"
)

// Device profilers: the activity profilers of device backends other than the PrivateUse1 one
// (a real runtime such as OpenCL next to the PrivateUse1 simulator). A session whose device is
// the registered name configures that backend's profiler besides RegisteredProfilers, and takes
// device time from its kernels when it records device work the session asks for, as it does
// for the PrivateUse1 profiler.
var devProfs struct {
	mu        sync.Mutex
	factories map[string]func() ActivityProfiler
	made      map[string]ActivityProfiler
}

// RegisterDeviceProfiler registers the factory of the activity profiler of the device backend
// named device (its stubs name, case-insensitive), typically from the backend package's init.
// Last writer wins; a nil factory removes the registration. The factory is called once, on
// first use, with the registry's lock held. Safe for concurrent use.
func RegisterDeviceProfiler(device string, factory func() ActivityProfiler) {
	name := strings.ToLower(device)
	devProfs.mu.Lock()
	defer devProfs.mu.Unlock()
	if devProfs.factories == nil {
		devProfs.factories, devProfs.made = map[string]func() ActivityProfiler{}, map[string]ActivityProfiler{}
	}
	delete(devProfs.made, name)
	if factory == nil {
		delete(devProfs.factories, name)
		return
	}
	devProfs.factories[name] = factory
}

// DeviceProfiler returns the activity profiler registered for device (made on first use and
// kept), or nil when none is registered or the factory returned nil or panicked.
func DeviceProfiler(device string) ActivityProfiler {
	name := strings.ToLower(device)
	devProfs.mu.Lock()
	defer devProfs.mu.Unlock()
	f := devProfs.factories[name]
	if f == nil {
		return nil
	}
	if p, ok := devProfs.made[name]; ok {
		return p
	}
	p := makePrivateUse1(f)
	devProfs.made[name] = p
	return p
}
