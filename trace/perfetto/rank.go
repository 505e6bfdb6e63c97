package perfetto

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// rank is one trace read whole in compact form: its processes, threads, slices, instants,
// counter samples and flow ends, each with the encoded payload its writer needs. A rank is
// written, then dropped, before the next is read: the memory of a conversion is one rank's.
type rank struct {
	index     int   // position among the inputs
	number    int64 // the rank shown: distributedInfo's, else index
	hdr       header
	procs     []process
	procOf    map[string]int32
	threads   []thread
	threadOf  map[[2]string]int32
	lastPid   []byte
	lastTid   []byte
	lastTh    int32
	slices    list[slice]
	sliceSeq  []int32         // each slice's place among the events (the JSON writer's order)
	flowsOf   map[int32]int32 // a slice's first flow end in the write's list of bound ones
	instants  []instant
	counters  []sample
	ctracks   []ctrack
	ctrackOf  map[ctrackKey]int32
	flows     []flowEnd
	flowIDs   map[string]uint64
	others    []other // events the JSON writer keeps as they were (metadata of other kinds)
	payStore          // the payloads
	firstStep int64   // the first ProfilerStep's start (ns, file clock), when hasStep
	stepNum   int64
	hasStep   bool
	firstColl int64 // the first collective's end, when hasColl
	hasColl   bool
	minTs     int64
	hasTs     bool
	shift     int64 // ns added to base+ts to put the rank on the output's clock
	skipped   map[byte]int
}

type process struct {
	pid       string // raw token
	name      string
	labels    string
	hasName   bool
	sort      int64
	hasSort   bool
	first     int32 // order of appearance
	uuid      uint64
	outPid    int64 // the JSON writer's pid
	groupName string
}

type thread struct {
	proc    int32
	tid     string // raw token
	name    string
	hasName bool
	sort    int64
	hasSort bool
	first   int32
	slices  []int32 // sorted by start, longest first, then file order
	levels  int32
	uuids   []uint64 // one per level
	outTids []string // the JSON writer's tid per level
}

type slice struct {
	start, end int64
	pay        payload
	thread     int32
	level      int32
}

// payload locates an event's encoded bytes: chunk (24 bits), offset (20) and length (20) in
// one word; a payload of a chunk of its own (1 MiB or more) has the length all ones.
type payload uint64

// payChunk is the size of the chunks payloads are kept in.
const payChunk = 1 << 18

const payWhole = 1<<20 - 1

type instant struct {
	ts     int64
	thread int32
	seq    int32
	pay    payload
	flow   int32 // a flow end that found no slice: the instant carries it; -1 otherwise
}

type sample struct {
	ts    int64
	track int32
	seq   int32
	isInt bool
	i     int64
	f     float64
	pay   payload // the JSON writer's whole event (one per event, not per series)
}

type ctrackKey struct {
	proc      int32
	name, key string
}

type ctrack struct {
	proc      int32
	name, key string
	uuid      uint64
}

type flowEnd struct {
	ts     int64
	thread int32
	seq    int32
	id     uint64
	ph     byte
	next   bool // binds to the next slice (a flow end without bp "e")
	bound  int32
	pay    payload // the JSON writer's event
	name   payload // the flow's name and category, for an instant when no slice holds it
}

type other struct {
	seq    int32
	thread int32
	ts     int64
	pay    payload
}

func newRank(index int) *rank {
	return &rank{index: index, number: int64(index), procOf: map[string]int32{}, threadOf: map[[2]string]int32{},
		lastTh: -1, ctrackOf: map[ctrackKey]int32{}, flowIDs: map[string]uint64{}, skipped: map[byte]int{}}
}

// threadOf returns the index of the thread pid/tid, adding it (and its process) when new.
func (r *rank) thread(pid, tid []byte) int32 {
	pid, tid = numeric(pid), numeric(tid)
	if r.lastTh >= 0 && bytes.Equal(pid, r.lastPid) && bytes.Equal(tid, r.lastTid) {
		return r.lastTh
	}
	k := [2]string{string(pid), string(tid)}
	t, ok := r.threadOf[k]
	if !ok {
		p := r.proc(pid)
		t = int32(len(r.threads))
		r.threads = append(r.threads, thread{proc: p, tid: k[1], first: t})
		r.threadOf[k] = t
	}
	r.lastPid = append(r.lastPid[:0], pid...)
	r.lastTid = append(r.lastTid[:0], tid...)
	r.lastTh = t
	return t
}

