// Package httpprof serves on-demand captures of a running program's profile over HTTP, the way
// net/http/pprof serves Go's profiles: the program mounts Handler on a mux, and
//
//	GET /debug/orprof/trace?steps=N      the next N steps as a Kineto trace (?seconds=S: S seconds)
//	GET /debug/orprof/table?steps=N      the same capture as PyTorch's key_averages() table
//	GET /debug/orprof/report?steps=N     the same capture as orprof's offline HTML report
//
// record them from the program's orprof.Profiler, whose loop marks steps with Step. Nothing is
// served unless the program mounts the handler; importing the package registers nothing.
//
// Security: a capture shows op names, input shapes, call stacks and timings of the program, and
// runs a profiling session in it (slower ops while it lasts). Mount the handler only on a
// listener you trust — a loopback address, or behind your own authentication — never on a
// public port. Like net/http/pprof, the handler does no authentication of its own.
//
// A capture is bounded (Options, NewHandler): steps and seconds past the bound are refused with
// 400 naming it, and a capture that reaches Options.MaxEvents records (host and device) ends
// there with a warning header, so that no request can make the program's memory grow without end;
// the text and markdown tables end with a line saying so, and the report page shows it under
// its title.
//
// Only one capture runs at a time: another request meanwhile gets 409 Conflict. A client that
// disconnects cancels its capture. The server's WriteTimeout, if any, must exceed the longest
// capture asked for. Query parameters:
//
//	steps=N            capture the next N whole steps (1..Options.MaxSteps), or
//	seconds=S          capture for S seconds (0 < S ≤ Options.MaxSeconds), whatever the steps
//	activities=LIST    Kineto activity types for child profilers (cpu_op,kernel,…)
//	record_shapes=B    record input shapes (B: 1/0, true/false; empty is true)
//	profile_memory=B   record allocations and frees
//	with_stack=B       keep the call stacks ops report
//	gzip=B             trace: send a .json.gz file (else gzip only as Content-Encoding when
//	                   the client accepts it)
//	sort_by=KEY        table: sort by a FunctionEventAvg attribute (cpu_time_total, count, …)
//	row_limit=N        table: rows to print (-1: all; default 100)
//	group_by_input_shape=B  table: group rows by input shapes too
//	format=F           table: text (default), markdown, csv or json; trace: json (default) or
//	                   pftrace (Perfetto's protobuf, every slice kept: trace/perfetto)
//
// report takes steps, seconds, activities, record_shapes, profile_memory, with_stack and
// group_by_input_shape, and sends one self-contained HTML page (report/html).
//
// Bad parameters get 400 with the reason.
package httpprof
