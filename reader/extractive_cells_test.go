package reader

import (
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
)

// shipments is a ledger whose rows are found by a key the question names
// (the shipment number) and whose columns hold a date, a name and an
// amount; no column's header is a word of the questions below except
// "shipped".
const shipments = "Shipment | Shipped | Carrier | Weight (kg)\n" +
	"S-0101 | 03/14/2024 | NORTHLINE FREIGHT TRUCK | 1,250.00\n" +
	"S-0102 | 03/18/2024 | HARBOR EXPRESS VAN | 310.50\n" +
	"S-0103 | 04/02/2024 | NORTHLINE FREIGHT TRUCK | 2,004.75\n"

func shipmentsNode() graph.Node {
	return graph.Node{ID: "s#0", Doc: "ledger", Modality: graph.ModalityTable, Content: shipments}
}

// A row that names the question's key is read by the answer type the
// question asks for: a date for "when", a name for "which", an amount
// for "how much"; a cell of another type in that row is no confident
// answer.
func TestExtractiveCellTypeInNamedRow(t *testing.T) {
	cases := []struct{ q, want, not string }{
		{"When did shipment S-0102 leave?", "03/18/2024", "310.50"},
		{"Which van carried the shipment S-0102?", "HARBOR EXPRESS VAN", "03/18/2024"},
		{"How much did shipment S-0102 weigh?", "310.50", "03/18/2024"},
	}
	for _, c := range cases {
		ans := readNodes(t, c.q, shipmentsNode())
		cit := ans.Citations[0]
		if span := cit.Quote[cit.Span[0]:cit.Span[1]]; span != c.want {
			t.Errorf("%q: span %q (answer %q, confidence %.2f), want %q", c.q, span, ans.Text, ans.Confidence, c.want)
		}
		if strings.Contains(ans.Text, c.not) && !ans.LowConfidence() {
			t.Errorf("%q: confident %q holds a cell of another type", c.q, ans.Text)
		}
	}
}

// A date, a year, an amount and text are told apart by their form.
func TestCellKind(t *testing.T) {
	cases := map[string]int{
		"05/28/2019": cellDate, "2019-05-28": cellDate, "28.05.2019": cellDate, "Feb 24, 2017": cellDate,
		"Fri, Feb 24, 2017": cellDate, "24 May 2019": cellDate, "2019": cellYear, "1,250.00": cellNumber,
		"1.35 - 1.42": cellNumber, "$3.50": cellNumber, "3/4": cellNumber, "May": cellText,
		"CITY BANK CARD": cellText, "": cellText, "March madness 5": cellText,
	}
	for c, want := range cases {
		if got := cellKind(c); got != want {
			t.Errorf("cellKind(%q) = %d, want %d", c, got, want)
		}
	}
}

// The cell where the row the question names meets the column it names is
// the answer, not the same column of a row the question does not name:
// "total" names both the Total row and the Total column.
func TestExtractiveTotalsRowAndColumn(t *testing.T) {
	table := "Region | Adults | Children | Total\n" +
		"North | 1,200 | 300 | 1,500\n" +
		"South | 800 | 150 | 950\n" +
		"Islands | 40 | 9 | 49\n" +
		"Total | 2,040 | 459 | 2,499\n"
	ans := readNodes(t, "What is the total number of visitors?", graph.Node{ID: "v#0", Doc: "visitors", Modality: graph.ModalityTable, Content: table})
	cit := ans.Citations[0]
	if span := cit.Quote[cit.Span[0]:cit.Span[1]]; span != "2,499" {
		t.Errorf("span %q (answer %q), want 2,499 (the Total row's Total)", span, ans.Text)
	}
}

