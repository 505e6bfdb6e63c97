// Package export writes a profile's rows as Parquet tables that SQL engines read directly
// (`orprof export`): one directory per table under the output, one file per rank in each.
//
//	kernels      one row per device activity: rank, device, stream, start and duration (ns on
//	             the trace's clock), name, kind, category, launching op, link rule,
//	             correlation, step, collective keys
//	ops          the key_averages rows of each rank, with the table's own numbers
//	steps        per rank and ProfilerStep, the timeline's and the TensorBoard plugin's
//	             breakdowns
//	collectives  per rank, each communication kernel the timeline matches across ranks
//	idle         per rank and stream, idle time by cause
//	memory       per rank, the "[memory]" records
//	ops_tree     per rank, the op call tree's paths with their times (Options.OpsTree)
//
// Each trace is read once: the table's Averager, the timeline, the step breakdown and this
// package's own consumer (consume.go) are fed by the same read, and the per-event rows are
// kept as compact records until the read ends (a device event's step is known only once its
// launch and its step's range have been read), then written in row groups by
// internal/parquet (our writer: the binary carries no Parquet library). The schema is
// versioned (SchemaVersion; docs/schema.md) and every file says in its key-value metadata
// which version it is, which orprof wrote it, from which trace and for which rank. Files are
// written under a temporary directory and renamed into place only when every trace is done.
package export
