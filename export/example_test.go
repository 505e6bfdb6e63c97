package export_test

import (
	"fmt"
	"os"

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
