package mention

import (
	"fmt"
	"reflect"
	"testing"
)

func TestTitleMentions(t *testing.T) {
	titles := []string{"Blue Harbour", "Anna Berg", "Lloyd (film)", "May", "Malmo", "Malmo", "1961", "the Bay"}
	texts := []string{
		"Blue Harbour is a 1961 film directed by Anna Berg, starring Lloyd.",
		"Anna Berg was born in Malmo in May.",
		"Lloyd is a film. It is not about a blue harbour.",
		"In May 1961 nothing.",
		"Malmo is a city.",
		"Malmo has a harbour near the Bay.",
		"Numbers.",
		"x",
	}
	got := TitleMentions(texts, titles, Options{})
	want := [][]int32{
		{1, 2}, // Anna Berg, Lloyd (qualifier dropped); not itself, not "1961"
		{4, 5}, // both Malmo copies; "May" is too short
		nil,    // "blue harbour": case differs
		nil,    // dates and short titles are not matched
		{5},    // the other Malmo copy, not itself
		{4},    // lower-case title "the Bay" is never matched
		nil, nil,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mentions\n got %v\nwant %v", got, want)
	}
	es := MentionPairs(texts, titles, Options{})
	wantE := []Pair{{U: 0, V: 1}, {U: 0, V: 2}, {U: 1, V: 4}, {U: 1, V: 5}, {U: 4, V: 5}}
	if !reflect.DeepEqual(es, wantE) {
		t.Errorf("edges %v", es)
	}
	// A title more texts name than MaxTitleCopies allows copies of is dropped.
	if got := TitleMentions(texts, titles, Options{MaxTitleCopies: 1}); len(got[1]) != 0 {
		t.Errorf("repeated title matched: %v", got[1])
	}
}

func TestTitleMentionsShare(t *testing.T) {
	// A title named by more than max(minDF, share·N) texts links nothing.
	titles := []string{"Grand Hotel"}
	texts := []string{""}
	for i := 0; i < minDF+1; i++ {
		titles = append(titles, "")
		texts = append(texts, "At the Grand Hotel.")
	}
	for _, ms := range TitleMentions(texts, titles, Options{}) {
		if len(ms) != 0 {
			t.Fatalf("frequent title matched: %v", ms)
		}
	}
}

func TestEntities(t *testing.T) {
	got := Entities(`Teutberga( died 11 November 875) was a queen of Lotharingia by marriage to Lothair II. The Port of Spain harbour; "Demon Creation Specialists, Junior Grade" and Tim Brown. In New York City.`)
	want := []string{"Lothair II", "Port of Spain", "Demon Creation Specialists", "Junior Grade", "Tim Brown", "New York City"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entities\n got %q\nwant %q", got, want)
	}
}

func TestEntityPairs(t *testing.T) {
	texts := []string{"Born in New York City.", "He left New York City.", "Port of Spain.", "A trip to New York City and Port of Spain."}
	got := EntityPairs(texts, Options{})
	want := []Pair{{U: 0, V: 1}, {U: 0, V: 3}, {U: 1, V: 3}, {U: 2, V: 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("edges %v", got)
	}
	if got := EntityPairs(texts, Options{MaxEntityDF: 2}); !reflect.DeepEqual(got, []Pair{{U: 2, V: 3}}) {
		t.Errorf("df cap: %v", got)
	}
}

// FuzzMentions checks that title matching and entity spans take any text
// without panicking and never link a text to itself.
func FuzzMentions(f *testing.F) {
	f.Add("Blue Harbour (film)", "Blue Harbour was directed by Anna Berg of New York.")
	f.Add("É", "'''  (.)")
	f.Fuzz(func(t *testing.T, title, text string) {
		ms := TitleMentions([]string{text, title}, []string{title, text}, Options{MinTitleRunes: 1})
		for a, bs := range ms {
			for _, b := range bs {
				if int(b) == a {
					t.Fatalf("text %d names itself", a)
				}
			}
		}
		_ = Entities(text)
		_ = EntityPairs([]string{text, title, text}, Options{})
	})
}

// With Class, the counts behind the thresholds count contents: a
// collection holding every passage twice keeps the titles and entities of
// the one holding it once; without it, the copies push them over.
func TestClassCountsContents(t *testing.T) {
	var titles, texts []string
	var class []int32
	add := func(title, text string) {
		for range 2 { // each passage and its copy
			class = append(class, int32(len(titles)/2*2))
			titles, texts = append(titles, title), append(texts, text)
		}
	}
	// A title four passages share (eight with the copies).
	for i := range 4 {
		add("Chihuahua (state)", fmt.Sprintf("passage %c on the state.", 'a'+i))
	}
	// An entity five passages name (ten with the copies).
	for i := range 5 {
		add("", fmt.Sprintf("text %c names the Malmo Art School.", 'a'+i))
	}
	q := "What is the capital of Chihuahua?"
	if got := NewTitleIndex(titles, Options{}).Named(q); len(got) != 0 {
		t.Errorf("without classes: eight passages of one title named: %v", got)
	}
	if got := NewTitleIndex(titles, Options{Class: class}).Named(q); len(got) != 8 {
		t.Errorf("with classes: named %v, want the eight passages", got)
	}
	if got := EntityPairs(texts, Options{}); len(got) != 0 {
		t.Errorf("without classes: an entity of ten texts links: %v", got)
	}
	if got := EntityPairs(texts, Options{Class: class}); len(got) != 45 {
		t.Errorf("with classes: %d entity pairs, want 45 (ten texts, five contents)", len(got))
	}
	// Title share: minDF contents name a title, twice each.
	titles, texts, class = []string{"Grand Hotel"}, []string{""}, []int32{0}
	for i := range minDF {
		for range 2 {
			class = append(class, int32(1+2*i))
			titles, texts = append(titles, ""), append(texts, fmt.Sprintf("At the Grand Hotel %c.", 'a'+i))
		}
	}
	if n := len(TitleMentions(texts, titles, Options{Class: class})[1]); n != 1 {
		t.Errorf("with classes: a title named by %d contents names %d, want 1", minDF, n)
	}
	if n := len(TitleMentions(texts, titles, Options{})[1]); n != 0 {
		t.Errorf("without classes: a title named by %d texts names %d, want 0", 2*minDF, n)
	}
}

// TestTitleMentionsNoTitles: with no title that can be named (none, or
// only short and lower-case ones) every text names nothing, one list a
// text.
func TestTitleMentionsNoTitles(t *testing.T) {
	texts := []string{"Alpha Station is named here", "and harbour here", "nothing"}
	for _, titles := range [][]string{{"", "", ""}, {"abc", "harbour", "Al"}} {
		got := TitleMentions(texts, titles, Options{})
		if len(got) != len(texts) {
			t.Fatalf("titles %q: %d lists for %d texts", titles, len(got), len(texts))
		}
		for a, l := range got {
			if len(l) != 0 {
				t.Fatalf("titles %q: text %d names %v", titles, a, l)
			}
		}
	}
	// One title that can be named: found as before.
	got := TitleMentions([]string{"x", "Alpha Station was here", "y"}, []string{"Alpha Station", "", ""}, Options{})
	if len(got[1]) != 1 || got[1][0] != 0 {
		t.Fatalf("text 1 should name node 0: %v", got)
	}
}
