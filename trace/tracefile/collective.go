package tracefile

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/orprof/orprof/internal/collective"
)

// Collectives. PyTorch's c10d wraps every collective and point-to-point call of a process
// group in a "record_param_comms" operator (cat cpu_op) whose args say which call it is;
// Kineto copies the same args onto the kernel that operator launched (when the kernel's
// linked operator is record_param_comms: NCCL kernels, and HCCL ones on MTIA). The keys, as
// PyTorch (torch/csrc/profiler/util.cpp, saveNcclMeta) and Kineto (output_json.cpp) spell them:
//
//	"Collective name"            "allreduce", "allgather", "send", "recv", … (a string)
//	"Process Group Name"         the group's name: "0" for the default group, a hash for
//	                             others (a string; builds of early 2024 wrote an integer
//	                             "Process Group ID" instead)
//	"Process Group Description"  "default_pg", "undefined", a user's description (a string)
//	"Process Group Ranks"        the group's global ranks, "[0, 1, 2, 3]" (a string; PyTorch
//	                             cuts lists of more than 30 ranks with ", ...")
//	"Group size"                 the group's size (an integer)
//	"Seq"                        the group's sequence number of this call (an integer, only
//	                             when c10d counted it: collectives and point-to-point calls
//	                             count apart)
//	"Src Rank", "Dst Rank"       the peer's global rank of a recv, a send (integers)
//	"In msg nelems", "dtype"     the message's element count and type; "Out msg nelems" the
//	                             output's
//	"Comms Id"                   one call's identity on every rank of it (a hash of group, Seq,
//	                             p2p and communicator; an unsigned 64-bit integer, 2026)
//
// The top-level "distributedInfo" repeats each group once ("pg_config": pg_name, pg_desc,
// pg_size, ranks); the reader does not need it, every call names its group.

// Collective is what a trace says of one collective or point-to-point call (the keys above;
// absent ones are "" or −1): package collective's Call, so that its sizes and bandwidths apply.
type Collective = collective.Call

func newCollective() Collective { return collective.New() }

// collFirst says, per key length, which first bytes a collective key of that length has (bit
// b−'A' for byte b): mayBeCollective tests it in line, so that no other argument pays a call.
var collFirst = func() (t [26]uint64) {
	for _, k := range []string{"Collective name", "Process Group Name", "Process Group ID", "Process Group Description",
		"Process Group Ranks", "Group size", "Seq", "Src Rank", "Dst Rank", "In msg nelems", "dtype",
		"Out msg nelems", "Comms Id"} {
		t[len(k)] |= 1 << (k[0] - 'A')
	}
	return t
}()

// mayBeCollective reports whether key may be one of the collective keys.
func mayBeCollective(key []byte) bool {
	n := len(key)
	if n == 0 || n >= len(collFirst) {
		return false
	}
	c := key[0] - 'A'
	return c < 64 && collFirst[n]>>c&1 != 0
}

// collectiveKey tells which of the keys above key is (0: none of them).
func collectiveKey(key []byte) uint8 {
	switch string(key) {
	case "Collective name":
		return collName
	case "Process Group Name":
		return collGroup
	case "Process Group ID":
		return collGroupID
	case "Process Group Description":
		return collGroupDesc
	case "Process Group Ranks":
		return collRanks
	case "Group size":
		return collGroupSize
	case "Seq":
		return collSeq
	case "Src Rank":
		return collSrc
	case "Dst Rank":
		return collDst
	case "In msg nelems":
		return collNelems
	case "dtype":
		return collDtype
	case "Out msg nelems":
		return collOutNelems
	case "Comms Id":
		return collCommsID
	}
	return 0
}

const (
	collName = iota + 1
	collGroup
	collGroupID
	collGroupDesc
	collRanks
	collGroupSize
	collSeq
	collSrc
	collDst
	collNelems
	collDtype
	collOutNelems
	collCommsID
)

