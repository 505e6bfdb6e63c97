package stubs_test

import (
	"context"
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
