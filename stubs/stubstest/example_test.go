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
