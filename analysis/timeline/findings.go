package timeline

import (
	"cmp"
	"fmt"
	"slices"
)

// The thresholds at which a figure becomes a finding.
const (
	findIdle        = 0.20 // idle share of a rank's window
	findLaunchBound = 0.50 // share of launches slower than their kernels, or of short kernels
	findExposedComm = 0.10 // exposed communication's share of a rank's window
	findStraggler   = 0.50 // share of the matched collectives a rank arrived last in
	findSlowStep    = 1.25 // the slowest step against the median step
)

// findings derives the findings from the per-rank figures of s: per rank in rank order, then
// the job's.
func findings(s *Summary) []Finding {
	out := []Finding{}
	hostWait := map[int64][2]int64{} // rank → host wait, all idle (over its streams)
	for _, si := range s.Idle {
		h := hostWait[si.Rank]
		hostWait[si.Rank] = [2]int64{h[0] + si.HostWaitNs, h[1] + si.IdleNs}
	}
	for _, b := range s.Breakdown {
		if b.TotalNs == 0 {
			continue
		}
		if idle := float64(b.IdleNs) / float64(b.TotalNs); idle >= findIdle {
			t := fmt.Sprintf("device idle %.1f%% of the time", 100*idle)
			if h := hostWait[b.Rank]; h[1] > 0 {
				t += fmt.Sprintf("; %.1f%% of its streams' idle time was waiting for the host to launch", 100*float64(h[0])/float64(h[1]))
			}
			out = append(out, Finding{View: "breakdown", Rank: b.Rank, Share: idle, Text: t})
		}
		if x := float64(b.ExposedCommunicationNs) / float64(b.TotalNs); x >= findExposedComm {
			out = append(out, Finding{View: "overlap", Rank: b.Rank, Share: x,
				Text: fmt.Sprintf("communication not overlapped by computation: %.1f%% of the time (%.1f%% of the communication)",
					100*x, 100*float64(b.ExposedCommunicationNs)/float64(b.CommunicationNs))})
		}
	}
	for _, l := range s.Launches {
		if l.CPU.Count < 10 {
			continue
		}
		slow := float64(l.SlowerLaunches) / float64(l.CPU.Count)
		short := float64(l.ShortKernels) / float64(l.CPU.Count)
		if slow >= findLaunchBound || short >= findLaunchBound {
			out = append(out, Finding{View: "launches", Rank: l.Rank, Share: max(slow, short),
				Text: fmt.Sprintf("launch-bound: %.1f%% of launches took longer on the host than their work on the device, %.1f%% of kernels ran under %s µs; fewer, larger kernels (fusion, CUDA graphs) help",
					100*slow, 100*short, fmtUs(s.Options.ShortKernelNs))})
		}
	}
	var durs []int64
	for _, rs := range s.Steps {
		for _, st := range rs.Steps {
			durs = append(durs, st.EndNs-st.StartNs)
		}
	}
	if len(durs) >= 3 && s.SlowestStep != nil {
		slices.Sort(durs)
		if med := durs[len(durs)/2]; med > 0 {
			if r := float64(s.SlowestStep.DurationNs) / float64(med); r >= findSlowStep {
				out = append(out, Finding{View: "steps", Rank: s.SlowestStep.Rank, Share: 1 - 1/r,
					Text: fmt.Sprintf("step %d on rank %d is the slowest: %s µs, %.2f× the median step",
						s.SlowestStep.Step, s.SlowestStep.Rank, fmtUs(s.SlowestStep.DurationNs), r)})
			}
		}
	}
	out = append(out, gpuFindings(s)...)
	st := s.Stragglers
	if st.Matched >= 4 {
		ranks := slices.Clone(st.Ranks)
		slices.SortStableFunc(ranks, func(a, b StragglerRank) int { return cmp.Compare(b.ArrivedLast, a.ArrivedLast) })
		if r := ranks[0]; r.Instances > 0 {
			if x := float64(r.ArrivedLast) / float64(r.Instances); x >= findStraggler {
				out = append(out, Finding{View: "stragglers", Rank: r.Rank, Share: x,
					Text: fmt.Sprintf("rank %d arrived last in %.1f%% of %d collectives, keeping the others waiting %s µs in all",
						r.Rank, 100*x, r.Instances, fmtUs(r.WaitCausedNs))})
			}
		}
	}
	return out
}
