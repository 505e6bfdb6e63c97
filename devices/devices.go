// Package devices names the device types a profile can involve (CPU, CUDA, XPU, MTIA, HPU and the
// renamable PrivateUse1 slot). It also holds the stream and event interfaces a device runtime
// implements and the injectable clock everything timestamps with.
package devices

import (
	"fmt"
	"strings"
	"sync"
)

// Type is a device type, as c10::DeviceType names them.
type Type int8

// The device types orprof knows. PrivateUse1 is the slot an out-of-tree backend takes; its
// name can be changed with RenamePrivateUse1Backend.
const (
	CPU Type = iota
	CUDA
	XPU
	MTIA
	HPU
	PrivateUse1
)

var builtinNames = [...]string{CPU: "cpu", CUDA: "cuda", XPU: "xpu", MTIA: "mtia", HPU: "hpu"}

// defaultPrivateUse1Name is PyTorch's name for the PrivateUse1 slot before any rename.
const defaultPrivateUse1Name = "privateuseone"

var (
	pu1Mu   sync.RWMutex
	pu1Name = defaultPrivateUse1Name
)

// String returns the lower-case device name ("cpu", "cuda", …, or the PrivateUse1 backend name).
func (t Type) String() string {
	if t == PrivateUse1 {
		return PrivateUse1BackendName()
	}
	if t >= 0 && int(t) < len(builtinNames) {
		return builtinNames[t]
	}
	return fmt.Sprintf("device(%d)", int8(t))
}

// Upper is the name PyTorch prints in table headers: the device name upper-cased
// ("CUDA", "OPENREG", "PRIVATEUSEONE").
func (t Type) Upper() string { return strings.ToUpper(t.String()) }

// PrivateUse1BackendName is the current name of the PrivateUse1 backend ("privateuseone" until
// renamed).
func PrivateUse1BackendName() string {
	pu1Mu.RLock()
	defer pu1Mu.RUnlock()
	return pu1Name
}

// RenamePrivateUse1Backend gives the PrivateUse1 slot a name, as
// torch.utils.rename_privateuse1_backend does. Like PyTorch it may rename only once: a second
// call with a different name is an error, the same name again is accepted. The name must be a
// lower-case identifier that is not a built-in device name.
func RenamePrivateUse1Backend(name string) error {
	if name == "" {
		return fmt.Errorf("devices: PrivateUse1 backend name is empty")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return fmt.Errorf("devices: PrivateUse1 backend name %q: only lower-case letters, digits and '_' are allowed", name)
		}
	}
	for _, b := range builtinNames {
		if b == name {
			return fmt.Errorf("devices: PrivateUse1 backend name %q is a built-in device name", name)
		}
	}
	pu1Mu.Lock()
	defer pu1Mu.Unlock()
	if pu1Name == name {
		return nil
	}
	if pu1Name != defaultPrivateUse1Name {
		return fmt.Errorf("devices: PrivateUse1 backend is already named %q; it cannot be renamed to %q", pu1Name, name)
	}
	pu1Name = name
	return nil
}

// Parse maps a device name to its type: the built-in names, "privateuseone", and the current
// PrivateUse1 backend name. Case-insensitive.
func Parse(name string) (Type, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	for i, b := range builtinNames {
		if b == n {
			return Type(i), nil
		}
	}
	if n == defaultPrivateUse1Name || n == "privateuse1" || n == PrivateUse1BackendName() {
		return PrivateUse1, nil
	}
	return CPU, fmt.Errorf("devices: unknown device %q", name)
}

// C10 is the type's c10::DeviceType number, as traces write it ("Device Type" of memory
// events): CPU 0, CUDA 1, XPU 12, HPU 15, MTIA 19, PrivateUse1 20.
func (t Type) C10() int {
	switch t {
	case CUDA:
		return 1
	case XPU:
		return 12
	case HPU:
		return 15
	case MTIA:
		return 19
	case PrivateUse1:
		return 20
	}
	return 0
}
