// Package lanes is a trace's time axis as the report's Timeline view draws it: per rank, its
// host threads and device streams as lanes of intervals, the ProfilerStep bands, each
// kernel's launching op and launch, and each stream's idle gaps by cause. A Collector is an
// analysis (analysis.Analysis, a tracefile.Consumer) fed by the report's one read; its Summary
// merges rank by rank and reads back its JSON (Analysis, member "lanes").
//
// # Lanes
//
// A thread lane is a host thread (pid, tid): its operators, user annotations and runtime calls,
// each on the row of its nesting depth on the thread (0: outermost; events in start order, the
// longer first at equal starts, nested while they start before the enclosing one ends). A
// stream lane is a device stream (device, stream, as package timeline places device events):
// its kernels, copies, fills, syncs and device ranges (a scope profiler's "metrics: …" slices
// are left out: each spans its kernel, which is drawn). Overlapping events of one stream are put
// on sub-lanes (rows), each event on the first row free at its start, so none is hidden. A
// device event's category is the kernel view's (kernels.Rules.Of, the default rules), except
// copies, fills, syncs and device ranges, which keep their kind. A device event carries the
// operator it was charged to (the reader's link) and, when its correlation names a runtime
// call, that call's thread lane and start: the flow from launch to work.
//
// Idle gaps are package timeline's: the gaps between a stream's work (its classes computation,
// communication, memory, other) after everything before it has ended, each with the cause
// timeline.CauseOf gives, under the timeline's default options; they sum to the idle view's.
//
// # Level of detail
//
// A summary keeps at most DeviceBudget device events, HostBudget host events and GapBudget
// gaps over all its ranks. Each has a threshold, 0 or a power of two ns: the smallest that
// keeps the events at least that long within the budget (mtia_rank0 keeps every device
// event). The shorter ones are binned, not dropped: each lane counts them, and their time
// is added to the lane's coverage bins (BinNs wide, a power of two aligned on the trace's
// clock, about BinsPerSpan per rank's span, fewer when many ranks share the page); the
// shorter gaps are counted and summed by cause per lane. The thresholds only rise as ranks
// are merged and the bins only grow by powers of two, so a merge gives the same bytes
// however it is grouped.
package lanes