// collectiveArg reads the value of collective key k (collectiveKey) into the event's entry of
// d.comms, made on its first such key.
func (d *decoder) collectiveArg(ev *evFields, k uint8) error {
	if ev.comm == 0 {
		d.comms = append(d.comms, newCollective())
		ev.comm = int32(len(d.comms))
	}
	c := &d.comms[ev.comm-1]
	s := d.s
	switch k {
	case collGroupSize, collSeq, collSrc, collDst, collNelems, collOutNelems, collGroupID:
		v, ok, err := d.intOrString()
		if !ok {
			return err
		}
		switch k {
		case collGroupSize:
			c.GroupSize = v
		case collSeq:
			c.Seq = v
		case collSrc:
			c.Src = v
		case collDst:
			c.Dst = v
		case collNelems:
			c.InNelems = v
		case collOutNelems:
			c.OutNelems = v
		case collGroupID:
			if c.Group == "" {
				c.Group = strconv.FormatInt(v, 10)
			}
		}
		return nil
	}
	var v []byte
	if ch, _ := s.Peek(); ch == '"' {
		var err error
		if v, err = s.Str(); err != nil {
			return err
		}
	} else {
		raw, err := s.Raw() // "Process Group Ranks" as an array, a group named by a number
		if err != nil {
			return err
		}
		v = raw
	}
	str := strings.ToValidUTF8(string(v), "\uFFFD")
	switch k {
	case collName:
		c.Name = str
	case collGroup:
		c.Group = str
	case collGroupDesc:
		c.GroupDesc = str
	case collRanks:
		c.Ranks = str
	case collDtype:
		c.Dtype = str
	case collCommsID:
		if str = strings.TrimSpace(str); str != "null" {
			c.CommsID = str // a bare integer (read raw: it may pass int64) or a string
		}
	}
	return nil
}

// commOp is a host operator that carries a collective: its thread and times and its entry in
// d.comms.
type commOp struct {
	tid        int64
	start, end float64
	comm       int32
}

// commIndex finds, for a device event without collective args of its own, the collective
// operator its launch ran in.
type commIndex struct {
	ops []commOp // by thread, then start
}

// newCommIndex collects the host operators with a named collective (nil when there is none).
func (d *decoder) newCommIndex(times func(*rawEvent) (float64, float64)) *commIndex {
	if len(d.comms) == 0 {
		return nil
	}
	var x commIndex
	for _, r := range d.raws.all() {
		if r.kind == rawHostOp && r.flags&rawComm != 0 && d.comms[r.node].Name != "" {
			s, e := times(r)
			x.ops = append(x.ops, commOp{tid: r.tid, start: s, end: e, comm: r.node})
		}
	}
	if len(x.ops) == 0 {
		return nil
	}
	slices.SortFunc(x.ops, func(a, b commOp) int {
		return cmp.Or(cmp.Compare(a.tid, b.tid), cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	return &x
}

// at returns the innermost collective operator on thread tid whose interval holds t
// (−1: none): the latest to start at or before t that has not ended by then.
func (x *commIndex) at(tid int64, t float64) int32 {
	i, _ := slices.BinarySearchFunc(x.ops, commOp{tid: tid, start: t}, func(a, b commOp) int {
		if c := cmp.Compare(a.tid, b.tid); c != 0 {
			return c
		}
		if a.start <= b.start {
			return -1
		}
		return 1
	})
	// x.ops[i-1] is the last on tid starting at or before t; nested ones start later than the
	// operators holding them, so the first found holding t is the innermost.
	for j := i - 1; j >= 0 && j >= i-8 && x.ops[j].tid == tid; j-- {
		if x.ops[j].end >= t {
			return x.ops[j].comm
		}
	}
	return -1
}

// deviceComm is commOf for device record r linked by pair p (nil: none).
func (d *decoder) deviceComm(r *rawEvent, x *commIndex, p *kernelPair, times func(*rawEvent) (float64, float64)) *Collective {
	rt, op := int32(-1), int32(-1)
	if p != nil {
		op = p.opRaw
		if p.launch > 0 {
			rt = p.launch - 1
		}
	}
	return d.commOf(r, x, rt, op, times)
}

// commOf is the collective of record r (raw index i) for a consumer: its own, or for a device
// event the operator holding its launch (rt: the runtime call's raw index, −1 none) or, without
// one, its linked operator (op: raw index, −1 none).
func (d *decoder) commOf(r *rawEvent, x *commIndex, rt, op int32, times func(*rawEvent) (float64, float64)) *Collective {
	if r.flags&rawComm != 0 {
		if c := &d.comms[r.node]; c.Name != "" {
			return c
		}
	}
	if x == nil || r.kind != rawDevice {
		return nil
	}
	from := rt
	if from < 0 {
		from = op
	}
	if from < 0 {
		return nil
	}
	h := d.raws.at(int(from))
	s, _ := times(h)
	if k := x.at(h.tid, s); k >= 0 {
		return &d.comms[k]
	}
	return nil
}
