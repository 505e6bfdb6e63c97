package trace

// Rank identifies the trace a summary's figures come from: every analysis's summary names its
// ranks with it, so that the ranks of one profile are numbered alike in every view.
type Rank struct {
	// Number is the trace's own rank (distributedInfo.rank) when Named; otherwise its position
	// among all the ranks merged (0, 1, …), as internal/ranknum numbers it.
	Number int64
	Named  bool
	// Trace names the trace as it was given ("" when the profile was not read from a file).
	Trace string
}

// RankNumber returns r's number and whether its trace named it (internal/ranknum's view).
func (r Rank) RankNumber() (int64, bool) { return r.Number, r.Named }
