package input_test

import (
	"fmt"
	"strings"

	"github.com/orprof/orprof/input"
)

// A summary re-saved by a JSON tool, its keys sorted, is still recognized.
func ExampleRead() {
	in, err := input.Read(strings.NewReader(`{"options": {}, "orprof_timeline": 1}`), input.StdinName)
	if err != nil {
		panic(err)
	}
	fmt.Println(in.Kind)
	fmt.Println(in.Kind.ReadBy())
	// Output:
	// a timeline summary (orprof timeline --format json)
	// orprof timeline reads it
}
