package timeline

import (
	"cmp"
	"slices"

	"github.com/orprof/orprof/internal/collective"
)

// matchKey names one collective instance across ranks: the rule (an index into Rules) and
// what that rule matches on, and k, the instance's place among those of the same rest of the
// key on each rank.
type matchKey struct {
	rule  int
	group string
	name  string
	a, b  int64
	k     int
}

const (
	ruleCommsID = iota
	ruleGroupSeq
	ruleP2P
	ruleGroupOrder
	ruleOrder
)

// keyOf is the key of collective c on the rank numbered rank, k left 0.
func keyOf(c *Collective, rank int64) matchKey {
	switch {
	case c.CommsID != "" && c.P2P == "":
		return matchKey{rule: ruleCommsID, group: c.Group, name: c.CommsID}
	case c.Group != "" && c.HasSeq && c.P2P == "":
		return matchKey{rule: ruleGroupSeq, group: c.Group, a: c.Seq}
	case c.P2P != "" && c.Peer >= 0:
		src, dst := rank, c.Peer
		if c.P2P == "recv" {
			src, dst = c.Peer, rank
		}
		return matchKey{rule: ruleP2P, group: c.Group, a: src, b: dst}
	case c.Group != "":
		name := c.Op
		if name == "" {
			name = c.Name
		}
		if c.P2P != "" {
			name = c.P2P // a send or recv whose peer the trace does not say
		}
		return matchKey{rule: ruleGroupOrder, group: c.Group, name: name}
	}
	return matchKey{rule: ruleOrder, name: c.Name}
}

// arrival is one rank's kernel of a collective instance.
type arrival struct {
	rank  int // index into Stragglers.Collectives
	start int64
	item  *Collective
}

// derive matches the collectives of the ranks (package doc, Stragglers) and works out who
// waited for whom.
func (st *Stragglers) derive() {
	st.Matched, st.Unmatched, st.Missing, st.Ranks, st.Worst = 0, 0, 0, nil, nil
	st.ByRule = make([]RuleCount, len(Rules))
	for i, r := range Rules {
		st.ByRule[i].Rule = r
	}
	acc := newCollAcc(st)
	defer func() { st.ByCollective, st.ByCollectiveOmitted = acc.finish() }()
	if len(st.Collectives) < 2 {
		return
	}
	byKey := map[matchKey][]arrival{}
	var order []matchKey
	// Who takes part: the members of each group, the ranks with kernels of each name under
	// order matching (indexes into st.Collectives).
	rankIdx := map[int64]int{}
	for ri, rc := range st.Collectives {
		if _, ok := rankIdx[rc.Rank]; !ok {
			rankIdx[rc.Rank] = ri
		}
	}
	groupRanks := map[string][]int{} // from "Process Group Ranks"
	groupSeen := map[string][]int{}  // ranks with kernels of the group
	orderSeen := map[string][]int{}  // ranks with kernels of the name under order matching
	addOnce := func(m map[string][]int, k string, ri int) {
		if l := m[k]; len(l) == 0 || l[len(l)-1] != ri {
			m[k] = append(l, ri)
		}
	}
	for ri := range st.Collectives {
		rc := &st.Collectives[ri]
		seen := map[matchKey]int{}
		for i := range rc.Items {
			c := &rc.Items[i]
			k := keyOf(c, rc.Rank)
			k.k = seen[k]
			seen[matchKey{rule: k.rule, group: k.group, name: k.name, a: k.a, b: k.b}]++
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], arrival{ri, c.StartNs, c})
			if c.Group != "" {
				addOnce(groupSeen, c.Group, ri)
				if _, known := groupRanks[c.Group]; !known {
					if rs, ok := collective.ParseRanks(c.Ranks); ok && c.Ranks != "" {
						var in []int
						for _, r := range rs {
							if j, ok := rankIdx[r]; ok {
								in = append(in, j)
							}
						}
						slices.Sort(in)
						groupRanks[c.Group] = slices.Compact(in)
					}
				}
			} else {
				addOnce(orderSeen, c.Name, ri)
			}
		}
	}
	ranks := make([]StragglerRank, len(st.Collectives))
	for i, rc := range st.Collectives {
		ranks[i].Rank = rc.Rank
	}
	var all []Instance
	var keys []matchKey // of all, in the same order
	have := make([]bool, len(st.Collectives))
	for _, k := range order {
		as := byKey[k]
		// The ranks that take part in the instance and lack it.
		var takePart []int
		switch k.rule {
		case ruleCommsID, ruleGroupSeq, ruleGroupOrder:
			if g, ok := groupRanks[k.group]; ok {
				takePart = g
			} else {
				takePart = groupSeen[k.group]
			}
		case ruleP2P:
			for _, r := range []int64{k.a, k.b} {
				if j, ok := rankIdx[r]; ok {
					takePart = append(takePart, j)
				}
			}
		default:
			takePart = orderSeen[k.name]
		}
		for _, a := range as {
			have[a.rank] = true
		}
		for _, j := range takePart {
			if !have[j] {
				ranks[j].Missing++
				st.Missing++
				have[j] = true // counted once (a p2p call to itself names it twice)
			}
		}
		for _, a := range as {
			have[a.rank] = false
		}
		for _, j := range takePart {
			have[j] = false
		}
		if len(as) < 2 {
			st.Unmatched++
			continue
		}
		st.Matched++
		st.ByRule[k.rule].Matched++
		first, last := as[0], as[0]
		for _, a := range as[1:] {
			if a.start < first.start {
				first = a
			}
			if a.start > last.start {
				last = a
			}
		}
		c := as[0].item
		in := Instance{Name: c.Name, Op: c.Op, Group: k.group, Rule: Rules[k.rule], Ordinal: k.k, Ranks: len(as),
			LastRank: st.Collectives[last.rank].Rank, SpreadNs: last.start - first.start}
		switch k.rule {
		case ruleGroupSeq:
			in.Seq = k.a
		case ruleCommsID:
			in.CommsID = k.name
			if c.HasSeq {
				in.Seq = c.Seq
			}
		}
		acc.instance(as, last, len(takePart))
		for _, a := range as {
			w := last.start - a.start
			ranks[a.rank].Instances++
			ranks[a.rank].WaitedNs += w
			in.WaitNs += w
		}
		if in.SpreadNs > 0 {
			ranks[last.rank].ArrivedLast++
			ranks[last.rank].WaitCausedNs += in.WaitNs
		}
		all = append(all, in)
		keys = append(keys, k)
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(all[b].WaitNs, all[a].WaitNs) })
	if len(idx) > MaxWorst {
		idx = idx[:MaxWorst]
	}
	worst := make([]Instance, len(idx))
	for i, j := range idx {
		worst[i] = all[j]
		as := byKey[keys[j]]
		first := as[0].start
		for _, a := range as {
			first = min(first, a.start)
		}
		for _, a := range as {
			worst[i].Arrivals = append(worst[i].Arrivals, Arrival{Rank: st.Collectives[a.rank].Rank, AfterNs: a.start - first})
		}
	}
	st.Ranks, st.Worst = ranks, worst
}