// A row that sets only its first cell (and at most one stray cell) over
// fuller rows is a section label: it names the rows under it up to the
// next label, and holds no answer of its own.
func TestSectionLabelRows(t *testing.T) {
	table := "Market | This week | Last week | Axis\n" +
		"Oats ($/bu) |  |  | 4.00\n" +
		"Dakota | 3.10 | 3.05 | 3.50\n" +
		"Prairie | 3.20 | 3.15\n" +
		"Barley ($/bu) |  |  | 3.00\n" +
		"Dakota | 5.40 | 5.35 | 2.50\n" +
		"Total | | | 17.10\n"
	us := textUnits(table, true)
	if len(us) != 6 {
		t.Fatalf("%d units, want 6", len(us))
	}
	want := []struct {
		group string
		label bool
	}{{"", true}, {"Oats ($/bu)", false}, {"Oats ($/bu)", false}, {"", true}, {"Barley ($/bu)", false}, {"Barley ($/bu)", false}}
	for i, w := range want {
		if us[i].group != w.group || us[i].label != w.label {
			t.Errorf("row %d %q: group %q label %v, want %q %v", i, us[i].raw, us[i].group, us[i].label, w.group, w.label)
		}
	}
	ans := readNodes(t, "What is the price of barley in Dakota this week?", graph.Node{ID: "m#0", Doc: "market", Modality: graph.ModalityTable, Content: table})
	cit := ans.Citations[0]
	if span := cit.Quote[cit.Span[0]:cit.Span[1]]; span != "5.40" {
		t.Errorf("span %q of %q (answer %q), want 5.40 (Dakota under Barley)", span, cit.Quote, ans.Text)
	}
	if !strings.Contains(ans.Text, "Barley ($/bu) — Dakota") && !strings.Contains(ans.Text, "5.40") {
		t.Errorf("answer %q does not name the row by its label", ans.Text)
	}
	// A label is followed by a row that sets two cells more; a row with a
	// blank above a row with one more value is a row.
	if us := textUnits("| Item | Price | Note |\n| Oats | | |\n| Dakota | 3.10 | |\n", false); us[0].label || us[1].group != "" {
		t.Errorf("a row with a blank is read as a label: %+v", us)
	}
}

// In "Which NOUN VERB the/for …" the verb after the noun is not the
// noun asked for.
func TestAnalyseVerbAfterNoun(t *testing.T) {
	cases := []struct{ q, kind, head string }{
		{"Which card paid for the order?", kindName, "card"},
		{"Which agency publishes the weekly report?", kindName, "agency"},
		{"Which proxy server is given as an example?", kindName, "server"},
		// After an auxiliary the run is a noun phrase: "price" is its noun.
		{"What was the oat price in Dakota?", kindNumber, "price"},
		// A kind's noun is never taken for a verb.
		{"Which model scores the highest?", kindNumber, "score"},
		{"Which version of the tool is current?", kindNumber, "version"},
	}
	for _, c := range cases {
		q := analyse(c.q)
		if q.kind != c.kind || q.head != c.head {
			t.Errorf("%q: kind %s head %q, want %s %q", c.q, q.kind, q.head, c.kind, c.head)
		}
	}
}

// "RQs" is the plural of "RQ" (too short for stem to fold).
func TestTokensPluralAcronym(t *testing.T) {
	cases := map[string]string{
		"precision on RQs":           "precision rq",
		"its RQ column":              "rq column",
		"the LLMs' outputs":          "llm outputs",
		"DOS and AWS":                "dos aws",
		"the s-curve and an s value": "s curve s value",
	}
	for in, want := range cases {
		if got := strings.Join(tokens(in), " "); got != want {
			t.Errorf("tokens(%q) = %q, want %q", in, got, want)
		}
	}
}

// A value bound to the question's term by the question's preposition
// and an article ("trained on the Penn corpus") is keyed as one without
// the article is.
func TestExtractiveKeyedThroughArticle(t *testing.T) {
	doc := graph.Node{ID: "p#0", Doc: "paper", Modality: graph.ModalityText, Content: "Secondly, the tagger measures Label Agreement by training twice. " +
		"We train the tagger on the Harbor Treebank (HTB; Smith et al., 2004) corpus, which has news text. " +
		"Results on the Harbor Treebank corpus show the tagger is robust."}
	ans := readNodes(t, "Which corpus is the tagger trained on?", doc)
	if !strings.Contains(ans.Text, "Harbor Treebank") || strings.Contains(ans.Text, "Label Agreement") && !ans.LowConfidence() {
		t.Errorf("got %q (confidence %.2f), want Harbor Treebank", ans.Text, ans.Confidence)
	}
	q := analyse("Which corpus is the tagger trained on?")
	ws := wordsOf("We train the tagger on the Harbor Treebank corpus")
	if !keyed(ws, 6, q) || keyed(ws, 2, q) {
		t.Error("keyed: the value after 'tagger on the' is keyed, the word after 'train' is not")
	}
}

