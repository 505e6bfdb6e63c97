package perfetto

// list is an append-only list kept in blocks, so that growing it never copies what it holds
// (append's growth copies a long slice several times over).
type list[T any] struct {
	blocks [][]T
	n      int
}

const listBlock = 1 << 13

func (l *list[T]) add(v T) {
	if l.n%listBlock == 0 {
		l.blocks = append(l.blocks, make([]T, 0, listBlock))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, v)
	l.n++
}

func (l *list[T]) at(i int32) *T { return &l.blocks[i/listBlock][i%listBlock] }

func (l *list[T]) len() int { return l.n }
