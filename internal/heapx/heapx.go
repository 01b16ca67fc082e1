// Package heapx is a binary heap on a plain slice, ordered by a function:
// less(a, b) puts a nearer the top. With a strict total order (ties broken
// by an index, as every caller does) the order of pops does not depend on
// the order of pushes, which keeps searches deterministic. Unlike
// container/heap it neither boxes elements in interfaces nor needs a type
// with methods.
package heapx

// Push adds x to the heap h and returns the grown slice.
func Push[T any](h []T, x T, less func(a, b T) bool) []T {
	h = append(h, x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

// Pop removes the top of the non-empty heap h and returns the shrunk slice
// and the top.
func Pop[T any](h []T, less func(a, b T) bool) ([]T, T) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	Down(h, 0, less)
	return h, top
}

// Down restores the heap order below position i after h[i] changed.
func Down[T any](h []T, i int, less func(a, b T) bool) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && less(h[l], h[m]) {
			m = l
		}
		if r < len(h) && less(h[r], h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