// Two rows of equal score whose cells under the column the question
// names tie, but one row is named by the question too: its cell wins.
func TestCellCandsNamedRow(t *testing.T) {
	q := analyse("What is the total number of visitors?")
	header := []string{"Region", "Adults", "Total"}
	row := func(cells ...string) scored {
		return scored{u: unit{kind: unitRow, header: header, cells: cells}, eff: 0.5, ctx: map[string]bool{}}
	}
	idf := map[string]float64{"total": 1, "number": 1, "visitor": 1}
	best := func(s scored) float64 {
		top := 0.0
		for _, c := range cellCands(0, s, q, idf, 1, nil) {
			if c.text == s.u.cells[2] {
				top = c.score
			}
		}
		return top
	}
	named, other := best(row("Total", "2,040", "2,499")), best(row("Islands", "40", "49"))
	if named <= other {
		t.Errorf("the Total row's Total scores %.3f, an unnamed row's %.3f: want the named row ahead", named, other)
	}
}

// A cell's certainty counts the question's terms in its row and its own
// column, not in the other columns' headers: the row that names the key
// is not enough to trust any of its cells.
func TestCellCoverage(t *testing.T) {
	us := textUnits(shipments, true)
	q := analyse("When was shipment S-0102 shipped?")
	idf := map[string]float64{}
	for _, t := range q.terms {
		idf[t] = 1
	}
	s := scored{u: us[1], ctx: map[string]bool{}}
	date, weight := cellCoverage(q, s, 2, idf), cellCoverage(q, s, 4, idf)
	if date != 1 || weight >= date {
		t.Errorf("coverage of the Shipped cell %.2f, of the Weight cell %.2f: want 1 and less", date, weight)
	}
}

// A table found without a header (columns named by position) reads its
// value columns by the header of the nearest earlier table of the same
// document with as many columns: a report prints its header once.
func TestExtractiveBorrowedHeader(t *testing.T) {
	first := graph.Node{ID: "r#0", Doc: "report", Order: 0, Modality: graph.ModalityTable, Content: "Oats ($/bu) | This week | Last week | Year ago\n" +
		"Dakota | 3.10 | 3.05 | 2.80\nPrairie | 3.20 | 3.15 | 2.90\n"}
	chart := graph.Node{ID: "r#1", Doc: "report", Order: 1, Modality: graph.ModalityText, Content: "Chart of oat prices: 2024 2023 5-year average."}
	later := graph.Node{ID: "r#2", Doc: "report", Order: 2, Modality: graph.ModalityTable, Content: "column 1 | column 2 | column 3 | column 4\n" +
		"Rye ($/bu) |  |  | \nDakota | 4.40 | 4.35 | 3.75\nPrairie | 4.50 | 4.45 | 3.95\n"}
	ans := readNodes(t, "What was the price of rye in Dakota a year ago?", first, chart, later)
	cit := ans.Citations[0]
	if span := cit.Quote[cit.Span[0]:cit.Span[1]]; span != "3.75" {
		t.Errorf("span %q of %q (answer %q), want 3.75 (Dakota under Rye, Year ago)", span, cit.Quote, ans.Text)
	}
	g, err := graph.New([]graph.Node{first, chart, later}, 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	us := borrowHeader(g, []int{0, 1, 2}, &g.Nodes[2], units(&g.Nodes[2]))
	if h := us[0].header; strings.Join(h, "|") != "column 1|This week|Last week|Year ago" {
		t.Errorf("borrowed header %q", h)
	}
	// Another document's table, or one of other width, lends nothing.
	other := first
	other.Doc, other.ID = "other", "o#0"
	g2, err := graph.New([]graph.Node{other, later}, 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if us := borrowHeader(g2, []int{0, 1}, &g2.Nodes[1], units(&g2.Nodes[1])); !positional(us[0].header) {
		t.Errorf("a table of another document lent its header: %q", us[0].header)
	}
	if positional([]string{"column 1", "Price"}) || !positional([]string{"column 1", "column 2"}) {
		t.Error("positional")
	}
}
