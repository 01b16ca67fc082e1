package eval

import (
	"reflect"
	"testing"

	"github.com/flowreader/flowreader/flow"
)

func TestCapDistinct(t *testing.T) {
	chains := []flow.Chain{
		{Nodes: []int{1, 2}}, {Nodes: []int{2}}, {Nodes: []int{3, 4, 5}}, {Nodes: []int{6}},
	}
	got := capDistinct(chains, 4)
	want := []flow.Chain{{Nodes: []int{1, 2}}, {Nodes: []int{2}}, {Nodes: []int{4, 5}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("capDistinct = %v, want %v", got, want)
	}
	for n := 0; n <= 8; n++ {
		d := map[int]bool{}
		for _, c := range capDistinct(chains, n) {
			for _, v := range c.Nodes {
				d[v] = true
			}
		}
		if len(d) != min(n, 6) {
			t.Fatalf("budget %d: %d distinct nodes", n, len(d))
		}
	}
	if chains[2].Nodes[0] != 3 {
		t.Fatal("capDistinct modified its input")
	}
}
