package ranks

import "github.com/orprof/orprof/trace/tracefile"

// traceRank is the trace's distributedInfo.rank, when it has one.
func traceRank(data *tracefile.Data) (int64, bool) {
	return data.Rank, data.HasRank
}
