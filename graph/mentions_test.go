package graph

import (
	"fmt"
	"reflect"
	"strings"
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

// A collection that holds every passage twice (the copy in another
// document, one word changed) links each content as the collection that
// holds it once: the thresholds count contents, so an entity five passages
// name and a title four passages share still link. Under one heading the
// copies are found among few passages (all pairs) and among many (the
// min-hash orders).
func TestMentionLinksCopies(t *testing.T) {
	var orig []Node
	for i, text := range []string{
		"The state about which this passage speaks borders Texas and holds the Malmo Art School campus.",
		"Its capital about the river is a city of culture where the Malmo Art School opened a branch.",
		"Mining about the mountains made the region rich; graduates of the Malmo Art School painted it.",
		"Literacy about ninety percent is reported, and the Malmo Art School trains local teachers.",
	} {
		orig = append(orig, Node{Doc: fmt.Sprintf("d%d", i), Section: "Chihuahua (state)", Content: text})
	}
	orig = append(orig, Node{Doc: "q", Section: "Ola Lind", Content: "Ola Lind taught in Chihuahua and at the Malmo Art School for many years."})
	for i := range 3 * titleGroupAll { // a heading with many passages
		orig = append(orig, Node{Doc: fmt.Sprintf("n%d", i), Section: "Notes",
			Content: fmt.Sprintf("note %d says little about anything in particular, %s, and it names no title.", i, strings.Repeat("again ", i%7))})
	}
	orig = append(orig, Node{Doc: "r", Section: "Notes", Content: "a note that names the Malmo Art School once more for good measure here."})
	var twice []Node
	origOf := []int32{}
	for i, n := range orig {
		c := n
		c.Doc += "~copy"
		c.Content = strings.Replace(c.Content, "about", "on", 1)
		c.Content = strings.Replace(c.Content, "says little", "says very little", 1)
		twice = append(twice, n, c)
		origOf = append(origOf, int32(i), int32(i))
	}
	cls := titleClasses(twice)
	for i := 0; i < len(twice); i += 2 {
		if cls == nil || cls[i+1] != cls[i] {
			t.Fatalf("passage %d and its copy are not one content (%q)", i/2, twice[i].Content)
		}
	}
	for i := 0; i+2 < len(twice); i += 2 {
		if cls[i] == cls[i+2] {
			t.Fatalf("passages %d and %d made one content", i/2, i/2+1)
		}
	}
	want := map[[2]int32]bool{}
	for _, e := range MentionLinks(orig, true) {
		want[[2]int32{e.U, e.V}] = true
	}
	if len(want) == 0 {
		t.Fatal("the original collection has no links")
	}
	got := map[[2]int32]bool{}
	for _, e := range MentionLinks(twice, true) {
		u, v := origOf[e.U], origOf[e.V]
		if u != v {
			got[[2]int32{min(u, v), max(u, v)}] = true
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links with copies (as originals) %v, want the original's %v", got, want)
	}
}
