package plugintest_test

import (
	"fmt"
	"os"

	"github.com/orprof/orprof/kineto/plugintest"
)

// A program that checks a plugin library and prints one line per check, as
// `orprof conformance --plugin` does (but in this process: a plugin that crashes takes the
// program down; the CLI runs each check in a child process).
func ExampleCheck() {
	lib := os.Getenv("MY_PLUGIN") // the library under test, built against kineto_plugin.h
	if lib == "" {
		return
	}
	for _, r := range plugintest.Check(lib) {
		fmt.Println(r)
	}
}
