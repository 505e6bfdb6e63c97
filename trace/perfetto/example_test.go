package perfetto_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/orprof/orprof/trace/perfetto"
)

// Two kernels that overlap on one stream (a PDL pair): Perfetto's JSON importer would drop
// the second; converted, the second goes on a sibling track and both are kept.
func ExampleConvert() {
	const kineto = `{"traceEvents": [
  {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
  {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
  {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 100, "dur": 50},
  {"ph": "X", "cat": "kernel", "name": "gemm_b", "pid": 0, "tid": 7, "ts": 120, "dur": 50}
], "distributedInfo": {"rank": 3}}`
	in := perfetto.Input{Name: "rank3.json", Open: func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(kineto)), nil
	}}
	var out bytes.Buffer
	st, err := perfetto.Convert(&out, []perfetto.Input{in}, perfetto.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Slices, "slices,", st.OverlapTracks, "overlap track")
	for _, name := range []string{"rank 3 · GPU 0", "stream 7", "stream 7 · overlap 1"} {
		fmt.Printf("%s: %v\n", name, bytes.Contains(out.Bytes(), []byte(name)))
	}
	// Output:
	// 2 slices, 1 overlap track
	// rank 3 · GPU 0: true
	// stream 7: true
	// stream 7 · overlap 1: true
}
