package score

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flowreader/flowreader/graph"
	"github.com/flowreader/flowreader/llm"
	"github.com/flowreader/flowreader/llm/local"
)

// dataDir returns ../shared/data next to the module root, or "" when absent.
func dataDir(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
			if _, err := os.Stat(d); err == nil {
				return d
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// TestPaperTabReal scores PaperTab questions over their main paper and
// distractors (one node per paragraph, embedded with the local GloVe
// embedder) and checks the classic and aspect signals on real data: ranges,
// MMR equal to its definition, and how much of MMR's brute-force work the
// bound saves.
func TestPaperTabReal(t *testing.T) {
	root := dataDir(t)
	if root == "" {
		t.Skip("../shared/data not present")
	}
	base := filepath.Join(root, "visdombench")
	f, err := os.Open(filepath.Join(base, "paper_tab.dev.jsonl"))
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	emb := local.Embedder()
	ctx := context.Background()
	questions := 6
	if testing.Short() {
		questions = 2
	}
	for q := 0; q < questions && sc.Scan(); q++ {
		var rec struct {
			Question, Documents string
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		var nodes []graph.Node
		var texts []string
		for _, d := range strings.Split(strings.Trim(rec.Documents, "[]"), ", ") {
			d = strings.TrimSuffix(strings.Trim(d, "'"), ".pdf")
			b, err := os.ReadFile(filepath.Join(base, "paper_tab_docs", d+".txt"))
			if err != nil {
				t.Skip(err)
			}
			for _, line := range strings.Split(string(b), "\n") {
				if len(line) > 40 && !strings.HasPrefix(line, "#") {
					nodes = append(nodes, graph.Node{Doc: d, Content: line})
					texts = append(texts, line)
				}
			}
		}
		vs, err := emb.Embed(ctx, texts, llm.KindDocument)
		if err != nil {
			t.Fatal(err)
		}
		flat := make([]float32, 0, len(vs)*emb.Dimension())
		for _, v := range vs {
			flat = append(flat, v...)
		}
		var edges []graph.Edge
		for i := 0; i+1 < len(nodes); i++ {
			if nodes[i].Doc == nodes[i+1].Doc {
				edges = append(edges, graph.Edge{U: int32(i), V: int32(i + 1), Kind: graph.EdgeOrder})
			}
		}
		g := mustGraph(t, nodes, emb.Dimension(), flat, edges)
		ix := NewIndex(g)
		qv, err := emb.Embed(ctx, []string{rec.Question}, llm.KindQuery)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []Config{classicConfig(), Config{}, paperAspects()} {
			s, err := ix.Score(c, Query{Text: rec.Question, Embedding: qv[0]})
			if err != nil {
				t.Fatal(err)
			}
			checkRanges(t, s)
			if !c.Fusion && slices.Max(s.H) != 1 {
				t.Errorf("max h = %v", slices.Max(s.H))
			}
			if !c.Fusion {
				continue
			}
			got, evals := mmr(g, s.H, [][]float64{s.Cos, ix.meanCos}, 8, 0.7, nil)
			if want := naiveMMR(g, s.H, 8, 0.7); !slices.Equal(got, want) || !slices.Equal(s.Sources, want) {
				t.Errorf("q%d: MMR %v, definition %v", q, got, want)
			}
			t.Logf("q%d: %d nodes, MMR evaluated %d nodes exactly (brute force: %d)", q, len(g.Nodes), evals, 7*len(g.Nodes))
		}
	}
}
