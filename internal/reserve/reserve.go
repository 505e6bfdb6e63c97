// Package reserve makes room in a slice for the elements a caller knows are coming, without
// writing the room: a list of a large trace's events grown by append allocates about five
// times its final size (Go grows large slices by a quarter at a time) and copies it each
// time, and slices.Grow, which makes the room by appending zero elements, writes every page of
// it (a fault and a page cleared by the kernel, then the same page cleared again by Go),
// whether the room is used or not. Room made here is a fresh array whose pages are first
// written when an element is appended.
package reserve

// Room returns s, or a copy of s with room for n more elements than it holds: cap ≥ len(s)+n.
func Room[S ~[]E, E any](s S, n int) S {
	if n <= cap(s)-len(s) {
		return s
	}
	t := make(S, len(s), len(s)+n)
	copy(t, s)
	return t
}