func (r *rank) proc(pid []byte) int32 {
	pid = numeric(pid)
	p, ok := r.procOf[string(pid)]
	if !ok {
		p = int32(len(r.procs))
		r.procs = append(r.procs, process{pid: string(pid), first: p})
		r.procOf[string(pid)] = p
	}
	return p
}

// payStore keeps payloads back to back in chunks of payChunk bytes (no copy as they grow).
// Each chunk's payloads intern their strings on one packet sequence, seqs[chunk].
type payStore struct {
	chunks [][]byte
	seqs   []uint32
}

func (r *rank) addPay(b []byte) payload {
	start := r.payStart()
	return r.payEnd(append(r.chunks[len(r.chunks)-1], b...), start)
}

// payReserve is the room payStart leaves for a payload encoded in place: one that outgrows it
// makes append move the chunk, which keeps its payloads at their offsets.
const payReserve = 16 << 10

// payStart returns the offset in the last chunk where a payload of the main sequence appended
// to it starts.
func (r *rank) payStart() int { return r.start(mainSequence) }

// payEnd keeps b, the last chunk with a payload appended from start, and locates it.
func (r *rank) payEnd(b []byte, start int) payload { return r.end(b, start) }

func (r *rank) payOf(p payload) []byte { return r.of(p) }

// start returns the offset in the last chunk where a payload of sequence seq appended to it
// starts, adding a chunk when the last is another sequence's, has less than payReserve bytes
// free or holds payChunk bytes already (an offset fits in 20 bits).
func (p *payStore) start(seq uint32) int {
	n := len(p.chunks)
	if n == 0 || p.seqs[n-1] != seq || cap(p.chunks[n-1])-len(p.chunks[n-1]) < payReserve || len(p.chunks[n-1]) >= payChunk {
		var c []byte
		if n < cap(p.chunks) && cap(p.chunks[:n+1][n]) >= payChunk {
			c = p.chunks[:n+1][n][:0] // a worker's chunk of its last segment, reused
		} else {
			c = make([]byte, 0, payChunk)
		}
		p.chunks = append(p.chunks, c)
		p.seqs = append(p.seqs, seq)
		n++
	}
	return len(p.chunks[n-1])
}

// end keeps b, the last chunk with a payload appended from start, and locates it.
func (p *payStore) end(b []byte, start int) payload {
	n := len(p.chunks)
	if len(b)-start >= payWhole {
		// Too long for the packed length: a chunk of its own.
		own := append([]byte(nil), b[start:]...)
		p.chunks[n-1] = b[:start]
		p.chunks = append(p.chunks, own)
		p.seqs = append(p.seqs, p.seqs[n-1])
		return payload(uint64(n)<<40 | payWhole)
	}
	p.chunks[n-1] = b
	return payload(uint64(n-1)<<40 | uint64(start)<<20 | uint64(len(b)-start))
}

func (p *payStore) of(pl payload) []byte {
	c := p.chunks[pl>>40]
	if pl&payWhole == payWhole {
		return c
	}
	off := int(pl >> 20 & payWhole)
	return c[off : off+int(pl&payWhole)]
}

// seqOf is the packet sequence whose interned strings a payload uses.
func (p *payStore) seqOf(pl payload) uint32 { return p.seqs[pl>>40] }

// noteTimes keeps what clock alignment needs: the first ProfilerStep and collective.
func (r *rank) noteTimes(ev *event) {
	if !r.hasTs || ev.ts < r.minTs {
		r.minTs, r.hasTs = ev.ts, true
	}
	if ev.ph != 'X' {
		return
	}
	if n, ok := strings.CutPrefix(string(ev.name), "ProfilerStep#"); ok {
		if !r.hasStep || ev.ts < r.firstStep {
			num, _ := strconv.ParseInt(n, 10, 64)
			r.firstStep, r.stepNum, r.hasStep = ev.ts, num, true
		}
		return
	}
	if isCollective(ev.name) {
		if end := ev.ts + ev.dur; !r.hasColl || end < r.firstColl {
			r.firstColl, r.hasColl = end, true
		}
	}
}

