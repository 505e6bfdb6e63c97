package stubstest_test

import (
	"fmt"

	"github.com/orprof/orprof/stubs"
	"github.com/orprof/orprof/stubs/stubstest"
)

// Check a C backend from a program, one fresh backend per case.
func ExampleCheck() {
	err := stubstest.Check(func() (stubs.Stubs, error) { return stubs.Open("./libmybackend.so") })
	if err != nil {
		fmt.Println(err) // one line per failed case: "name: reason"
	}
}

// Run a single case and print the line `orprof conformance` would print for it.
func ExampleCase_Run() {
	for _, c := range stubstest.Cases() {
		if c.Name == "enabled" {
			r := c.Run(func() (stubs.Stubs, error) { return stubs.Default("mydevice"), nil })
			fmt.Println(r)
		}
	}
	// Output: FAIL enabled: Enabled() = false: the backend says it is not usable
}

// Every case states the rule it enforces; `orprof conformance -v` prints it under the case's line.
func ExampleCases() {
	for _, c := range stubstest.Cases()[:2] {
		fmt.Printf("%s: %s\n", c.Name, c.Desc)
	}
	// Output:
	// enabled: Enabled() is true for a usable backend (PyTorch: DefaultStubs return false, real backends true); when it is false every other case is skipped as "not enabled".
	// device-count: DeviceCount, when the backend has it, is at least 1 and the same on every call (orprof: stubs.DeviceCounter, the C ABI's deviceCount).
}
