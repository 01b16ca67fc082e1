package mcf

import "testing"

// TestGrowKeepsArcs checks that Grow reserves room without changing the
// arcs already added or the ids of later ones.
func TestGrowKeepsArcs(t *testing.T) {
	n := NewNetwork(3)
	n.AddArc(0, 1, 2, 0.5)
	n.Grow(10)
	n.Grow(0)
	if id := n.AddArc(1, 2, 1, -1); id != 1 {
		t.Fatalf("arc id %d after Grow, want 1", id)
	}
	if u, v, c, w := n.Arc(0); u != 0 || v != 1 || c != 2 || w != 0.5 {
		t.Fatalf("arc 0 is %d→%d cap %g cost %g after Grow", u, v, c, w)
	}
	if n.NumArcs() != 2 || cap(n.from) < 11 {
		t.Fatalf("%d arcs, capacity %d", n.NumArcs(), cap(n.from))
	}
}
