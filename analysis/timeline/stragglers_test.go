package timeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/orprof/orprof/internal/collective"
	"github.com/orprof/orprof/text"
)

// pgseqTraces are four ranks of one job (testdata/pgseq, hand-written; README there): the
// default group "0" of ranks 0–3, sub-groups "5" (ranks 0, 2) and "6" (ranks 1, 3), each
// collective's record_param_comms op carrying its group and Seq (on ranks 0 and 1 Kineto
// copied them onto the kernel too). Rank 0's profile starts after group 0's call 1; rank 3's
// ends before call 3; rank 0 sends to rank 1 (a send and its recv). Every allreduce kernel
// has the same name, so matching by name and order pairs rank 0's call 2 with the others'
// call 1 and the two sub-groups' calls with each other.
var pgseqTraces = []string{"testdata/pgseq/rank0.json", "testdata/pgseq/rank1.json", "testdata/pgseq/rank2.json",
	"testdata/pgseq/rank3.json"}

func TestStragglersByGroupAndSeq(t *testing.T) {
	s, _, err := Load(pgseqTraces, DefaultOptions(), ReadOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	st := s.Stragglers
	// Group 0: call 1 on ranks 1, 2, 3 (100, 100, 130 µs), call 2 on all (200, 210, 205, 260),
	// call 3 on ranks 0, 1, 2 (300, 300, 340); group 5: 400, 450 (ranks 0, 2); group 6: 420,
	// 400 (ranks 1, 3); the send at 500 and its recv at 530.
	if st.Matched != 6 || st.Unmatched != 0 || st.Missing != 2 {
		t.Errorf("matched %d, unmatched %d, missing %d; want 6, 0, 2", st.Matched, st.Unmatched, st.Missing)
	}
	wantRules := []RuleCount{{RuleCommsID, 0}, {RuleGroupSeq, 5}, {RuleP2P, 1}, {RuleGroupOrder, 0}, {RuleOrder, 0}}
	if !reflect.DeepEqual(st.ByRule, wantRules) {
		t.Errorf("by rule %+v, want %+v", st.ByRule, wantRules)
	}
	want := []StragglerRank{
		{Rank: 0, Instances: 4, WaitedNs: (60 + 40 + 50 + 30) * us, Missing: 1},
		{Rank: 1, Instances: 5, ArrivedLast: 2, WaitCausedNs: (20 + 30) * us, WaitedNs: (30 + 50 + 40) * us},
		{Rank: 2, Instances: 4, ArrivedLast: 2, WaitCausedNs: (80 + 50) * us, WaitedNs: (30 + 55) * us},
		{Rank: 3, Instances: 3, ArrivedLast: 2, WaitCausedNs: (60 + 165) * us, WaitedNs: 20 * us, Missing: 1},
	}
	if !reflect.DeepEqual(st.Ranks, want) {
		t.Errorf("ranks\n got  %+v\n want %+v", st.Ranks, want)
	}
	w := st.Worst[0]
	if w.Rule != RuleGroupSeq || w.Group != "0" || w.Seq != 2 || w.Op != "allreduce" || w.LastRank != 3 ||
		w.WaitNs != 165*us || w.Ranks != 4 {
		t.Errorf("worst %+v", w)
	}
	var p2p *Instance
	for i := range st.Worst {
		if st.Worst[i].Rule == RuleP2P {
			p2p = &st.Worst[i]
		}
	}
	if p2p == nil || p2p.LastRank != 1 || p2p.SpreadNs != 30*us || p2p.Name != "ncclDevKernel_SendRecv" {
		t.Errorf("send/recv %+v", p2p)
	}

	// The same kernels without what the traces say of their calls: matched by name and order,
	// rank 0's call 2 goes with the others' call 1, rank 3 is blamed for what rank 2 did, and
	// the sub-groups' calls are compared with each other.
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
	if b.ByRule[4].Matched != 5 || b.Matched != 5 {
		t.Errorf("order matching: %+v", b.ByRule)
	}
	// By order, rank 0 arrives first at "instance 0" (200 against 100): it waits for no one
	// and every other rank waits for it, the opposite of what happened.
	if b.Ranks[0].ArrivedLast == 0 || b.Ranks[0].WaitCausedNs == 0 {
		t.Errorf("order matching was expected to blame rank 0: %+v", b.Ranks[0])
	}
	if reflect.DeepEqual(b.Ranks, st.Ranks) {
		t.Errorf("order matching gave the group+seq figures")
	}
}

// TestStragglersMergeExactPGSeq: summaries of the ranks written as JSON and read back merge
// to the bytes of reading the four traces at once.
func TestStragglersMergeExactPGSeq(t *testing.T) {
	all, _, err := Load(pgseqTraces, DefaultOptions(), ReadOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var paths []string
	for i, p := range pgseqTraces {
		s, _, err := OpenTrace(p, DefaultOptions(), i)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, text.JSON, s, Views); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, filepath.Base(p))
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, out)
	}
	// Merge in two steps, as a tree of merges would.
	half, _, err := Load(paths[:2], DefaultOptions(), ReadOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var hb bytes.Buffer
	if err := Write(&hb, text.JSON, half, Views); err != nil {
		t.Fatal(err)
	}
	hp := filepath.Join(dir, "half.json")
	if err := os.WriteFile(hp, hb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	merged, _, err := Load(append([]string{hp}, paths[2:]...), DefaultOptions(), ReadOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []text.Format{text.JSON, text.Text, text.CSV, text.Markdown} {
		var x, y bytes.Buffer
		if err := Write(&x, f, all, Views); err != nil {
			t.Fatal(err)
		}
		if err := Write(&y, f, merged, Views); err != nil {
			t.Fatal(err)
		}
		if x.String() != y.String() {
			t.Errorf("%s: merged summaries differ from reading the traces at once", f)
		}
	}
}

func TestKeyOfAndRanks(t *testing.T) {
	for _, tc := range []struct {
		c    Collective
		rank int64
		want matchKey
	}{
		{Collective{Name: "k", Group: "0", Seq: 4, HasSeq: true}, 1, matchKey{rule: ruleGroupSeq, group: "0", a: 4}},
		{Collective{Name: "k", Group: "0", Seq: 0, HasSeq: true}, 1, matchKey{rule: ruleGroupSeq, group: "0", a: 0}},
		{Collective{Name: "k", Group: "0", P2P: "send", Peer: 3, Seq: 9, HasSeq: true}, 1, matchKey{rule: ruleP2P, group: "0", a: 1, b: 3}},
		{Collective{Name: "k", Group: "0", P2P: "recv", Peer: 1}, 3, matchKey{rule: ruleP2P, group: "0", a: 1, b: 3}},
		{Collective{Name: "k", Group: "0", P2P: "recv", Peer: -1}, 3, matchKey{rule: ruleGroupOrder, group: "0", name: "recv"}},
		{Collective{Name: "k", Op: "allgather", Group: "2"}, 3, matchKey{rule: ruleGroupOrder, group: "2", name: "allgather"}},
		{Collective{Name: "k", Group: "2"}, 3, matchKey{rule: ruleGroupOrder, group: "2", name: "k"}},
		{Collective{Name: "k", Seq: 5, HasSeq: true}, 3, matchKey{rule: ruleOrder, name: "k"}},
	} {
		if got := keyOf(&tc.c, tc.rank); got != tc.want {
			t.Errorf("keyOf(%+v, %d) = %+v, want %+v", tc.c, tc.rank, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s    string
		want []int64
		ok   bool
	}{{"[0, 2]", []int64{0, 2}, true}, {"[]", nil, true}, {" [7] ", []int64{7}, true},
		{"[0, 1, ...]", nil, false}, {"0, 1", nil, false}, {"", nil, false}, {"[a]", nil, false}} {
		got, ok := collective.ParseRanks(tc.s)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseRanks(%q) = %v, %v", tc.s, got, ok)
		}
	}
}

// TestStragglersSubGroupWithoutRanks: a group whose ranks the trace cuts short takes the ranks
// that have kernels in it as its members; a rank of the job outside every sub-group is never
// counted missing from it.
func TestStragglersSubGroupWithoutRanks(t *testing.T) {
	c := func(start int64, seq int64) Collective {
		return Collective{Name: "nccl", Group: "9", Ranks: "[0, 1, ...]", Seq: seq, HasSeq: true, StartNs: start * us}
	}
	st := Stragglers{Collectives: []RankCollectives{
		{Rank: 0, Items: []Collective{c(10, 1), c(20, 2)}},
		{Rank: 1, Items: []Collective{c(12, 1)}},
		{Rank: 2, Items: []Collective{{Name: "nccl", StartNs: 5 * us}}},
	}}
	st.derive()
	if st.Matched != 1 || st.Unmatched != 2 || st.Missing != 1 || st.Ranks[1].Missing != 1 || st.Ranks[2].Missing != 0 {
		t.Errorf("%+v", st)
	}
}

// TestMergeAllIsMergeOneByOne: MergeAll gives the bytes of merging one summary at a time, and
// names the summary that cannot merge.
func TestMergeAllIsMergeOneByOne(t *testing.T) {
	a, b := rankSummaries(9, 30), rankSummaries(9, 30)
	for _, s := range a[1:] {
		if err := a[0].Merge(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := b[0].MergeAll(b[1:]...); err != nil {
		t.Fatal(err)
	}
	var x, y bytes.Buffer
	if err := Write(&x, text.JSON, a[0], Views); err != nil {
		t.Fatal(err)
	}
	if err := Write(&y, text.JSON, b[0], Views); err != nil {
		t.Fatal(err)
	}
	if x.String() != y.String() {
		t.Errorf("MergeAll differs from Merge one at a time")
	}
	if b[0].Stragglers.Matched != 30 || b[0].Stragglers.ByRule[1].Matched != 30 {
		t.Errorf("stragglers %+v", b[0].Stragglers.ByRule)
	}
	c := rankSummaries(3, 2)
	c[2].Options.QueueLength = 99
	var me *MergeError
	if err := c[0].MergeAll(c[1:]...); !errors.As(err, &me) || me.Index != 1 || len(c[0].Ranks) != 1 {
		t.Errorf("MergeAll of a summary of other thresholds: %v, ranks %d", err, len(c[0].Ranks))
	}
}
