package graph

import (
	"reflect"
	"testing"
)

func TestMentionLinks(t *testing.T) {
	nodes := []Node{
		{Section: "Blue Harbour", Content: "Blue Harbour is a 1961 film directed by Anna Berg."},
		{Section: "Anna Berg", Content: "Anna Berg studied at the Malmo Art School."},
		{Section: "Red Song", Content: "Red Song is a film made in 1961."},
		{Section: "Ola Lind", Content: "Ola Lind taught at the Malmo Art School."},
		{Content: "An untitled passage about Red Song."},
	}
	got := MentionLinks(nodes, false)
	want := []Edge{{U: 0, V: 1, Kind: EdgeLink}, {U: 2, V: 4, Kind: EdgeLink}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("title links %v, want %v", got, want)
	}
	// Entities add the shared school, not the shared year.
	got = MentionLinks(nodes, true)
	want = []Edge{{U: 0, V: 1, Kind: EdgeLink}, {U: 1, V: 3, Kind: EdgeLink}, {U: 2, V: 4, Kind: EdgeLink}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entity links %v, want %v", got, want)
	}
	// The edges build a graph.
	if _, err := New(nodes, 0, nil, got); err != nil {
		t.Fatal(err)
	}
	// The analysis' keywords name titles and entities as the text does.
	kw := []Node{
		{Section: "Blue Harbour", Content: "A 1961 film.", Keywords: []string{"Anna Berg", "drama"}},
		{Section: "Anna Berg", Content: "A director born in 1920."},
	}
	if got, want := MentionLinks(kw, false), []Edge{{U: 0, V: 1, Kind: EdgeLink}}; !reflect.DeepEqual(got, want) {
		t.Errorf("keyword links %v, want %v", got, want)
	}
	if got := MentionLinks(nil, true); len(got) != 0 {
		t.Errorf("no nodes: %v", got)
	}
}
