package reader

import (
	"context"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
)

// A bridging question's answer lies in two nodes: the paragraph names the
// storm's date, the table holds the storm's gust. The extractive reader
// answers with both spans and cites both nodes.
func TestExtractiveBridgingQuestion(t *testing.T) {
	ns := []graph.Node{
		{ID: "a#0", Doc: "a", Modality: graph.ModalityText, Content: "The East Arm lost its tern colony after the storm of 14 May flooded the lower sections."},
		{ID: "b#0", Doc: "b", Modality: graph.ModalityTable, Caption: "Table 2: Storms in 2025.",
			Content: "Storm | Date | Peak gust (km/h)\nAbel | 9 January | 96\nElda | 14 May | 131\nIris | 2 November | 104"},
		{ID: "c#0", Doc: "c", Modality: graph.ModalityText, Content: "Rainfall was highest in November."},
	}
	g, err := graph.New(ns, 1, []float32{1, 1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	chains := []flow.Chain{{Nodes: []int{0, 1}, Flow: 1}, {Nodes: []int{2}, Flow: 1}}
	ans, err := (&Extractive{}).Read(context.Background(), &Input{Question: "What was the peak gust of the storm that flooded the East Arm?", Graph: g, Chains: chains})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ans.Text, "flooded") || !strings.Contains(ans.Text, "131") {
		t.Fatalf("answer %q lacks one of the two spans", ans.Text)
	}
	if len(ans.Citations) < 2 || ans.Citations[0].Node == ans.Citations[1].Node {
		t.Fatalf("want the two nodes cited first, got %+v", ans.Citations)
	}
	// A question the best span answers whole gets one span.
	ans, err = (&Extractive{}).Read(context.Background(), &Input{Question: "When was rainfall highest?", Graph: g, Chains: chains})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ans.Text, "…") {
		t.Fatalf("single-part question got two spans: %q", ans.Text)
	}
}
