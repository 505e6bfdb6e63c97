package export_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/orprof/orprof/export"
)

// Export writes one file per table and rank; DuckDB, Polars or Spark read each table's
// directory as one table (read_parquet('out/kernels/*.parquet')).
func ExampleExport() {
	dir, err := os.MkdirTemp("", "export-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	files, _, err := export.Export([]string{"../testdata/kineto/rocm_mi250_train.json.gz"}, dir, export.Options{Version: "example"})
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		fmt.Println(f.Table, f.Rank, f.Rows)
	}
	// Output:
	// kernels 0 18
	// ops 0 64
	// steps 0 2
	// collectives 0 0
	// idle 0 1
	// memory 0 0
}

// With OpsTree the op call tree is a table too: one row per call path, with the time under
// it (cpu_ns, device_ns) beside its own (self_cpu_ns, self_device_ns).
func ExampleOptions_opsTree() {
	dir, err := os.MkdirTemp("", "export-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	files, _, err := export.Export([]string{"../testdata/kineto/rocm_mi250_train.json.gz"}, dir, export.Options{OpsTree: true})
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		if f.Table != export.TableOpsTree {
			continue
		}
		rows, err := parquet.ReadFile[export.OpTreeRow](f.Path)
		if err != nil {
			panic(err)
		}
		for _, r := range rows[:3] {
			fmt.Println(r.Depth, strings.Join(r.Path, " > "), r.Calls, r.CPUNs, r.SelfCPUNs)
		}
	}
	// Output:
	// 1 ProfilerStep* 2 9337364 8039904
	// 2 ProfilerStep* > aten::randn 2 167077 63692
	// 3 ProfilerStep* > aten::randn > aten::empty 2 64270 64270
}
