package flowreadertest_test

import (
	"fmt"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/flowreadertest"
)

// Passages turns inline text into documents: one per (id, text) pair, one
// node per paragraph (paragraphs are separated by a blank line).
func ExamplePassages() {
	docs := flowreadertest.Passages(
		"storms", "Storm Elin flooded the East Arm.\n\nIts peak gust was 41 metres per second.",
		"tides", "The spring tide reached 4.2 m at the harbour gauge.",
	)
	for _, d := range docs {
		fmt.Printf("%s: %d items, first %q\n", d.ID, len(d.Items), d.Items[0].Text)
	}
	// Output:
	// storms: 2 items, first "Storm Elin flooded the East Arm."
	// tides: 1 items, first "The spring tide reached 4.2 m at the harbour gauge."
}

// EvidenceContains asserts that the evidence for a question holds a
// passage (a case-sensitive substring of a node's content or caption); when
// it does not, the failure lists what the evidence held.
func ExampleEvidenceContains() {
	t := report{}
	ix := flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Passages(harbour()...))
	q := "Which part of the harbour did Storm Elin flood?"
	fmt.Println(flowreadertest.EvidenceContains(t, ix, q, "East Arm"))
	fmt.Println(flowreadertest.EvidenceContains(t, ix, q, "West Arm")) // a wrong expectation
	// Output:
	// true
	// FAIL: flowreadertest: the evidence for "Which part of the harbour did Storm Elin flood?" has no node containing "West Arm"; it read:
	// 	1. storms#0 [storms] "Storm Elin flooded the East Arm on 3 March 2025."
	// 	2. survey-2025#0 [survey-2025] "After the storm the North Mole colony fell to 248 tern nests in 2025."
	// 	3. survey-2024#0 [survey-2024] "The North Mole colony held 310 tern nests in 2024."
	// 	4. survey-2025#1 [survey-2025] "The South Pier was closed for repairs."
	// 	5. survey-2024#1 [survey-2024] "Gulls nested on the South Pier."
	// 	6. storms#1 [storms] "Its peak gust was 41 metres per second."
	// false
}

// Cites asks the question and asserts that the answer cites a document;
// a failure shows the answer and what it cited.
func ExampleCites() {
	t := report{}
	ix := flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Passages(harbour()...))
	q := "How many tern nests did the North Mole hold in 2024?"
	fmt.Println(flowreadertest.Cites(t, ix, q, "survey-2024"))
	fmt.Println(flowreadertest.Cites(t, ix, q, "storms"))
	// Output:
	// true
	// FAIL: flowreadertest: the answer to "How many tern nests did the North Mole hold in 2024?" does not cite "storms": answer "310 tern nests", citations ["survey-2024"]
	// false
}
