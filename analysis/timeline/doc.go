// Package timeline analyses the device timeline of a trace: where each rank's device time
// went (breakdown), why each stream sat idle (idle), how much communication ran under
// computation (overlap), what launching cost (launches), how much work was queued (queue),
// the ProfilerSteps (steps) and which rank kept the others waiting in collectives
// (stragglers), and what of all that matters (findings). It is what `orprof timeline` prints.
//
// An Analyzer takes a trace's events one at a time (Event: a host op, a launch, a device
// event), from as many goroutines as the reader converts on, and keeps per-stream interval
// records, not events; Finish runs every analysis and returns a Summary of that rank.
// Summaries of ranks merge (Summary.Merge) exactly: every per-rank figure is kept as it is
// and the cross-rank figures (slowest step, stragglers) are derived again from them.
//
// # Definitions
//
// Everything is device-agnostic: a device event is any activity the trace puts on a device
// row (CUDA, ROCm, MTIA, OpenReg, OpenCL or a plugin's), placed by its device (pid) and
// stream (its "stream" argument, else its tid), and classed by what the reader knows of it
// and by the kernel view's name rules (package kernels), so that every view agrees:
// memory (a memcpy or memset, a kernel named as a copy, fill or DMA), sync (the device
// waiting: cuda_sync's Stream Sync, Stream Wait Event, Context Sync …), annotation (a
// device-side range spanning other work, a scope profiler's metrics slice), communication
// (NCCL/RCCL/HCCL kernels), other (device work the rules call other: names of
// synchronizations, MTIA job steps, and, as HolisticTraceAnalysis has it, kernels whose names
// merely contain Memcpy, Memset, dma or Sync) and computation (every other kernel). Events
// handed to an Analyzer unclassified are classed by Classify, from the name alone, by the same
// rules (kernels.Default; ClassOf maps a category to a class). Work is computation, communication,
// memory and other; sync and annotation are never work. Times are the traces' own clocks in
// ns, so that the ranks of one job line up. A launch is a host runtime or driver call whose
// correlation id a device event carries; the device event's launch is the one with its
// correlation id (the first in the file when several carry it).
//
// Steps. ProfilerStep#N host ranges (on any thread; one step's ranges on several threads are
// united). A device event belongs to the step whose host range holds its launch's start (its
// own start when it has no launch). A step's window runs from its host start (but not before
// the previous window's end) to the later of its host end and the end of its device work,
// so windows never overlap and a kernel that runs past its step's host end still counts in
// its step, as the TensorBoard plugin's steps do. --steps selects steps: every analysis then
// sees only the device events of those steps, and the breakdown covers only their windows.
//
// Phases. With Options.Phase, a device event is the phase's when the op the reader linked it
// to lies within one of the phase's annotations on its thread (the outermost user annotation
// so named; ProfilerStep#N and 0 ns annotations are no phases: analysis/code's definition).
// Each annotation's window runs from its host start to the later of its host end and the end
// of its device work; the breakdown covers the union of those windows, and every analysis
// sees only the phase's device events, as with --steps (the two are not combined).
//
// Breakdown (per rank, per step). The window is the span of the rank's device work (the
// first start to the last end; the selected steps' windows with --steps); each step's is its
// window. Busy is the union of all work on all streams: work on several streams at once
// counts once, never summed. Idle = window − busy. Computation, communication, memory and
// other are each the union of that class's work; exposed communication is communication
// while no computation runs, exposed memory is memory work while no computation runs, and
// the overlap is communication while computation runs. The exclusive split gives each
// instant to the first class running then (computation > communication > memory > other >
// idle), so its five figures sum to the window.
//
// HolisticTraceAnalysis's get_temporal_breakdown is given beside it (HTABreakdown), by its
// rules (reference: its source at f4d0062c, summarised in our words): every device event
// with a stream is busy, sync events included; its name patterns decide COMPUTATION (a
// compute kernel whose name contains "Memcpy", "dma" or "Sync" is not); times are rounded to
// whole µs, start up and end down (ns traces lose up to 2 µs per event); and when a trace has
// two or more ProfilerSteps, only device events launched before the last step starts are
// kept. With --steps its columns read the selected steps' device events that have a launch
// instead (it gives a device event its launch's step, none without one), its own filter
// then left aside, so that they cover what orprof's columns do, the last step too.
// idle = span − |union|, compute = |COMPUTATION union|, non-compute = the rest.
// Its stream is the "stream" argument, so a Context Sync written with stream 4294967295
// (uint32 −1) is busy time to it. orprof does not count a device waiting on a sync as busy,
// and keeps every step and the exact times.
//
// Idle (per stream). The stream's work in start order. A gap is the time from the end of
// everything before on the stream (the latest end so far) to the next start, when positive:
// overlapping events on one stream never make a negative gap, and the stream's idle time is
// exactly its span minus the union of its work. A gap's cause: host wait when the next
// event's launch started after the stream became free (the device waited for the host);
// else kernel wait when it is shorter than the micro-idle threshold (--micro-idle, 30 µs as
// HolisticTraceAnalysis's consecutive_kernel_delay); else other (a synchronization, an event
// wait, a dependency on another stream). HolisticTraceAnalysis measures each gap to the
// previous event's end instead, whatever its sign, so a stream with overlapping events gets
// negative idle time. Its figures (HTAIdle) are given beside orprof's as it computes them: on
// its kernels, copies and fills only (not other device activity such as mtia_workloadd), with
// its whole-µs rounding (start and launch up, end down) and its last-step filter (as in
// HTABreakdown), so that they compare with its own output.
//
// Overlap (per rank). The share of communication time under computation: |comm ∩ compute| /
// |comm|, as HolisticTraceAnalysis's get_comm_comp_overlap (undefined without
// communication). Per kernel name: the count, the summed durations, and the summed part of
// each kernel not under computation (kernels of one name on several streams are summed, not
// united).
//
// Launches (per rank). For each device work event whose launch is in the trace: the launch
// call's duration, the work's duration, and the delay from the call's end to the work's
// start, each with its mean, maximum and 50th, 90th and 99th percentiles (nearest rank), per
// rank and for the job. The percentiles are read from a histogram of fixed logarithmic buckets
// (Hist: 64 per doubling, 1.09 % wide; negative delays in mirrored buckets) as the geometric
// middle of the bucket that holds the rank, kept within the exact minimum and maximum: within
// 0.54 % of the exact percentile. Histograms add, so the job's percentiles are the same
// however its ranks' summaries were merged. orprof keeps a negative delay (the work started
// before the call returned); HolisticTraceAnalysis clips it at 0 (HTADelaySumNs over
// HTADelayCount launches, with its rounding and last-step filter). Any runtime or driver call that
// carries the work's correlation id is a launch, on any device; HolisticTraceAnalysis counts
// only a list of CUDA and MTIA names. Short kernels run less than --short-kernel (10 µs);
// launches slower than their kernels took longer on the host than their work on the device:
// many of either says the run is launch-bound (fewer, larger kernels or CUDA graphs help).
//
// Queue (per stream). The number of launches outstanding: +1 at the launch call's start, −1
// at its work's end (launched and not finished), from the stream's first launch to its last
// launched work's end: the maximum, the time-weighted mean and the time at or above
// --queue-length (16). HolisticTraceAnalysis decrements at the work's start (launched, not
// started) and averages over its change points without weighting them by time; its maximum
// and mean are given beside, by its rules (kernels, copies and fills, whole µs, its last-step
// filter).
//
// Plots (plots.go): the figures the report's Device view draws, each bounded. Per stream, the
// queue length as a step series (every change up to QueueSeriesPoints, else the greatest
// length per bucket, so a peak is never lost; times as offsets from the first launch) and its
// launch delays as a histogram over DelayBoundsNs. Per step, its work by kernel category
// (durations summed, as the kernel view sums them) and the data loader's time. Per device of a
// rank, the TensorBoard plugin's GPU summary over the rank's window: utilization, the kernel
// time of tensor-core kernels (kernels.TensorCore), SM efficiency (the running kernels' blocks
// per SM, at most 1, averaged over the window) and achieved occupancy (weighted by kernel
// time), from CUPTI's estimates where the trace carries them. The plugin's "no tensor cores"
// recommendation joins the findings.
//
// Stragglers (across ranks). A rank's collectives are its communication kernels in start
// order, each with what the trace says of its call: PyTorch's c10d records every collective
// and point-to-point call in a record_param_comms op whose args name its process group
// ("Process Group Name"; "Process Group ID" in builds of early 2024), the group's ranks and the
// group's sequence number ("Seq"), and the peer of a send ("Dst Rank") or recv ("Src Rank");
// Kineto copies them onto the kernel. A kernel gets them from its own args, else from the
// record_param_comms op its launch ran in on its thread (package tracefile, Event.Comm). An
// instance is matched across ranks by the first rule that applies to it:
//   - comms-id: a collective (not a send or recv) that carries a "Comms Id" (PyTorch's hash of
//     the group, Seq, p2p flag and communicator, the same on every rank of a call; 2026
//     builds): the same group and Comms Id (the k-th kernel of that call with the k-th);
//   - group+seq: the same process group and sequence number (the k-th kernel of that call
//     with the k-th: a call of several kernels);
//   - p2p: a send and its recv: the same group, sender and receiver (the sender's rank and
//     its Dst Rank; the receiver's Src Rank and its rank), the k-th of that direction on
//     both sides;
//   - group+order: the same group and call ("allreduce", …), the k-th on each rank, for traces
//     that name the group but carry no sequence number;
//   - order: the same kernel name, the k-th on each rank, for traces that say nothing of the
//     call (ranks must then have profiled the same collectives).
//
// Only the ranks of a group are compared in its calls. A rank that takes part in an instance
// and has none of it is counted missing (per rank and in all): a member of the group (its
// "Process Group Ranks" among the ranks read; all of the ranks with kernels in the group when
// the trace cuts the list short), either side of a point-to-point call, every rank with
// kernels of that name under order matching; an instance found on one rank only is counted
// unmatched. The summary says how many instances each rule matched. A rank arrives when its
// kernel starts. The last to arrive made every other rank wait from its own arrival; per
// rank: how often it arrived last (ties at a spread of 0 count for no one), the total wait it
// caused, and the total it waited. HolisticTraceAnalysis's get_potential_stragglers looks at
// ncclKernel durations and start times per iteration, by name, without groups or sequence
// numbers.
//
// Send and recv keep the p2p rule even with a Comms Id: their Seq counts each rank's
// point-to-point calls, which need not agree between a sender and its receiver.
//
// Collectives (across ranks, per call and process group: the c10d call's name, else the
// kernel's). Calls counts the kernels of every rank; the size of a call is package
// collective's (the larger of input and output in bytes). In a matched instance each rank
// waits from its own arrival to the last rank's arrival, then transfers until its kernel ends
// (wait + transfer = the kernel's duration). The algorithm bandwidth is the sized matched
// kernels' bytes over their transfer time (over their whole durations when none matched,
// "bw from kernel"); the bus bandwidth is nccl-tests' factor of it for the group's size (the
// trace's "Group size", else the most ranks of an instance). The rank that arrived last most
// often counts instances with a spread. At most MaxByCollective rows, the most kernel time
// first; the rest are counted.
//
// Step ranks (across ranks). Each rank's median step duration (the lower middle), the median
// of those and their median absolute deviation (MAD); a rank is an outlier when its median is
// more than 3 MAD and more than 5 % away from the ranks' median (three ranks or more).
//
// Findings (per rank and for the job) are derived from the figures above, never from events,
// at fixed thresholds (findings.go): a device idle at least 20 % of its window, with the share
// of its streams' idle time that was host wait; exposed communication at least 10 % of the
// window; launch-bound work (at least 10 launches, half of them slower than their kernels or
// half of the kernels short); the slowest step at least 1.25× the median step; a rank that
// arrived last in at least half of at least 4 matched collectives.
package timeline
