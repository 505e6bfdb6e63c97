// Package perfetto writes Chrome/Kineto traces as Perfetto's protobuf trace, losslessly and
// with every rank of a job in one file (Convert), and as Kineto JSON that Perfetto's JSON
// importer keeps whole (ConvertJSON). The user's page is docs/perfetto.md.
//
// # Lossless
//
// Every complete event becomes a slice (a TYPE_SLICE_BEGIN and a TYPE_SLICE_END packet).
// Perfetto's tracks nest: on one track a slice that starts inside another must end inside it.
// Kineto traces break that (PDL kernels overlapping on a stream, Stream Sync over a kernel, a
// Python span crossing an op's end), and Perfetto's JSON importer drops such events. Here each
// thread's slices are sorted by start (longer first) and put on the first of the thread's
// levels where they nest; each level is a track ("stream 7", "stream 7 · overlap 1"). Instants
// go on the thread's first level; each series of a counter event is a counter track with a
// unit guessed from its name; flow ends ('s', 't', 'f') are bound as Chrome binds them (the
// innermost slice holding the time; a flow end without bp "e" to the next slice) and written
// as flow_ids / terminating_flow_ids; one that no slice holds becomes an instant carrying it.
// Args become debug annotations with their types: int (uint past int64), double, bool,
// string, dicts and arrays nested; null, empty containers and values past 32 levels as their
// JSON text (legacy_json_value).
//
// # Encoding
//
// Written by hand from the field numbers of Perfetto's published protos (trace.proto,
// trace_packet.proto, track_event/track_event.proto, track_descriptor.proto,
// debug_annotation.proto, counter_descriptor.proto, interned_data/interned_data.proto).
// Event names, categories, arg keys and short string values are interned. Timestamps are ns
// on BUILTIN_CLOCK_BOOTTIME, the trace processor's own clock, so no ClockSnapshot is needed;
// their values are each trace's own absolute times (baseTimeNanoseconds + ts: the wall clock
// since the Unix epoch in Kineto's traces), so ranks line up.
//
// # Sequences
//
// The event array is parsed and encoded on workers, in segments of about 256 KiB cut at event
// starts (parallel.go), and interning is per packet sequence: each segment's slices, instants
// and flow ends go out on a trusted_packet_sequence_id of its own (2, 3, ... in file order,
// across ranks), whose first packet clears its incremental state (SEQ_INCREMENTAL_STATE_CLEARED)
// and carries the strings its events intern; every event packet says it needs that state.
// Sequence 1, the main one, holds the track descriptors, the counter values, and events the
// reading goroutine encoded itself (a segment whose cut fell inside a string is read in
// sequence), with an InternedData packet before each rank's events. The sequences and iids
// depend on the input alone, not on the number of workers.
//
// # Ranks
//
// Inputs are read one at a time: a rank is read whole into compact records (32 bytes a
// slice plus its encoded fields), written, and dropped; the strings its segments intern are
// written as each segment is read, not kept. Each process becomes a group
// named after its rank ("rank 3 · host", "rank 3 · GPU 0"). A trace without a wall clock (no
// base time, times before 2000) is aligned on the first rank: its first ProfilerStep's start
// on the first rank's, else its first collective's end.
package perfetto
