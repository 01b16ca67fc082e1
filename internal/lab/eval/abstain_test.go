package eval

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/flowreader/flowreader"
)

// TestQASPERAbstention measures the offline reader's abstention on the
// QASPER dev slice (docs/offline-reader.md quotes its log line): how often
// it answers nothing to questions every annotator marked unanswerable, to
// questions none did, and to an off-topic question asked of every paper.
// The bounds guard the rule's behaviour: an off-topic question is nearly
// always refused, an answerable one nearly never.
func TestQASPERAbstention(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a graph per QASPER dev paper")
	}
	path := filepath.Join(sharedData(t), "qasper", "qasper-test-v0.3.dev-slice.json")
	a, err := QASPERAbstention(context.Background(), path, flowreader.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rate := func(n, of int) float64 { return 100 * float64(n) / float64(max(of, 1)) }
	t.Logf("papers %d; unanswerable: %d/%d abstained (%.1f%%); answerable: %d/%d falsely abstained (%.1f%%); off-topic %q: %d/%d abstained (%.1f%%)",
		a.Papers, a.Abstained, a.Unanswerable, rate(a.Abstained, a.Unanswerable),
		a.FalseAbstained, a.Answerable, rate(a.FalseAbstained, a.Answerable),
		OffTopicQuestion, a.OffTopicAbstained, a.OffTopic, rate(a.OffTopicAbstained, a.OffTopic))
	for _, x := range a.Answered {
		t.Logf("answered unanswerable %s: %.100q", x[0], x[1])
	}
	for _, x := range a.Refused {
		t.Logf("refused answerable %s", x)
	}
	if a.Unanswerable == 0 || a.Answerable == 0 {
		t.Fatalf("no questions of a kind: %+v", a)
	}
	if r := rate(a.OffTopicAbstained, a.OffTopic); r < 80 {
		t.Errorf("off-topic abstention %.1f%%, want at least 80%%", r)
	}
	if r := rate(a.FalseAbstained, a.Answerable); r > 5 {
		t.Errorf("false abstention %.1f%% on answerable questions, want at most 5%%", r)
	}
}
