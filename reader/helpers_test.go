package reader

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/flow"
	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/internal/fixture"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/score"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The harbour-survey fixture is shared with the root package's System-2
// tests (internal/fixture).
func fixtureNodes() []graph.Node             { return fixture.Nodes() }
func fixtureGraph(t testing.TB) *graph.Graph { return fixture.Graph(t) }
func chainsN(n int) []flow.Chain             { return fixture.Chains(n) }
func defaultScript() fixture.Script          { return fixture.DefaultScript() }
func fixtureScores(g *graph.Graph) *score.Scores {
	h := fixture.Relevance(len(g.Nodes))
	return &score.Scores{H: h, R: h}
}

// Markers that tell the kinds of prompt apart.
const (
	mWorker   = fixture.MarkWorker
	mQType    = fixture.MarkQType
	mReasoner = fixture.MarkReasoner
	mJudge    = fixture.MarkJudge
	mBridge   = fixture.MarkBridge
	mEdge     = fixture.MarkEdge
)

func renderRequest(req *llm.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "temperature=%g top_p=%g schema=%q\n", req.Temperature, req.TopP, req.SchemaName)
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "== %s\n", m.Role)
		for _, p := range m.Parts {
			if p.Image != nil {
				fmt.Fprintf(&b, "[image %s, %d bytes]", p.Image.MIME, len(p.Image.Data))
				continue
			}
			b.WriteString(p.Text)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden file (run go test -update after checking):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}
