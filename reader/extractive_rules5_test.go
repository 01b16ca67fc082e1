package reader

import (
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

func textNode(id, content string) graph.Node {
	return graph.Node{ID: id, Doc: "notes", Modality: graph.ModalityText, Content: content}
}

// "Which two NOUN …": the count is how many names the answer lists; the
// noun asked for is the one after it.
func TestAnalyseCountBeforeNoun(t *testing.T) {
	q := analyse("Which two fact checking datasets are re-purposed?")
	if q.kind != kindName || q.head != "dataset" || !q.plural {
		t.Errorf("analyse: kind %s, head %q, plural %v; want name, dataset, plural", q.kind, q.head, q.plural)
	}
	if q := analyse("Which 3 metrics are reported?"); q.head != "metric" || !q.plural {
		t.Errorf("analyse: head %q, plural %v; want metric, plural", q.head, q.plural)
	}
}

// "What share of …" is answered by a percentage, not by a count that
// stands nearer the question's words.
func TestExtractiveShareIsPercentage(t *testing.T) {
	ans := readNodes(t, "What share of the households is visited in each region of the survey?",
		textNode("s#0", "The survey visited one of the households in each region twice. "+
			"Across the survey, 70% of households were visited in person and the rest were called."))
	if !strings.Contains(ans.Text, "70%") || strings.HasPrefix(ans.Text, "one") {
		t.Errorf("got %q (confidence %.2f), want the passage of 70%%", ans.Text, ans.Confidence)
	}
	ws := wordsOf("about 0.6 of the runs, 60 percent, 60% and 12 runs")
	if !isShare(ws, 1, 2) || !isShare(ws, 5, 6) || !isShare(ws, 7, 8) || isShare(ws, 9, 10) {
		t.Error("isShare: 0.6, 60 percent and 60% are shares, 12 runs is not")
	}
}

// A setting's identifier that holds the question's noun
// (ARCHIVE_COMPRESSION_TYPE for "compression type") names the setting; it
// is no value of that type.
func TestExtractiveHeadInsideIdentifier(t *testing.T) {
	ans := readNodes(t, "What is the default compression type of the archive cache?",
		textNode("c#0", "The archive cache can be compressed to save disk space.\n\n"+
			"- ARCHIVE_CACHE_TYPE - The compression type for the archive cache.\n\n"+
			"Default is zstd. Other options are lz4 and none."))
	if strings.Contains(ans.Text, "ARCHIVE_CACHE_TYPE") && !ans.LowConfidence() {
		t.Errorf("got a confident %q (confidence %.2f): the setting's name, not its default", ans.Text, ans.Confidence)
	}
	ws := wordsOf("a single Titan V GPU")
	if !nextToHead(ws, 2, 4, "gpu") {
		t.Error("nextToHead: a head noun of its own inside the span counts")
	}
	if ws := wordsOf("set ARCHIVE_CACHE_TYPE now"); nextToHead(ws, 1, 2, "type") {
		t.Error("nextToHead: a head inside an identifier does not count")
	}
}

// "a proxy server such as Nginx": the name after "such as" is an instance
// of the noun before it.
func TestExtractiveSuchAs(t *testing.T) {
	ans := readNodes(t, "Which proxy server is given as an example to expose the daemon?",
		textNode("p#0", "The daemon runs an HTTP server and can be exposed using a proxy server such as Caddy."))
	if c := ans.Citations; len(c) == 0 || c[0].Quote[c[0].Span[0]:c[0].Span[1]] != "Caddy" {
		t.Errorf("got %q, citations %+v: want the span Caddy, not the kind of server (HTTP)", ans.Text, c)
	}
}

// "optimization" holds the question's "optimise": a unit is not left out
// of the candidates because the light stemmer does not fold derivations.
func TestExtractiveDerivedTermCovers(t *testing.T) {
	ans := readNodes(t, "Which solver is used to optimise the rosters?",
		textNode("r#0", "Our planner builds timetables for hospitals. We rely on the Gurobi solver for the optimization of rosters."))
	if ans.Text != "Gurobi" {
		t.Errorf("got %q (confidence %.2f), want Gurobi", ans.Text, ans.Confidence)
	}
	if !holds(map[string]bool{"optimization": true}, "optimise") || holds(map[string]bool{"option": true}, "optimise") {
		t.Error("holds: a shared six-letter start of two long terms holds; a short term does not")
	}
}

// The "s" of a possessive is no term the evidence must hold.
func TestExtractivePossessiveIsNoTerm(t *testing.T) {
	ans := readNodes(t, "Which encoder do Acme's scorers use?",
		textNode("e#0", "Our system ranks passages in two steps. For the scorers, we rely on DeBERTa as encoder."))
	if c := ans.Citations; len(c) == 0 || c[0].Quote[c[0].Span[0]:c[0].Span[1]] != "DeBERTa" {
		t.Errorf("got %q, citations %+v: want the span DeBERTa", ans.Text, c)
	}
}

// Names written in lower case are found by their place: "employ NAME as
// HEAD", and "the WORDS HEAD (Author et al., year)".
func TestExtractiveHeadPhrases(t *testing.T) {
	ans := readNodes(t, "Which encoder do the ranking scorers use?",
		textNode("h#0", "For the ranking scorers, we employ bert-base-uncased (Devlin et al., 2018) as encoder."))
	if c := ans.Citations; len(c) == 0 || c[0].Quote[c[0].Span[0]:c[0].Span[1]] != "bert-base-uncased" {
		t.Errorf("got %q, citations %+v: want the span bert-base-uncased", ans.Text, c)
	}
	ans = readNodes(t, "Which algorithm is used to select the subset?",
		textNode("h#1", "We employ the fast greedy algorithm (Chen et al., 2018) to select the subset, as the problem is NP-hard."))
	if c := ans.Citations; len(c) == 0 || c[0].Quote[c[0].Span[0]:c[0].Span[1]] != "fast greedy" {
		t.Errorf("got %q, citations %+v: want the span fast greedy", ans.Text, c)
	}
	ws := wordsOf("we use the large language model to label them")
	if cs := headPhrases(0, "we use the large language model to label them", ws, "model"); len(cs) != 0 {
		t.Errorf("headPhrases: %v; a description without a citation is no name", cs)
	}
}

// A numbered section heading run into the text holds the question's
// words as a title does; it answers nothing.
func TestExtractiveNumberedHeadingIsNoAnswer(t *testing.T) {
	ans := readNodes(t, "Which dataset is Foo evaluated on?",
		graph.Node{ID: "f#0", Doc: "paper", Section: "5 Experiments", Modality: graph.ModalityText,
			Content: "5.1 Dataset and Evaluation Metrics\n\nFoo is compared with three strong baselines over news, forums and reviews, as described below. " +
				"The dataset of its evaluation is BAR05, a corpus of news."})
	if strings.Contains(ans.Text, "Evaluation Metrics") || !strings.Contains(ans.Text, "BAR05") {
		t.Errorf("got %q (confidence %.2f), want BAR05", ans.Text, ans.Confidence)
	}
	for s, want := range map[string]bool{
		"5.1 Dataset and Evaluation Metrics": true,
		"3 Experimental Setup":               true,
		"1. Install the package.":            false,
		"2 epochs were used":                 false,
		"4 Results on SQuAD and NQ":          true,
	} {
		if got := numberedHeading(s); got != want {
			t.Errorf("numberedHeading(%q) = %v, want %v", s, got, want)
		}
	}
}

// The passage of an unsure value keeps a second passage only when the
// line stays within passageWords words, the " … " between them counted
// as the answer line has it.
func TestExtractivePassageWordsCountTheJoin(t *testing.T) {
	ans := readNodes(t, "What share of the data is used for training in each domain of the case study?",
		textNode("d#0", "In each domain, 60% of data was used for training and 40% for testing."),
		textNode("d#1", "We then report a case study to show that a model trained on other data is not as good as the one trained on own data."))
	if !strings.Contains(ans.Text, "60%") || len(strings.Fields(ans.Text)) > passageWords {
		t.Errorf("got %q (%d words, confidence %.2f), want the passage of 60%% within %d words", ans.Text, len(strings.Fields(ans.Text)), ans.Confidence, passageWords)
	}
}

// The passage of an unsure span whose unit, with the unit before it,
// holds half the question's terms is on topic: a second passage that
// would make the line longer than passageWords words is left out.
func TestExtractiveSpanPassageOnTopic(t *testing.T) {
	ans := readNodes(t, "Which algorithm is used to optimise the DPP subset selection?",
		textNode("g#0", "Choosing the subset is a hard problem. Obviously this is an NP-hard submodular maximization problem (Ko et al., 1995), "+
			"and we employ the fast greedy algorithm (Chen et al., 2018) for optimization in all of our experiments."),
		textNode("g#1", "Three scores are integrated into the kernel matrix, and DPP is used to select an example based on this matrix and on the question."))
	if !strings.Contains(ans.Text, "fast greedy") || len(strings.Fields(ans.Text)) > passageWords {
		t.Errorf("got %q (%d words, confidence %.2f), want the passage of fast greedy within %d words", ans.Text, len(strings.Fields(ans.Text)), ans.Confidence, passageWords)
	}
}

// "Who can grant …" is answered by the agent of the passive verb ("granted
// only by a user with special authority"), and a span written as code
// names no one.
func TestExtractiveAgentOfPassive(t *testing.T) {
	ans := readNodes(t, "Who can grant the VAULT_ADMIN role usage?",
		textNode("v#0", "To see who was granted the VAULT_ADMIN role usage, run: select user_type role_usage role_id=’VAULT_ADMIN’ user_name from vault_roles;"),
		textNode("v#1", "VAULT_ADMIN role usage can be granted only by a user with root special authority and can be given to a group."))
	if ans.Text != "a user with root special authority" {
		t.Errorf("got %q (confidence %.2f), want the agent \"a user with root special authority\"", ans.Text, ans.Confidence)
	}
	ws := wordsOf("can be granted only by a user, and revoked by anyone")
	if !agentAt(ws, 5, analyse("Who can grant it?")) || agentAt(ws, 5, analyse("Who can revoke it?")) {
		t.Error("agentAt: the agent of the question's own verb only")
	}
	if !codeSpan(wordsOf("role_id=’X’")) || codeSpan(wordsOf("Ada Lovelace")) {
		t.Error("codeSpan: an identifier is code, a name is not")
	}
}
