package verdict_test

import (
	"fmt"

	"github.com/orprof/orprof/internal/verdict"
)

func ExampleResult_String() {
	fmt.Println(verdict.Result{Name: "enabled", Status: verdict.Pass})
	fmt.Println(verdict.Result{Name: "record-order", Status: verdict.Fail, Reason: "events out of order:\n  want 1, 2\n  got 2, 1\n"})
	// Output:
	// PASS enabled
	// FAIL record-order: events out of order: want 1, 2; got 2, 1
}
