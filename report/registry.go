package report

import (
	"github.com/orprof/orprof/analysis"
	"github.com/orprof/orprof/analysis/code"
	"github.com/orprof/orprof/analysis/flame"
	"github.com/orprof/orprof/analysis/kernels"
	"github.com/orprof/orprof/analysis/lanes"
	"github.com/orprof/orprof/analysis/memcurve"
	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/analysis/tbsteps"
	"github.com/orprof/orprof/analysis/timeline"
)

// Kinds are the analyses of a report summary, one line each, in the order of its members.
// The table comes first: its ranks are every view's.
var Kinds = analysis.Registry{
	optable.Analysis,
	flame.Analysis,
	timeline.Analysis,
	kernels.Analysis,
	tbsteps.Analysis,
	memcurve.Analysis,
	code.Analysis,
	lanes.Analysis,
}
