// Package duckdbtest proves orprof export's Parquet tables with DuckDB: its tests export the
// repository's testdata traces, run SQL over the files and compare the results with orprof's
// own JSON (kernels, table, timeline) for the same inputs, exactly; Apache Arrow's reader
// (arrow-go) reads every file to the same rows as DuckDB, cell by cell. It is a module of its own
// because DuckDB needs cgo: the main module and the orprof binary stay pure Go, and the main
// module's `go test ./...` does not build DuckDB. .ci/run runs these tests as a step of their own.
package duckdbtest
