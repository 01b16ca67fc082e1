package reader

import (
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// A question of what something does is answered by what its row says,
// not by the name of another row whose description shares the
// question's verb.
func TestExtractiveRowLabelIsNoDefinition(t *testing.T) {
	table := "Step | Description\n" +
		"SOAK | Defines the base temperature to hold.\n" +
		"RINSE | Defines the number of cold water passes to apply to the load.\n" +
		"SPIN | Sets the drum speed.\n"
	tab := graph.Node{ID: "w#0", Doc: "washer", Modality: graph.ModalityTable, Content: table}
	ans := readNodes(t, "What does the RINSE step of a program define?", tab)
	if !strings.Contains(ans.Text, "cold water passes") {
		t.Errorf("got %q (confidence %.2f), want the RINSE row's description", ans.Text, ans.Confidence)
	}
	if strings.Contains(ans.Text, "SOAK") {
		t.Errorf("got %q: the name of another row", ans.Text)
	}
}

// A sentence ending in a colon that names the head noun, or that
// introduces a line of code of its own, makes the next unit its value.
func TestExtractiveIntroducedValue(t *testing.T) {
	doc := graph.Node{ID: "d#0", Doc: "docs", Modality: graph.ModalityText, Content: "## Offline mode\n\n" +
		"The daemon can run offline by disabling its remote features. Set remote_off in ~/.daemon/config.json:\n\n" +
		"{ \"remote_off\": true }\n\nYou can also set the environment variable:\n\nDAEMON_NO_REMOTE=1\n\n" +
		"Restart the daemon after changing configuration."}
	ans := readNodes(t, "Which environment variable disables the daemon's remote features?", doc)
	if !strings.HasPrefix(ans.Text, "DAEMON_NO_REMOTE=1") {
		t.Errorf("got %q (confidence %.2f), want DAEMON_NO_REMOTE=1", ans.Text, ans.Confidence)
	}
	ws := wordsOf("To sign in from your local installation, run:")
	us := []scored{{u: unit{raw: "To sign in from your local installation, run:"}}}
	if !introduces(us, 0, "command", true) || introduces(us, 0, "command", false) || introduces(us, -1, "command", true) || len(ws) == 0 {
		t.Error("introduces: a sentence ending in a colon introduces a whole line, and names no head")
	}
}

// "How many questions": a number that counts something else ("four
// datasets") is no confident answer.
func TestExtractiveCountsWhatIsAsked(t *testing.T) {
	q := analyse("How many unique paper nodes does the graph have?")
	if q.counted != "node" || q.head != "" {
		t.Fatalf("analyse: counted %q, head %q; want node and no head", q.counted, q.head)
	}
	if q := analyse("What is the size of the corpus?"); q.counted != "" {
		t.Error("a size question counts nothing")
	}
	ans := readNodes(t, "How many questions does the TQB benchmark have?",
		graph.Node{ID: "b#0", Doc: "b", Modality: graph.ModalityText, Content: "From four TQA datasets, we build the TQB benchmark of table questions."})
	if strings.Contains(ans.Text, "four") && !ans.LowConfidence() {
		t.Errorf("got a confident %q (confidence %.2f): it counts datasets", ans.Text, ans.Confidence)
	}
	ans = readNodes(t, "How many questions are selected from the source?",
		graph.Node{ID: "b#1", Doc: "b", Modality: graph.ModalityText, Content: "Around 20% of questions are selected by neither model. We keep 6013 of them."})
	if strings.Contains(ans.Text, "20%") && !ans.LowConfidence() {
		t.Errorf("got a confident %q (confidence %.2f): a share is no count", ans.Text, ans.Confidence)
	}
}

// A long question (many terms restating its setting) is answered once the
// spans hold enoughTerms of its terms; a short off-topic one is not.
func TestCovShare(t *testing.T) {
	if got := covShare(6, 6, 20); got != minCoverage {
		t.Errorf("covShare(6, 6, 20) = %v, want %v", got, minCoverage)
	}
	if got := covShare(5, 5, 20); got >= minCoverage {
		t.Errorf("covShare(5, 5, 20) = %v, want below %v", got, minCoverage)
	}
	if got := covShare(8, 5, 20); got >= minCoverage {
		t.Errorf("covShare(8, 5, 20) = %v: derived forms count for the share, not for the floor", got)
	}
	if got := covShare(1, 1, 4); got != 0.25 {
		t.Errorf("covShare(1, 1, 4) = %v, want 0.25", got)
	}
}

// A superlative over a table compares the rows' values in the column the
// question names; a row's name that holds the head noun ("Port City")
// is a candidate, not the question's entity.
func TestExtractiveTableSuperlative(t *testing.T) {
	table := "Harbour | Tonnage | Berths\n" +
		"Port City | 20,116,842 | 12\n" +
		"Kestrel Bay | 19,210,000 | 40\n" +
		"North Mole | 15,796,450 | 7\n"
	tab := graph.Node{ID: "h#0", Doc: "harbours", Modality: graph.ModalityTable, Caption: "Table 1: Largest harbours by tonnage", Content: table}
	for _, c := range []struct{ q, want string }{
		{"Which harbour has the largest tonnage?", "Port City"},
		{"Which harbour has the smallest tonnage?", "North Mole"},
		{"Which harbour has the most berths?", "Kestrel Bay"},
	} {
		ans := readNodes(t, c.q, tab)
		if !strings.HasPrefix(ans.Text, c.want) {
			t.Errorf("%q: got %q (confidence %.2f), want %q", c.q, ans.Text, ans.Confidence, c.want)
		}
	}
	if superlative("Which is the lowest?") != -1 || superlative("Which is the highest?") != 1 || superlative("Which port?") != 0 {
		t.Error("superlative: wrong direction")
	}
	if v, ok := cellValue("$1,250.5 (est.)"); !ok || v != 1250.5 {
		t.Errorf("cellValue = %v, %v; want 1250.5", v, ok)
	}
}

// A preposition the question uses binds the value after a question term
// ("based on BART" for "On which model is TAPEX based?"), as "is" and
// "to" do.
func TestExtractivePrepositionKey(t *testing.T) {
	q := analyse("On which model is TAPEX based?")
	ws := wordsOf("TAPEX is an end-to-end system based on BART, and we combine it with LLaMA2.")
	if !keyed(ws, 7, q) {
		t.Errorf("keyed(%q) = false, want true", ws[7].text)
	}
	if keyed(ws, 13, q) {
		t.Errorf("keyed(%q) = true, want false", ws[13].text)
	}
	if q := analyse("Which model do they use?"); keyed(ws, 7, q) {
		t.Error("a preposition the question does not use binds nothing")
	}
}
