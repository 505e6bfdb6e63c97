// Package code answers "where in my code did the time go": the ops of a trace, and the device
// time linked to them, charged to the nn.Module calls (or the Python functions of the user's
// code) that ran them, forward and backward (`orprof code`).
//
// Rows. By module, a row is an nn.Module call path: the names of the trace's python_function
// events "nn.Module: NAME" that enclose one another, outermost first, joined by "/"
// (Net_0/Heavy_0/Linear_3). By line, a row is the innermost Python function of the user's
// code: a python_function event named "file.py(12): func" whose file is not in torch's
// package (a path starting "torch/" or holding "/torch/") nor Python's threading bootstrap;
// C functions ("<built-in …>") and module calls are not lines. Rows are exclusive: an op's self
// time counts for its innermost row only; the module view's inclusive columns add a path's
// subtree.
//
// Forward. A host op (cpu_op, user_annotation, runtime call) belongs to the innermost Python
// call open at its start on its thread (python_function events nest in time on their thread).
//
// Backward. An op with a "Fwd thread id" is an autograd node run in backward; it and the ops
// under it (on its thread, by PyTorch's op tree) count as backward time of the row of the
// forward op that made the node: the one its fwdbwd flow starts on (a flow binds to the
// innermost op holding its time on its thread), else the last op in time, outside any
// backward pass, with the same "Sequence number" on the thread PyTorch numbered "Fwd thread
// id" (every op records the number its thread's next autograd node will take, so the op that
// made the node is the last to record it: an earlier one may lie outside the module). That number is not the trace's tid: a sequence number found on one thread only gives
// the pairing, and the thread most such pairings name for a forward thread number settles the
// sequence numbers several threads have.
//
// CPU time is self time by PyTorch's tree (an op is the child of the op on the stack when it
// starts before that op ends and does not end after it), so the rows sum to the table's "Self
// CPU time total". Device time is that of every device event the reader linked to an op (all
// of its link rules), counted where the op counts; the rows sum to the linked device time.
// What lands in the none row ("(no module)", "(no source)") is said with its reason: ops
// outside any module call; backward ops whose forward op is not in the trace, or is outside
// any module; autograd ops that name no forward op. Device time linked to no op is in no row
// and said apart.
//
// A trace without python_function events (recorded without with_stack=True), or without
// module calls for the module view, is an error saying so, not an empty table.
//
// The attribution (Attribute) knows only Input; consume.go is the one file that knows the
// trace reader's consumer contract. A Summary is integer ns and merges exactly across ranks
// (Merge); its JSON is read back by ReadSummary.
package code
