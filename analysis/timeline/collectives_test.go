package timeline

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/orprof/orprof/text"
	"github.com/orprof/orprof/trace"
)

// commsIDTraces are two ranks written from what PyTorch and Kineto record in 2026
// (testdata/commsid/README.md): rank 1's profile starts one all-reduce after rank 0's and
// ends one after it; every call carries its group, Seq and "Comms Id".
var commsIDTraces = []string{"testdata/commsid/rank0.json", "testdata/commsid/rank1.json"}

// TestStragglersByCommsID: the all-reduces are matched by their Comms Id, so rank 0's Seq 7
// and rank 1's Seq 10 stand alone; matching by order pairs Seq 7 with Seq 8 and blames rank 1
// for waits of 9.5 ms and more. The Comms Ids pass int64 and share one float64: they are
// kept exactly as written.
func TestStragglersByCommsID(t *testing.T) {
	s, _, err := Load(commsIDTraces, DefaultOptions(), ReadOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	st := s.Stragglers
	if st.Matched != 3 || st.Unmatched != 2 || st.Missing != 2 || st.ByRule[0] != (RuleCount{RuleCommsID, 3}) {
		t.Errorf("matched %d (%+v), unmatched %d, missing %d; want 3 by comms-id, 2, 2", st.Matched, st.ByRule, st.Unmatched, st.Missing)
	}
	want := []StragglerRank{
		{Rank: 0, Instances: 3, WaitedNs: (400 + 500 + 800) * us, Missing: 1},
		{Rank: 1, Instances: 3, ArrivedLast: 3, WaitCausedNs: (400 + 500 + 800) * us, Missing: 1},
	}
	if !reflect.DeepEqual(st.Ranks, want) {
		t.Errorf("ranks\n got  %+v\n want %+v", st.Ranks, want)
	}
	if w := st.Worst[0]; w.Rule != RuleCommsID || w.CommsID != "17893920472113153371" || w.Seq != 9 || w.SpreadNs != 800*us {
		t.Errorf("worst %+v", w)
	}
	var ids []string
	for _, c := range st.Collectives[0].Items {
		ids = append(ids, c.CommsID)
	}
	if wantIDs := []string{"17893920472113154049", "5012874416394002231", "17893920472113154817", "17893920472113153371"}; !reflect.DeepEqual(ids, wantIDs) {
		t.Errorf("rank 0's Comms Ids %q, want %q", ids, wantIDs)
	}

	// Per call and group, checked against figures worked out by hand. All-reduce: 64 Mi floats
	// (268435456 bytes) a call; the two matched calls transfer 2 ms on each rank after the last
	// arrival: algbw 268435456 B / 2 ms = 134.217728 GB/s, busbw × 2(2−1)/2 = the same.
	// All-gather: 32 Mi bfloat16 out (67108864 bytes), 0.6 ms after the last arrival: algbw
	// 111.848106… GB/s, busbw × (2−1)/2 = 55.924053….
	if len(st.ByCollective) != 2 || st.ByCollectiveOmitted != 0 {
		t.Fatalf("by collective %+v", st.ByCollective)
	}
	ar, ag := st.ByCollective[0], st.ByCollective[1]
	wantAR := CollectiveStat{Op: "allreduce", Kind: "allreduce", Group: "0", GroupSize: 2, Ranks: 2, Calls: 6, Instances: 2,
		DurationNs: (2000 + 2500 + 2800 + 3*2000) * us, SizedCalls: 6, Bytes: 6 * 268435456, BytesPerCall: 268435456,
		MinBytes: 268435456, MaxBytes: 268435456, WaitNs: 1300 * us, TransferNs: 8000 * us, HasBusBW: true, BWFrom: "transfer",
		LastRank: 1, LastRankTimes: 2}
	checkBW(t, &ar, 134.217728, 134.217728)
	if ar != wantAR {
		t.Errorf("allreduce\n got  %+v\n want %+v", ar, wantAR)
	}
	wantAG := CollectiveStat{Op: "_allgather_base", Kind: "allgather", Group: "1", GroupSize: 2, Ranks: 2, Calls: 2, Instances: 1,
		DurationNs: 1600 * us, SizedCalls: 2, Bytes: 2 * 67108864, BytesPerCall: 67108864, MinBytes: 67108864, MaxBytes: 67108864,
		WaitNs: 400 * us, TransferNs: 1200 * us, HasBusBW: true, BWFrom: "transfer", LastRank: 1, LastRankTimes: 1}
	checkBW(t, &ag, 67108864/600e-6/1e9, 67108864/600e-6/1e9/2)
	if ag != wantAG {
		t.Errorf("allgather\n got  %+v\n want %+v", ag, wantAG)
	}

	// The same kernels matched by name and order alone.
	blind := *s
	blind.Stragglers.Collectives = nil
	for _, rc := range s.Stragglers.Collectives {
		items := make([]Collective, len(rc.Items))
		for i, c := range rc.Items {
			items[i] = Collective{Name: c.Name, StartNs: c.StartNs, EndNs: c.EndNs}
		}
		blind.Stragglers.Collectives = append(blind.Stragglers.Collectives, RankCollectives{Rank: rc.Rank, Items: items})
	}
	blind.Stragglers.derive()
	b := blind.Stragglers
	if b.ByRule[4].Matched != 4 || b.Unmatched != 0 || b.Worst[0].SpreadNs < 9500*us || b.Ranks[1].WaitCausedNs < 30000*us {
		t.Errorf("order matching: %+v, worst %+v, ranks %+v", b.ByRule, b.Worst[0], b.Ranks)
	}
}

// checkBW checks c's bandwidths against hand-computed GB/s and zeroes them (so that the rest
// compares exactly).
func checkBW(t *testing.T, c *CollectiveStat, alg, bus float64) {
	t.Helper()
	if math.Abs(c.AlgBW-alg) > 1e-6 || math.Abs(c.BusBW-bus) > 1e-6 {
		t.Errorf("%s: algbw %.9f busbw %.9f GB/s, want %.9f %.9f", c.Op, c.AlgBW, c.BusBW, alg, bus)
	}
	c.AlgBW, c.BusBW = 0, 0
}

// fleetSummaries are n one-rank summaries of a job of 5 steps, each step an all-reduce of 1
// MiB per rank (Comms Id and Seq k) after 7 ms of work; the slow ranks arrive 4 ms late and
// work 6 ms more after it, so their steps are longer.
func fleetSummaries(n int, slow ...int64) []*Summary {
	out := make([]*Summary, n)
	for r := range out {
		late := int64(0)
		for _, s := range slow {
			if s == int64(r) {
				late = 4000 + s // distinct, so that one is last
			}
		}
		a := NewAnalyzer(DefaultOptions())
		p := a.Part()
		for k := int64(0); k < 5; k++ {
			t0 := k * 20_000 * us
			id := &CommID{Op: "allreduce", Group: "0", Seq: k, HasSeq: true, Peer: -1, CommsID: strconv.FormatInt(900+k, 10),
				Bytes: 1 << 20, GroupSize: int64(n)}
			hostEnd := t0 + 10_000*us
			if late > 0 {
				hostEnd = t0 + 18_000*us
			}
			p.Add(&Event{Kind: Op, Name: "ProfilerStep#" + strconv.FormatInt(k, 10), StartNs: t0, EndNs: hostEnd})
			p.Add(&Event{Kind: Launch, Correlation: k + 1, StartNs: t0 + 1000*us, EndNs: t0 + 1005*us})
			p.Add(&Event{Kind: Device, Name: "ncclDevKernel_AllReduce_Sum_f32", StartNs: t0 + 7000*us + int64(r%7)*us + late*us,
				EndNs: t0 + 12_600*us, Stream: 7, Correlation: k + 1, Comm: id})
		}
		out[r] = a.Finish(RankInfo{Rank: trace.Rank{Number: int64(r), Named: true}, Device: "cuda"})
	}
	return out
}

// TestThousandRanks merges 1,000 ranks' summaries: the slow ranks are the step-time outliers
// and the one that arrived last, the per-collective figures add up over every rank, and
// merging in two halves gives the same document as merging all at once.
func TestThousandRanks(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 ranks: not in -short")
	}
	const n = 1000
	all := fleetSummaries(n, 17, 503)
	s := all[0]
	if err := s.MergeAll(all[1:]...); err != nil {
		t.Fatal(err)
	}
	sr := s.StepRanks
	if sr == nil || len(sr.Ranks) != n {
		t.Fatalf("step ranks %+v", sr)
	}
	if len(sr.Outliers) != 2 || sr.Outliers[0].Rank != 17 || sr.Outliers[1].Rank != 503 || sr.MedianNs != 12_600*us {
		t.Errorf("outliers %+v (median %d, MAD %d)", sr.Outliers, sr.MedianNs, sr.MADNs)
	}
	if sr.Ranks[n-1].Rank != 503 || sr.Ranks[n-1].MedianNs != 18_000*us {
		t.Errorf("slowest rank %+v", sr.Ranks[n-1])
	}
	st := s.Stragglers
	if st.Matched != 5 || st.ByRule[0].Matched != 5 || len(st.ByCollective) != 1 {
		t.Fatalf("matched %d %+v, by collective %d", st.Matched, st.ByRule, len(st.ByCollective))
	}
	c := st.ByCollective[0]
	// Every rank waits from its arrival to rank 503's (at 7 ms + 6 µs + 4503 µs), then
	// transfers to 12.6 ms: wait + transfer = the kernels' durations.
	if c.Calls != 5*n || c.Instances != 5 || c.Ranks != n || c.LastRank != 503 || c.LastRankTimes != 5 || c.GroupSize != n ||
		c.WaitNs+c.TransferNs != c.DurationNs || c.Bytes != 5*n<<20 {
		t.Errorf("allreduce %+v", c)
	}
	// algbw: 1 MiB over the 1.091 ms from rank 503's arrival (11.509 ms) to the end.
	alg := float64(1<<20) / 1.091e-3 / 1e9
	if math.Abs(c.AlgBW-alg) > 1e-6 || math.Abs(c.BusBW-alg*2*999/1000) > 1e-6 {
		t.Errorf("algbw %v busbw %v, want %v %v", c.AlgBW, c.BusBW, alg, alg*2*999/1000)
	}

	halves := fleetSummaries(n, 17, 503)
	x, y := halves[0], halves[n/2]
	if err := x.MergeAll(halves[1 : n/2]...); err != nil {
		t.Fatal(err)
	}
	if err := y.MergeAll(halves[n/2+1:]...); err != nil {
		t.Fatal(err)
	}
	if err := x.Merge(y); err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := Write(&a, text.JSON, s, Views); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, text.JSON, x, Views); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Error("merging in two halves differs from merging all at once")
	}
}

