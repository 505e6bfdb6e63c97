package perfetto

// interner gives each distinct string of one kind (event names, categories, arg keys, short
// arg values) an iid on one packet sequence (the main one, or a segment's: parallel.go); the
// strings not written yet go out in one InternedData packet before the events that use them.
type interner struct {
	ids     map[string]uint64
	strs    []string // by iid - 1
	flushed int      // strs[flushed:] are not written yet
}

func newInterner() *interner { return &interner{ids: map[string]uint64{}} }

// reset forgets every string: the iids start again at 1.
func (n *interner) reset() {
	clear(n.ids)
	n.strs = n.strs[:0]
	n.flushed = 0
}

func (n *interner) id(b []byte) uint64 {
	if v, ok := n.ids[string(b)]; ok {
		return v
	}
	s := string(b)
	n.strs = append(n.strs, s)
	v := uint64(len(n.strs))
	n.ids[s] = v
	return v
}

// slot is a one-entry cache in front of an interner: the arg at one position of the events
// of one kind has the same key event after event, and comparing it costs less than hashing.
type slot struct {
	s  string
	id uint64
}

func (n *interner) cached(b []byte, sl *slot) uint64 {
	if sl.id != 0 && sl.s == string(b) {
		return sl.id
	}
	v := n.id(b)
	sl.s, sl.id = n.strs[v-1], v
	return v
}

// flush appends the strings not written yet as entries (iid = 1, the string = 2) of field of
// an InternedData message.
func (n *interner) flush(b []byte, field int) []byte {
	for i := n.flushed; i < len(n.strs); i++ {
		var at int
		b, at = openMsg(b, field)
		b = appendUint(b, 1, uint64(i+1))
		b = appendString(b, 2, n.strs[i])
		b = closeMsg(b, at)
	}
	n.flushed = len(n.strs)
	return b
}
