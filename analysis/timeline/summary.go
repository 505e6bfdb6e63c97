package timeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orprof/orprof/internal/ranknum"
	"github.com/orprof/orprof/trace"
)

// Version is the version of the Summary's JSON form; members are only ever added.
const Version = 1

// Summary is the result of the timeline analyses over one rank or many: one entry per rank in
// each per-rank view, and the cross-rank figures derived from them (the slowest step, the
// stragglers). Times are ns on the traces' own clocks (absolute: ranks of one job line up).
// Summaries merge (Merge) into exactly the summary of reading every trace at once: each
// per-rank figure is kept as it is, and the cross-rank figures are derived again.
type Summary struct {
	// Version marks the document as a timeline summary (Version).
	Version int        `json:"orprof_timeline"`
	Options Options    `json:"options"`
	Ranks   []RankInfo `json:"ranks"`
	// Breakdown is the time breakdown of each rank ("breakdown" view).
	Breakdown []RankBreakdown `json:"breakdown"`
	// Idle is each stream's idle time by cause ("idle" view).
	Idle []StreamIdle `json:"idle"`
	// Overlap is each rank's communication/computation overlap ("overlap" view).
	Overlap []Overlap `json:"overlap"`
	// Launches are each rank's launch statistics ("launches" view); JobLaunches those of
	// every rank together (Rank −1; nil for one rank), derived from them: its percentiles
	// come from the ranks' histograms added, so they do not depend on how summaries merged.
	Launches    []Launches `json:"launches"`
	JobLaunches *Launches  `json:"job_launches,omitempty"`
	// Queue is each stream's queue of launched, unfinished work ("queue" view).
	Queue []StreamQueue `json:"queue"`
	// Steps are each rank's ProfilerSteps and their breakdown ("steps" view); SlowestStep is
	// the longest step of any rank (nil when no rank has a step).
	Steps       []RankSteps  `json:"steps"`
	SlowestStep *SlowestStep `json:"slowest_step,omitempty"`
	// StepRanks are the ranks by median step time and the outliers among them (derived
	// from Steps; nil without steps).
	StepRanks *StepRanks `json:"step_ranks,omitempty"`
	// Stragglers matches collectives across ranks ("stragglers" view).
	Stragglers Stragglers `json:"stragglers"`
	// Findings are what the figures above say that matters, derived from them (Findings).
	Findings []Finding `json:"findings"`
	// Held are the views the summary holds, in Views order; nil: every view. A summary
	// written with some views (Write's views, `--view`) holds those alone (Load): the
	// members of the others are empty, which says nothing of the trace. A merge holds the
	// views every input holds.
	Held []string `json:"-"`
}

// Holds reports whether s holds the view v (Held).
func (s *Summary) Holds(v string) bool { return s.Held == nil || slices.Contains(s.Held, v) }