// TestCollectivesRealRanks reads three ranks made of one real NCCL trace (HTA's sampled rank 0,
// its distributedInfo rank rewritten, as scripts/fleet-ranks.sh does): its SendRecv kernels
// carry no c10d args, so they are matched by name and order, every rank arriving together:
// no wait, all transfer, no size and so no bandwidth; equal steps make no outlier.
func TestCollectivesRealRanks(t *testing.T) {
	raw := gunzipFile(t, filepath.Join("..", "..", "testdata", "kineto-extra", "hta_sampled_rank0.json.gz"))
	re := regexp.MustCompile(`("distributedInfo": *\{[^}]*?"rank": *)\d+`)
	dir := t.TempDir()
	var paths []string
	for k := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("rank%d.json", k))
		if err := os.WriteFile(p, re.ReplaceAll(raw, []byte("${1}"+strconv.Itoa(k))), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	s, _, err := Load(paths, DefaultOptions(), ReadOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	st := s.Stragglers
	if len(st.ByCollective) != 1 {
		t.Fatalf("by collective %+v", st.ByCollective)
	}
	c := st.ByCollective[0]
	if !strings.HasPrefix(c.Op, "ncclKernel_SendRecv") || c.Kind != "unknown" || c.Ranks != 3 || c.Calls != 30 || c.Instances != 10 ||
		c.WaitNs != 0 || c.TransferNs != c.DurationNs || c.SizedCalls != 0 || c.BWFrom != "" || c.LastRank != -1 || st.ByRule[4].Matched != 10 {
		t.Errorf("SendRecv %+v, by rule %+v", c, st.ByRule)
	}
	if sr := s.StepRanks; sr == nil || len(sr.Ranks) != 3 || len(sr.Outliers) != 0 || sr.MADNs != 0 {
		t.Errorf("step ranks %+v", sr)
	}
}

func gunzipFile(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
