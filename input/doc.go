// Package input opens, gunzips and identifies every input orprof reads: a trace in either
// form, each summary orprof writes (table, kernels, timeline, report), a directory of them,
// standard input. It is the one place that decides what a file is, so that every command
// recognizes the same file the same way and says the same thing about one it does not read.
//
// The verbs mean one thing each, here and in the analyses' read entry points:
//
//   - Open reads one input named by a path.
//   - Read reads one input from an io.Reader (standard input, a stream read once).
//   - Parse reads one document already in memory, as bytes.
//   - Load reads many inputs, directories expanded, in parallel; an analysis's LoadInputs is
//     its Load of inputs this package has already identified (what the CLI passes, so that
//     a FIFO is read once).
//
// What an input is (Kind) is decided by the top-level keys of its JSON object, after any
// gzip layer and a UTF-8 byte order mark: "orprof_report", "orprof_kernels",
// "orprof_timeline" and "self_cpu_time_total" name the summaries, "traceEvents" (or a JSON
// array, PyTorch's legacy form) a trace. Whitespace, indentation and the order of the keys do
// not matter: a summary re-saved by jq or `python3 -m json.tool` is the same summary. The
// keys are looked at in document order and the first of them decides; the values before it
// are skipped, not decoded. Anything else is a trace, whose reader says what is wrong with it.
//
// A report summary's members are handed out as their JSON bytes (Input.Member), so that an
// analysis reads its own member without importing package report.
//
// A directory stands for the regular files in it whose names end in .json or .json.gz, in
// natural order (rank2 before rank10). Anything else in it — a FIFO, a socket, a device — is
// skipped with a warning naming it, never opened: opening a FIFO blocks until a writer comes.
//
// A summary is gunzipped in full (internal/gz) before it is parsed, so that a corrupt stream
// is reported as such (its CRC-32 or length check) and not as the JSON error its wrong bytes
// would give. Identifying inflates only the start of an input.
package input