// heldViews is the views both held sets hold (nil: every view).
func heldViews(a, b []string) []string {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := []string{}
	for _, v := range a {
		if slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}

// findingsFrom are the views whose figures the findings are derived from: a summary that
// lacks one cannot derive them again, so it does not hold the findings.
var findingsFrom = []string{"breakdown", "idle", "launches", "steps", "stragglers"}

// Finding is one thing the figures say that a person should look at, with the number behind
// it: a device idle waiting for its host, launch-bound work, exposed communication, a slow
// step, a straggling rank.
type Finding struct {
	// View is the view whose figures say it; Rank the rank it is about (−1: the job).
	View string `json:"view"`
	Rank int64  `json:"rank"`
	// Share is the figure that triggered it, in [0, 1] (a share of time or of events).
	Share float64 `json:"share"`
	Text  string  `json:"text"`
}

// RankInfo says which trace a rank's figures come from.
// Its JSON is rank.go's rankJSON.
type RankInfo struct {
	// Rank is the trace's (trace.Rank: its distributedInfo rank when Named, else its position
	// among all the ranks merged, internal/ranknum).
	trace.Rank
	Device string `json:"device"`
	// DeviceEvents counts the device events read; Work those that are work (not waits or
	// ranges); Unlaunched the work events whose launch was not found.
	DeviceEvents int `json:"device_events"`
	Work         int `json:"work_events"`
	Unlaunched   int `json:"unlaunched_events"`
}

// RankBreakdown is one rank's time breakdown over its window: from the first device work's
// start to the last one's end, or the windows of the selected steps.
type RankBreakdown struct {
	Rank    int64 `json:"rank"`
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
	Times
	// HTA is HolisticTraceAnalysis's temporal breakdown of the same trace.
	HTA HTABreakdown `json:"hta"`
	// GPU is the TensorBoard plugin's GPU summary of each device of the rank (plots.go).
	GPU []DeviceGPU `json:"gpu,omitempty"`
}

// HTABreakdown is what HolisticTraceAnalysis's get_temporal_breakdown gives for the rank, by
// its rules: its classification, whole-µs rounding, sync events that carry a stream counted
// busy, and the last-step filter.
type HTABreakdown struct {
	IdleNs       int64 `json:"idle_ns"`
	ComputeNs    int64 `json:"compute_ns"`
	NonComputeNs int64 `json:"non_compute_ns"`
	KernelTimeNs int64 `json:"kernel_time_ns"`
	// Dropped counts the device events its last-step filter left out.
	Dropped int `json:"dropped_events"`
}

// StreamIdle is one stream's idle time by cause. IdleNs = HostWaitNs + KernelWaitNs +
// OtherNs = SpanNs − BusyNs, never negative.
type StreamIdle struct {
	Rank           int64 `json:"rank"`
	Device         int   `json:"device"`
	Stream         int64 `json:"stream"`
	Events         int   `json:"events"`
	SpanNs         int64 `json:"span_ns"`
	BusyNs         int64 `json:"busy_ns"`
	IdleNs         int64 `json:"idle_ns"`
	HostWaitNs     int64 `json:"host_wait_ns"`
	KernelWaitNs   int64 `json:"kernel_wait_ns"`
	OtherNs        int64 `json:"other_ns"`
	HostWaitGaps   int   `json:"host_wait_gaps"`
	KernelWaitGaps int   `json:"kernel_wait_gaps"`
	OtherGaps      int   `json:"other_gaps"`
	// HTA is HolisticTraceAnalysis's get_idle_time_breakdown for the stream: gaps to the
	// previous event in start order, negative where events overlap.
	HTA HTAIdle `json:"hta"`
}

// HTAIdle is HolisticTraceAnalysis's idle time of a stream by category (may be negative).
type HTAIdle struct {
	HostWaitNs   int64 `json:"host_wait_ns"`
	KernelWaitNs int64 `json:"kernel_wait_ns"`
	OtherNs      int64 `json:"other_ns"`
}

// Overlap is how much of a rank's communication ran under computation.
type Overlap struct {
	Rank            int64 `json:"rank"`
	CommunicationNs int64 `json:"communication_ns"`
	ComputeNs       int64 `json:"compute_ns"`
	OverlapNs       int64 `json:"overlap_ns"`
	ExposedNs       int64 `json:"exposed_ns"`
	// Collectives is the communication per kernel name, the most exposed first.
	Collectives []CollectiveExposure `json:"collectives"`
}

// Ratio is OverlapNs / CommunicationNs, and false when the rank has no communication.
func (o *Overlap) Ratio() (float64, bool) {
	if o.CommunicationNs == 0 {
		return 0, false
	}
	return float64(o.OverlapNs) / float64(o.CommunicationNs), true
}

// CollectiveExposure is the communication kernels of one name: their summed durations and the
// part of each not under computation, summed.
type CollectiveExposure struct {
	Name      string `json:"name"`
	Count     int    `json:"count"`
	TotalNs   int64  `json:"total_ns"`
	ExposedNs int64  `json:"exposed_ns"`
}

// Stat is the count, sum, minimum and maximum of a duration, and its 50th, 90th and 99th
// percentiles read from its histogram (Hist: within 0.54 % of the exact ones).
type Stat struct {
	Count int   `json:"count"`
	SumNs int64 `json:"sum_ns"`
	MinNs int64 `json:"min_ns"`
	MaxNs int64 `json:"max_ns"`
	P50Ns int64 `json:"p50_ns"`
	P90Ns int64 `json:"p90_ns"`
	P99Ns int64 `json:"p99_ns"`
	Hist  Hist  `json:"hist,omitempty"`
}

func (s *Stat) add(v int64) {
	if s.Count == 0 || v < s.MinNs {
		s.MinNs = v
	}
	if s.Count == 0 || v > s.MaxNs {
		s.MaxNs = v
	}
	s.Count++
	s.SumNs += v
}

// setPercentiles sets the percentiles from Hist.
func (s *Stat) setPercentiles() {
	n := int64(s.Count)
	s.P50Ns, s.P90Ns, s.P99Ns = s.Hist.percentile(50, n, s.MinNs, s.MaxNs), s.Hist.percentile(90, n, s.MinNs, s.MaxNs),
		s.Hist.percentile(99, n, s.MinNs, s.MaxNs)
}

// merge adds o's durations to s.
func (s *Stat) merge(o *Stat) {
	if o.Count == 0 {
		return
	}
	if s.Count == 0 || o.MinNs < s.MinNs {
		s.MinNs = o.MinNs
	}
	if s.Count == 0 || o.MaxNs > s.MaxNs {
		s.MaxNs = o.MaxNs
	}
	s.Count += o.Count
	s.SumNs += o.SumNs
	s.Hist = s.Hist.merge(o.Hist)
	s.setPercentiles()
}

// MeanNs is SumNs / Count (0 when empty).
func (s Stat) MeanNs() float64 {
	if s.Count == 0 {
		return 0
	}
	return float64(s.SumNs) / float64(s.Count)
}

// Launches are a rank's launch statistics: one entry per device work event whose launch was
// found (a launch enqueuing several events counts once per event).
type Launches struct {
	Rank int64 `json:"rank"`
	// CPU is the launch call's duration; Device the work's; Delay from the call's end to the
	// work's start (negative when the work started before the call returned).
	CPU    Stat `json:"cpu"`
	Device Stat `json:"device"`
	Delay  Stat `json:"delay"`
	// HTADelaySumNs is the sum of HolisticTraceAnalysis's launch_delay over the HTADelayCount
	// launches it reads: clipped at 0, times in whole µs (start up, end down), kernels, copies
	// and fills only, after its last-step filter.
	HTADelaySumNs int64 `json:"hta_delay_sum_ns"`
	HTADelayCount int   `json:"hta_delay_count"`
	// ShortKernels counts the work shorter than Options.ShortKernelNs; SlowerLaunches the
	// launches whose call took longer than their work ran (the launch-bound sign).
	ShortKernels   int `json:"short_kernels"`
	SlowerLaunches int `json:"launches_slower_than_kernel"`
	// Unlaunched counts the work events with no launch in the trace.
	Unlaunched int `json:"unlaunched"`
}

// merge adds the launches of another rank to l (the job's figures).
func (l *Launches) merge(o *Launches) {
	l.CPU.merge(&o.CPU)
	l.Device.merge(&o.Device)
	l.Delay.merge(&o.Delay)
	l.HTADelaySumNs += o.HTADelaySumNs
	l.HTADelayCount += o.HTADelayCount
	l.ShortKernels += o.ShortKernels
	l.SlowerLaunches += o.SlowerLaunches
	l.Unlaunched += o.Unlaunched
}

// StreamQueue is one stream's queue: launches outstanding (launched, not finished) over time,
// from its first launch to its last launched work's end.
type StreamQueue struct {
	Rank     int64 `json:"rank"`
	Device   int   `json:"device"`
	Stream   int64 `json:"stream"`
	Launches int   `json:"launches"`
	SpanNs   int64 `json:"span_ns"`
	Max      int   `json:"max"`
	// AreaNs is the integral of the queue length over time; the time-weighted mean is
	// AreaNs / SpanNs.
	AreaNs int64 `json:"area_ns"`
	// AtOrAboveNs is the time spent with at least Options.QueueLength launches outstanding.
	AtOrAboveNs int64 `json:"at_or_above_ns"`
	// HTAMax and HTAMean are HolisticTraceAnalysis's figures: launches not yet started, the
	// mean over change points (not weighted by time).
	HTAMax  int     `json:"hta_max"`
	HTAMean float64 `json:"hta_mean"`
	// Series is the queue length over time, Delay the launch delays of the stream's work: the
	// Device view's plots (plots.go).
	Series *QueueSeries `json:"series,omitempty"`
	Delay  *StreamDelay `json:"delay,omitempty"`
}

// Mean is the time-weighted mean queue length.
func (q *StreamQueue) Mean() float64 {
	if q.SpanNs == 0 {
		return 0
	}
	return float64(q.AreaNs) / float64(q.SpanNs)
}

// RankSteps are one rank's steps in time order.
type RankSteps struct {
	Rank  int64  `json:"rank"`
	Steps []Step `json:"steps"`
}

// Step is one ProfilerStep#N of a rank: its host range, its device window and the breakdown
// of that window.
type Step struct {
	Step        int64 `json:"step"`
	HostStartNs int64 `json:"host_start_ns"`
	HostEndNs   int64 `json:"host_end_ns"`
	StartNs     int64 `json:"start_ns"`
	EndNs       int64 `json:"end_ns"`
	Times       Times `json:"times"`
	// Kernels is the step's device work by kernel category (kernels.Categories' order, the
	// categories it has); DataLoaderNs the time data loader ranges ran in its window
	// (plots.go).
	Kernels      []CategoryTime `json:"kernels,omitempty"`
	DataLoaderNs int64          `json:"data_loader_ns,omitempty"`
}

// SlowestStep names the longest step window of any rank.
type SlowestStep struct {
	Rank       int64 `json:"rank"`
	Step       int64 `json:"step"`
	DurationNs int64 `json:"duration_ns"`
}

// Stragglers are the collectives matched across ranks and who kept the others waiting.
type Stragglers struct {
	// Collectives are each rank's communication kernels in start order: what the matching
	// works from, kept so that summaries merge.
	Collectives []RankCollectives `json:"collectives"`
	// Matched counts the collective instances found on at least two ranks; ByRule splits them
	// by the rule that matched them (Rules, in that order).
	Matched int         `json:"matched"`
	ByRule  []RuleCount `json:"by_rule"`
	// Unmatched counts the instances found on one rank only; Missing the times a rank that
	// takes part in an instance (a member of its process group, the two sides of a
	// point-to-point call, every rank with such kernels under order matching) has none of it.
	Unmatched int `json:"unmatched"`
	Missing   int `json:"missing"`
	// Ranks says, per rank, how often it arrived last and the waiting it caused.
	Ranks []StragglerRank `json:"ranks"`
	// Worst are the instances that made the ranks wait longest (at most MaxWorst).
	Worst []Instance `json:"worst"`
	// ByCollective are the figures per call and process group (CollectiveStat), the most
	// device time first: at most MaxByCollective, ByCollectiveOmitted the rows left out.
	ByCollective        []CollectiveStat `json:"by_collective"`
	ByCollectiveOmitted int              `json:"by_collective_omitted"`
}

// The rules that match a collective instance across ranks, tried in this order for each
// kernel (package doc, Stragglers).
const (
	// RuleCommsID: the same process group and "Comms Id" (PyTorch's hash of the group, Seq and
	// communicator; the k-th kernel of that call with the k-th), for collectives.
	RuleCommsID = "comms-id"
	// RuleGroupSeq: the same process group and sequence number (and, for a call of several
	// kernels, the same kernel of it).
	RuleGroupSeq = "group+seq"
	// RuleP2P: a send and its recv: the same group, sender and receiver, the k-th of that
	// direction on both sides.
	RuleP2P = "p2p"
	// RuleGroupOrder: the same process group and call, the k-th of them on each rank (traces
	// that name the group but have no sequence number).
	RuleGroupOrder = "group+order"
	// RuleOrder: the same kernel name, the k-th of it on each rank (traces that say nothing
	// of the call).
	RuleOrder = "order"
)

// Rules are the matching rules in the order they are tried.
var Rules = []string{RuleCommsID, RuleGroupSeq, RuleP2P, RuleGroupOrder, RuleOrder}

// RuleCount is how many instances one rule matched.
type RuleCount struct {
	Rule    string `json:"rule"`
	Matched int    `json:"matched"`
}

// MaxWorst is how many instances Stragglers.Worst lists.
const MaxWorst = 20

// RankCollectives are a rank's collectives.
type RankCollectives struct {
	Rank  int64        `json:"rank"`
	Items []Collective `json:"items"`
}

// Collective is one communication kernel and what the trace says of its call (CommID; the
// members are omitted when it says nothing).
type Collective struct {
	Name    string `json:"name"`
	StartNs int64  `json:"start_ns"`
	EndNs   int64  `json:"end_ns"`
	Op      string `json:"op,omitempty"`
	Group   string `json:"group,omitempty"`
	Ranks   string `json:"group_ranks,omitempty"`
	Seq     int64  `json:"seq,omitempty"`
	HasSeq  bool   `json:"has_seq,omitempty"`
	P2P     string `json:"p2p,omitempty"`
	Peer    int64  `json:"peer,omitempty"`
	// CommsID is the call's "Comms Id"; Bytes its size (collective.Call.Bytes; 0: unknown);
	// GroupSize the group's size (0: unknown).
	CommsID   string `json:"comms_id,omitempty"`
	Bytes     int64  `json:"bytes,omitempty"`
	GroupSize int64  `json:"group_size,omitempty"`
}

// StragglerRank is one rank's part in the matched collectives.
type StragglerRank struct {
	Rank      int64 `json:"rank"`
	Instances int   `json:"instances"`
	// ArrivedLast counts the instances it started last (by a margin: ties with nobody waiting
	// count for no one); WaitCausedNs sums, over those, how long every other rank waited.
	ArrivedLast  int   `json:"arrived_last"`
	WaitCausedNs int64 `json:"wait_caused_ns"`
	// WaitedNs is how long it waited for the last rank, summed over its instances.
	WaitedNs int64 `json:"waited_ns"`
	// Missing counts the instances it takes part in and has none of (Stragglers.Missing).
	Missing int `json:"missing"`
}

// Instance is one collective matched across ranks.
type Instance struct {
	// Name is the kernel's name (on the first rank that has it); Op the call, Group its
	// process group and Seq its sequence number when the rule is RuleGroupSeq.
	Name  string `json:"name"`
	Op    string `json:"op,omitempty"`
	Group string `json:"group,omitempty"`
	Seq   int64  `json:"seq,omitempty"`
	// CommsID is the call's "Comms Id" when the rule is RuleCommsID (Seq then its Seq).
	CommsID string `json:"comms_id,omitempty"`
	// Rule is the rule that matched it; Ordinal its k (from 0) under that rule.
	Rule    string `json:"rule"`
	Ordinal int    `json:"ordinal"`
	Ranks   int    `json:"ranks"`
	// LastRank started it last, SpreadNs after the first; WaitNs sums every rank's wait.
	LastRank int64 `json:"last_rank"`
	SpreadNs int64 `json:"spread_ns"`
	WaitNs   int64 `json:"wait_ns"`
	// Arrivals say when each rank started it, after the first (in the order of
	// Stragglers.Collectives); filled for the Worst instances only.
	Arrivals []Arrival `json:"arrivals,omitempty"`
}

// Arrival is when one rank started a collective instance: AfterNs after the first rank did.
type Arrival struct {
	Rank    int64 `json:"rank"`
	AfterNs int64 `json:"after_ns"`
}

// Merge adds the ranks of o to s and derives the cross-rank figures again. Both must have been
// made with the same options.
func (s *Summary) Merge(o *Summary) error { return s.MergeAll(o) }

// MergeAll adds the ranks of each of os to s, in order, and derives the cross-rank figures
// once: merging n ranks one at a time with Merge derives them n times over a growing job
// (quadratic in the ranks for the stragglers' matching), MergeAll once. A rank whose trace
// names none is numbered by its position among all the ranks, s's first (internal/ranknum: the
// rule of every merge), in every per-rank figure; a trace's own rank keeps its number. All must
// have been made with the same options; on an error s is unchanged.
func (s *Summary) MergeAll(os ...*Summary) error {
	nums := make([]map[int64]int64, len(os)+1)
	var err error
	if nums[0], err = ranknum.Map(rankNumbers(s.Ranks), 0); err != nil {
		return &MergeError{Index: -1, Err: err}
	}
	at := len(s.Ranks)
	for i, o := range os {
		if err := s.mergeable(o); err != nil {
			if len(os) > 1 {
				return &MergeError{Index: i, Err: err}
			}
			return err
		}
		if nums[i+1], err = ranknum.Map(rankNumbers(o.Ranks), at); err != nil {
			return &MergeError{Index: i, Err: err}
		}
		at += len(o.Ranks)
	}
	mine := s.marks()
	for i, o := range os {
		from := s.marks()
		s.Ranks = append(s.Ranks, o.Ranks...)
		s.Breakdown = append(s.Breakdown, o.Breakdown...)
		s.Idle = append(s.Idle, o.Idle...)
		s.Overlap = append(s.Overlap, o.Overlap...)
		s.Launches = append(s.Launches, o.Launches...)
		s.Queue = append(s.Queue, o.Queue...)
		s.Steps = append(s.Steps, o.Steps...)
		s.Stragglers.Collectives = append(s.Stragglers.Collectives, o.Stragglers.Collectives...)
		s.renumber(nums[i+1], from, s.marks())
	}
	s.renumber(nums[0], marks{}, mine)
	for _, o := range os {
		s.Held = heldViews(s.Held, o.Held)
	}
	s.derive()
	return nil
}

// MergeError is MergeAll's error about the summary at Index of its arguments (−1: the summary
// merged into).
type MergeError struct {
	Index int
	Err   error
}

func (e *MergeError) Error() string { return e.Err.Error() }
func (e *MergeError) Unwrap() error { return e.Err }

// mergeable reports why o cannot merge into s, or nil.
func (s *Summary) mergeable(o *Summary) error {
	if s.Version != o.Version {
		return fmt.Errorf("timeline summary version %d cannot merge with version %d", o.Version, s.Version)
	}
	if !s.Options.sameThresholds(o.Options) {
		return fmt.Errorf("a timeline summary made with %s cannot merge with one made with %s",
			strings.Join(o.Options.flags(s.Options), ", "), strings.Join(s.Options.flags(o.Options), ", "))
	}
	return nil
}

// derive works out the cross-rank figures from the per-rank ones.
func (s *Summary) derive() {
	s.JobLaunches = nil
	if len(s.Launches) > 1 {
		j := Launches{Rank: -1}
		for i := range s.Launches {
			j.merge(&s.Launches[i])
		}
		s.JobLaunches = &j
	}
	s.SlowestStep = nil
	for _, rs := range s.Steps {
		for _, st := range rs.Steps {
			if d := st.EndNs - st.StartNs; s.SlowestStep == nil || d > s.SlowestStep.DurationNs {
				s.SlowestStep = &SlowestStep{Rank: rs.Rank, Step: st.Step, DurationNs: d}
			}
		}
	}
	s.StepRanks = stepRanks(s.Steps)
	s.Stragglers.derive()
	s.Findings = findings(s)
}
