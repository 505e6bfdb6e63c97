package analysis_test

import (
	"fmt"
	"testing"

	"github.com/orprof/orprof/analysis"
)

// kinds are two toy kinds told apart by their first key.
var kinds = analysis.Registry{
	{Name: "steps", Key: "categories", Read: func(data []byte, member string) (analysis.Summary, error) { return nil, nil }},
	{Name: "memory", Key: "start_ns", Read: func(data []byte, member string) (analysis.Summary, error) { return nil, nil }},
}

func TestIdentify(t *testing.T) {
	for _, c := range []struct {
		data, want string
	}{
		{`{"categories": []}`, "steps"},
		{" \n{ \"start_ns\": 1}", "memory"},
		{`{"other": 1}`, ""},
		{`[]`, ""},
		{`{`, ""},
		{`{"start_ns`, ""},
		{``, ""},
	} {
		got := ""
		if k := kinds.Identify([]byte(c.data)); k != nil {
			got = k.Name
		}
		if got != c.want {
			t.Errorf("%q: %q, want %q", c.data, got, c.want)
		}
	}
}

func ExampleRegistry_Read() {
	steps := kinds.Lookup("steps")
	_, err := kinds.Read(steps, []byte(`{"start_ns": 5, "devices": []}`), "steps")
	fmt.Println(err)
	// Output: steps: a memory summary (first key "start_ns"), not a steps summary
}