// isCollective says whether an event is a collective: c10d's host op or a NCCL/RCCL kernel.
func isCollective(name []byte) bool {
	return bytes.HasPrefix(name, []byte("nccl:")) || bytes.HasPrefix(name, []byte("ncclDevKernel")) ||
		bytes.HasPrefix(name, []byte("ncclKernel")) || bytes.Equal(name, []byte("record_param_comms"))
}

// flowID maps a flow's category and id to a flow id unique in the output.
func (r *rank) flowID(cat, id []byte, next *uint64) uint64 {
	k := string(cat) + "\x00" + string(id)
	v, ok := r.flowIDs[k]
	if !ok {
		*next++
		v = *next
		r.flowIDs[k] = v
	}
	return v
}

// layout puts each thread's slices on levels so that on every level slices nest: sorted by
// start (longer first, then file order), each slice goes on the first level where it fits
// inside the innermost open slice or where nothing is open. Flows are then bound.
func (r *rank) layout() {
	for i := range int32(r.slices.len()) {
		t := &r.threads[r.slices.at(i).thread]
		t.slices = append(t.slices, int32(i))
	}
	var open [][]int64 // per level, the ends of the open slices
	for ti := range r.threads {
		t := &r.threads[ti]
		ss := &r.slices
		slices.SortFunc(t.slices, func(a, b int32) int {
			x, y := ss.at(a), ss.at(b)
			if c := cmp.Compare(x.start, y.start); c != 0 {
				return c
			}
			if c := cmp.Compare(y.end, x.end); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		open = open[:0]
		for _, si := range t.slices {
			s := ss.at(si)
			placed := false
			for l := range open {
				st := open[l]
				for len(st) > 0 && st[len(st)-1] <= s.start {
					st = st[:len(st)-1]
				}
				open[l] = st
				if len(st) == 0 || s.end <= st[len(st)-1] {
					open[l] = append(st, s.end)
					s.level = int32(l)
					placed = true
					break
				}
			}
			if !placed {
				s.level = int32(len(open))
				open = append(open, []int64{s.end})
			}
		}
		t.levels = max(1, int32(len(open)))
	}
	r.bindFlows()
}

// bindFlows finds the slice each flow end belongs to on its thread: the innermost slice that
// holds its time (Chrome's binding to the enclosing slice), or for a flow end without bp "e"
// the first slice that starts at or after it. A flow end no slice holds stays unbound (-1).
func (r *rank) bindFlows() {
	for fi := range r.flows {
		f := &r.flows[fi]
		f.bound = -1
		t := &r.threads[f.thread]
		ss := t.slices
		// The first slice starting after f.ts.
		k, _ := slices.BinarySearchFunc(ss, f.ts, func(si int32, ts int64) int {
			if r.slices.at(si).start <= ts {
				return -1
			}
			return 1
		})
		if f.next && k < len(ss) && f.ph == 'f' {
			// Chrome binds such an end to the next slice; keep the enclosing one when it
			// starts exactly there (found below).
			if k == 0 || r.slices.at(ss[k-1]).start != f.ts {
				f.bound = ss[k]
				continue
			}
		}
		// Walk back from the last slice starting at or before f.ts to the innermost that
		// holds it: slices are sorted by start, so the latest start that holds it is the
		// innermost.
		for j := k - 1; j >= 0 && j >= k-4096; j-- {
			s := r.slices.at(ss[j])
			if s.end >= f.ts {
				f.bound = ss[j]
				break
			}
		}
	}
}

// groupNames names each process group "rank R · host" or "rank R · GPU 0" (the device's
// own name), and orders the processes and threads as their sort indexes say.
func (r *rank) groupNames() {
	hosts := 0
	for i := range r.procs {
		if hostProcess(&r.procs[i]) {
			hosts++
		}
	}
	for i := range r.procs {
		p := &r.procs[i]
		label := ""
		dev, isDev := deviceName(p)
		switch {
		case hostProcess(p):
			label = "host"
			if hosts > 1 {
				label += " " + unquote(p.pid)
			}
		case isDev:
			label = dev
		case p.hasName && p.name != "":
			label = p.name
		case p.pid == "":
			label = "(no pid)"
		default:
			label = unquote(p.pid)
		}
		p.groupName = "rank " + strconv.FormatInt(r.number, 10) + " · " + label
	}
}

// hostProcess says whether a process is the host's: a numeric pid whose name and labels name
// no device.
func hostProcess(p *process) bool {
	if len(p.pid) == 0 || p.pid[0] == '"' {
		return false
	}
	_, dev := deviceName(p)
	return !dev
}

// deviceName is the device a process is, by its name or, Kineto's way, its labels ("GPU 0"
// beside a process named after the Python program): a word and a number.
func deviceName(p *process) (string, bool) {
	for _, s := range []string{p.name, p.labels} {
		w, n, ok := strings.Cut(s, " ")
		if !ok || w == "" || n == "" {
			continue
		}
		digits := true
		for _, c := range []byte(n) {
			if c < '0' || c > '9' {
				digits = false
				break
			}
		}
		if digits {
			return s, true
		}
	}
	return "", false
}

// threadName is a thread's track name: its thread_name, else its tid.
func (r *rank) threadName(t *thread) string {
	if t.hasName && t.name != "" {
		return t.name
	}
	if len(t.tid) > 0 && t.tid[0] == '"' {
		return unquote(t.tid)
	}
	if t.tid == "" {
		return "thread"
	}
	return "thread " + t.tid
}

// levelName is the name of level l of a thread: its name, then "NAME · overlap L".
func levelName(name string, l int) string {
	if l == 0 {
		return name
	}
	return name + " · overlap " + strconv.Itoa(l)
}

func unquote(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' {
		if s, err := strconv.Unquote(raw); err == nil {
			return s
		}
		return raw[1 : len(raw)-1]
	}
	return raw
}

// procOrder and threadOrder are the processes and threads of the rank in the order their
// sort indexes give (processes or threads without one after those with, in order of
// appearance).
func (r *rank) procOrder() []int32 {
	o := make([]int32, len(r.procs))
	for i := range o {
		o[i] = int32(i)
	}
	slices.SortStableFunc(o, func(a, b int32) int {
		x, y := &r.procs[a], &r.procs[b]
		if x.hasSort != y.hasSort {
			if x.hasSort {
				return -1
			}
			return 1
		}
		return cmp.Compare(x.sort, y.sort)
	})
	return o
}

func (r *rank) threadOrder(proc int32) []int32 {
	var o []int32
	for i := range r.threads {
		if r.threads[i].proc == proc {
			o = append(o, int32(i))
		}
	}
	slices.SortStableFunc(o, func(a, b int32) int {
		x, y := &r.threads[a], &r.threads[b]
		if x.hasSort != y.hasSort {
			if x.hasSort {
				return -1
			}
			return 1
		}
		return cmp.Compare(x.sort, y.sort)
	})
	return o
}

// hasThreadRows says whether a process has a thread with more than one level: its rows need a
// pid to be told apart.
func (r *rank) hasThreadRows(p int32) bool {
	for i := range r.threads {
		if r.threads[i].proc == p && r.threads[i].levels > 1 {
			return true
		}
	}
	return false
}

// numeric is a pid or tid token with the quotes of a string of digits taken off: Kineto's 2021
// traces wrote a thread's tid as "24572" on some events and 24572 on others, one thread.
func numeric(tok []byte) []byte {
	if len(tok) < 3 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return tok
	}
	in := tok[1 : len(tok)-1]
	for i, c := range in {
		if (c < '0' || c > '9') && !(i == 0 && c == '-' && len(in) > 1) {
			return tok
		}
	}
	return in
}
