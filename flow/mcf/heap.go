package mcf

// heap is a 4-ary min-heap of node ids keyed by an external distance array,
// with a position index so that decrease-key is O(log n). Four children per
// node keep the tree shallow and the children of a node in one cache line,
// which suits Dijkstra's many decrease-keys and few pops per node.
type heap struct {
	items []int32
	pos   []int32 // pos[v] = index of v in items, or -1
	key   []float64
}

func newHeap(n int, key []float64) *heap {
	h := &heap{items: make([]int32, 0, 64), pos: make([]int32, n), key: key}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (h *heap) empty() bool { return len(h.items) == 0 }

// push inserts v or, if present, restores order after its key decreased.
func (h *heap) push(v int32) {
	i := h.pos[v]
	if i < 0 {
		i = int32(len(h.items))
		h.items = append(h.items, v)
	}
	h.up(i, v)
}

func (h *heap) up(i, v int32) {
	k := h.key[v]
	for i > 0 {
		p := (i - 1) >> 2
		pv := h.items[p]
		if h.key[pv] <= k {
			break
		}
		h.items[i] = pv
		h.pos[pv] = i
		i = p
	}
	h.items[i] = v
	h.pos[v] = i
}

// pop removes and returns the node with the smallest key (ties: the one
// inserted into the root position first, a deterministic rule).
func (h *heap) pop() int32 {
	top := h.items[0]
	h.pos[top] = -1
	last := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	n := int32(len(h.items))
	if n == 0 {
		return top
	}
	k := h.key[last]
	i := int32(0)
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		best, bk := c, h.key[h.items[c]]
		end := c + 4
		if end > n {
			end = n
		}
		for j := c + 1; j < end; j++ {
			if kj := h.key[h.items[j]]; kj < bk {
				best, bk = j, kj
			}
		}
		if bk >= k {
			break
		}
		bv := h.items[best]
		h.items[i] = bv
		h.pos[bv] = i
		i = best
	}
	h.items[i] = last
	h.pos[last] = i
	return top
}

// clear empties the heap, resetting only the positions of remaining items.
func (h *heap) clear() {
	for _, v := range h.items {
		h.pos[v] = -1
	}
	h.items = h.items[:0]
}
