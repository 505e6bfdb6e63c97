package parquet

// Every test binary defines -update, so that `go test ./... -update` rewrites the golden
// files of the packages that have some and runs the others' tests as usual.
import _ "github.com/orprof/orprof/internal/golden"
