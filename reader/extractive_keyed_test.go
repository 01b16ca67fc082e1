package reader

import (
	"context"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// readNodes answers q over nodes with the extractive reader (no embedder).
func readNodes(t *testing.T, q string, ns ...graph.Node) *Answer {
	t.Helper()
	g, err := graph.New(ns, 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := (&Extractive{}).Read(context.Background(), &Input{Question: q, Graph: g, Chains: allChains(g)})
	if err != nil {
		t.Fatal(err)
	}
	return ans
}

// An expansion found by its form answers an acronym question with
// confidence, though the passage never says "stands for".
func TestExtractiveAcronymFrameWords(t *testing.T) {
	ans := readNodes(t, "What does SQA stand for?",
		graph.Node{ID: "p#0", Doc: "p", Modality: graph.ModalityText, Content: "We leverage four TQA datasets: WikiTableQuestions (WTQ, Pasupat and Liang, 2015), " +
			"WikiSQL (Zhong et al., 2017), Sequential Question Answering (SQA, Iyyer et al., 2017) and TabFact."},
		graph.Node{ID: "p#1", Doc: "p", Modality: graph.ModalityText, Content: "Results on SQA are lower for every model."})
	if ans.Text != "Sequential Question Answering" || ans.LowConfidence() {
		t.Errorf("got %q (confidence %.2f), want a confident \"Sequential Question Answering\"", ans.Text, ans.Confidence)
	}
	q := analyse("What is the full form of SQA?")
	if q.kind != kindAcronym || len(q.terms) != 1 || q.terms[0] != "sqa" {
		t.Errorf("analyse: kind %s, terms %v; want acronym, [sqa]", q.kind, q.terms)
	}
}

// A value written right after the key the question names ("Default: 64")
// wins over the values after it, in prose and in a table's cell, and a
// row's passage is the cell the span is in.
func TestExtractiveKeyedValue(t *testing.T) {
	table := "| Parameter | Description | Value Type | Example Usage |\n|---|---|---|---|\n" +
		"| repeat_last_n | Sets how far back for the model to look back to prevent repetition. (Default: 64, 0 = disabled, -1 = num_ctx) | int | repeat_last_n 64 |\n" +
		"| num_predict | Maximum number of tokens to predict when generating text. (Default: -1, infinite generation) | int | num_predict 42 |\n" +
		"| temperature | The temperature of the model. (Default: 0.8) | float | temperature 0.7 |\n"
	tab := graph.Node{ID: "m#0", Doc: "modelfile", Modality: graph.ModalityTable, Content: table}
	for _, c := range []struct{ q, want string }{
		{"What is the default value of repeat_last_n?", "64"},
		{"How many tokens does num_predict generate by default?", "-1"},
	} {
		ans := readNodes(t, c.q, tab)
		if ans.Text != c.want && !(ans.LowConfidence() && strings.Contains(ans.Text, "(Default: "+c.want)) {
			t.Errorf("%q: got %q (confidence %.2f), want %q", c.q, ans.Text, ans.Confidence, c.want)
		}
	}
	ans := readNodes(t, "How many draft tokens do separate draft models default to?",
		graph.Node{ID: "d#0", Doc: "d", Modality: graph.ModalityText, Content: "Separate draft models default to 4 tokens; 0 disables drafting, and at most 16 are kept."})
	if ans.Text != "4 tokens" && ans.Text != "4" {
		t.Errorf("got %q (confidence %.2f), want 4", ans.Text, ans.Confidence)
	}
	// The key is a question term: a number after another key is no answer.
	ws := wordsOf("Default: 64, size = 8, 0 = disabled")
	q := analyse("What is the default size?")
	for a, want := range map[int]bool{1: true, 4: true, 5: false, 7: false} {
		if got := keyed(ws, a, q); got != want {
			t.Errorf("keyed(%q) = %v, want %v", ws[a].text, got, want)
		}
	}
}

// A web address or Markdown link syntax is no name, unless the question
// asks for a link; a lone letter ("There's") adds nothing to a span of
// the question's own words.
func TestExtractiveLinksAndOwnWords(t *testing.T) {
	ans := readNodes(t, "What coercibility does the collation of a column have?",
		graph.Node{ID: "s#0", Doc: "slides", Modality: graph.ModalityText, Content: "The collation of a column has coercibility Implicit. " +
			"(From https://dev.mysql.com/doc/refman/8.0/en/charset-collation-coercibility.html)"})
	if strings.Contains(ans.Text, "://") && !ans.LowConfidence() {
		t.Errorf("answered with the address: %q", ans.Text)
	}
	for span, want := range map[string]bool{"https://example.com/a": true, "bug](github/gh-ost/issues/687": true, "www.example.com": true, "Gh-ost": false} {
		if isLink(span) != want {
			t.Errorf("isLink(%q) = %v", span, !want)
		}
	}
	q := analyse("Which schema migration tool has a known breaking bug on MySQL 8?")
	ws := wordsOf("MySQL 8 There's")
	if !own(ws, 0, len(ws), q) {
		t.Error(`"MySQL 8 There's" is not the question's own words`)
	}
	if own(ws, 0, 1, analyse("Which database is used?")) {
		t.Error(`"MySQL" is the question's own words in a question without it`)
	}
}

// A long passage (a slide's text, with no sentence ends) is cut to the
// span and passageSide words each side; a short one is left whole.
func TestAround(t *testing.T) {
	long := strings.Repeat("filler words here ", 20) + "We start each migration process around 6 months after GA " + strings.Repeat("more text follows ", 20)
	i := strings.Index(long, "around 6 months")
	got, ok := around(long, [2]int{i, i + len("around 6 months")})
	if !ok || !strings.Contains(got, "around 6 months") || len(strings.Fields(got)) != 3+2*passageSide || !strings.Contains(long, got) {
		t.Errorf("around = %q, %v", got, ok)
	}
	if _, ok := around("We start around 6 months after GA.", [2]int{9, 24}); ok {
		t.Error("cut a short passage")
	}
	// Through Read: the low-confidence answer line of a long unit is cut.
	ans := readNodes(t, "How long after GA does Ticketsolve start each MySQL migration?",
		graph.Node{ID: "s#0", Doc: "slides", Modality: graph.ModalityText, Content: "Ticketsolve " + long})
	if n := len(strings.Fields(ans.Text)); n > passageWords || !strings.Contains(ans.Text, "6 months") {
		t.Errorf("answer %q (%d words, confidence %.2f)", ans.Text, n, ans.Confidence)
	}
}

// The authors and year of a citation are not the model or dataset it
// cites: "BART (Lewis et al., 2019)" answers with BART.
func TestInCitation(t *testing.T) {
	raw := "TAPEX (Liu et al., 2021) is based on BART (Lewis et al., 2019); WikiSQL (Pasupat and Liang, 2015), OmniTab (Jiang et al., 2022b) and ACE05 (ACE05; Doddington et al., 2004)."
	for span, want := range map[string]bool{"Liu": true, "Lewis": true, "Pasupat": true, "2022b": true, "Doddington": true,
		"BART": false, "TAPEX": false, "WikiSQL": false} {
		i := strings.Index(raw, span)
		if got := inCitation(raw, i, i+len(span)); got != want {
			t.Errorf("inCitation(%q) = %v, want %v", span, got, want)
		}
	}
	i := strings.Index(raw, "ACE05;")
	if inCitation(raw, i, i+len("ACE05")) {
		t.Error(`"ACE05" before the authors is cited as the authors`)
	}
	ans := readNodes(t, "On which model is TAPEX based?",
		graph.Node{ID: "p#0", Doc: "p", Modality: graph.ModalityText, Content: "TAPEX (Liu et al., 2021) is an end-to-end TQA system based on BART (Lewis et al., 2019)."})
	if !strings.Contains(ans.Text, "BART") || strings.HasPrefix(ans.Text, "Liu") || strings.HasPrefix(ans.Text, "Lewis") {
		t.Errorf("got %q (confidence %.2f), want BART", ans.Text, ans.Confidence)
	}
}

// Two spans of one value ("131" in a table, "131 km/h" in a sentence) are
// one answer: the confidence's margin is taken to the best different
// answer. A cell under a column named by the question's noun is the
// property's value.
func TestExtractiveSameValueTwice(t *testing.T) {
	for a, want := range map[[2]string]bool{{"131", "131 km/h"}: true, {"131 km/h", "131"}: true, {"131", "1310"}: false,
		{"96", "131 km/h"}: false, {"Storm Elda", "storm elda"}: true, {"", "131"}: false} {
		if got := sameAnswer(a[0], a[1]); got != want {
			t.Errorf("sameAnswer(%q, %q) = %v", a[0], a[1], got)
		}
	}
	ans := readNodes(t, "What was the peak gust?",
		graph.Node{ID: "t#0", Doc: "station", Modality: graph.ModalityTable,
			Content: "| Storm | Date | Peak gust (km/h) | Surge (m) |\n|---|---|---|---|\n| Storm Elda | 14 May | 131 | 2.1 |\n| Storm Abel | 9 January | 96 | 0.8 |\n| Storm Iris | 2 November | 104 | 1.2 |"},
		graph.Node{ID: "t#1", Doc: "station", Modality: graph.ModalityText, Content: "Its peak gust of 131 km/h was measured by the new anemometer after the old one failed."})
	if ans.LowConfidence() || !strings.Contains(ans.Text, "131") {
		t.Errorf("got %q (confidence %.2f), want a confident 131", ans.Text, ans.Confidence)
	}
}
