package flowreadertest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/flowreader/flowreader"
	"github.com/flowreader/flowreader/flowreadertest"
	"github.com/flowreader/flowreader/llm/fake"
	"github.com/flowreader/flowreader/pgstore"
)

// report stands in for the *testing.T of a test, so that the examples can
// show what a failing assertion says: any value with Errorf and FailNow is a
// flowreadertest.TB.
// It prints dir (a temporary folder) as $DIR.
type report struct{ dir string }

func (r report) Errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if r.dir != "" {
		msg = strings.ReplaceAll(msg, r.dir, "$DIR")
	}
	fmt.Println("FAIL: " + msg)
}

func (report) FailNow() { panic("FailNow") }

// harbour is a three-document collection: two survey notes and a storm log.
func harbour() []string {
	return []string{
		"survey-2024", "The North Mole colony held 310 tern nests in 2024.\n\nGulls nested on the South Pier.",
		"survey-2025", "After the storm the North Mole colony fell to 248 tern nests in 2025.\n\nThe South Pier was closed for repairs.",
		"storms", "Storm Elin flooded the East Arm on 3 March 2025.\n\nIts peak gust was 41 metres per second.",
	}
}

// In a test, t is the test's *testing.T; here it is report.
func Example() {
	t := report{}
	ix := flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Passages(harbour()...))

	q := "How many tern nests did the North Mole hold in 2025?"
	fmt.Println(flowreadertest.EvidenceContains(t, ix, q, "248 tern nests"))
	fmt.Println(flowreadertest.ReadsAtMost(t, ix, q, 16))
	fmt.Println(flowreadertest.Cites(t, ix, q, "survey-2025"))
	// Output:
	// true
	// true
	// true
}

// A failing assertion says what the evidence held.
func ExampleReadsAtMost_failure() {
	t := report{}
	ix := flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Passages(harbour()...))
	ok := flowreadertest.ReadsAtMost(t, ix, "What was the peak gust of Storm Elin?", 1)
	fmt.Println(ok)
	// Output:
	// FAIL: flowreadertest: the evidence for "What was the peak gust of Storm Elin?" has 4 nodes, more than 1:
	// 	1. storms#1 [storms] "Its peak gust was 41 metres per second."
	// 	2. storms#0 [storms] "Storm Elin flooded the East Arm on 3 March 2025."
	// 	3. survey-2025#0 [survey-2025] "After the storm the North Mole colony fell to 248 tern nests in 2025."
	// 	4. survey-2024#0 [survey-2024] "The North Mole colony held 310 tern nests in 2024."
	// false
}

// Evidence lists the nodes that would be read, for assertions of your own.
func ExampleEvidence() {
	t := report{}
	ix := flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Passages(harbour()...))
	ev := flowreadertest.Evidence(t, ix, "What was the peak gust of Storm Elin?")
	fmt.Println(ev[0].Doc, len(ev))
	// Output:
	// storms 4
}

// A small fixture folder (Markdown and text here; MinerU folders and PDFs
// too) in one call.
func ExampleFolder() {
	t := report{}
	ix := flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Folder(t, "testdata/fixture"))
	fmt.Println(flowreadertest.Cites(t, ix, "How high was the spring tide at the harbour gauge?", "tides.txt"))
	// Output:
	// true
}

// Open takes a Config: here the scripted model and hashing embedder of
// llm/fake, so that the test exercises the VLM reader's path (workers and
// reasoner) without a server.
func ExampleOpen() {
	t := report{}
	m := &fake.Model{Default: `{"status":"not_reported","answer":"","evidence":""}`}
	m.Rules = append(m.Rules, fake.Rule{Contains: "<output>", Reply: "<output>41 m/s</output>"}) // the reasoner's prompt asks for <output>
	m.Rules = append(m.Rules, fake.Rule{Contains: "Its peak gust was 41", Reply: `{"status":"supported","answer":"41 m/s","evidence":"Its peak gust was 41 metres per second."}`})
	ix := flowreadertest.Open(t, flowreader.Config{Model: m, Embedder: &fake.Embedder{Dim: 128}}, flowreadertest.Passages(harbour()...))

	res, err := ix.Ask(context.Background(), "What was the peak gust of Storm Elin?", flowreader.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text, res.Trace.Reader, len(m.Calls()) > 0)
	// Output:
	// 41 m/s vlm true
}

// PostgreSQL gives a test its own PostgreSQL server: pass the URL to
// pgstore.Open (or pgx) and the server is gone after the test.
func ExamplePostgreSQL() {
	test := func(t *testing.T) {
		url := flowreadertest.PostgreSQL(t)
		s, err := pgstore.Open(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		cs, err := s.Collections(t.Context())
		if err != nil || len(cs) != 0 {
			t.Fatalf("a new database has collections %v (%v)", cs, err)
		}
	}
	_ = test // in a _test.go file: func TestStore(t *testing.T) { ... }
}
