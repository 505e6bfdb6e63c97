package perfetto

// interner gives each distinct string of one kind (event names, categories, arg keys, short
// arg values) an iid on the output's one packet sequence; the strings first used by a rank
// go out in one InternedData packet before that rank's events.
type interner struct {
	ids   map[string]uint64
	fresh []string // added since the last flush, in iid order
}

func newInterner() *interner { return &interner{ids: map[string]uint64{}} }

func (n *interner) id(b []byte) uint64 {
	if v, ok := n.ids[string(b)]; ok {
		return v
	}
	s := string(b)
	v := uint64(len(n.ids) + 1)
	n.ids[s] = v
	n.fresh = append(n.fresh, s)
	return v
}

// flush appends the fresh strings as entries (iid = 1, the string = 2) of field of an
// InternedData message, and forgets them.
func (n *interner) flush(b []byte, field int) []byte {
	first := uint64(len(n.ids) - len(n.fresh) + 1)
	for i, s := range n.fresh {
		var at int
		b, at = openMsg(b, field)
		b = appendUint(b, 1, first+uint64(i))
		b = appendString(b, 2, s)
		b = closeMsg(b, at)
	}
	n.fresh = n.fresh[:0]
	return b
}
