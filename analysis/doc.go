// Package analysis is the contract every analysis of a trace keeps, and the registry entry
// that composes it into the report summary (package report).
//
// # Consumers
//
// An analysis is a tracefile.Consumer fed by one streaming read; no event is kept.
//
//  1. Needs says what it wants beyond the events: NeedLinks (each device event's operator,
//     launch and rule, and collectives found through the launch), NeedMemory (the
//     "[memory]" records, as events of KindMemory), NeedDeviceNames (every device event's
//     name, once, before the first event), NeedPython (the python_function events and
//     fwdbwd flow ends, as events of KindPython and KindFlow, before the others). It returns
//     the same bits every call.
//  2. Begin is called once, before the first event, with the trace's Info: its rank
//     (trace.Rank: the trace's own, else tracefile.Options.Position), form, device name,
//     origin, the names asked for, and the counts of each kind of event to come. The counts
//     are a hint to size lists by, not a promise to keep.
//  3. Event is called once per event, in file order. The *Event is valid during the call only
//     (its strings may be kept).
//  4. Finish is called once after the last event, before the read returns. The analysis
//     makes its summary there; Result returns it (nil when there is nothing to summarize)
//     or the error that stopped it.
//
// The calls never overlap and happen in that order, but not necessarily on one goroutine, nor
// on the reader's. When and where each runs is the reader's business, decided from Needs: a
// consumer without NeedLinks or NeedPython is fed while the read links the others' events
// (after, in a large read with tracefile.Options.Paced, as orprof export's); the names are
// collected, and a NeedPython consumer begun and given the Python layer, while it links too;
// the others are fed on two goroutines, half each; Finish runs beside the rest of the read
// (the table's rows). So two consumers of one read may run at the same time:
// they share nothing they write. A consumer whose summary is asked for after the read may
// leave its heavy work to then (timeline's Consumer.AfterRead, which orprof export uses).
// A consumer keeps its own errors and reports them from Result.
//
// # Summaries
//
// A Summary is one rank's result or several ranks' merged. Its Kind says how it merges,
// writes and reads its JSON. The rules every Kind keeps, which package analysistest checks:
//
//   - Merging is associative: merging a, b and c at once, (a, b) then c, or a then (b, c)
//     gives the same JSON bytes; so the order in which a job's merges run changes nothing.
//   - Writing then reading gives a summary that writes the same bytes.
//   - Ranks are numbered by internal/ranknum's rule: a trace's own rank kept, a rank-less
//     trace's rank its position among all the ranks merged. A summary made at position 0 and
//     merged at position k gives the same bytes as one made at position k.
//   - Read refuses JSON of another kind with one line naming what it is.
//
// # Registry
//
// Package report lists the Kinds in the order of a report summary's members (report.Kinds)
// and reads, writes, merges and checks the report summary by looping over them. A new
// analysis is its package (its consumer, its Summary and its Kind), one line in
// report.Kinds, one field in report.Bundle (found by its type), its view in report/html (a
// Model field set by Model.UseBundle, and a script file in assets/js) and its docs; report's
// TestKinds runs package analysistest over it on real traces. This round's lanes (the
// Timeline) and code (the Code view) were added so.
package analysis
