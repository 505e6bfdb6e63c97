package stubs_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/orprof/orprof/stubs"
)

// A device nobody registered gets the default stubs, whose every call fails like PyTorch's
// DefaultStubs.
func ExampleLookup() {
	s := stubs.Lookup("mydevice")
	fmt.Println(s.Enabled())
	fmt.Println(s.Synchronize(context.Background()))
	// Output:
	// false
	// mydevice used in profiler but not enabled.
}

// A backend error gets the device and hook that failed once, however many layers wrap it.
func ExampleWrap() {
	err := stubs.Wrap("mydevice", "record", errors.New("event pool exhausted"))
	fmt.Println(err)
	// A caller further up (here the session, timing devices at Start) adds nothing.
	err = stubs.Wrap("mydevice", "onEachDevice", fmt.Errorf("calibrate: %w", err))
	fmt.Println(err)
	// Output:
	// mydevice: record: event pool exhausted
	// calibrate: mydevice: record: event pool exhausted
}
